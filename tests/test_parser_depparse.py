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
    got = [
        {"verb": a.verb, "ingredients": a.ingredients, "tools": a.tools, "inherited": a.inherited, "phrase": a.phrase}
        for a in acts
    ]
    assert got == expected
    for a in acts:
        assert text[a.start : a.end] == a.phrase and a.proto is not None
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
    monkeypatch.delenv("DISHGRAPH_HANLP_MODEL", raising=False)
    assert available_backend() is None
    with pytest.raises(RuntimeError, match="never downloads"):
        DependencyParser(glossary)


def _replay(fx):
    """Recorded parses as a backend: phrase -> CoNLL rows (an unrecorded phrase is an error)."""
    rows = {f["text"]: [(t.id, t.form, t.pos, t.head, t.deprel) for t in read_conll(f["conll"])] for f in fx}
    return lambda phrase: rows[phrase]


def test_dependency_parser_on_recorded_parses_splits_clauses_and_skips_brackets(glossary):
    fx = load_fixture(FIXTURE)
    # CRG skips a phrase holding a bracket: the aside is never sent to the backend (replay would raise).
    text = "，".join(f["text"] for f in fx) + "，（小心烫手）。"
    parser = DependencyParser(glossary, parse_phrase=_replay(fx))
    assert parser.name == "custom"
    acts = parser.parse(text)
    expected = [e for f in fx for e in f["expected"]]
    got = [
        {"verb": a.verb, "ingredients": a.ingredients, "tools": a.tools, "inherited": a.inherited, "phrase": a.phrase}
        for a in acts
    ]
    assert got == expected
    for a in acts:
        assert text[a.start : a.end] == a.phrase
    assert parser.parse_many([text, text]) == [acts, acts]
    assert str(acts[1].proto) == "加入(油菜; 锅)"


def test_token_offsets_survive_dropped_spaces(glossary):
    rows = [(1, "切", "VV", 0, "root"), (2, "土豆", "NN", 1, "dobj")]
    acts = DependencyParser(glossary, parse_phrase=lambda p: rows).parse("切  土豆")
    assert [(a.phrase, str(a.proto)) for a in acts] == [("切  土豆", "切(土豆)")]


def test_make_parser_by_name(glossary, monkeypatch, tmp_path):
    from dishgraph.ingest.parser import RecipeParser, check_parser, make_parser

    monkeypatch.setenv("HANLP_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "none"))
    monkeypatch.delenv("DISHGRAPH_LTP_MODEL", raising=False)
    monkeypatch.delenv("DISHGRAPH_HANLP_MODEL", raising=False)
    assert isinstance(make_parser(glossary, "rules", "jieba"), RecipeParser)
    assert make_parser(glossary, "rules", "jieba").name == "jieba"
    for name in ("dep", "ltp", "hanlp", "stanza"):
        with pytest.raises(RuntimeError, match="never downloads"):
            check_parser(name)
        with pytest.raises(RuntimeError, match="never downloads"):
            make_parser(glossary, name)
    with pytest.raises(ValueError, match="unknown parser 'spacy'"):
        check_parser("spacy")
    custom = DependencyParser(glossary, parse_phrase=lambda p: [])
    assert make_parser(glossary, custom) is custom


def test_cli_refuses_a_parser_without_a_local_model(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from dishgraph.cli import app

    monkeypatch.setenv("HANLP_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "none"))
    monkeypatch.delenv("DISHGRAPH_LTP_MODEL", raising=False)
    monkeypatch.delenv("DISHGRAPH_HANLP_MODEL", raising=False)
    run = CliRunner().invoke
    r = run(app, ["parse", "--parser", "ltp", "切块"])
    assert r.exit_code == 2 and "no local model" in r.output
    db = tmp_path / "db"
    r = run(app, ["ingest", "counterfactual", "--parser", "dep", "--db", str(db)])
    assert r.exit_code == 2 and "never downloads" in r.output.replace("\n", " ")
    assert not db.exists()  # refused before the database is opened


def test_ingest_with_a_dependency_parser_loads_its_actions(glossary, tmp_path):
    from dishgraph.graph.factory import open_store
    from dishgraph.ingest import loader
    from dishgraph.ingest.pipeline import parse_and_load

    fx = load_fixture(FIXTURE)
    text = "，".join(f["text"] for f in fx) + "。"
    parser = DependencyParser(glossary, parse_phrase=_replay(fx))
    expected = parser.parse(text)
    rec = loader.RecipeRecord(loader.recipe_id("test", "鱿鱼", text), "鱿鱼", text, source="test", line=1)
    with open_store(db=str(tmp_path / "db")) as store:
        loader.load_glossary(store, glossary)
        loader.load_dishes(store, ["鱿鱼"], "test")
        loader.load_recipes(store, [rec])
        stats = parse_and_load(store, [rec], glossary, parser=parser, show_progress=False)
        assert stats.steps == len(expected) == 8
        rows = store.query("order_dish_sequences", dish="鱿鱼")
        assert [r["action"] for r in rows] == [a.proto.key for a in expected]
        again = parse_and_load(store, [rec], glossary, parser=parser, show_progress=False)
        assert again.steps == 0 and again.skipped_already_parsed == 1


def test_hanlp_model_found_only_as_an_unpacked_directory(monkeypatch, tmp_path):
    from dishgraph.ingest.depparse import _hanlp_model_dir

    monkeypatch.delenv("DISHGRAPH_HANLP_MODEL", raising=False)
    monkeypatch.setenv("HANLP_HOME", str(tmp_path))
    (tmp_path / "dep_something.zip").write_bytes(b"")  # an archive or another model is not the one we load
    assert _hanlp_model_dir() is None
    model = tmp_path / "mtl" / "close_tok_pos_ner_srl_dep_sdp_con_electra_small_20210304_135840"
    model.mkdir(parents=True)
    assert _hanlp_model_dir() == model
    monkeypatch.setenv("DISHGRAPH_HANLP_MODEL", str(tmp_path / "missing"))
    assert _hanlp_model_dir() is None
