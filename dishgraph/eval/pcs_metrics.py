"""Metrics for PizzaCommonSense-style step tables (instruction, input, action, output).

A model predicts, for every instruction, the comestibles going in (`input`, a ``;``-separated set) and what
comes out (`output`). Inputs and outputs are scored by exact match as *sets* of ``;``-separated items
(normalised: lower case, single spaces), plus item-level set F1, ROUGE-L, corpus BLEU-4, METEOR and
optionally BERTScore on the raw strings. Text is tokenised as English unless it contains CJK characters,
which go through the project segmenter (rouge-score's own tokenizer would drop them).

METEOR uses nltk; its synonym stage needs the WordNet corpus, which is used when installed and otherwise
replaced by an empty synonym table (exact + Porter-stem matches only): ``meteor_synonyms`` says which ran.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from dishgraph.eval.text_metrics import BertScoreConfig, Segment, auto_tokenizer, bertscore, corpus_bleu4

FIELDS = ("input", "output")
COLUMNS = ("instruction", "input", "action", "output")
_ALIASES = {
    "inputs": "input",
    "outputs": "output",
    "instructions": "instruction",
    "actions": "action",
    "step": "instruction",
    "text": "instruction",
}
_KEYS = ("id", "step_id")


def read_pcs_table(path: str | Path) -> list[dict[str, str]]:
    """Rows of a PCS table from .json (list of objects), .jsonl, .csv or .tsv; column names lower-cased."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        rows = []
        for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}:{n}: not valid JSON ({e.msg})") from None
    elif suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
        rows = data.get("rows", data.get("steps")) if isinstance(data, dict) else data
        if not isinstance(rows, list):
            raise ValueError(f"{path}: expected a list of row objects (or {{'rows': [...]}})")
    elif suffix in (".csv", ".tsv", ".txt"):
        with open(path, encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t" if suffix != ".csv" else ","))
    else:
        raise ValueError(f"{path}: unknown table format {suffix!r} (use .json, .jsonl, .csv or .tsv)")
    out = []
    for n, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ValueError(f"{path}: row {n} is not an object")
        clean = {}
        for k, v in row.items():
            if k is None:
                raise ValueError(f"{path}: row {n} has more cells than the header")
            key = str(k).strip().lower()
            key = _ALIASES.get(key, key)
            clean[key] = "; ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else str(v))
        out.append(clean)
    return out


def normalise_item(item: str) -> str:
    return re.sub(r"\s+", " ", item.strip().lower())


def item_set(text: str) -> frozenset[str]:
    """``"flour; water ;Yeast"`` → {"flour", "water", "yeast"}; empty items dropped."""
    return frozenset(x for x in (normalise_item(p) for p in str(text).split(";")) if x)


class _NoWordNet:
    """Stands in for nltk's WordNet when its corpus is not installed: no synonyms."""

    def synsets(self, *args, **kwargs):
        return []


def _wordnet():
    import nltk

    try:
        nltk.data.find("corpora/wordnet")
    except LookupError:
        try:
            nltk.data.find("corpora/wordnet.zip")
        except LookupError:
            return _NoWordNet(), False
    from nltk.corpus import wordnet

    return wordnet, True


def meteor(hypotheses: Sequence[list[str]], references: Sequence[list[str]]) -> tuple[list[float], bool]:
    """Per-pair METEOR on token lists (both empty → 1); and whether WordNet synonyms were used."""
    from nltk.translate.meteor_score import meteor_score

    wn, synonyms = _wordnet()
    scores = []
    for h, r in zip(hypotheses, references):
        if not h and not r:
            scores.append(1.0)
        elif not h or not r:
            scores.append(0.0)
        else:
            scores.append(float(meteor_score([r], h, wordnet=wn)))
    return scores, synonyms


def rouge_l(hypotheses: Sequence[str], references: Sequence[str], tokenize: Segment) -> list[float]:
    """Per-pair ROUGE-L F-measure with our tokenizer (both empty → 1)."""
    from rouge_score import rouge_scorer

    class _Tok:
        def tokenize(self, text):
            return tokenize(text)

    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Tok())
    out = []
    for h, r in zip(hypotheses, references):
        if not h.strip() and not r.strip():
            out.append(1.0)
        else:
            out.append(float(scorer.score(r, h)["rougeL"].fmeasure))
    return out


def align(pred: list[dict], gold: list[dict], pred_name: str = "PRED", gold_name: str = "GOLD") -> list[dict]:
    """Predictions in gold order: by a shared id column when both have one, else by position."""
    key = next((k for k in _KEYS if all(k in r for r in pred) and all(k in r for r in gold)), None)
    if key:
        index = {}
        for n, r in enumerate(pred, start=1):
            if r[key] in index:
                raise ValueError(f"{pred_name}: row {n} repeats {key} {r[key]!r}")
            index[r[key]] = r
        missing = [g[key] for g in gold if g[key] not in index]
        if missing:
            raise ValueError(f"{pred_name}: no prediction for {len(missing)} gold row(s), first {key} {missing[0]!r}")
        return [index[g[key]] for g in gold]
    if len(pred) != len(gold):
        raise ValueError(f"{pred_name} has {len(pred)} rows but {gold_name} has {len(gold)} (no id column to align)")
    for n, (p, g) in enumerate(zip(pred, gold), start=1):
        pi, gi = p.get("instruction"), g.get("instruction")
        if pi and gi and normalise_item(pi) != normalise_item(gi):
            raise ValueError(f"{pred_name}: row {n} instruction differs from {gold_name} row {n}: misaligned tables?")
    return pred


def evaluate_pcs(
    pred: list[dict],
    gold: list[dict],
    fields: Sequence[str] = FIELDS,
    segment: Segment | None = None,
    bertscore_config: BertScoreConfig | None = None,
    pred_name: str = "PRED",
    gold_name: str = "GOLD",
) -> dict:
    """Per field: exact set match, item P/R/F1, ROUGE-L, BLEU-4, METEOR, BERTScore-F1 (if configured), ×100."""
    pred = align(pred, gold, pred_name, gold_name)
    tokenize = auto_tokenizer(segment)
    result: dict = {"n": len(gold)}
    for f in fields:
        if gold and not all(f in g for g in gold):
            raise ValueError(f"{gold_name}: column {f!r} missing (have {sorted(gold[0])})")
        if pred and not all(f in p for p in pred):
            raise ValueError(f"{pred_name}: column {f!r} missing (have {sorted(pred[0])})")
        hyp = [p.get(f, "") for p in pred]
        ref = [g.get(f, "") for g in gold]
        hs, rs = [item_set(h) for h in hyp], [item_set(r) for r in ref]
        tp = sum(len(a & b) for a, b in zip(hs, rs))
        n_pred, n_gold = sum(map(len, hs)), sum(map(len, rs))
        p = tp / n_pred if n_pred else math.nan
        r = tp / n_gold if n_gold else math.nan
        ht, rt = [tokenize(h) for h in hyp], [tokenize(x) for x in ref]
        met, synonyms = meteor(ht, rt)
        scores = {
            "exact_match": 100.0 * float(np.mean([a == b for a, b in zip(hs, rs)])) if gold else math.nan,
            "set_p": 100.0 * p,
            "set_r": 100.0 * r,
            "set_f1": (
                100.0 * (2 * p * r / (p + r)) if p and r else (0.0 if tp == 0 and n_pred and n_gold else math.nan)
            ),
            "rouge_l": 100.0 * float(np.mean(rouge_l(hyp, ref, tokenize))) if gold else math.nan,
            "bleu4": corpus_bleu4(hyp, ref, tokenize) if gold else math.nan,
            "meteor": 100.0 * float(np.mean(met)) if gold else math.nan,
            "meteor_synonyms": synonyms,
            "bertscore_f1": math.nan,
        }
        if bertscore_config is not None and gold:
            _, _, f1 = bertscore([h or "-" for h in hyp], [x or "-" for x in ref], bertscore_config)
            scores["bertscore_f1"] = 100.0 * float(f1.mean())
        result[f] = scores
    return result
