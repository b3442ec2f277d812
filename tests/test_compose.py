"""Composed target knowledge on a small real subset: three CRG base dishes and the XiaChuFang recipes whose
dish names share a component with their targets; staleness after a further ingest; the no-released-knowledge
guarantee of the fair editor; leave-one-dish-out; junk records; the CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

BASES = ["白灼菜心", "酸辣鸡爪", "清炒小白菜"]
PAIR = "白灼菜心->白灼秋葵"
# XiaChuFang dishes whose names share a DiNeR component with the three targets (白灼秋葵, 酸辣鸡杂, 清炒丝瓜)
WORDS = ("白灼", "秋葵", "酸辣", "鸡杂", "清炒", "丝瓜")


def _sample_lines(data_dir, held_out: str | None = None) -> tuple[list[str], list[str]]:
    """(lines whose dish shares a target component, the lines of dish ``held_out`` among them)."""
    keep, later = [], []
    for line in (data_dir / "xiachufang" / "recipes.jsonl").read_text(encoding="utf-8").splitlines():
        dish = json.loads(line)["dish"]
        if any(w in dish for w in WORDS):
            (later if dish == held_out else keep).append(line)
    return keep, later


@pytest.fixture(scope="module")
def graph(tmp_path_factory, crg_dir, data_dir, glossary, release_unparsed):
    """Release (three base dishes parsed) + matching sample recipes, order estimated, composed."""
    from dishgraph.api import DishGraph
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.corpus import ingest_corpus
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.knowledge.derived import refresh_derived
    from dishgraph.knowledge.order import OrderSettings

    tmp = tmp_path_factory.mktemp("compose")
    store = LadybugStore(release_unparsed(tmp / "db"))  # the release, unparsed
    records = release_records(crg_dir, BASES)
    parse_and_load(store, records, glossary, workers=1, show_progress=False)
    keep, later = _sample_lines(data_dir, held_out="白灼秋葵")
    (tmp / "sample.jsonl").write_text("\n".join(keep) + "\n", encoding="utf-8")
    (tmp / "later.jsonl").write_text("\n".join(later) + "\n", encoding="utf-8")
    ingest_corpus(store, tmp / "sample.jsonl", glossary, show_progress=False)
    refresh_derived(store)
    g = DishGraph(store, glossary=glossary)
    g.estimate_order(BASES, OrderSettings(estimator="fast"))
    pairs = [p for p in [PAIR, "酸辣鸡爪->酸辣鸡杂", "清炒小白菜->清炒丝瓜"]]
    report = g.compose(pairs)
    yield g, tmp, report, len(later)
    store.close()


def test_composition_has_every_source_and_provenance(graph):
    g, _, report, _ = graph
    target = next(t for t in report.targets if t["target"] == "白灼秋葵")
    kinds = {s["kind"] for s in target["sources"]}
    assert {"base", "action", "food", "class"} <= kinds  # 白灼 dishes, 秋葵 dishes, the 洋葱 class (秋葵's)
    sources = g.composed_sources("白灼秋葵")
    assert {"role": "base", "dish": "白灼菜心"} in [{"role": r["role"], "dish": r["dish"]} for r in sources]
    assert any(r["role"] == "action" and r["dish"].startswith("白灼") for r in sources)
    assert abs(sum(r["weight"] for r in sources) - 1.0) < 1e-6  # weights are shares of the composition
    actions = g.composed_actions("白灼秋葵", top=1000)
    assert actions and all(0.0 < a["freq"] <= 1.0 for a in actions)
    # the base dish's actions on 菜心 (class 油菜) arrive with the new ingredient's class 洋葱 instead
    keys = {a["action"] for a in actions}
    assert any("洋葱" in a["ingredients"] for a in actions)
    assert not any(k.startswith("焯|油菜|") for k in keys if k in {"焯|油菜|"})


def test_composed_pivots_follow_the_paper_rule(graph):
    from dishgraph.knowledge.compose import ComposedThresholds

    g, _, _, _ = graph
    t = ComposedThresholds()
    from dishgraph.actions import ProtoAction
    from dishgraph.knowledge.typed import hidden_actions

    fb = {r["action"]: r["freq"] for r in g.actions("白灼菜心", top=100_000)}
    ft = {r["action"]: r["freq"] for r in g.composed_actions("白灼秋葵", top=100_000)}
    expected = set()
    hidden = hidden_actions(g.store)  # by default only the typed reading's cooking steps on foods are pivots
    assert not any(r["culinary"] is None for r in g.store.query("proto_all_keys"))  # every one judged
    for a in (set(fb) | set(ft)) - hidden:
        x, y = fb.get(a, 0.0), ft.get(a, 0.0)
        p = ProtoAction.from_key(a)
        alone = p.ingredients == frozenset({"洋葱"}) and not p.tools  # 秋葵's class, on its own
        if x > t.alpha * y and y < t.tau_r and x >= t.min_fb:
            expected.add((a, "remove"))
        elif y > t.alpha * x and (y > t.tau_i or (alone and y > t.tau_new)):
            expected.add((a, "insert"))
    got = {(p.action, p.kind) for p in g.pivots("白灼菜心", "白灼秋葵", source="composed")}
    assert got == expected and got
    cmp = g.compare_pivots("白灼菜心", "白灼秋葵", source="composed")
    assert cmp["kinds"]["all"]["composed"] == len(got)


def test_fair_editor_reads_no_released_knowledge(graph, glossary):
    """Deleting every released PIVOT and MUST_PRECEDE edge changes neither composition nor the edits."""
    from dishgraph.eval.outputs import load_instances
    from dishgraph.models.graph_editor import GraphEditor

    g, _, _, _ = graph
    store = g.store
    instances = [i for i in load_instances() if i.base in BASES][::10]

    def run() -> tuple[list[str], list]:
        g.compose([PAIR, "酸辣鸡爪->酸辣鸡杂", "清炒小白菜->清炒丝瓜"])
        editor = GraphEditor(glossary, store=store, knowledge="composed")
        return [editor.edit(i) for i in instances], g.composed_actions("白灼秋葵", top=50)

    before = run()
    store.execute("MATCH (:DishPair)-[e:PIVOT]->(:ProtoAction) WHERE e.source = 'crg-release' DELETE e")
    store.execute("MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction) WHERE m.source = 'crg-release' DELETE m")
    assert not [p for p in g.pivots("白灼菜心", "白灼秋葵") if p.source == "crg-release"]
    after = run()
    assert before == after
    assert sum(t != i.base_recipe for t, i in zip(before[0], instances)) >= len(instances) // 2


def test_ingest_refreshes_uses_and_recomposes(graph, glossary):
    """Ingest, compose, ingest more recipes of a dish, read again: nothing derived is stale."""
    from dishgraph.cli import app
    from dishgraph.knowledge import compose

    g, tmp, _, n_later = graph
    assert n_later >= 1  # the sample holds recipes of the target 白灼秋葵 itself
    before = {r["action"]: r["freq"] for r in g.composed_actions("白灼秋葵", top=100_000)}
    assert compose.composed_state(g.store)["stale"] == []
    db = g.store.location()
    g.store.close()
    r = CliRunner().invoke(app, ["ingest", "corpus", str(tmp / "later.jsonl"), "--db", db, "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert "白灼秋葵" in out["derived"]["uses_dishes"] and PAIR in out["derived"]["recomposed_pairs"]
    from dishgraph.graph.ladybug_store import LadybugStore

    g._store = LadybugStore(db)
    assert g.store.query("uses_stale_dishes") == []
    assert compose.composed_state(g.store)["stale"] == []
    own = [s for s in g.composed_sources("白灼秋葵") if s["role"] == "own"]
    assert own and own[0]["recipes"] == n_later  # the target's own recipes now count
    after = {r["action"]: r["freq"] for r in g.composed_actions("白灼秋葵", top=100_000)}
    assert after != before


def test_ingest_refreshes_only_what_it_touched(graph):
    """Recipes of a dish no composed target reads (its name shares no component with a target's, it handles
    none of their new classes): no pair is recomposed, the targets are marked current, the ingest says so;
    with --no-refresh nothing is re-derived and the summary says what to run."""
    from dishgraph.cli import app
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.knowledge import compose

    g, tmp, _, _ = graph
    db = g.store.location()
    g.store.close()
    unrelated = tmp / "unrelated.jsonl"
    unrelated.write_text(
        json.dumps({"dish": "珍珠奶茶", "text": "红茶煮好，加入牛奶和糖搅匀，放入煮好的珍珠。"}, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["ingest", "corpus", str(unrelated), "--db", db, "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output
    derived = json.loads(r.output)["derived"]
    assert derived["uses_dishes"] == ["珍珠奶茶"] and derived["recomposed_pairs"] == []
    assert derived["current_targets"] == 3 and not derived["skipped"]
    (tmp / "more.jsonl").write_text(
        json.dumps({"dish": "柠檬茶", "text": "红茶泡好，加入柠檬片和冰块。"}, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["ingest", "corpus", str(tmp / "more.jsonl"), "--db", db, "-w", "1", "--no-refresh"])
    assert r.exit_code == 0, r.output
    assert "not refreshed (--no-refresh)" in " ".join(r.output.split())
    with LadybugStore(db) as store:
        assert store.query("uses_stale_dishes")[0]["dish"] == "柠檬茶"
        assert len(compose.composed_state(store)["stale"]) == 3
        with pytest.raises(compose.StaleKnowledge, match="pivots mine --knowledge composed"):
            compose.ensure_fresh(store)
        compose.compose_pairs(store)  # what the message says to run
    g._store = LadybugStore(db)


def test_stale_composed_knowledge_is_refused(tmp_path, crg_dir, glossary, release_unparsed):
    """Recipes added through a path that does not refresh: readers of composed knowledge say what to run."""
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.knowledge import compose
    from dishgraph.models.graph_editor import GraphEditor

    with LadybugStore(release_unparsed(tmp_path / "db")) as store:  # the release, unparsed
        recs = release_records(crg_dir, ["白灼菜心"])
        parse_and_load(store, recs[:25], glossary, workers=1, show_progress=False)
        with pytest.raises(compose.StaleKnowledge, match="no composed knowledge"):
            GraphEditor(glossary, store=store, knowledge="composed")
        compose.compose_pairs(store, [PAIR])
        GraphEditor(glossary, store=store, knowledge="composed")  # fresh: accepted
        parse_and_load(store, recs[25:], glossary, workers=1, show_progress=False)
        with pytest.raises(compose.StaleKnowledge, match="pivots mine --knowledge composed"):
            GraphEditor(glossary, store=store, knowledge="composed")


def test_leave_one_dish_out(graph):
    g, _, _, _ = graph
    rep = g.validate_composition(min_recipes=10, min_components=2)
    names = [d.dish for d in rep.dishes]
    assert "白灼菜心" in names and "酸辣鸡爪" in names  # 50 recipes, two components each
    for d in rep.dishes:
        assert 0.0 <= d.weighted_jaccard <= 1.0 and 0.0 <= d.top20 <= 1.0 and d.sources >= 1
    assert rep.means()["weighted_jaccard"] > 0.1


def test_junk_records_are_counted_by_kind_and_not_loaded(tmp_path, glossary):
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.corpus import ingest_corpus

    rows = [
        {"dish": "番茄炒蛋", "text": "番茄切块，鸡蛋打散，热锅倒油，炒鸡蛋，加入番茄翻炒。"},
        {"dish": "番茄炒蛋", "text": "1。2。3。"},
        {"dish": "pancake", "text": "Mix flour and eggs. Fry."},
        {"dish": "神秘菜", "text": "好吃好吃好吃。"},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    with LadybugStore(tmp_path / "db") as store:
        rep = ingest_corpus(store, path, glossary, show_progress=False)
        assert rep.junk == {"step_numbers_only": 1, "no_chinese": 1, "no_action": 1}
        assert rep.recipes == 2  # the two Chinese texts are stored; the junk ones are not
        assert any(":2: " in m and "step_numbers_only" in m for m in rep.messages)
        assert any(":3: " in m and "no_chinese" in m for m in rep.messages)


def test_cli_mine_compare_validate(graph):
    from dishgraph.cli import app

    g, _, _, _ = graph
    db = g.store.location()
    g.store.close()
    try:
        run = CliRunner().invoke
        r = run(app, ["pivots", "mine", PAIR, "--knowledge", "composed", "--db", db, "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.output)["pairs"] == 1
        r = run(app, ["pivots", "compare", PAIR, "--source", "composed", "--db", db, "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.output)[0]["source"] == "composed"
        r = run(app, ["pivots", "show", PAIR, "--db", db, "--json"])
        assert any(row["composed"] in ("remove", "insert") for row in json.loads(r.output))
        r = run(app, ["pivots", "validate-composed", "--db", db, "--json"])
        assert r.exit_code == 0 and json.loads(r.output)["means"]["dishes"] >= 2
        r = run(app, ["pivots", "mine", PAIR, "--knowledge", "bogus", "--db", db])
        assert r.exit_code == 2 and "corpus or composed" in r.output
        r = run(
            app, ["pivots", "mine", PAIR, "--knowledge", "composed", "--inserts", "rule+ranker", "--db", db, "--json"]
        )
        assert r.exit_code == 0, r.output
        assert json.loads(r.output)["pairs"] == 1  # too few 10+ recipe dishes here for a ranker: the rule's
        for bad, says in (
            (["--knowledge", "composed", "--inserts", "rank"], "rule, ranker, rule+ranker"),
            (["--inserts", "ranker"], "with --knowledge composed"),
        ):
            r = run(app, ["pivots", "mine", PAIR, *bad, "--db", db])
            assert r.exit_code == 2 and says in r.output, r.output
    finally:
        from dishgraph.graph.ladybug_store import LadybugStore

        g._store = LadybugStore(db)


def test_per_corpus_pools_split_the_pooled_source(graph):
    """One source per corpus (recipe source tag): their recipes add up to the pooled source's, and their
    frequencies, weighed by recipes, give the pooled frequencies back."""
    from dishgraph.knowledge import compose

    g, _, _, _ = graph
    store = g.store
    for atom, cls in (("food:秋葵", "洋葱"), ("action:白灼", "油菜")):
        for pooled, split in (
            (
                compose.component_source(store, atom.split(":")[0], atom, ["白灼秋葵"]),
                compose.component_sources(store, atom.split(":")[0], atom, ["白灼秋葵"]),
            ),
            (compose.class_source(store, cls, ["白灼秋葵"]), compose.class_sources(store, cls, ["白灼秋葵"])),
        ):
            assert pooled is not None and split and all(s.corpus for s in split)
            assert sum(s.recipes for s in split) == pooled.recipes
            for action, f in pooled.freq.items():
                assert abs(sum(s.freq.get(action, 0.0) * s.recipes for s in split) / pooled.recipes - f) < 1e-9
    from dishgraph.ingest.crg import RECIPES_SOURCE

    assert {s.corpus for s in compose.class_sources(store, "油菜", [])} == {"sample.jsonl", RECIPES_SOURCE}


def test_weights_fitted_on_corpus_dishes_only(graph):
    """The fit reads held-out corpus dishes (no pair) and never scores below where it started."""
    from dishgraph.knowledge import compose

    g, _, _, _ = graph
    start = compose.ComposeSettings(by_corpus=True)
    examples = compose.lodo_examples(g.store, start)
    assert examples and all(truth for _, _, truth, _ in examples)
    fitted, score = compose.fit_weights([(s, t, f) for _, s, t, f in examples], start)
    assert score >= compose._lodo_score([(s, t, f) for _, s, t, f in examples], start) - 1e-12
    assert fitted.by_corpus and {c for c, _ in fitted.corpora} == {s.corpus for _, srcs, _, _ in examples for s in srcs}
    report = compose.fit_settings(g.store, start)
    assert 0.0 <= report["cv_weighted_jaccard"] <= 1.0 and report["dishes"] == len(examples)
    pairs = [PAIR, "酸辣鸡爪->酸辣鸡杂", "清炒小白菜->清炒丝瓜"]
    rep = g.compose(pairs, settings=start, fit=True)  # fit, then compose with the fitted weights
    assert rep.fit["weighted_jaccard"] >= rep.fit["start_weighted_jaccard"] and rep.settings["by_corpus"]
    assert rep.pivots and g.composed_actions("白灼秋葵", top=5)
    g.compose(pairs)  # leave the module's graph as the other tests expect it


def test_focus_mixture_reads_the_new_class_from_sources_that_know_it():
    """With ``focus_kappa``, an action on the target's own class is mixed only over the sources that handle
    that class; other actions keep the plain mixture. Pure arithmetic on two sources."""
    from dataclasses import replace

    from dishgraph.knowledge import compose

    okra = compose.Source("food", "food:秋葵", 20, {"切|洋葱|": 0.8, "加入|盐|": 0.5})
    blanch = compose.Source("action", "action:白灼", 20, {"加入|盐|": 0.1, "切|油菜|": 0.6})
    plain = compose.ComposeSettings()
    focused = replace(plain, focus_kappa=0.2)
    freq, _, _ = compose.mix([okra, blanch], plain, ("洋葱",))
    assert abs(freq["切|洋葱|"] - 0.4) < 1e-9 and abs(freq["加入|盐|"] - 0.3) < 1e-9
    freq, _, _ = compose.mix([okra, blanch], focused, ("洋葱",))
    assert abs(freq["切|洋葱|"] - 0.8) < 1e-9  # the blanched dishes never cut okra: they do not vote
    assert abs(freq["加入|盐|"] - 0.3) < 1e-9 and abs(freq["切|油菜|"] - 0.3) < 1e-9
    assert compose.known_classes(blanch, ("洋葱", "油菜"), 0.2) == frozenset({"油菜"})
    assert compose.mix([okra, blanch], focused, ())[0] == compose.mix([okra, blanch], plain, ())[0]


@pytest.fixture(scope="module")
def pseudo_examples(graph):
    """The graph's pseudo-pair examples (dishes with 2+ recipes here; the real corpus uses 10)."""
    from dishgraph.knowledge import compose

    g, _, _, _ = graph
    return compose.pseudo_pair_examples(g.store, min_recipes=2)


def test_remix_equals_mix_on_the_real_pseudo_pairs(pseudo_examples):
    """The weight fit's re-mix gives the floats of mix + weighted Jaccard on every real example, under
    settings from the fit's grid, zero weights included (test_compose_remix.py fuzzes the same)."""
    from dataclasses import replace

    from dishgraph.knowledge.compose import ComposeSettings
    from dishgraph.knowledge.compose.mixing import mix
    from dishgraph.knowledge.compose.remix import Remixer
    from dishgraph.knowledge.compose.validation import FIT_GRID, SHRINK_GRID, weighted_jaccard

    grid = [
        replace(ComposeSettings(), base=b, action=a, cls=c, shrink=k)
        for b, a, c, k in zip(FIT_GRID, reversed(FIT_GRID), FIT_GRID[3:] + FIT_GRID[:3], SHRINK_GRID * 2)
    ]
    assert len(pseudo_examples) > 20
    for _, srcs, truth, focus in pseudo_examples:
        remixer = Remixer(srcs, truth, focus)
        for s in grid:
            assert remixer.score(s) == weighted_jaccard(mix(srcs, s, focus)[0], truth)


def test_pools_read_once_give_the_sources_read_per_target(graph):
    """A pool read once with every dish's part, less the dishes a target leaves out, is the pool read for
    that target: the same recipes, dishes and shares, the actions in the same order."""
    from dishgraph.knowledge import compose
    from dishgraph.knowledge.compose.sources import Pools

    g, _, _, _ = graph
    specs = compose.pseudo_pair_specs(g.store, min_recipes=2)
    pools = Pools(g.store)
    pooled = 0
    for spec in specs[::3]:
        for plain, once in zip(
            compose.gather_sources(g.store, spec), compose.gather_sources(g.store, spec, pools=pools)
        ):
            assert plain == once and list(plain.freq.items()) == list(once.freq.items())
            pooled += plain.kind != "base"
    assert pooled > 50


def test_pseudo_pairs_are_corpus_dishes_sharing_a_method(graph, pseudo_examples):
    """Pseudo-pairs: two corpus dishes with the same non-food components and other foods, the target composed
    from the base and the rest (never its own recipes); the fit on them weighs the base too."""
    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge import compose

    g, _, _, _ = graph
    dg, _ = compose.default_glossaries()
    specs = compose.pseudo_pair_specs(g.store, min_recipes=2)
    assert specs
    for spec in specs:
        base, target = parse_name(spec.base, dg), parse_name(spec.target, dg)
        method = {a for a in base.atoms if not a.startswith("food:")}
        assert method and method == {a for a in target.atoms if not a.startswith("food:")}
        assert base.atoms != target.atoms and spec.exclude == (spec.base, spec.target) and not spec.own
        assert (spec.old_cls is None) == (spec.new_cls is None)
    assert all(any(s.kind == "base" for s in srcs) and truth for _, srcs, truth, _ in pseudo_examples)
    report = compose.fit_settings(g.store, pseudo_pairs=True, min_recipes=2)
    assert report["dishes"] == len(specs) and 0.0 <= report["cv_weighted_jaccard"] <= 1.0
    assert report["weighted_jaccard"] >= report["start_weighted_jaccard"] - 1e-12


@pytest.fixture(scope="module")
def ranker_data(graph):
    """The insertion ranker's examples on the graph's pseudo-pairs (``ranker_examples``; they read no released
    knowledge, so deleting it below leaves them as they are), made once for the module."""
    from dishgraph.knowledge import compose

    g, _, _, _ = graph
    return compose.ranker_examples(g.store, min_recipes=2)


def test_insert_ranker_is_fitted_on_pseudo_pairs_and_reads_no_released_knowledge(graph, ranker_data):
    """``inserts="ranker"``: a classifier fitted on the graph's pseudo-pairs chooses the insertions, the rule's
    removals stay; deleting every released pivot and constraint changes nothing it writes."""
    from dataclasses import replace

    from dishgraph.knowledge import compose, insert_ranker

    g, _, _, _ = graph
    store = g.store
    pairs = [PAIR, "酸辣鸡爪->酸辣鸡杂", "清炒小白菜->清炒丝瓜"]
    thresholds = replace(compose.ComposedThresholds(), ranker_min_prob=0.01)
    rule = {(p.action, p.kind) for p in g.pivots("白灼菜心", "白灼秋葵", source="composed")}

    def run():  # few dishes here have 10+ recipes: pseudo-pairs of dishes with 2+ (the real corpus uses 10)
        rep = compose.compose_pairs(store, pairs, thresholds=thresholds, inserts="ranker", pseudo_min_recipes=2)
        return rep.ranker, {(p.action, p.kind, p.fb, p.ft) for p in g.pivots("白灼菜心", "白灼秋葵", source="composed")}

    with pytest.raises(ValueError, match="inserts must be one of"):
        g.compose(pairs, inserts="oracle")
    with pytest.raises(ValueError, match="unknown insert ranker 'boosting'; known: boosted, logistic"):
        g.compose(pairs, inserts="ranker", ranker_model="boosting")
    xs, ys, _, examples = ranker_data  # what compose.fit_ranker(store, min_recipes=2) fits
    ranker = insert_ranker.fit(xs, ys, examples, insert_ranker.DEFAULT_MODEL)
    assert ranker is not None and ranker.model_name == insert_ranker.DEFAULT_MODEL and 0 < ranker.positives
    before = run()
    store.execute("MATCH (:DishPair)-[e:PIVOT]->(:ProtoAction) WHERE e.source = 'crg-release' DELETE e")
    store.execute("MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction) WHERE m.source = 'crg-release' DELETE m")
    assert run() == before
    report, pivots = before
    inserts = {(a, ft, fb) for a, kind, fb, ft in pivots if kind == "insert"}
    assert {(a, k) for a, k, _, _ in pivots if k == "remove"} == {(a, k) for a, k in rule if k == "remove"}
    assert all(ft > thresholds.alpha * fb and ft >= compose.STORE_MIN_FREQ for _, ft, fb in inserts)
    assert report == ranker.to_dict() and report["features"] == list(insert_ranker.FEATURES)
    assert inserts and {(a, "insert") for a, _, _ in inserts} != {(a, k) for a, k in rule if k == "insert"}
    compose.compose_pairs(store, pairs, thresholds=thresholds, inserts="rule+ranker", pseudo_min_recipes=2)
    both = {(p.action, p.kind) for p in g.pivots("白灼菜心", "白灼秋葵", source="composed")}
    assert both == rule | {(a, "insert") for a, _, _ in inserts}  # the rule's pivots and the ranker's insertions
    g.compose(pairs)  # leave the module's graph as the other tests expect it


@pytest.mark.parametrize("model", ["boosted", "logistic"])
def test_every_insert_ranker_model_fits_and_cross_validates_on_pseudo_pairs(ranker_data, model):
    """Each of ``insert_ranker.MODELS`` (``test_registries`` runs each on toy data) fits the pseudo-pairs'
    candidates, gives a probability to each, reports itself, and is cross-validated by target dish (how the
    default was chosen); the same data fit twice give the same probabilities (no random hold-out)."""
    from dishgraph.knowledge import insert_ranker

    xs, ys, groups, pairs = ranker_data
    assert pairs and len(xs) == len(ys) == len(groups) and 0 < sum(ys) < len(ys)
    assert all(len(x) == len(insert_ranker.FEATURES) for x in xs)
    first, second = (insert_ranker.fit(xs, ys, pairs, model) for _ in range(2))
    assert first is not None and second is not None
    probs = first.probabilities(xs)
    assert probs == second.probabilities(xs) and all(0.0 <= p <= 1.0 for p in probs)
    assert first.to_dict()["model"] == model and first.to_dict()["positives"] == sum(ys)
    assert ("coef" in first.to_dict()) == (model == insert_ranker.LOGISTIC)
    ap = insert_ranker.cross_validate(xs, ys, groups, model, folds=2)
    assert ap is not None and 0.0 < ap <= 1.0
    assert insert_ranker.fit(xs, [0] * len(ys), pairs, model) is None  # one kind of label: nothing to learn
    chosen = insert_ranker.choose_inserts(first, [(str(i), x) for i, x in enumerate(xs)], 0.5)
    assert [p for _, p in chosen] == sorted((p for p in probs if p >= 0.5), reverse=True)
