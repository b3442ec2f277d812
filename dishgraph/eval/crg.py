"""The full CRG evaluation (paper §6, Table 3): L1 (ingredient coverage, preservation) + L2 (action level).

`evaluate_crg` wires the defaults a command-line run needs — the project parser, the released pivots and
order constraints, PPMI-SVD word vectors trained on the base recipes — while every piece can be swapped
(a parse cache served from the graph, mined pivots, a word-vector file, another BERTScore model).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from dishgraph.actions import Action
from dishgraph.eval.embeddings import PhraseEmbedder, WordVectors, load_vectors
from dishgraph.eval.l1 import evaluate_l1
from dishgraph.eval.l2 import L2Reference, Parse, PivotTexts, Similarity, default_pivot_texts, evaluate_l2
from dishgraph.eval.outputs import Instance, crg_dir
from dishgraph.eval.text_metrics import BertScoreConfig, Segment, default_segmenter, memoize
from dishgraph.ingest.glossary import Glossary

# (key, header) of the Table-3 style summary; L1 then L2, all percentages.
COLUMNS = [
    ("coi_added", "CoI add↑"),
    ("coi_replaced", "CoI repl↓"),
    ("bleu4", "BLEU-4"),
    ("bertscore_f1", "BERTScore"),
    ("hard_p", "Hard P"),
    ("hard_r", "Hard R"),
    ("hard_f1", "Hard F1"),
    ("soft_p", "Soft P"),
    ("soft_r", "Soft R"),
    ("soft_f1", "Soft F1"),
    ("insert_hard_f1", "F1+"),
    ("remove_hard_f1", "F1−"),
    ("order_accuracy", "Order acc"),
    ("n_scored", "Scored"),
    ("hard_f1_all", "F1 all"),  # instances with a defined F1; F1 with undefined as 0
]

_VECTOR_CACHE: dict[tuple, WordVectors] = {}


def default_parse(glossary: Glossary, segmenter: str = "auto") -> Parse:
    """`RecipeParser(glossary).parse` from the ingest package."""
    from dishgraph.ingest.parser import RecipeParser

    return RecipeParser(glossary, segmenter).parse


def corpus_vectors(
    instances: Sequence[Instance], segment: Segment, source: str = "ppmi", extra_texts: Sequence[str] = ()
) -> WordVectors:
    """Word vectors from a file, or PPMI-SVD trained on the base recipes (+ `extra_texts`), cached."""
    key = (source, len(instances), len(extra_texts), id(segment))
    if key not in _VECTOR_CACHE:
        texts = list(dict.fromkeys([i.base_recipe for i in instances] + list(extra_texts)))
        _VECTOR_CACHE[key] = load_vectors(source, texts, segment)
    return _VECTOR_CACHE[key]


def evaluate_crg(
    outputs: Sequence[str],
    instances: Sequence[Instance],
    *,
    glossary: Glossary | None = None,
    parse: Parse | None = None,
    reference: L2Reference | None = None,
    segment: Segment | None = None,
    similarity: Similarity | None = None,
    vectors: str | WordVectors = "ppmi",
    bertscore_config: BertScoreConfig | None = None,
    with_bertscore: bool = True,
    parse_cache: Mapping[str, list[Action]] | Callable | None = None,
    pivot_texts: PivotTexts = default_pivot_texts,
    data_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    phase: Callable[[str], None] | None = None,
) -> dict:
    """L1 and L2 scores of `outputs` (aligned with `instances`), plus timings in seconds. ``phase(text)`` is
    told what runs now (L1 segments every text before the first L2 instance advances ``progress``)."""
    timing: dict[str, float] = {}
    phase = phase or (lambda _: None)
    d = crg_dir(data_dir)
    if glossary is None:
        glossary = Glossary.load(d / "glossary.json")
    segment = segment or memoize(default_segmenter("auto", glossary))

    t0 = time.perf_counter()
    phase("L1: segmenting texts (BLEU, ingredient coverage)")
    l1 = evaluate_l1(outputs, instances, segment, bertscore_config, with_bertscore=with_bertscore)
    timing["l1"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    prepare_texts = None
    if similarity is None:
        wv = vectors if isinstance(vectors, WordVectors) else corpus_vectors(instances, segment, vectors)
        embedder = PhraseEmbedder(wv, segment)
        similarity, prepare_texts = embedder.similarity, embedder.warm
    timing["vectors"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    phase("L2: scoring actions")
    reference = reference or L2Reference.from_release(d)
    parse = parse or default_parse(glossary)
    table = glossary.ingredient
    l2 = evaluate_l2(
        outputs,
        instances,
        parse,
        reference,
        similarity,
        ingredient_class=lambda s: table.get(s, s),
        parse_cache=parse_cache,
        pivot_texts=pivot_texts,
        progress=progress,
        prepare_texts=prepare_texts,
    )
    timing["l2"] = time.perf_counter() - t0
    return {"l1": l1, "l2": l2, "timing": timing}


def table_row(result: Mapping, name: str) -> dict:
    """One Table-3 row: model name and the COLUMNS values (NaN as None)."""
    flat = {**result.get("l1", {}), **result.get("l2", {})}
    row = {"model": name}
    for key, _ in COLUMNS:
        v = flat.get(key)
        row[key] = (
            None
            if v is None or (isinstance(v, float) and math.isnan(v))
            else int(v)
            if key == "n_scored"
            else round(float(v), 2)
        )
    return row


def missing_notes(rows: Sequence[Mapping]) -> list[str]:
    """Footnotes saying why a Table-3 cell is empty ("—"): a metric not computed in the run, or a model
    whose L2 F1 is undefined on every instance because it changed nothing the L2 evaluation counts."""
    header = dict(COLUMNS)
    notes = []
    skipped = [k for k, _ in COLUMNS if rows and all(r.get(k) is None for r in rows)]
    for k in skipped:
        notes.append(f"— {header[k]}: not computed in this run")
    for r in rows:
        empty = [header[k] for k, _ in COLUMNS if k not in skipped and r.get(k) is None]
        if not empty:
            continue
        if r.get("n_scored") == 0:
            notes.append(
                f"— {r.get('model')}: L2 F1 undefined: no change is counted (0 instances scored; "
                f"F1 all counts them as 0)"
            )
        else:
            notes.append(f"— {r.get('model')}: {', '.join(empty)} undefined on every instance")
    return notes


class CrgScorer:
    """Scores output files against one set of instances, sharing the work every file needs: base-recipe
    tokens (kept on disk between runs), word vectors, base-recipe parses (from the graph, else parsed once),
    and each file's new texts parsed and segmented in ``workers`` processes before scoring."""

    def __init__(
        self,
        instances: Sequence[Instance],
        glossary: Glossary,
        reference: L2Reference,
        *,
        base_parses: Mapping[str, list[Action]] | None = None,
        segmenter: str = "auto",
        vectors: str | WordVectors = "ppmi",
        bertscore_config: BertScoreConfig | None = None,
        data_dir: str | Path | None = None,
        workers: int = 2,
    ):
        from dishgraph.eval.l2 import CachedParse
        from dishgraph.eval.text_metrics import warm_from_disk
        from dishgraph.ingest.parser import RecipeParser

        self.glossary, self.reference, self.segmenter = glossary, reference, segmenter
        self.bertscore_config, self.data_dir, self.workers = bertscore_config, data_dir, workers
        self.segment = memoize(default_segmenter(segmenter, glossary))
        warm_from_disk(self.segment, [i.base_recipe for i in instances], segmenter)
        self.vectors = vectors if isinstance(vectors, WordVectors) else corpus_vectors(instances, self.segment, vectors)
        self.parser = RecipeParser(glossary, segmenter)
        self.parse = CachedParse(self.parser.parse, base_parses)
        self._clause_tokens: dict[tuple[str, ...], object] = {}

    def score(
        self,
        outputs: Sequence[str],
        instances: Sequence[Instance],
        progress: Callable[[int], None] | None = None,
        phase: Callable[[str], None] | None = None,
    ) -> dict:
        """Scores of ``outputs``; ``phase(text)`` names each stage as it starts (see `evaluate_crg`)."""
        from dishgraph.eval.clause_cache import base_clause_tokens
        from dishgraph.eval.prefetch import prefetch

        if phase:
            phase("parsing generated texts")
        bases = tuple(i.base_recipe for i in instances)
        if bases not in self._clause_tokens and not set(outputs) <= set(bases):
            # base clauses' tokens, on disk between runs: an edit's unchanged clauses are not segmented again
            self._clause_tokens[bases] = base_clause_tokens(self.parser, bases)
        prefetch(
            outputs,
            self.parse,
            self.segment,
            self.glossary,
            self.segmenter,
            self.workers,
            skip={i.base_recipe for i in instances},
            clause_tokens=self._clause_tokens.get(bases),
        )  # unchanged recipes: their parses are cached
        return evaluate_crg(
            outputs,
            instances,
            glossary=self.glossary,
            parse=self.parse,
            reference=self.reference,
            segment=self.segment,
            vectors=self.vectors,
            bertscore_config=self.bertscore_config,
            with_bertscore=self.bertscore_config is not None,
            data_dir=self.data_dir,
            progress=progress,
            phase=phase,
        )
