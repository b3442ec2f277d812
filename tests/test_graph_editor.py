"""Graph-guided editor on a real embedded database holding the CRG release (three base dishes parsed)."""

from __future__ import annotations

import math

import pytest

from dishgraph.actions import ProtoAction
from dishgraph.eval.l2 import INSERT, REMOVE, validate_orders
from dishgraph.eval.outputs import load_instances

DISHES = ("白灼菜心", "凉拌豆腐", "清炒小白菜")


@pytest.fixture(scope="module")
def graph_store(tmp_path_factory, crg_dir, glossary, release_unparsed):
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.loader import RecipeRecord
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.knowledge.frequencies import materialize_uses

    s = LadybugStore(release_unparsed(tmp_path_factory.mktemp("editor") / "db"))  # the release, unparsed
    rows = s.execute(
        "MATCH (r:Recipe) WHERE r.dish IN $d RETURN r.id AS id, r.dish AS dish, r.text AS text", {"d": list(DISHES)}
    )
    parse_and_load(
        s, [RecipeRecord(r["id"], r["dish"], r["text"], "test") for r in rows], glossary, show_progress=False
    )
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


class _QueryLog:
    """The real store, with the names of the queries run through it written down (reads go to the store)."""

    def __init__(self, store):
        self.store, self.names = store, []

    def query(self, name, **params):
        self.names.append(name)
        return self.store.query(name, **params)

    def __getattr__(self, attr):
        return getattr(self.store, attr)


def test_association_mode_reads_no_release_pivots_or_constraints(graph_store, glossary, instances):
    from dishgraph.eval.l2 import L2Reference, score_instance
    from dishgraph.models.graph_editor import GraphEditor

    log = _QueryLog(graph_store)
    fair = GraphEditor(glossary=glossary, store=log, knowledge="association")
    inst = instances[0]  # 白灼菜心 -> 白灼秋葵: the graph holds the release's pivots and constraints of it
    pk = fair.pair(inst)
    assert pk.pivot_source == "association"
    # only constraints estimated from the base dish count (none were estimated in this graph), so the
    # release's 去皮(洋葱) -> 切(洋葱) of the target dish is not among them
    assert pk.constraints == []
    # neither other parsed dish handles 洋葱 (秋葵's class): no stand-in for the target, no guesses
    assert pk.pivots == [] and pk.association.new_actions == []
    # L2 of the fair edits on this pair's first ten recipes, scored against the release (evaluator side):
    # the swap and the one clause naming 秋葵 where 菜心 was never written
    ref = L2Reference.from_release()
    pair = [i for i in instances if i.target == inst.target][:10]
    outs = [fair.edit(i) for i in pair]
    assert all("秋葵" in o and "菜心" not in o for o in outs)
    rows = [
        score_instance(
            i,
            fair.parse(i.base_recipe),
            fair.parse(o),
            ref.pivots[i.target],
            ref.constraints[i.target],
            None,
            lambda s: glossary.ingredient.get(s, s),
        )
        for i, o in zip(pair, outs)
    ]
    assert (sum(r.inserted for r in rows), sum(r.removed for r in rows)) == (3, 7)
    f1 = [round(r.all[2], 3) for r in rows]  # NaN: no change L2 counts (the swap hit no pivot)
    assert sum(math.isnan(x) for x in f1) == 5 and sorted(x for x in f1 if not math.isnan(x)) == [0, 0, 0, 0, 0.667]
    assert not {
        "pivot_edges",
        "pair_pivots",
        "order_dish_constraints",
        "action_must_precede",
        "load_reference_pivots",
        "load_reference_constraints",
    } & set(log.names)


def test_association_knowledge_contrasts_base_dish_with_new_class_recipes(graph_store):
    from dishgraph.models.graph_editor_knowledge import contrast_removals, new_class_actions

    # 凉拌豆腐 getting 油菜 (菜心's class): how 白灼菜心 and 清炒小白菜 recipes handle it, most recipes first
    assert [p.key for p in new_class_actions(graph_store, "油菜", "凉拌豆腐")[:4]] == [
        "洗净|油菜|",
        "加入|油菜|",
        "捞出|油菜|",
        "淋|油菜|",
    ]
    # 凉拌豆腐 habits (>= 10% of its recipes) at least 4x rarer in the other dishes and in their 油菜 recipes;
    # 加入(豆腐, 碗) comes from relative clauses (挤好的豆腐放入准备好的碗中: 放入 takes 碗 after 的)
    assert [p.key for p in contrast_removals(graph_store, "凉拌豆腐", "油菜")] == [
        "切|豆腐|",
        "加入||碗",
        "加入|葱|",
        "加入|豆腐|",
        "加入|豆腐|碗",
        "淋|葱|",
        "淋|豆腐|",
    ]
    # the pseudo-pivots of one recipe: its contrast actions out, the first new-class actions it lacks in
    from dishgraph.models.graph_editor_knowledge import Association, association_pivots

    assoc = Association(
        new_actions=new_class_actions(graph_store, "油菜", "凉拌豆腐"),
        base_specific=contrast_removals(graph_store, "凉拌豆腐", "油菜"),
    )
    base = {ProtoAction("切", frozenset({"豆腐"})), ProtoAction("洗净", frozenset({"油菜"}))}
    piv = association_pivots(assoc, "油菜", base, max_inserts=2)
    assert piv == [
        (ProtoAction("切", frozenset({"豆腐"})), REMOVE),
        (ProtoAction("加入", frozenset({"油菜"})), INSERT),
        (ProtoAction("捞出", frozenset({"油菜"})), INSERT),
    ]


def test_abstain_leaves_unscored_recipes_at_the_swap(graph_store, glossary, instances):
    """--abstain-unscored (a probe of L2's averaging, off by default) stops at the ingredient swap exactly where
    the swap changes no action L2 counts; elsewhere it edits as the default fair mode does."""
    from dishgraph.models.graph_editor import GraphEditor

    fair = GraphEditor(glossary=glossary, store=graph_store, knowledge="association")
    probe = GraphEditor(glossary=glossary, store=graph_store, knowledge="association", abstain=True)
    sample = instances[::3]
    swapped = [fair.replacer.replace(i.base_recipe, i.old, i.new) for i in sample]
    both = [(fair.edit(i), probe.edit(i), s) for i, s in zip(sample, swapped)]
    abstained = [(f, p, s) for f, p, s in both if p != f]
    assert abstained and all(p == s for _, p, s in abstained)  # abstaining = the swap, nothing more
    assert all(f != s for f, _, s in abstained)  # the default mode did edit those
