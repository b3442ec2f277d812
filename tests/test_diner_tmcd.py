"""TMCD splits: the reference unit-test vector of mcd_utils, and the fast search == the naive one."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from dishgraph.diner.names import DinerGlossary, parse_names
from dishgraph.diner.tmcd import chernoff_divergence, tmcd_split

ROOT = Path(__file__).resolve().parent.parent


def _gen_module():
    spec = importlib.util.spec_from_file_location("gen_dish_names", ROOT / "benchmarks" / "gen_dish_names.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def diner_glossary():
    return DinerGlossary.load()


@pytest.fixture(scope="module")
def generated(diner_glossary):
    names = _gen_module().generate_dish_names(diner_glossary, 4000, seed=0)
    rep = parse_names(names, diner_glossary)
    assert not rep.failed
    return rep.parsed


def unigrams(s):  # atoms of the reference test
    return set(s.split())


def bigrams(s):  # compounds of the reference test
    t = s.split()
    return {" ".join(t[i : i + 2]) for i in range(len(t) - 1)}


def measure(ex1, ex2):
    return chernoff_divergence(Counter(b for e in ex1 for b in bigrams(e)), Counter(b for e in ex2 for b in bigrams(e)))


def test_divergence_0_and_1():
    assert measure(["jump twice", "walk thrice"], ["jump twice", "walk thrice"]) == pytest.approx(0.0, abs=1e-12)
    assert measure(["jump thrice", "walk twice"], ["jump twice", "walk thrice"]) == 1.0


@pytest.mark.parametrize("method", ["fast", "naive"])
def test_reference_swap_vector(method):
    s1 = ["jump twice", "walk twice", "jump thrice", "look and walk"]
    s2 = ["walk thrice", "walk and jump", "jump and walk"]
    assert measure(s1, s2) == pytest.approx(0.8, abs=1e-12)
    ex = s1 + s2
    split = tmcd_split(
        [unigrams(e) for e in ex], [bigrams(e) for e in ex], initial=(range(4), range(4, 7)), method=method, names=ex
    )
    assert split.initial_divergence == pytest.approx(0.8, abs=1e-12)
    # exactly the reference's expected output (mcd_utils_test.test_swap_examples): one swap, D = 1.0
    assert split.train_names == ["jump and walk", "walk twice", "jump thrice", "look and walk"]
    assert split.test_names == ["walk thrice", "walk and jump", "jump twice"]
    assert split.swaps == 1 and split.divergence == 1.0 and split.stopped == "no-improving-swap"
    assert measure(split.train_names, split.test_names) == 1.0


def test_balance_moves_missing_atoms_into_train():
    ex = ["a b", "a c", "b c", "d e"]
    split = tmcd_split([unigrams(e) for e in ex], [bigrams(e) for e in ex], initial=([0, 1, 2], [3]))
    assert split.balance_swaps == 1 and split.atoms_covered
    assert 3 in split.train


def test_fast_equals_naive_on_generated_names(generated):
    atoms = [p.atoms for p in generated[:1000]]
    fast = tmcd_split(atoms, ratio=4.5, target_divergence=0.98, seed=3, method="fast")
    naive = tmcd_split(atoms, ratio=4.5, target_divergence=0.98, seed=3, method="naive")
    assert (fast.train, fast.test) == (naive.train, naive.test)
    assert fast.swaps == naive.swaps and fast.divergence == pytest.approx(naive.divergence, abs=1e-12)


def test_4000_generated_names_reach_098_with_full_atom_coverage(generated):
    atoms = [p.atoms for p in generated]
    split = tmcd_split(atoms, ratio=4.5, target_divergence=0.98, seed=1)
    assert len(split.train) == 3273 and len(split.test) == 727  # 4.5 : 1
    assert split.divergence >= 0.98 and split.stopped == "target"
    assert split.atoms_covered
    train_atoms = set().union(*(atoms[i] for i in split.train))
    assert all(atoms[i] <= train_atoms for i in split.test)
    # the measured figures are recomputed from the final parts, not carried by the search
    comps = [frozenset("+".join(sorted(c)) for c in _subsets(a)) for a in atoms]
    assert chernoff_divergence(
        Counter(k for i in split.train for k in comps[i]), Counter(k for i in split.test for k in comps[i])
    ) == pytest.approx(split.divergence)
    again = tmcd_split(atoms, ratio=4.5, target_divergence=0.98, seed=1)
    assert again.train == split.train  # seeded: reproducible


def _subsets(atoms):
    from itertools import combinations

    a = sorted(atoms)
    return [c for k in range(2, len(a) + 1) for c in combinations(a, k)]


def test_restarts_keep_the_best_seed(crg_dir, diner_glossary):
    from dishgraph.diner.graph import split_parses
    from dishgraph.diner.names import read_names

    parsed = parse_names(read_names(crg_dir / "dish_pairs.txt"), diner_glossary).parsed
    one = split_parses(parsed, seed=1, target_divergence=0.98)
    best = split_parses(parsed, seed=1, restarts=10, target_divergence=0.98)
    assert one.atoms_covered and best.atoms_covered
    assert best.divergence >= max(one.divergence, 0.98)


def test_bad_arguments():
    with pytest.raises(ValueError, match="every example index"):
        tmcd_split([{"a"}, {"b"}], initial=([0], [0]))
    with pytest.raises(ValueError, match="restarts"):
        tmcd_split([{"a"}, {"b"}], restarts=0)
