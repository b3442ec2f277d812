"""`dishgraph db shell` on the real embedded engine: its listing procedure in the help, "did you mean" for a
label or relationship type the schema lacks, count columns named as written, and a table of capped length."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.graph.shell_hints import column_name, did_you_mean, written_names

N = 130  # dishes: more than the table shows by default


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("shell") / "db")
    names = json.dumps([f"dish{i:03d}" for i in range(N)])
    r = run(
        "db", "shell", "UNWIND $names AS n CREATE (:Dish {name: n})", "-p", f"names={names}", "--write", "--db", path
    )
    assert r.exit_code == 0, r.output
    return path


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_help_names_the_embedded_engines_listing_procedure():
    text = " ".join(run("db", "shell", "--help").output.split())
    assert "CALL show_tables() RETURN *" in text and "on the embedded database" in text


def test_listing_procedure_of_the_help_runs(db):
    r = run("db", "shell", "CALL show_tables() RETURN *", "--db", db, "--json")
    assert r.exit_code == 0 and "Dish" in {x["name"] for x in json.loads(r.output)}, r.output


def test_unknown_label_and_type_are_told_the_closest_schema_name(db):
    r = run("db", "shell", "MATCH (d:Dsh) RETURN d", "--db", db)
    assert r.exit_code == 1 and "did you mean Dish?" in r.output and len(r.output.strip().splitlines()) == 1
    r = run("db", "shell", "MATCH (d:Dish)-[:HAS_RECIPES]->(x) RETURN x", "--db", db)
    assert r.exit_code == 1 and "did you mean HAS_RECIPE?" in r.output, r.output


def test_names_written_in_patterns():
    text = "MATCH (d:Dsh)-[r:HAS_RECIPE|:NEXTT]->(x:Recipe:Foo) MATCH (:Stepp) RETURN d"
    assert written_names(text) == ["Dsh", "Recipe", "Foo", "Stepp", "HAS_RECIPE", "NEXTT"]
    assert did_you_mean(text) == "; did you mean Dish? (Dsh is not a label or relationship type of the schema)"
    assert did_you_mean("MATCH (d:Dish) RETURN d") == ""
    assert "dishgraph db info" in did_you_mean("MATCH (q:Zzzzzz) RETURN q")


def test_count_columns_are_named_as_written(db):
    r = run("db", "shell", "MATCH (d:Dish) RETURN count(*), count(d), count(DISTINCT d)", "--db", db, "--json")
    assert json.loads(r.output) == [{"count(*)": N, "count(d)": N, "count(DISTINCT d)": N}]
    assert column_name("COUNT_STAR()") == "count(*)" and column_name("d.name") == "d.name"


def test_a_long_answer_is_capped_with_a_note(db):
    r = run("db", "shell", "MATCH (d:Dish) RETURN d.name AS name ORDER BY name", "--db", db)
    assert r.exit_code == 0 and "dish099" in r.output and "dish100" not in r.output
    assert f"{N - 100} more rows not shown; --max-rows 0 for all, or --json" in r.output
    r = run("db", "shell", "MATCH (d:Dish) RETURN d.name AS name ORDER BY name", "--max-rows", "0", "--db", db)
    assert f"dish{N - 1}" in r.output and "more rows" not in r.output
    r = run("db", "shell", "MATCH (d:Dish) RETURN d.name AS name", "--db", db, "--json")
    assert len(json.loads(r.output)) == N
