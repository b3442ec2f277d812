"""CRG instances from the real release, and reading/writing generated-output files."""

from __future__ import annotations

import json

import pytest

from dishgraph.eval.outputs import ADD, REPLACE, load_changes, load_instances, read_outputs, write_outputs


@pytest.fixture(scope="module")
def instances(crg_dir):
    return load_instances(crg_dir)


def test_instances_align_with_pairs_and_changes(instances, crg_dir):
    assert len(instances) == 2500
    assert [i.index for i in instances] == list(range(2500))
    first = instances[0]
    assert (first.base, first.target, first.change_kind, first.old, first.new) == (
        "白灼菜心",
        "白灼秋葵",
        REPLACE,
        "菜心",
        "秋葵",
    )
    assert first.base_recipe.startswith("菜心洗干净")
    adds = [i for i in instances if i.change_kind == ADD]
    assert len(adds) == 4 * 50 and all(i.old == "" for i in adds)
    assert {i.new for i in adds} == {"皮蛋", "榄菜", "鲍鱼", "胡萝卜"}
    # 50 consecutive instances per pair, in dish_pairs order
    changes = load_changes(crg_dir)
    assert len(changes) == 50
    assert [(i.base, i.target) for i in instances[::50]] == list(changes)


def test_plain_and_jsonl_roundtrip(instances, tmp_path):
    texts = [f"菜谱{i}\n第二行" if i == 3 else f"菜谱{i}" for i in range(len(instances))]
    plain = write_outputs(tmp_path / "out.txt", texts, instances)
    back = read_outputs(plain, instances)
    assert back[3] == "菜谱3 第二行" and back[10] == "菜谱10"  # newlines cannot survive the plain format
    js = write_outputs(tmp_path / "out.jsonl", texts, instances)
    assert read_outputs(js, instances) == [t.strip() for t in texts]
    rec = json.loads(js.read_text(encoding="utf-8").splitlines()[0])
    assert rec == {"base": "白灼菜心", "target": "白灼秋葵", "index": 0, "text": "菜谱0"}


def test_plain_keeps_empty_generations(instances, tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("\n" * len(instances), encoding="utf-8")
    assert read_outputs(p, instances) == [""] * len(instances)


def test_bad_files_name_file_and_line(instances, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"short.txt: 2 lines but there are 2500"):
        read_outputs(short, instances)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"index": 0, "text": "x"}\n{"index": 1, "text": \n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON"):
        read_outputs(bad, instances)
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"index": 0, "base": "焖牛腩", "text": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"wrong.jsonl:1: base '焖牛腩' does not match instance 0"):
        read_outputs(wrong, instances)
    partial = tmp_path / "partial.jsonl"
    partial.write_text('{"index": 0, "text": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"no record for 2499 instance\(s\), first index 1"):
        read_outputs(partial, instances)
