"""Identity / replace baselines, the generator registry and `dishgraph generate`."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dishgraph.eval.outputs import ADD, REPLACE, Instance, load_instances, read_outputs
from dishgraph.ingest.glossary import Glossary
from dishgraph.models import registry
from dishgraph.models.baselines import IdentityGenerator, ReplaceGenerator


def _inst(recipe, old, new, kind=REPLACE):
    return Instance(0, "甲", "乙", recipe, kind, old, new)


@pytest.fixture
def tiny_glossary():
    return Glossary(
        ingredient={
            "白菜": "白菜类",
            "大白菜": "白菜类",
            "娃娃菜": "白菜类",
            "小白菜汤": "汤",
            "蛋": "蛋类",
            "鸡蛋": "蛋类",
            "蛋糕": "点心",
            "土豆": "土豆",
        },
        verb={"切": "切"},
        tool={"锅": "锅"},
    )


def test_identity_copies_base_recipe():
    insts = [_inst("切白菜。", "白菜", "土豆"), _inst("炒鸡蛋。", "", "葱", ADD)]
    assert IdentityGenerator().generate(insts) == ["切白菜。", "炒鸡蛋。"]


def test_replace_modes_and_shielding(tiny_glossary):
    text = "大白菜和娃娃菜切好，白菜下锅，做小白菜汤。"
    cls = ReplaceGenerator(tiny_glossary, synonyms="class")
    assert cls.replace(text, "白菜", "土豆") == "土豆和土豆切好，土豆下锅，做小白菜汤。"
    form = ReplaceGenerator(tiny_glossary, synonyms="form")
    assert form.replace(text, "白菜", "土豆") == "土豆和娃娃菜切好，土豆下锅，做小白菜汤。"
    none = ReplaceGenerator(tiny_glossary, synonyms="none")
    assert none.replace(text, "白菜", "土豆") == "大白菜和娃娃菜切好，土豆下锅，做小白菜汤。"  # 大白菜 is its own word
    # a replaced form inside another ingredient's longer form is left alone (蛋糕 is not 蛋)
    assert cls.replace("鸡蛋打散，蛋液倒入，配蛋糕。", "蛋", "土豆") == "土豆打散，土豆液倒入，配蛋糕。"
    # an ingredient missing from the glossary is still replaced by its exact form
    assert cls.replace("加香椿。", "香椿", "土豆") == "加土豆。"
    with pytest.raises(ValueError, match="synonyms must be one of"):
        ReplaceGenerator(tiny_glossary, synonyms="all")


def test_replace_leaves_add_pairs_unchanged(tiny_glossary):
    gen = ReplaceGenerator(tiny_glossary)
    out = gen.generate([_inst("切白菜。", "白菜", "土豆"), _inst("切白菜。", "", "土豆", ADD)])
    assert out == ["切土豆。", "切白菜。"]


def test_replace_on_real_release(glossary, crg_dir):
    insts = load_instances(crg_dir)
    out = ReplaceGenerator(glossary).generate(insts[:50])  # 白灼菜心 → 白灼秋葵, 菜心 → 秋葵
    assert out[0].startswith("秋葵洗干净")
    assert sum("菜心" in t for t in out) < sum("菜心" in i.base_recipe for i in insts[:50])
    assert sum("秋葵" in t for t in out) >= 45


def test_registry_register_get_create():
    assert {"identity", "replace"} <= set(registry.names())
    assert registry.get("identity") is IdentityGenerator

    @registry.register("test-upper")
    class Upper:
        """Upper-case copy."""

        def __init__(self, suffix: str = ""):
            self.suffix = suffix

        def generate(self, batch):
            return [i.base_recipe + self.suffix for i in batch]

    gen = registry.create("test-upper", suffix="!", glossary=object())  # glossary not accepted: dropped
    assert gen.generate([_inst("切。", "", "x", ADD)]) == ["切。!"]
    assert registry.describe("test-upper") == "Upper-case copy."
    with pytest.raises(KeyError, match="unknown generator 'nope'"):
        registry.get("nope")
    with pytest.raises(TypeError, match="no generate"):
        registry.register("bad")(type("Bad", (), {}))

    class Short:
        def generate(self, batch):
            return []

    with pytest.raises(RuntimeError, match="returned 0 texts for 1 instances"):
        registry.generate_all(Short(), [_inst("切。", "", "x", ADD)])


def test_generate_cli_writes_aligned_file(tmp_path, crg_dir):
    from dishgraph.cli import app

    out = tmp_path / "replace.txt"
    res = CliRunner().invoke(app, ["generate", "replace", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    insts = load_instances(crg_dir)
    texts = read_outputs(out, insts)
    assert len(texts) == 2500 and texts[0].startswith("秋葵洗干净")
    res = CliRunner().invoke(app, ["generate", "ls", "--json"])
    assert res.exit_code == 0 and '"identity"' in res.output and '"replace"' in res.output
