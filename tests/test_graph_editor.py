"""Graph-guided editor on a real embedded database holding the CRG release (three base dishes parsed)."""
from __future__ import annotations

import pytest

from dishgraph.actions import ProtoAction
from dishgraph.eval.l2 import INSERT, REMOVE, validate_orders
from dishgraph.eval.outputs import load_instances

DISHES = ("白灼菜心", "凉拌豆腐", "清炒小白菜")


@pytest.fixture(scope="module")
def graph_store(tmp_path_factory, crg_dir, glossary):
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.crg import ingest_counterfactual
    from dishgraph.ingest.loader import RecipeRecord
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.knowledge.frequencies import materialize_uses

    s = LadybugStore(tmp_path_factory.mktemp("editor") / "db")
    ingest_counterfactual(s, crg_dir, parse=False, show_progress=False)
    rows = s.execute("MATCH (r:Recipe) WHERE r.dish IN $d RETURN r.id AS id, r.dish AS dish, r.text AS text",
                     {"d": list(DISHES)})
    parse_and_load(s, [RecipeRecord(r["id"], r["dish"], r["text"], "test") for r in rows], glossary,
                   show_progress=False)
    materialize_uses(s)
    yield s
    s.close()


@pytest.fixture(scope="module")
def editor(graph_store, glossary):
    from dishgraph.models.graph_editor import GraphEditor

    return GraphEditor(glossary=glossary, store=graph_store)


@pytest.fixture(scope="module")
def instances():
    return [i for i in load_instances() if i.base in DISHES]


def test_registered():
    from dishgraph.models import registry

    assert registry.get("graph").__name__ == "GraphEditor"


def test_pair_knowledge_from_graph(editor, instances):
    pk = editor.pair(instances[0])  # 白灼菜心 -> 白灼秋葵, 菜心 (class 油菜) -> 秋葵 (class 洋葱)
    assert (pk.old_cls, pk.new_cls, pk.pivot_source) == ("油菜", "洋葱", "crg-release")
    assert (ProtoAction("去皮", frozenset({"洋葱"})), INSERT) in pk.pivots
    assert sum(k == REMOVE for _, k in pk.pivots) == 3
    # association over all parsed dishes: 洗净 is applied to the leafy class in real recipes
    assert pk.association.prob("油菜", "洗净") > 0.05
    # the release's order constraint 去皮(洋葱) -> 切(洋葱) is a MUST_PRECEDE edge of the target dish
    peel, cut = ProtoAction("去皮", frozenset({"洋葱"})), ProtoAction("切", frozenset({"洋葱"}))
    assert any((peel, cut) in c.pairs for c in pk.constraints)


def test_replace_pair_edit(editor, instances):
    inst = instances[0]
    out = editor.edit(inst)
    assert "菜心" not in out and "秋葵" in out
    acts = editor.parse(out)
    peel = ProtoAction("去皮", frozenset({"洋葱"}))
    assert peel in {a.proto for a in acts}  # the pivot insert parses into the intended proto-action
    pk = editor.pair(inst)
    wrong, _ = validate_orders({peel}, [a.proto for a in acts], pk.constraints)
    assert wrong == []


def test_add_pair_inserts_new_ingredient(editor, instances):
    inst = next(i for i in instances if i.change_kind == "add")  # 凉拌豆腐 -> 凉拌皮蛋豆腐
    out = editor.edit(inst)
    assert "皮蛋" in out
    inserted = {a.proto for a in editor.parse(out)} - {a.proto for a in editor.parse(inst.base_recipe)}
    pivots = {p for p, k in editor.pair(inst).pivots if k == INSERT}
    assert inserted & pivots


def test_untouched_text_stays_verbatim(editor, instances):
    inst = instances[0]
    out = editor.edit(inst)
    replaced = editor.replacer.replace(inst.base_recipe, inst.old, inst.new)
    # every clause of the output that is not an inserted one is a clause of the replaced base, in order
    base_clauses = [c.text for c in editor.parser.clauses(replaced)]
    kept = [c.text for c in editor.parser.clauses(out) if c.text in base_clauses]
    assert kept == [c for c in base_clauses if c in kept]


def test_head_replacer_covers_shapes_not_other_ingredients(glossary):
    from dishgraph.models.graph_editor import HeadReplacer

    r = HeadReplacer(glossary, synonyms="form")
    assert r.replace("北豆腐切块，豆腐丝焯水，加鸡精", "豆腐", "土豆片") == "土豆片切块，土豆片焯水，加鸡精"
    assert r.replace("鸡胸肉切丁，加鸡精和鸡蛋", "鸡", "肥肠") == "肥肠切丁，加鸡精和鸡蛋"
