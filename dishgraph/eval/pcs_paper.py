"""The PizzaCommonSense paper's columns on the release: input EMA and ROUGE-L; output BLEU, ROUGE-L, METEOR.

The paper (Diallo et al.) names its metrics but not their settings. The reading taken here, documented in
docs/pcs.md, is the one of the standard implementations its numbers most likely came from:

- **tokens**: rouge-score's tokenizer for every metric (lower case, every non-alphanumeric character a
  separator, so ``pizza_crust`` and ``Pizza crust`` are the same two tokens; no stemming);
- **input EMA**: per row, the predicted input *set* equals the gold set, items compared as their token
  strings (``(a; b)``, ``a; b`` and ``b; a`` are equal; ``NA`` is the empty set and matches only ``NA``);
  the mean over rows;
- **ROUGE-L**: rouge-score's ``rougeL`` F-measure per row, on the cell as text (input items joined by ``; ``
  in the predicted / gold order, ``NA`` for none), averaged over rows (sentence level);
- **BLEU**: corpus BLEU-4 (one reference, uniform weights, no smoothing, brevity penalty over the corpus):
  sacrebleu on the same tokens, which is Hugging Face ``evaluate``'s ``bleu`` formula (nltk's ``corpus_bleu``
  differs on segments shorter than four tokens, see `bleu4`);
- **METEOR**: nltk's ``meteor_score`` per row (defaults α=0.9, β=3, γ=0.5) averaged over rows; its synonym
  stage needs WordNet, and without the corpus it runs exact + Porter-stem matching only (``meteor_synonyms``
  false), which can only lower the score.

All rows count, ``NA`` ones included (``NA`` is scored as the literal cell ``NA``). Scores are percentages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from dishgraph.pcs.tables import PCSTable, format_input_cell, format_output_cell, parse_input_cell, table_rows

KEY = ("recipe", "annotator", "row")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def tokens(text: str) -> list[str]:
    """rouge-score's tokenizer without stemming (the one token stream every column is scored on)."""
    return [t for t in _NON_ALNUM.sub(" ", str(text).lower()).split() if t]


def item_key(item: str) -> str:
    return " ".join(tokens(item))


def input_set(cell: str) -> frozenset[str]:
    """The set an input cell denotes, items as token strings (``NA`` → empty)."""
    return frozenset(k for k in (item_key(x) for x in parse_input_cell(cell)) if k)


def gold_rows(tables: Iterable[PCSTable]) -> list[dict]:
    """One row per table row: the key (release id, annotator, row index), instruction and the cells."""
    return table_rows(tables)


def key_of(row: dict) -> tuple[str, int, int]:
    return (str(row["recipe"]), int(row.get("annotator") or 1), int(row["row"]))


def align_rows(pred: Sequence[dict], gold: Sequence[dict], pred_name: str = "PRED") -> list[dict]:
    """Predictions in gold order by (recipe, annotator, row); every gold row needs one."""
    index: dict[tuple, dict] = {}
    for n, r in enumerate(pred, start=1):
        missing = [k for k in ("recipe", "row") if k not in r]
        if missing:
            raise ValueError(f"{pred_name}:{n}: prediction row lacks {missing} (needs recipe, annotator, row)")
        try:
            key = key_of(r)
        except (TypeError, ValueError):
            raise ValueError(f"{pred_name}:{n}: annotator and row must be integers") from None
        if key in index:
            raise ValueError(f"{pred_name}:{n}: a second prediction for {key}")
        index[key] = r
    absent = [key_of(g) for g in gold if key_of(g) not in index]
    if absent:
        raise ValueError(f"{pred_name}: no prediction for {len(absent)} of {len(gold)} gold rows, first {absent[0]}")
    return [index[key_of(g)] for g in gold]


def rouge_l(hyp: Sequence[str], ref: Sequence[str]) -> list[float]:
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    return [float(scorer.score(r, h)["rougeL"].fmeasure) for h, r in zip(hyp, ref)]


def bleu4(hyp: Sequence[str], ref: Sequence[str]) -> float:
    """Corpus BLEU-4 on our tokens through sacrebleu (no smoothing, one reference): the formula of the
    Hugging Face / TensorFlow-NMT ``compute_bleu``. Not nltk's ``corpus_bleu``: it adds 1 to the n-gram
    denominator of every segment shorter than n, so a corpus of short cells scored against itself gets 82.8,
    not 100 (PCS outputs are often one or two words)."""
    import sacrebleu

    h = [" ".join(tokens(x)) for x in hyp]
    if not any(h):
        return 0.0
    r = [" ".join(tokens(x)) for x in ref]
    return float(sacrebleu.corpus_bleu(h, [r], tokenize="none", smooth_method="none", force=True).score)


def meteor(hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, bool]:
    from dishgraph.eval.pcs_metrics import meteor as nltk_meteor

    scores, synonyms = nltk_meteor([tokens(x) for x in hyp], [tokens(x) for x in ref])
    return 100.0 * float(np.mean(scores)) if scores else math.nan, synonyms


def score(pred: Sequence[dict], gold: Sequence[dict], pred_name: str = "PRED", bertscore_config=None) -> dict:
    """The paper's columns (see module doc) for predictions keyed like `gold_rows`."""
    pred = align_rows(pred, gold, pred_name)
    if not gold:
        raise ValueError("no gold rows to score")
    hin = [format_input_cell(parse_input_cell(p.get("input"))) for p in pred]
    rin = [g["input"] for g in gold]
    hout = [format_output_cell(str(p.get("output") or "").strip() or None) for p in pred]
    rout = [g["output"] for g in gold]
    met, synonyms = meteor(hout, rout)
    result = {
        "rows": len(gold),
        "input_ema": 100.0 * float(np.mean([input_set(h) == input_set(r) for h, r in zip(hin, rin)])),
        "input_rouge_l": 100.0 * float(np.mean(rouge_l(hin, rin))),
        "output_bleu": bleu4(hout, rout),
        "output_rouge_l": 100.0 * float(np.mean(rouge_l(hout, rout))),
        "output_meteor": met,
        "meteor_synonyms": synonyms,
        "output_ema": 100.0 * float(np.mean([item_key(h) == item_key(r) for h, r in zip(hout, rout)])),
        "input_bleu": bleu4(hin, rin),
    }
    if bertscore_config is not None:
        from dishgraph.eval.text_metrics import bertscore

        _, _, f1 = bertscore(hout, rout, bertscore_config)
        result["output_bertscore"] = 100.0 * float(f1.mean())
    return result


def people_agreement(tables: Iterable[PCSTable]) -> dict:
    """Annotator 2 scored against annotator 1 and back, on the recipes the release has two tables of
    (paired by id). Rows pair by instruction: each gold row takes the other table's row with the most similar
    instruction (the nearest position on ties), since one pair splits its steps differently (8 vs 9 rows)."""
    by_key = {t.key: t for t in tables}
    pairs = sorted(
        ((by_key[(i, 1)], t) for (i, a), t in by_key.items() if a == 2 and (i, 1) in by_key), key=lambda p: p[0].id
    )
    if not pairs:
        raise ValueError("no recipe with two annotators among these tables")
    out: dict = {"recipes": [a.id for a, _ in pairs]}
    for name, flip in (("a2_vs_a1", False), ("a1_vs_a2", True)):
        gold, pred = [], []
        for a, b in pairs:
            ref, hyp = (b, a) if flip else (a, b)
            g = gold_rows([ref])
            h = gold_rows([hyp])
            gold += g
            pred += [
                dict(h[_closest(ref.rows[k].instruction, k, hyp)], annotator=ref.annotator, row=k)
                for k in range(len(g))
            ]
        out[name] = score(pred, gold, name)
    return out


def _closest(instruction: str, pos: int, table: PCSTable) -> int:
    from difflib import SequenceMatcher

    def similarity(j: int) -> tuple[float, int]:
        return (SequenceMatcher(None, instruction, table.rows[j].instruction).ratio(), -abs(j - pos))

    return max(range(len(table.rows)), key=similarity)


def is_release(path: str | Path) -> bool:
    """A directory of tables, or a release file (one JSON object with a ``table``): scored the paper's way."""
    path = Path(path)
    if path.is_dir():
        return True
    if path.suffix.lower() not in (".txt", ".json"):
        return False
    head = path.read_text(encoding="utf-8-sig", errors="replace").lstrip()[:1]
    return head == "{" and '"table"' in path.read_text(encoding="utf-8-sig", errors="replace")


def evaluate_files(pred: str | Path, gold: str | Path, fields=None, bertscore_config=None) -> dict:
    """`dishgraph eval pcs`: the paper's columns when GOLD is a split directory or release file (predictions
    keyed by recipe, annotator, row: `dishgraph pcs predict`'s rows), else `pcs_metrics.evaluate_pcs`'s
    per-field table for two flat tables aligned by id or position."""
    from dishgraph.eval.pcs_metrics import evaluate_pcs, read_pcs_table
    from dishgraph.pcs.tables import locate, read_pcs

    gold = locate(gold)  # a split name (test) as `pcs predict` takes it
    if not gold.exists():
        raise FileNotFoundError(f"{gold}: no such file or directory")
    if is_release(gold):
        return score(read_pcs_table(pred), gold_rows(read_pcs(gold)), str(pred), bertscore_config)
    return evaluate_pcs(
        read_pcs_table(pred),
        read_pcs_table(gold),
        list(fields or ("input", "output")),
        bertscore_config=bertscore_config,
        pred_name=str(pred),
        gold_name=str(gold),
    )
