"""The weight fit's re-mix (`compose.remix`) gives the very floats of `mix` + `weighted_jaccard`: any sources
(shared actions, repeated source ids, zero weights, shares of any size) under any setting. The same check on
the real pseudo-pair examples of a graph is in test_compose.py."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph.knowledge.compose.mixing import mix
from dishgraph.knowledge.compose.remix import Remixer
from dishgraph.knowledge.compose.settings import ComposeSettings
from dishgraph.knowledge.compose.sources import Source
from dishgraph.knowledge.compose.validation import FIT_GRID, SHRINK_GRID, weighted_jaccard

ACTIONS = [f"切|{food}|" for food in "葱姜蒜肉鱼虾蛋菜"] + ["炒||锅", "煮|水|"]
shares = st.floats(min_value=1e-9, max_value=1.0, allow_nan=False)
frequencies = st.dictionaries(st.sampled_from(ACTIONS), shares, max_size=len(ACTIONS))
sources = st.builds(
    Source,
    kind=st.sampled_from(["base", "action", "flavour", "food", "class", "own"]),
    atom=st.sampled_from(["a", "b"]),  # few atoms: repeated source ids, as mix's weight dict meets them
    recipes=st.integers(min_value=0, max_value=50),
    freq=frequencies,
    corpus=st.sampled_from(["", "xiachufang"]),
)
grid_settings = st.builds(
    lambda base, action, flavour, cls, shrink, corpus: replace(
        ComposeSettings(),
        base=base,
        action=action,
        flavour=flavour,
        cls=cls,
        shrink=shrink,
        corpora=(("xiachufang", corpus),),
    ),
    *[st.sampled_from(FIT_GRID)] * 4,
    st.sampled_from(SHRINK_GRID),
    st.sampled_from(FIT_GRID),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(sources, max_size=6), frequencies, st.lists(grid_settings, min_size=1, max_size=4))
def test_remix_is_mix_then_weighted_jaccard_to_the_last_bit(srcs, truth, candidates):
    remixer = Remixer(srcs, truth)
    for s in candidates:  # one remixer scores many settings, as a fit does
        assert remixer.score(s) == weighted_jaccard(mix(srcs, s)[0], truth)


@settings(max_examples=100, deadline=None)
@given(st.lists(sources, max_size=4), frequencies, grid_settings)
def test_the_focus_mixture_goes_through_mix_itself(srcs, truth, s):
    focused = replace(s, focus_kappa=0.1)
    focus = ("葱", "鱼")
    assert Remixer(srcs, truth, focus).score(focused) == weighted_jaccard(mix(srcs, focused, focus)[0], truth)
