"""Parse and segment generated recipes in worker processes before scoring them.

Parsing (clause-level LAC) and whole-text segmentation of the generated texts are most of an evaluation's
time; both are pure functions of the text, so N processes fill the scorer's memo tables up front and the
scoring loop itself stays simple and single-process. Workers are spawned (not forked) because the parent
already holds an ONNX Runtime session, which is not fork-safe.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Sequence

_WORKER = None


def _init(glossary, segmenter: str) -> None:
    global _WORKER
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from dishgraph.eval.text_metrics import default_segmenter
    from dishgraph.ingest.parser import RecipeParser

    _WORKER = (RecipeParser(glossary, segmenter).parse, default_segmenter(segmenter, glossary))


def _work(texts: Sequence[str]) -> list[tuple[list, list[str]]]:
    parse, segment = _WORKER
    return [(parse(t), segment(t)) for t in texts]


def prefetch(
    texts: Sequence[str],
    parse,
    segment,
    glossary,
    segmenter: str = "auto",
    workers: int = 2,
    skip: set[str] | frozenset[str] = frozenset(),
    min_texts: int = 200,
) -> int:
    """Fill ``parse.memo`` (a CachedParse) and ``segment.memo`` (a memoized segmenter) for ``texts``.

    Texts in ``skip`` (e.g. base recipes, whose parses come from the graph) and texts already memoized are
    left alone; below ``min_texts`` the pool is not worth its start-up. Returns the number of texts done.
    """
    todo = [t for t in dict.fromkeys(texts) if t not in skip and (t not in parse.memo or t not in segment.memo)]
    if workers <= 1 or len(todo) < min_texts:
        return 0
    n_chunks = workers * 8
    chunks = [todo[i::n_chunks] for i in range(n_chunks)]
    with mp.get_context("spawn").Pool(workers, initializer=_init, initargs=(glossary, segmenter)) as pool:
        for chunk, results in zip(chunks, pool.imap(_work, chunks)):
            for text, (actions, tokens) in zip(chunk, results):
                parse.memo.setdefault(text, actions)
                segment.memo.setdefault(text, tokens)
    return len(todo)
