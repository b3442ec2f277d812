"""CRG level-1 evaluation (paper §6.1, reference ``L1_eval.py``).

Coverage of ingredients (CoI): share of generated recipes containing the added ingredient (higher is better)
and the replaced ingredient (lower is better), by exact substring of the form in ``changing_ingres.txt``;
"add" pairs have no replaced ingredient and are skipped in that share. Preservation: corpus BLEU-4 and
BERTScore-F1 of each generation against its base recipe. All figures are percentages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dishgraph.eval.outputs import Instance
from dishgraph.eval.text_metrics import BertScoreConfig, Segment, bertscore, corpus_bleu4, default_segmenter


def ingredient_coverage(ingredients: Sequence[str], texts: Sequence[str]) -> float:
    """Percentage of texts containing their ingredient; empty ingredient entries are skipped (NaN if none)."""
    if len(ingredients) != len(texts):
        raise ValueError(f"{len(ingredients)} ingredients but {len(texts)} texts")
    scored = [(ing, t) for ing, t in zip(ingredients, texts) if ing]
    if not scored:
        return math.nan
    return 100.0 * sum(ing in t for ing, t in scored) / len(scored)


def evaluate_l1(
    outputs: Sequence[str],
    instances: Sequence[Instance],
    segment: Segment | None = None,
    bertscore_config: BertScoreConfig | None = None,
    with_bertscore: bool = True,
) -> dict:
    """CoI(added), CoI(replaced), BLEU-4 and BERTScore-F1 (all ×100) of `outputs` against the base recipes."""
    if len(outputs) != len(instances):
        raise ValueError(f"{len(outputs)} outputs for {len(instances)} instances")
    segment = segment or default_segmenter()
    bases = [inst.base_recipe for inst in instances]
    result = {
        "coi_added": ingredient_coverage([i.new for i in instances], outputs),
        "coi_replaced": ingredient_coverage([i.old for i in instances], outputs),
        "bleu4": corpus_bleu4(outputs, bases, segment),
        "bertscore_f1": math.nan,
        "n": len(instances),
    }
    if with_bertscore:
        _, _, f1 = bertscore(list(outputs), bases, bertscore_config)
        result["bertscore_f1"] = 100.0 * float(f1.mean())
    return result
