"""Parse recall of the released CRG remove-pivots on the 2,500 real base recipes (measured floors)."""

import pytest

from dishgraph.eval.parse_recall import parse_recall
from dishgraph.ingest.parser import RecipeParser

# Measured (see docs/parse-examples.md); floors sit just under the measured values.
FLOORS = {"lac": 0.849, "jieba": 0.843}


class _Parsed:
    """The release's lac parses made once per run (conftest ``release_lac_parses``), as a parser."""

    def __init__(self, parses):
        self.parses = parses

    def parse(self, text):
        return self.parses[text]


@pytest.mark.parametrize("segmenter", ["lac", "jieba"])
def test_recall_floor_and_volume(crg_dir, glossary, segmenter, request):
    if segmenter == "lac":  # the parses the graph-equals-fresh-parse test reads too
        parser = _Parsed(request.getfixturevalue("release_lac_parses"))
    else:
        parser = RecipeParser(glossary, segmenter=segmenter)
    res = parse_recall(crg_dir, parser)
    assert res.total == 679 and res.recipes == 2500
    assert res.recall >= FLOORS[segmenter], res.missed[:20]
    assert res.recipes_with_actions / res.recipes >= 0.99
    # precision guard: no verb×ingredient explosion
    assert res.actions_per_recipe < 25 and res.protos_per_recipe < 22
    assert len(res.per_pair) == 50
