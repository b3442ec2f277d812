"""What the loading process of an ingest does less of, and that it still writes the same graph.

Proto-action rows are split from their keys by Arrow (none travel from the workers), new proto-actions are
written with their culinary flag from the run's running tally, and an ingest into a graph with no
proto-action settles the flags from that tally instead of reading every step back. Each shortcut is checked
against the long way on a real database: ``mark_culinary`` run again changes nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph.actions import ProtoAction
from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.ingest import loader
from dishgraph.ingest.corpus import growing_batches
from dishgraph.ingest.culinary import CulinaryTally

CORPUS_N = 60

# class names as a glossary may spell them: any text but the key's own separators
class_names = st.text(st.characters(blacklist_characters="|+", blacklist_categories=("Cs",)), min_size=1, max_size=6)
protos = st.builds(
    ProtoAction,
    class_names,
    st.frozensets(class_names, max_size=4),
    st.frozensets(class_names, max_size=3),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(protos, max_size=20, unique_by=lambda p: p.key))
def test_proto_rows_split_from_keys_are_the_proto_actions(given_protos):
    table = loader.proto_table([p.key for p in given_protos])
    rows = table.to_pylist()
    assert [r["key"] for r in rows] == [p.key for p in given_protos]
    for r, p in zip(rows, given_protos):
        assert (r["verb"], r["ingredients"], r["tools"]) == (p.verb, sorted(p.ingredients), sorted(p.tools))


def test_proto_table_carries_the_flags_given():
    keys = ["切|洋葱|刀", "用||刀", "炒|牛肉+洋葱|"]
    table = loader.proto_table(keys, {"切|洋葱|刀": True, "用||刀": False})
    assert table["culinary"].to_pylist() == [True, False, None]


@given(st.lists(st.integers(), max_size=30), st.integers(1, 5), st.integers(1, 7))
def test_growing_batches_keep_every_row_in_order(rows, first, size):
    batches = list(growing_batches(rows, first, size))
    assert [x for b in batches for x in b] == rows
    assert all(batches) and (not batches or len(batches[0]) == min(first, len(rows)))
    assert all(len(b) == size for b in batches[1:-1])


def test_tally_verdicts_are_mark_culinarys():
    """A step read as a cooking step on its foods agrees; with no step read, a cooking step read as the key
    or the classes decide."""
    agreement = [
        ("切|丝|", "切|洋葱|", "切|洋葱|", True, 3),  # read as cutting the onion: 丝 is no food there
        ("切|丝|", "切|丝|", "切||", True, 1),
        ("炒|牛肉|", "炒|牛肉|", "炒|牛肉|", True, 5),
        ("炒|牛肉|", None, None, None, 9),  # not read: not counted
        ("煮|面条|", "煮|面条+水|", "煮|水+面条|", True, 2),  # the typed reading's foods include the key's
        ("蒸|水|", "蒸|洋葱|", "蒸|娃娃菜|", True, 4),  # the medium named by the key: still a cooking step
        ("切|洋葱|", "切|洋葱|", "切|娃娃菜|", True, 2),  # the typed key on the food's own name
    ]
    tally = CulinaryTally().count(agreement)
    keys = ["切|丝|", "炒|牛肉|", "煮|面条|", "切|洋葱|", "用||刀", "蒸|水|", "切|娃娃菜|", "切|菠菜|"]
    verdicts = tally.verdicts(keys, {"牛肉", "洋葱", "面条"})
    assert verdicts == {
        "切|丝|": False,
        "炒|牛肉|": True,
        "煮|面条|": True,
        "切|洋葱|": True,
        "用||刀": False,
        "蒸|水|": True,
        "切|娃娃菜|": True,  # a node of its own, read as a cooking step
        "切|菠菜|": False,  # never read: judged by classes, and 菠菜 is no release class
    }


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, release_corpus):
    return release_corpus(tmp_path_factory.mktemp("corpus") / "small.jsonl", CORPUS_N)


def _flags(store) -> dict:
    return {r["key"]: r["culinary"] for r in store.query("proto_all_keys")}


# one load / a load per 15 recipes (a key's steps in later loads may outweigh its first load's) / MERGE
@pytest.mark.parametrize("load_batch,mode", [(None, "copy"), (15, "copy"), (15, "create"), (15, "merge")])
def test_a_fresh_ingest_settles_the_culinary_flags_mark_culinary_would(tmp_path, corpus, glossary, load_batch, mode):
    from dishgraph.ingest.corpus import ingest_corpus

    with LadybugStore(tmp_path / "db") as store:
        ingest_corpus(
            store, corpus, glossary, segmenter="lac", chunk_size=15, load_batch=load_batch, mode=mode,
            show_progress=False,
        )  # fmt: skip
        flags = _flags(store)
        assert len(flags) > 100 and None not in flags.values()
        assert loader.mark_culinary(store, glossary) == 0  # the long way finds nothing to change
        assert _flags(store) == flags


def test_an_ingest_into_a_graph_with_proto_actions_judges_them_all(tmp_path, corpus, glossary):
    """Not fresh: proto-actions are there before (here a reference pivot with no step); the run's flags are
    settled over the whole graph, the pivot's too."""
    from dishgraph.ingest.corpus import ingest_corpus

    with LadybugStore(tmp_path / "db") as store:
        loader.load_proto_actions(store, [ProtoAction("用", frozenset(), frozenset({"刀"}))], mode="create")
        assert _flags(store) == {"用||刀": None}
        ingest_corpus(store, corpus, glossary, segmenter="lac", chunk_size=30, show_progress=False)
        flags = _flags(store)
        assert flags["用||刀"] is False and None not in flags.values()
        assert loader.mark_culinary(store, glossary) == 0


def test_query_columns_are_the_querys_rows(tmp_path, corpus, glossary):
    from dishgraph.graph.base import GraphStore
    from dishgraph.ingest.corpus import ingest_corpus

    with LadybugStore(tmp_path / "db") as store:
        assert store.query_columns("proto_typed_agreement") == {
            "key": [],
            "typed": [],
            "typed_key": [],
            "culinary": [],
            "n": [],
        }
        ingest_corpus(store, corpus, glossary, segmenter="lac", show_progress=False)
        rows = store.query("proto_typed_agreement")
        cols = store.query_columns("proto_typed_agreement")
        assert len(rows) > 100

        def key(r):  # an aggregation's row order is the engine's: compare as sorted rows
            return tuple(str(v) for v in r.values())

        assert sorted((dict(zip(cols, r)) for r in zip(*cols.values())), key=key) == sorted(rows, key=key)
        default = GraphStore.query_columns(store, "proto_typed_agreement")  # the rows' default
        assert sorted(default) == sorted(cols) and all(
            sorted(map(str, default[c])) == sorted(map(str, cols[c])) for c in cols
        )


def test_the_tally_counts_a_recipe_given_twice_once(glossary, crg_dir):
    """``ParsedRows.concat`` keeps a recipe's first rows; the running tally counts only those too."""
    from dishgraph.ingest import pipeline
    from dishgraph.ingest.parser import make_parser

    texts = [ln.split("\t")[2] for ln in (crg_dir / "base_recipes.txt").read_text(encoding="utf-8").splitlines()[:4]]
    parsed = [loader.ParsedRecipe(f"r{i}", a) for i, a in enumerate(make_parser(glossary).parse_many(texts))]
    first, again = loader.ParsedRows.of(parsed[:3]), loader.ParsedRows.of(parsed[2:])
    new = pipeline._new_steps(again, set(first.ids))
    assert set(new["recipe"].to_pylist()) == {"r3"}
    assert new.num_rows + first.steps.num_rows == loader.ParsedRows.concat([first, again]).steps.num_rows
    assert pipeline._new_steps(first, set()) is first.steps


def test_a_rerun_finishes_a_refresh_killed_while_typed_proto_actions_were_written(tmp_path, corpus, glossary):
    """The state a SIGKILL left in the kill benchmark: every recipe parsed, the refresh killed after the nodes
    of typed keys no recipe's CRG reading has were copied and before their edges (VERB, written last), no
    frequency edge yet. The re-run parses nothing, yet finishes that refresh: the graph a clean run gives."""
    from dishgraph.ingest.jobs import ingest_corpus_file

    def run(db, refresh=True):
        return ingest_corpus_file(
            lambda: LadybugStore(db), corpus, segmenter="lac", refresh=refresh, show_progress=False
        )

    run(tmp_path / "clean")
    with LadybugStore(tmp_path / "clean") as store:
        clean = store.counts()
        assert clean["relationships"]["TYPED_USES"] > 0 and clean["relationships"]["USES"] > 0

    run(tmp_path / "killed", refresh=False)
    with LadybugStore(tmp_path / "killed") as store:
        dishes = [r["name"] for r in store.execute("MATCH (d:Dish) RETURN d.name AS name")]
        missing = [r["key"] for r in store.query("typed_keys_of_dishes", dishes=dishes) if not r["known"]]
        assert missing  # typed keys of their own exist in this corpus
        store.bulk_load_nodes("ProtoAction", loader.proto_table(missing))  # the nodes, not their edges
    rep, derived = run(tmp_path / "killed")
    assert rep.skipped_already_parsed == CORPUS_N and derived.uses_dishes  # nothing parsed; the refresh ran
    with LadybugStore(tmp_path / "killed") as store:
        assert store.counts() == clean
        assert not [r for r in store.query("typed_keys_of_dishes", dishes=dishes) if not r["known"]]
