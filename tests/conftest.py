"""Shared fixtures: the real data in ../shared/data and a real embedded database per test."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
if "DISHGRAPH_CACHE" not in os.environ:  # token caches of a test run stay out of the user's ~/.cache
    import atexit
    import shutil
    import tempfile

    os.environ["DISHGRAPH_CACHE"] = tempfile.mkdtemp(prefix="dishgraph-cache-")
    # the process that made it removes it (pytest-xdist's workers inherit the variable and share it)
    atexit.register(shutil.rmtree, os.environ["DISHGRAPH_CACHE"], ignore_errors=True)

import pytest

from dishgraph import config


@pytest.fixture(scope="session")
def release_corpus(crg_dir):
    """A writer of small real corpora: ``release_corpus(path, n)`` writes the first ``n`` base recipes of the
    CRG release to ``path`` as JSONL and returns it."""
    return lambda path, n: _release_corpus(path, crg_dir, n)


def _release_corpus(path, crg_dir, n: int):
    import json

    lines = (crg_dir / "base_recipes.txt").read_text(encoding="utf-8").splitlines()[:n]
    with open(path, "w", encoding="utf-8") as fh:
        for ln in lines:
            dish, _, text = ln.split("\t")
            fh.write(json.dumps({"dish": dish, "text": text}, ensure_ascii=False) + "\n")
    return path


@pytest.fixture(scope="session")
def release_subset(crg_dir):
    """A writer of cut-down CRG releases: ``release_subset(folder, pairs)`` writes to ``folder`` the release with
    only the dish pairs ``pairs`` (a slice of dish_pairs.txt's lines; changing_ingres.txt cut alike, line for
    line), the recipes of their base dishes, and the glossary, pivots, constraints and originals linked as
    released. Returns ``folder``."""
    return lambda folder, pairs: _release_subset(folder, crg_dir, pairs)


def _release_subset(folder, crg_dir, pairs: slice):
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("glossary.json", "pivot_actions.json", "order_constraints.json", "original"):
        (folder / name).symlink_to(crg_dir / name)
    for name in ("dish_pairs.txt", "changing_ingres.txt"):
        lines = (crg_dir / name).read_text(encoding="utf-8").splitlines()[pairs]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    bases = {line.split()[0] for line in (folder / "dish_pairs.txt").read_text(encoding="utf-8").splitlines()}
    recipes = (crg_dir / "base_recipes.txt").read_text(encoding="utf-8").splitlines()
    kept = [line for line in recipes if line.split("\t", 1)[0] in bases]
    (folder / "base_recipes.txt").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def data_dir():
    return config.data_dir()


@pytest.fixture(scope="session")
def crg_dir(data_dir):
    return data_dir / "counterfactual"


@pytest.fixture(scope="session")
def glossary(crg_dir):
    from dishgraph.ingest.glossary import Glossary

    return Glossary.load(crg_dir / "glossary.json")


@pytest.fixture
def store(tmp_path):
    """A fresh, real LadybugDB database on disk."""
    from dishgraph.graph.ladybug_store import LadybugStore

    s = LadybugStore(tmp_path / "db")
    yield s
    s.close()


@pytest.fixture(scope="session")
def base_order_graph(tmp_path_factory, crg_dir, glossary):
    """The release's three largest base dishes parsed into a real embedded graph, with tested constraints: the
    order checks' tests only read it, so one build serves them all. (store, the loaded RecipeRecords)."""
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.knowledge import order
    from dishgraph.testing.base_dishes import load_base_dishes

    store = LadybugStore(tmp_path_factory.mktemp("base-order") / "db")
    recs = load_base_dishes(store, crg_dir, glossary)
    order.estimate_tested(store, min_recipes=5)
    yield store, recs
    store.close()


def built_once(tmp_path_factory, name: str, build):
    """``build(folder)`` run once per test run, whichever test file or pytest-xdist worker asks first; the
    others wait for it and get the same folder and the same (pickled) result. The folder is the run's own
    (pytest's numbered temporary folder, shared by the workers of one run only), so nothing outlives the run
    and nothing of another run is read. Treat the folder as read-only: copy what a test writes to."""
    import fcntl
    import pickle
    import shutil

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder that holds each worker's own
    folder, done = base / f"shared-{name}", base / f"shared-{name}.pickle"
    with open(base / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when a build raises
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed in another worker
            folder.mkdir()
            result = build(folder)
            tmp = done.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(result))
            tmp.replace(done)
        return folder, pickle.loads(done.read_bytes())


@pytest.fixture(scope="session")
def release_lac(tmp_path_factory, crg_dir):
    """The CRG release ingested as `dishgraph ingest counterfactual` does (parsed with lac, 2 workers, bulk
    path) into a fresh database, once per run: ``(database path, the ingest's report)``. The database is
    alone in its folder; open it read-only, or copy the folder (without ``*.lock``) and write to the copy."""
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.crg import ingest_counterfactual

    def build(folder):
        with LadybugStore(folder / "db") as store:
            return ingest_counterfactual(store, crg_dir, segmenter="lac", workers=2, show_progress=False)

    folder, report = built_once(tmp_path_factory, "release-lac", build)
    return folder / "db", report


@pytest.fixture(scope="session")
def release_unparsed(tmp_path_factory, crg_dir):
    """Copies of the CRG release ingested unparsed (``ingest_counterfactual(parse=False)``: dishes, pairs,
    recipes, glossary, the released pivots and constraints), ingested once per run: ``release_unparsed(path)``
    puts a copy at database path ``path`` (its folder made if need be) and returns ``path``. What many test
    files start from: two seconds to ingest, milliseconds to copy (the file's checksum record comes along)."""
    import shutil
    from pathlib import Path

    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.crg import ingest_counterfactual

    def build(folder):
        with LadybugStore(folder / "db") as store:
            ingest_counterfactual(store, crg_dir, parse=False, show_progress=False)

    folder, _ = built_once(tmp_path_factory, "release-unparsed", build)

    def copy(path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        for f in sorted(folder.iterdir()):
            if f.name.startswith("db") and not f.name.endswith(".lock"):
                shutil.copy2(f, path.with_name(path.name + f.name[2:]))
        return path

    return copy


@pytest.fixture(scope="session")
def release_lac_parses(tmp_path_factory, crg_dir, glossary):
    """Every distinct base recipe of the release parsed fresh with lac (``RecipeParser.parse_many``, 250
    texts a call, as `eval crg` prefetches: a third of the time of one text at a time, and the same parses:
    test_eval_prefetch.py), once per run: ``{text: actions}``. The parse-recall floor and the
    graph-equals-fresh-parse test read the same parses."""
    from dishgraph.eval.parse_recall import read_base_recipes
    from dishgraph.ingest.parser import RecipeParser

    def build(folder):
        parser = RecipeParser(glossary, "lac")
        texts = list(dict.fromkeys(t for ts in read_base_recipes(crg_dir).values() for t in ts))
        parses = [a for k in range(0, len(texts), 250) for a in parser.parse_many(texts[k : k + 250])]
        return dict(zip(texts, parses, strict=True))

    return built_once(tmp_path_factory, "release-lac-parses", build)[1]


# Test files whose module fixtures or tests take longest (measured with --durations on 2 cores), longest first.
# Under pytest-xdist (`make test`: --dist loadfile --no-loadscope-reorder) files are handed to workers in
# collection order, so these start first and the short files even out the end of the run. xdist's own order
# (files with most tests first) had undone the earlier slow-first sort: the longest file started half-way or
# last. Only the order changes, never what a test does.
LONGEST_FIRST = (
    "test_compose.py",
    "test_eval_graph_equivalence.py",
    "test_ingest.py",
    "test_demo.py",
    "test_pcs_namer.py",
    "test_cypher_lint.py",
    "test_hostile.py",
    "test_export.py",
    "test_causal.py",
    "test_offline.py",
    "test_outputs.py",
    "test_ingest_loading_process.py",
    "test_models.py",
    "test_eval_l1.py",
    "test_full_disk.py",
    "test_explore.py",
    "test_db_check.py",
    "test_query_limits.py",
    "test_parser_recall.py",
    "test_fetch.py",
    "test_gpu_bundle.py",
    "test_order.py",
    "test_diner_dataset.py",
    "test_hardening.py",
    "test_queries_execute.py",
    "test_diner_graph.py",
    "test_eval_prefetch.py",
    "test_pcs_t5.py",
    "test_sync.py",
    "test_eval_crg.py",
)


def pytest_collection_modifyitems(config, items):
    """Files in ``LONGEST_FIRST`` order first, then every other file as collected. The sort is stable, so
    every file keeps its own order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
