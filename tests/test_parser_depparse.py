"""Dependency backend converter on recorded HanLP-style parses (no parser model needed)."""
from pathlib import Path

import pytest

from dishgraph.ingest.depparse import DepConverter, DependencyParser, available_backend, load_fixture, read_conll

FIXTURE = Path(__file__).parent / "fixtures" / "parse" / "hanlp_dep.json"


def test_converter_matches_recorded_expectations(glossary):
    fx = load_fixture(FIXTURE)
    text = "".join(f["text"] for f in fx)
    sents, off = [], 0
    for f in fx:
        sents.append(read_conll(f["conll"], off, source=str(FIXTURE)))
        off += len(f["text"])
    acts = DepConverter(glossary).recipe_actions(sents, text)
    expected = [e for f in fx for e in f["expected"]]
    got = [{"verb": a.verb, "ingredients": a.ingredients, "tools": a.tools, "inherited": a.inherited,
            "phrase": a.phrase} for a in acts]
    assert got == expected
    for a in acts:
        assert text[a.start:a.end] == a.phrase and a.proto is not None
    assert str(acts[1].proto) == "加入(油菜; 锅)"


def test_bad_conll_names_line():
    with pytest.raises(ValueError, match=r"<x>:2"):
        read_conll(["1\t切\t切\tVV\tVV\t_\t0\troot\t_\t_", "oops"], source="<x>")


def test_no_root_is_an_error(glossary):
    toks = read_conll(["1\t切\t切\tVV\tVV\t_\t2\tdep\t_\t_", "2\t肉\t肉\tNN\tNN\t_\t1\tdobj\t_\t_"])
    with pytest.raises(ValueError, match="no root"):
        DepConverter(glossary).sentence_actions(toks)


def test_live_backend_only_with_local_model(glossary, monkeypatch, tmp_path):
    monkeypatch.setenv("HANLP_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "none"))
    monkeypatch.delenv("DISHGRAPH_LTP_MODEL", raising=False)
    assert available_backend() is None
    with pytest.raises(RuntimeError, match="never downloads"):
        DependencyParser(glossary)
