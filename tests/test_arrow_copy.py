"""Steps as Arrow tables: built in order, and COPYed into the graph with every value exactly as it was."""

from __future__ import annotations

import itertools
import pickle

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dishgraph import config
from dishgraph.graph import arrow_copy, schema
from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.ingest import loader
from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.parser import make_parser
from dishgraph.ingest.readers import read_corpus

STEP = schema.NODE_BY_LABEL["Step"].props
STEP_SCHEMA = pa.schema([(c, arrow_type) for c, arrow_type in ((c, arrow_copy.arrow_type(STEP[c])) for c in STEP)])


def _steps(store: LadybugStore, ids: list[str] | None = None) -> list[dict]:
    cols = ", ".join(f"s.`{c}` AS `{c}`" for c in STEP)  # `end` is a keyword
    where = "WHERE s.id IN $ids " if ids is not None else ""
    return store.execute(f"MATCH (s:Step) {where}RETURN {cols} ORDER BY s.id", {"ids": ids} if ids else None)


@pytest.fixture(scope="module")
def parsed_rows():
    """Two parse batches of real XiaChuFang recipes, as the workers send them (pickled)."""
    g = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
    p = make_parser(g, "rules", "auto")
    recs = [r for _, r in zip(range(240), read_corpus(config.data_dir() / "xiachufang" / "recipes.jsonl"))]
    parsed = [loader.ParsedRecipe(f"x{i}", a) for i, a in enumerate(p.parse_many([r.text for r in recs]))]
    return [pickle.loads(pickle.dumps(loader.ParsedRows.of(part))) for part in (parsed[:120], parsed[120:])]


def test_a_table_copy_stores_what_a_copy_of_dicts_stores(tmp_path, parsed_rows):
    """The same real steps through the Parquet path (table) and the CSV path (dicts) give the same nodes."""
    rows = loader.ParsedRows.concat(parsed_rows)
    assert rows.steps.num_rows > 2000 and rows.steps["id"].num_chunks > 1
    got = []
    for name, given_rows in (("table", rows.steps), ("dicts", rows.steps.to_pylist())):
        with LadybugStore(tmp_path / name) as store:
            store.bulk_load_nodes("Step", given_rows)
            got.append(_steps(store))
    assert got[0] == got[1] and len(got[0]) == rows.steps.num_rows


def test_step_tables_give_the_rows_of_a_recipe_in_order(parsed_rows):
    rows = parsed_rows[0]
    steps = rows.steps.to_pylist()
    first = rows.marks[0]["id"]
    mine = [s for s in steps if s["recipe"] == first]
    assert [s["pos"] for s in mine] == list(range(len(mine))) and all(s["id"] == f"{first}#{s['pos']}" for s in mine)
    chain = [r for r in rows.nexts.to_pylist() if r["recipe"] == first]
    assert [(r["src"], r["dst"]) for r in chain] == [(a["id"], b["id"]) for a, b in zip(mine, mine[1:])]
    assert rows.nexts.num_rows == rows.steps.num_rows - rows.with_actions


ODD = st.one_of(
    st.sampled_from(["葱", "", " ", "null", "NULL", " 葱", "葱\u3000", "a,b", "[x]", 'q"', "两行\n文字", "\\", "'"]),
    st.text(max_size=5),
)
FORMS = st.one_of(st.none(), st.lists(ODD, max_size=4))
IDS = itertools.count()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(ODD, FORMS, FORMS, st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))), max_size=6))
def test_any_value_survives_a_table_copy(tmp_path, values):
    """Surface text is arbitrary: separators, brackets, quotes, edge and ideographic spaces, ``null``,
    line breaks, NULL against empty. A COPY from a table must store each exactly."""
    rows = []
    for pos, (phrase, ingredients, tools, start) in enumerate(values):
        n = next(IDS)
        rows.append(
            {"id": f"r{n}#{pos}", "recipe": f"r{n}", "pos": pos, "phrase": phrase, "verb": "切", "start": start,
             "end": pos, "inherited": pos % 2 == 0, "clause": pos, "instruction": None, "action": "k",
             "ingredient_forms": ingredients, "tool_forms": tools, "sentence": 0, "culinary": None, "foods": None,
             "heat": None, "duration": None, "shape": None, "typed_action": None, "typed_classes": None}
        )  # fmt: skip
    with LadybugStore(tmp_path / "db") as store:
        store.bulk_load_nodes("Step", pa.Table.from_pylist(rows, schema=STEP_SCHEMA))
        assert _steps(store, [r["id"] for r in rows]) == sorted(rows, key=lambda r: r["id"])
