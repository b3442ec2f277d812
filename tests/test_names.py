"""The user-facing edge of names, on the real CRG release in a real database: a wrong dish, pair, action or class
is an error with the closest names (never an empty answer), a pair is named the same way on every command,
and a command whose job is to show leaves the database byte for byte unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.errors import InputError, UnknownName, UsageError

BASE, TARGET = "白灼菜心", "白灼秋葵"  # a release pair; the base has recipes, the target reference knowledge only
PER_DISH = 8


@pytest.fixture(scope="module")
def db(tmp_path_factory, crg_dir, release_unparsed) -> str:
    """The release (records, no parsing) plus PER_DISH parsed recipes of the base dish: what explore used to
    compute into (USES, mined pivots, estimated order) when only asked to show."""
    from dishgraph.api import DishGraph
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import read_crg_release

    path = release_unparsed(tmp_path_factory.mktemp("names") / "db")  # the release, unparsed
    release = read_crg_release(crg_dir)
    records = release_records(crg_dir, (BASE,), PER_DISH, release=release)
    with DishGraph.open(db=str(path)) as g:
        parse_and_load(g.store, records, release.glossary, show_progress=False)
    return str(path)


@pytest.fixture(scope="module")
def graph(db):
    from dishgraph.api import DishGraph

    with DishGraph.open(db=db, read_only=True) as g:
        yield g


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, list(args), input=stdin)


# ------------------------------------------------------------------------------------------ the Python API
def test_unknown_dish_names_the_closest(graph):
    for call in (
        lambda: graph.pivots("白灼菜新", TARGET),
        lambda: graph.order_constraints("白灼菜新", "洗净|油菜|"),
        lambda: graph.check_order("白灼菜新", ["切|洋葱|"]),
        lambda: graph.pivots_side_by_side("白灼菜新", TARGET),
        lambda: graph.compare_pivots("白灼菜新", TARGET),
    ):
        with pytest.raises(UnknownName, match=r"unknown dish '白灼菜新'; did you mean .*白灼菜心"):
            call()


def test_unknown_pair_of_known_dishes_names_the_pairs(graph):
    with pytest.raises(UnknownName) as e:
        graph.pivots(BASE, "清炒小白菜")
    msg = str(e.value)
    assert f"no DishPair '{BASE}->清炒小白菜'" in msg and "--new-pair" in msg and "ingest counterfactual" not in msg
    assert f"did you mean {BASE}->{TARGET}?" in msg


def test_unknown_pair_on_an_empty_graph_says_to_load(store):
    from dishgraph.knowledge import names

    with pytest.raises(UnknownName, match="has no dish pairs .*dishgraph ingest counterfactual"):
        names.require_pair(store, BASE, TARGET)


def test_action_written_with_a_surface_form_is_told_its_class(graph):
    with pytest.raises(UnknownName) as e:
        graph.order_constraints(TARGET, "煮|菜心|")
    assert (
        str(e.value)
        == "unknown action '煮|菜心|' (菜心 is an ingredient form of the class 油菜); did you mean 煮|油菜|?"
    )
    with pytest.raises(UnknownName, match=r"unknown ingredient class '菜新'"):
        graph.order_constraints(TARGET, "切|菜新|")
    with pytest.raises(UnknownName, match=r"unknown action 'blah\|\|' \(unknown verb class 'blah'\)"):
        graph.order_constraints(TARGET, "blah")
    with pytest.raises(UsageError, match="is not VERB\\|INGREDIENTS\\|TOOLS"):
        graph.order_constraints(TARGET, "切|洋葱")
    with pytest.raises(UnknownName, match="did you mean 煮\\|油菜\\|"):
        graph.check_order(BASE, ["煮|菜心|"])


def test_known_action_without_constraints_is_an_empty_answer(graph):
    assert graph.order_constraints(TARGET, "淋|蔬菜|") == ([], [])  # a released pivot action, no constraint
    before, after = graph.order_constraints(TARGET, "切(洋葱)")
    assert [c.cause for c in before] == ["去皮|洋葱|"] and {c.effect for c in after} == {"淋|油|", "加入|油|"}


# ------------------------------------------------------------------------------------------ the CLI
def test_cli_wrong_names_exit_1_with_a_suggestion(db):
    cases = {
        ("order", "show", BASE, "切|菜心|"): "unknown action '切|菜心|' (菜心 is an ingredient form of the class 油菜",
        ("order", "show", "白灼菜新", "洗净|油菜|"): "did you mean",
        ("order", "check", "白灼菜新", "菜心洗净"): "unknown dish '白灼菜新'",
        ("pivots", "show", "白灼菜新", TARGET): "unknown dish '白灼菜新'; did you mean",
        ("pivots", "compare", f"{BASE}->白灼秋葵x"): "unknown dish '白灼秋葵x'; did you mean 白灼秋葵?",
        ("explore", "白灼菜新", TARGET, "-o", "/nonexistent/x.html"): "unknown dish '白灼菜新'",
    }
    for args, expected in cases.items():
        r = run(*args, "--db", db)
        assert r.exit_code == 1, (args, r.output)
        assert expected in r.output and "Traceback" not in r.output, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1, r.output


def test_cli_known_action_without_constraint_says_why_and_what_to_run(db):
    r = run("order", "show", TARGET, "淋|蔬菜|", "--db", db)
    lines = r.output.strip().splitlines()
    assert r.exit_code == 0 and lines[0] == f"no order constraint of 淋|蔬菜| in {TARGET}", r.output
    assert "none involving this action; actions that have some: " in " ".join(r.output.split())
    assert "crg-release" in r.output
    # before `order estimate`: the base dish has parsed recipes and no constraint yet
    r = run("order", "show", BASE, "洗净|油菜|", "--db", db)
    assert r.exit_code == 0, r.output
    assert f"{BASE} has none yet: run `dishgraph order estimate {BASE}` (from its {PER_DISH} parsed recipes)" in (
        " ".join(r.output.split())
    )
    r = run("order", "show", TARGET, "淋|蔬菜|", "--source", "estimated", "--db", db)
    assert "has none from estimated, only" in " ".join(r.output.split())


def test_cli_unknown_source_is_a_usage_error_naming_the_sources(db):
    for args in (("order", "show", TARGET, "淋|蔬菜|"), ("order", "check", TARGET, "淋油，切洋葱。")):
        r = run(*args, "--source", "bogus", "--db", db)
        assert r.exit_code == 2, r.output
        want = (
            "unknown constraint source 'bogus': the order constraints' sources are estimated, tested, composed, "
            "crg-release"
        )
        assert want in " ".join(r.output.split())


def test_cli_check_of_text_without_an_action_is_an_error(db, graph):
    r = run("order", "check", BASE, "recipe text", "--db", db)
    assert r.exit_code == 1 and "no order constraint violated" not in r.output, r.output
    assert "no cooking action was read from the text 'recipe text'" in " ".join(r.output.split())
    with pytest.raises(InputError, match="no cooking action was read"):
        graph.check_order(BASE, "   ")


def test_cli_check_says_what_it_checked(db):
    r = run("order", "check", TARGET, "切洋葱，淋油。", "--db", db)
    assert r.exit_code == 0 and "no order constraint violated (2 actions read, " in r.output, r.output
    r = run("order", "check", BASE, "菜心洗净，切段。", "--db", db)  # the base has no constraint yet: said
    assert r.exit_code == 0 and f"run `dishgraph order estimate {BASE}`" in " ".join(r.output.split()), r.output


def test_order_check_dash_reads_stdin(db):
    r = run("order", "check", TARGET, "-", "--db", db, "--json", stdin="淋油，切洋葱。")
    # a violation found: the text came from stdin, not the literal "-"
    data = json.loads(r.stdout)  # the report: violations with the actions read and what they rest on
    assert data["actions"] == 2 and r.exit_code in (0, 4), r.output


def test_every_pair_command_takes_both_forms(db, tmp_path):
    for form in ([BASE, TARGET], [f"{BASE}->{TARGET}"]):
        show = run("pivots", "show", *form, "--db", db, "--json")
        assert show.exit_code == 0 and len(json.loads(show.stdout)) == 4, show.output
        cmp = run("pivots", "compare", *form, "--db", db, "--json")
        assert cmp.exit_code == 0 and json.loads(cmp.stdout)[0]["pair"] == f"{BASE}->{TARGET}", cmp.output
        page = run("explore", *form, "-o", str(tmp_path / "p.html"), "--db", db, "--json")
        assert page.exit_code == 0 and json.loads(page.stdout)["pivots"] == 4, page.output
        csv = run("pivots", "export-annotation", *form, "-o", str(tmp_path / "q.csv"), "--db", db)
        assert csv.exit_code == 0, csv.output


def test_an_unquoted_arrow_gets_the_quoting_hint(db, tmp_path):
    """`dishgraph pivots show A->B` reaches the command as `A-` (the shell redirected to a file B)."""
    for args in (("pivots", "show", f"{BASE}-"), ("explore", f"{BASE}-", "-o", str(tmp_path / "p.html"))):
        r = run(*args, "--db", db)
        assert r.exit_code == 2 and "quote it, 'BASE->TARGET', or give BASE TARGET" in r.output, r.output
    r = run("pivots", "show", BASE, "--db", db)
    assert r.exit_code == 2 and "is not 'BASE->TARGET' (or give BASE TARGET)" in r.output


def test_old_option_names_still_work_with_a_note(db, tmp_path):
    page = tmp_path / "old.html"
    r = run("explore", BASE, TARGET, "--html", str(page), "--db", db)
    assert r.exit_code == 0 and page.exists() and "--html is now --out" in r.output, r.output
    assert "--html" not in run("explore", "--help").output


def test_pivots_show_limits_and_compare_all_leads_with_the_summary(db):
    r = run("pivots", "show", BASE, TARGET, "--limit", "2", "--db", db)
    assert r.exit_code == 0 and "2 more; --limit 0 for all" in r.output
    assert r.output.index("去皮|秋葵 (class 洋葱)|") < r.output.index("2 more")  # released actions first, foods named
    r = run("pivots", "compare", "--all", "--db", db)
    assert r.exit_code == 0 and "(micro)" in r.output and f"{BASE}->{TARGET}" not in r.output
    assert "--per-pair" in r.output
    r = run("pivots", "compare", "--all", "--per-pair", "--db", db)
    assert r.output.index("(micro)") < r.output.index(f"{BASE}->{TARGET}")
    data = json.loads(run("pivots", "compare", "--all", "--db", db, "--json").stdout)
    assert list(data) == ["total", "pairs"] and len(data["pairs"]) == 50


def test_explicit_data_dir_without_the_release_is_refused(tmp_path):
    from dishgraph import config

    with pytest.raises(FileNotFoundError, match=r"--data .*: no CRG release there"):
        config.data_dir(tmp_path)
    r = run("eval", "parse-recall", "--data", str(tmp_path))
    assert r.exit_code != 0 and "no CRG release there" in r.output and len(r.output.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------------ reads never write
def _fingerprint(db: str) -> dict[str, str]:
    """sha256 of the database file and every file beside it (WAL, shadow), the lock file aside."""
    path = Path(db)
    files = [p for p in path.parent.iterdir() if p.name.startswith(path.name) and not p.name.endswith(".lock")]
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(files)}


READS = [  # (command, arguments)
    ("stats", ()),
    ("dish", (BASE,)),
    ("db info", ()),
    ("db check", ()),
    ("db shell", ("MATCH (d:Dish) RETURN count(d) AS n",)),
    ("pivots show", (BASE, TARGET)),
    ("pivots compare", ("--all",)),
    ("pivots export-annotation", (BASE, TARGET, "-o", "{tmp}/q.csv")),
    ("order show", (TARGET, "切|洋葱|")),
    ("order check", (BASE, "菜心洗净，切段。")),
    ("explore", (BASE, TARGET, "-o", "{tmp}/pair.html")),
    ("explore", (BASE, "清炒小白菜", "-o", "{tmp}/bases.html")),
    ("export tables", ("{tmp}/tables",)),
    ("pcs ls", ()),  # (no PCS recipes here: an error, which reads too)
    ("pivots show", ("白灼菜新", TARGET)),  # errors do not write either
]
# Readers of the graph not run here (they need a split, PCS data, a GPU bundle or generated outputs); each
# opens the store read-only in its module.
READS_NOT_RUN = {
    "diner export",
    "diner forms",
    "diner recognize",
    "diner splits",
    "eval crg",
    "eval diner",
    "eval l1",
    "eval l2",
    "export neo4j-import",
    "generate graph",
    "generate run",
    "gpu bundle",
    "pcs flow",
    "pcs table",
    "train lm",
    "train mlm",
}


def test_reads_never_write(db, tmp_path):
    """Every read command leaves the database file unchanged (explore used to mine hundreds of pivots)."""
    before = _fingerprint(db)
    for name, args in READS:
        r = run(*name.split(), *(a.replace("{tmp}", str(tmp_path)) for a in args), "--db", db)
        assert r.exit_code in (0, 1), (name, args, r.output)
        assert _fingerprint(db) == before, f"{name} {' '.join(args)} changed the database"
    page = json.loads(run("explore", BASE, TARGET, "-o", str(tmp_path / "p.html"), "--db", db, "--json").stdout)
    assert page["computed"] == [] and page["notes"][0].startswith("shows what the graph stores (opened read-only")


def test_compute_is_explicit_and_said(db, tmp_path):
    import shutil

    copy = tmp_path / "db"
    shutil.copy(db, copy)
    before = _fingerprint(str(copy))
    r = run("explore", BASE, TARGET, "-o", str(tmp_path / "p.html"), "--db", str(copy), "--compute", "--json")
    assert r.exit_code == 0, r.output
    page = json.loads(r.stdout)
    assert page["computed"] == [f"USES {BASE}", f"order {BASE}"] and _fingerprint(str(copy)) != before
    assert "computed now and stored: USES" in page["notes"][0]


def test_every_command_is_a_reader_or_a_documented_writer():
    """A new command that takes --db must be listed in docs_cli.WRITES or be a reader this file runs."""
    from dishgraph.docs_cli import WRITES, walk

    commands = {c.name.removeprefix("dishgraph "): c for c in walk()}
    with_db = {name for name, c in commands.items() if any(p["name"] == "--db" for p in c.params)}
    assert not set(WRITES) - set(commands), "WRITES names a command that does not exist"
    unclassified = with_db - set(WRITES) - {name for name, _ in READS} - READS_NOT_RUN
    assert not unclassified, f"classify these commands as readers or writers: {sorted(unclassified)}"


def test_one_count_of_pivot_actions_and_of_pivot_edges_everywhere(db, graph, tmp_path):
    """`pivots show` counted actions (460), explore and the API pivot edges (485): each now says which."""
    rows = json.loads(run("pivots", "show", BASE, TARGET, "--db", db, "--json").stdout)
    page = json.loads(run("explore", BASE, TARGET, "-o", str(tmp_path / "p.html"), "--db", db, "--json").stdout)
    edges = graph.pivots(BASE, TARGET)
    assert page["pivot_actions"] == len(rows) == len({p.action for p in edges})
    assert page["pivot_edges"] == len(edges)
    text = " ".join(run("pivots", "show", BASE, TARGET, "--db", db).output.split())
    assert f"({len(rows)} actions)" in text
    from dishgraph.knowledge.pivots import edge_count

    assert edge_count(rows) == len(edges)
