"""Neo4j's own Cypher 5 analyser (npm @neo4j-cypher/language-support) over every statement Neo4j will run.

One node process lints the shipped queries, the DDL and the probes below together (the analyser's warm-up
dominates). The probes prove the linter would catch what the embedded tests cannot: a syntax error, an
undefined variable, a Ladybug-only function, a label outside the schema, an undeclared parameter.
"""

from __future__ import annotations

import pytest

from dishgraph.graph import lint, queries, schema

PROBLEM = lint.linter_problem()
pytestmark = pytest.mark.skipif(
    PROBLEM is not None, reason=f"Cypher linter unavailable: {PROBLEM} (`make test` installs it)"
)

# name -> (text, declared params, expected error rule, a fragment of Neo4j's message)
BROKEN = {
    "probe_syntax": ("MATCH (d:Dish RETURN d.name AS name", ("dish",), "syntax", "Invalid input"),
    "probe_undefined_variable": (
        "MATCH (d:Dish {name: $dish}) RETURN e.name AS name",
        ("dish",),
        "semantic",
        "Variable `e` not defined",
    ),
    "probe_nested_aggregate": (
        "MATCH (d:Dish) RETURN count(count(d)) AS n",
        (),
        "semantic",
        "aggregate functions inside of aggregate functions",
    ),
    "probe_unaliased_with": ("MATCH (d:Dish) WITH d.name RETURN 1 AS x", (), "semantic", "must be aliased"),
    "probe_type_error": ("MATCH (d:Dish) RETURN true + 1 AS y", (), "semantic", "Type mismatch"),
    "probe_ladybug_function": (
        "MATCH (d:Dish) RETURN label(d) AS l",
        (),
        "unknown-function",
        "Function label is not present",
    ),
    "probe_apoc": (
        "RETURN apoc.text.join(['a', 'b'], ',') AS s",
        (),
        "unknown-function",
        "apoc.text.join is not present",
    ),
    "probe_label_outside_schema": ("MATCH (x:Dessert) RETURN x.name AS name", (), "schema-whitelist", "Dessert"),
    "probe_undeclared_param": (
        "MATCH (d:Dish {name: $dish}) RETURN d.name AS name",
        (),
        "undeclared-parameter",
        "$dish",
    ),
}
# Well-formed probes that must stay error-free (a warning at most).
CLEAN = {
    "probe_ok": (
        "MATCH (d:Dish {name: $dish})-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)\n"
        "RETURN r.id AS recipe, s.pos AS pos, s.phrase AS phrase ORDER BY recipe, pos",
        ("dish",),
    ),
    "probe_unknown_property": ("MATCH (d:Dish) RETURN d.colour AS colour", ()),
    # UNWIND rows read inside a node pattern: the package would charge `r.a` to node `a` (worked around).
    "probe_unwind_row": ("UNWIND $rows AS r\nMATCH (a:Step {id: r.a})\nRETURN a.id AS id", ("rows",)),
}


@pytest.fixture(scope="module")
def report():
    probes = [lint.Statement(n, t, p) for n, (t, p, _, _) in BROKEN.items()]
    probes += [lint.Statement(n, t, p) for n, (t, p) in CLEAN.items()]
    shipped = lint.named_statements("neo4j") + lint.ddl_statements()
    rep = lint.lint_statements(shipped + probes)
    return rep, {r.statement.name: r for r in rep.results}, len(shipped)


def test_every_shipped_statement_is_linted(report):
    rep, by_name, n_shipped = report
    assert rep.linter.startswith("@neo4j-cypher/language-support@")
    assert rep.cypher_version == "CYPHER 5"
    assert n_shipped == len(queries.names()) + len(schema.neo4j_ddl())
    for name in queries.names():
        assert name in by_name
    assert sum(1 for n in by_name if n.startswith("ddl:")) == len(schema.neo4j_ddl())


def test_shipped_queries_and_ddl_have_no_errors(report):
    rep, by_name, _ = report
    shipped = [r for r in rep.results if not r.statement.name.startswith("probe_")]
    errors = [f"{r.location(d)}: {d.rule}: {d.message}" for r in shipped for d in r.errors]
    assert not errors, "Neo4j's Cypher 5 analyser rejects shipped statements:\n" + "\n".join(errors)


def test_shipped_query_text_is_exactly_what_neo4j_runs(report):
    _, by_name, _ = report
    for q in queries.for_backend("neo4j"):
        assert by_name[q.name].statement.text == q.text
        assert by_name[q.name].statement.path == q.path


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_linter_catches_broken_queries(report, name):
    _, by_name, _ = report
    _, _, rule, fragment = BROKEN[name]
    errors = by_name[name].errors
    assert errors, f"{name} should fail the lint"
    assert any(d.rule == rule and fragment in d.message for d in errors), [(d.rule, d.message) for d in errors]


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_probes_pass(report, name):
    _, by_name, _ = report
    assert by_name[name].errors == []


def test_unknown_property_is_a_warning_not_an_error(report):
    _, by_name, _ = report
    warnings = by_name["probe_unknown_property"].warnings
    assert [d.rule for d in warnings] == ["schema-property"]
    assert "colour" in warnings[0].message
    assert not any("is not present" in d.message for d in by_name["probe_unwind_row"].diagnostics)


def test_positions_point_into_the_query_file(tmp_path):
    path = tmp_path / "draft_bad.cypher"
    path.write_text(
        "// A draft with an undefined variable on file line 5.\n// params: $dish\n\n"
        "MATCH (d:Dish {name: $dish})\n  RETURN e.name AS name\n",
        encoding="utf-8",
    )
    rep = lint.lint_statements([lint.statement_from_file(path)])
    assert not rep.ok
    (err,) = rep.results[0].errors
    assert (err.line, err.column) == (5, 10)
    assert rep.results[0].location(err).endswith("draft_bad.cypher:5:10")


def test_cli_exit_status(tmp_path, capsys):
    good = tmp_path / "good.cypher"
    good.write_text("// ok\n// params: $dish\nMATCH (d:Dish {name: $dish}) RETURN d.name AS name\n", "utf-8")
    bad = tmp_path / "bad.cypher"
    bad.write_text("// broken\n// params: none\nMATCH (d:Dish RETURN d\n", "utf-8")
    assert lint.main([str(good)]) == 0
    assert lint.main([str(bad), "--errors-only"]) == 1
    out = capsys.readouterr().out
    assert "bad.cypher:3" in out and "FAILED" in out
    assert lint.main([str(tmp_path / "missing.cypher")]) == 2
