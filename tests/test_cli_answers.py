"""Answers that say what they rest on: a reader names the fields it found, tables repeat their key columns
and drop empty ones, integers print as integers."""

from __future__ import annotations

from dishgraph.ingest.readers import ReadReport, read_corpus


def test_a_record_without_the_dish_field_lists_the_fields_found(tmp_path):
    f = tmp_path / "named.jsonl"
    f.write_text('{"name": "拍黄瓜", "steps": ["黄瓜拍碎", "加蒜"]}\n', encoding="utf-8")
    rep = ReadReport()
    assert list(read_corpus(f, report=rep)) == []
    assert "no usable 'dish' field; its fields: name, steps (name the dish's with --dish-field)" in rep.messages[0]
    assert [r.dish for r in read_corpus(f, dish_field="name")] == ["拍黄瓜"]
