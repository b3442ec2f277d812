"""DiNeR in the graph: components/compounds stored, splits stored and exported, forms by Cypher."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from dishgraph.diner.forms import classify, forms, forms_in_memory
from dishgraph.diner.graph import (
    dish_atoms,
    export_split,
    merge_dishes,
    split_graph,
    split_info,
    store_components,
    store_split,
)
from dishgraph.diner.names import EXTRA_GLOSSARY, DinerGlossary, parse_names, read_names
from dishgraph.diner.tmcd import tmcd_split

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def diner_glossary():
    return DinerGlossary.load()


@pytest.fixture(scope="module")
def crg_names(crg_dir):
    return read_names(crg_dir / "dish_pairs.txt")


def test_store_components_crg(store, diner_glossary, crg_names):
    merge_dishes(store, crg_names + ["韭菜炒鸡蛋"])
    rep = store_components(store, diner_glossary)
    assert (rep.dishes, rep.parsed, len(rep.unparsed)) == (101, 89, 12)
    assert {u["name"]: u["remainder"] for u in rep.unparsed}["宫保鸡丁"] == "宫保鸡丁"
    c = store.counts()
    assert c["nodes"]["Component"] == rep.components and c["nodes"]["Compound"] == rep.compounds
    links = c["relationships"]["HAS_COMPONENT"]
    rows = store.execute(
        "MATCH (d:Dish {name: '韭菜炒鸡蛋'})-[h:HAS_COMPONENT]->(c:Component) "
        "RETURN h.pos AS pos, h.surface AS surface, c.key AS key ORDER BY pos"
    )
    assert rows == [
        {"pos": 0, "surface": "韭菜", "key": "food:韭菜"},
        {"pos": 1, "surface": "炒", "key": "action:炒"},
        {"pos": 2, "surface": "鸡蛋", "key": "food:鸡蛋"},
    ]
    keys = [r["key"] for r in store.query("diner_dish_compounds", dish="韭菜炒鸡蛋")]
    assert "action:炒+food:鸡蛋" in keys and len(keys) == 4
    parts = store.execute(
        "MATCH (k:Compound {key: 'action:炒+food:鸡蛋'})-[:PART]->(c:Component) RETURN c.key AS key ORDER BY key"
    )
    assert [r["key"] for r in parts] == ["action:炒", "food:鸡蛋"]
    # synonyms share one atom node
    atoms = dish_atoms(store)
    assert atoms["泡椒凤爪"] == {"food:泡椒", "food:鸡爪"} and atoms["香辣鸡爪"] == {"flavour:香辣", "food:鸡爪"}
    # idempotent, and re-parsing with the extra glossary replaces links without leftovers
    store_components(store, diner_glossary)
    assert store.counts()["relationships"]["HAS_COMPONENT"] == links
    rep2 = store_components(store, DinerGlossary.load(extra=[EXTRA_GLOSSARY]))
    assert rep2.parsed == 101 and not rep2.unparsed
    n_links = sum(
        len(p.components)
        for p in parse_names(crg_names + ["韭菜炒鸡蛋"], DinerGlossary.load(extra=[EXTRA_GLOSSARY])).parsed
    )
    assert store.counts()["relationships"]["HAS_COMPONENT"] == n_links


def test_split_stored_exported_and_forms(store, diner_glossary, crg_names):
    merge_dishes(store, crg_names)
    store.write(
        "load_recipes",
        [{"id": f"t:{i}", "dish": d, "text": "x", "source": "test", "line": i} for i, d in enumerate(crg_names[:10])],
    )
    store_components(store, diner_glossary)
    split = split_graph(store, "tmcd", ratio=4.5, target_divergence=0.98, seed=1, restarts=10)
    assert split.divergence >= 0.98 and split.atoms_covered
    assert len(split.train) + len(split.test) == 88
    info = split_info(store, "tmcd")
    assert (info["n_train"], info["n_test"]) == (len(split.train), len(split.test))
    assert info["divergence"] == pytest.approx(split.divergence) and info["seed"] == split.seed
    exported = export_split(store, "tmcd")
    assert sorted(exported["train"]) == sorted(split.train_names)
    assert sorted(exported["test"]) == sorted(split.test_names)
    recipes = export_split(store, "tmcd", "recipes")
    assert sorted(recipes["train"] + recipes["test"]) == sorted(f"t:{i}" for i in range(10))  # all 10 parse
    train_dishes = set(exported["train"])
    assert all((f"t:{i}" in recipes["train"]) == (d in train_dishes) for i, d in enumerate(crg_names[:10]))
    # forms: Cypher == the in-memory classification; every test dish gets one
    rep = forms(store, "tmcd")
    atoms = dish_atoms(store)
    assert rep.form_of == forms_in_memory(
        [atoms[d] for d in split.train_names], {d: atoms[d] for d in split.test_names}
    )
    assert sum(rep.counts.values()) == len(split.test)
    # storing again under the same name replaces the parts
    other = tmcd_split([atoms[d] for d in sorted(atoms)], seed=5, names=sorted(atoms))
    store_split(store, other, "tmcd")
    assert sorted(export_split(store, "tmcd")["test"]) == sorted(other.test_names)
    with pytest.raises(KeyError):
        forms(store, "nope")


def test_forms_cypher_matches_memory_on_generated_names(store, diner_glossary):
    """4,000 names: enough Dish rows for several storage node groups, where LadybugDB 0.22 once returned
    too few rows for a relationship-property filter joined in the same MATCH (the queries now use WITH)."""
    spec = importlib.util.spec_from_file_location("gen_dish_names", ROOT / "benchmarks" / "gen_dish_names.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    names = gen.generate_dish_names(diner_glossary, 4000, seed=0)
    merge_dishes(store, names)
    store_components(store, diner_glossary)
    split = split_graph(store, "g", target_divergence=0.98, seed=1)
    assert split.divergence >= 0.98 and split.atoms_covered and len(split.test) == 727
    rep = forms(store, "g")
    atoms = dish_atoms(store)
    mem = forms_in_memory([atoms[d] for d in split.train_names], {d: atoms[d] for d in split.test_names})
    assert len(rep.form_of) == 727 and rep.form_of == mem
    counts = rep.counts
    assert counts["CombTwo"] > 0 and counts["RecoTwo"] + counts["RecoThree"] + counts["AddOne"] > 0


def test_classify_precedence():
    assert classify(2, 2, False, 1) == "Seen"
    assert classify(2, 3, False, 1) == "Subset"
    assert classify(1, None, False, 1) == "Single"
    assert classify(2, None, False, 2) == "CombTwo"
    assert classify(3, None, True, 2) == "AddOne"
    assert classify(3, None, False, 2) == "RecoTwo"
    assert classify(3, None, False, 3) == "RecoThree"
    assert classify(4, None, False, 4) == "Other"
    train = [frozenset({"a:炒", "f:年糕"}), frozenset({"l:辣", "a:炒", "f:花甲"}), frozenset({"f:年糕", "f:x"})]
    assert forms_in_memory(train, {"辣炒年糕": frozenset({"l:辣", "a:炒", "f:年糕"})}) == {"辣炒年糕": "AddOne"}
    assert forms_in_memory(train[1:], {"辣炒年糕": frozenset({"l:辣", "a:炒", "f:年糕"})}) == {"辣炒年糕": "RecoTwo"}
