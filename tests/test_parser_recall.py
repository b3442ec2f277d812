"""Parse recall of the released CRG remove-pivots on the 2,500 real base recipes (measured floors); jieba, the
fallback segmenter, on the release's odd-numbered pairs (1st, 3rd, … : half the recipes; its pure-Python
tagger takes half a minute for all of them, and docs/parse-examples.md has its figure on all of them)."""

import pytest

from dishgraph.eval.parse_recall import parse_recall
from dishgraph.ingest.parser import RecipeParser

# Measured (see docs/parse-examples.md); floors sit just under the measured values. jieba: on half the pairs
# (282 of 339 remove pivots found, 0.8319; 0.844 on all of them, 573 of 679).
FLOORS = {"lac": 0.849, "jieba": 0.831}
# (remove pivots, recipes, pairs) each is measured on
SIZES = {"lac": (679, 2500, 50), "jieba": (339, 1250, 25)}


class _Parsed:
    """The release's lac parses made once per run (conftest ``release_lac_parses``), as a parser."""

    def __init__(self, parses):
        self.parses = parses

    def parse(self, text):
        return self.parses[text]


@pytest.mark.parametrize("segmenter", ["lac", "jieba"])
def test_recall_floor_and_volume(crg_dir, glossary, segmenter, request, tmp_path, release_subset):
    if segmenter == "lac":  # the parses the graph-equals-fresh-parse test reads too
        parser = _Parsed(request.getfixturevalue("release_lac_parses"))
    else:
        parser = RecipeParser(glossary, segmenter=segmenter)
        crg_dir = release_subset(tmp_path / "release", slice(None, None, 2))  # the odd-numbered pairs
    res = parse_recall(crg_dir, parser)
    total, recipes, n_pairs = SIZES[segmenter]
    assert res.total == total and res.recipes == recipes
    assert res.recall >= FLOORS[segmenter], res.missed[:20]
    assert res.recipes_with_actions / res.recipes >= 0.99
    # precision guard: no verb×ingredient explosion
    assert res.actions_per_recipe < 25 and res.protos_per_recipe < 22
    assert len(res.per_pair) == n_pairs
