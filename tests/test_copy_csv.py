"""The Arrow COPY writer gives the row writer's bytes, and sends exactly the rows it would send elsewhere."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph import config
from dishgraph.graph import copy_csv, schema
from dishgraph.graph.ladybug_store import _CSV_LIST_UNSAFE, LadybugStore, _csv_list_safe, _write_csv
from dishgraph.ingest import loader
from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.parser import make_parser
from dishgraph.ingest.readers import read_corpus

STEP = schema.NODE_BY_LABEL["Step"].props
LIST_COLUMNS = ["ingredient_forms", "tool_forms"]


@pytest.fixture(scope="module")
def parsed_rows():
    """Two parse batches of real XiaChuFang recipes, as the workers send them (pickled)."""
    g = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
    p = make_parser(g, "rules", "auto")
    recs = [r for _, r in zip(range(240), read_corpus(config.data_dir() / "xiachufang" / "recipes.jsonl"))]
    parsed = [loader.ParsedRecipe(f"x{i}", a) for i, a in enumerate(p.parse_many([r.text for r in recs]))]
    return [pickle.loads(pickle.dumps(loader.ParsedRows.of(part))) for part in (parsed[:120], parsed[120:])]


def test_arrow_csv_is_byte_identical_to_the_row_writer(tmp_path, parsed_rows):
    rows = loader.ParsedRows.concat(parsed_rows)  # several chunks: once wrote NUL bytes
    assert rows.steps.num_rows > 2000 and rows.steps["id"].num_chunks > 1
    for name, table, types in [
        ("Step", rows.steps, STEP),
        ("NEXT", pa.table({"from": rows.nexts["src"], "to": rows.nexts["dst"]}), {"from": "STRING", "to": "STRING"}),
    ]:
        copy_csv.write_table_csv(tmp_path / f"{name}.arrow.csv", types, table)
        _write_csv(tmp_path / f"{name}.rows.csv", list(types), table.to_pylist())
        assert (tmp_path / f"{name}.arrow.csv").read_bytes() == (tmp_path / f"{name}.rows.csv").read_bytes()


def test_step_tables_give_the_rows_of_a_recipe_in_order(parsed_rows):
    rows = parsed_rows[0]
    steps = rows.steps.to_pylist()
    first = rows.marks[0]["id"]
    mine = [s for s in steps if s["recipe"] == first]
    assert [s["pos"] for s in mine] == list(range(len(mine))) and all(s["id"] == f"{first}#{s['pos']}" for s in mine)
    chain = [r for r in rows.nexts.to_pylist() if r["recipe"] == first]
    assert [(r["src"], r["dst"]) for r in chain] == [(a["id"], b["id"]) for a, b in zip(mine, mine[1:])]
    assert rows.nexts.num_rows == rows.steps.num_rows - rows.with_actions


FORMS = st.lists(st.one_of(st.sampled_from(["葱", "姜", "null", "NULL", "", " 葱", "葱\u3000", "a,b", "[x]", 'q"']),
                           st.text(max_size=4)), max_size=4)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), FORMS), FORMS), min_size=1, max_size=12))
def test_rows_sent_to_the_exact_path_are_those_the_row_writer_sends(forms):
    table = pa.table(
        {
            "ingredient_forms": pa.array([f for f, _ in forms], pa.list_(pa.string())),
            "tool_forms": pa.array([t for _, t in forms], pa.list_(pa.string())),
        }
    )
    want = [not (_csv_list_safe(f) and _csv_list_safe(t)) for f, t in forms]
    assert copy_csv.unsafe_list_rows(table, LIST_COLUMNS, _CSV_LIST_UNSAFE).tolist() == want


def test_a_table_copy_stores_every_value_exactly(tmp_path):
    """Odd surface forms (commas, quotes, edge spaces, ``null``) survive a COPY from a table, as from dicts."""
    odd = [("", ["葱"]), ('say "a", b', ["a,b", "null"]), ("两行\n文字", [" 姜 "]), ("x", None)]
    rows = [
        {"id": f"r#{i}", "recipe": "r", "pos": i, "phrase": p, "verb": "切", "start": None, "end": i,
         "inherited": i % 2 == 0, "clause": i, "action": "k", "ingredient_forms": f, "tool_forms": [], "sentence": 0}
        for i, (p, f) in enumerate(odd)
    ]  # fmt: skip
    table = pa.Table.from_pylist(rows, schema=pa.schema([(c, copy_csv.arrow_type(STEP[c])) for c in rows[0]]))
    with LadybugStore(tmp_path / "db") as store:
        store.bulk_load_nodes("Step", table)
        cols = ", ".join(f"s.`{c}` AS `{c}`" for c in rows[0])  # `end` is a keyword
        got = store.execute(f"MATCH (s:Step) RETURN {cols} ORDER BY s.pos")
    assert got == rows
