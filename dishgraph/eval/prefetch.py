"""Parse and segment generated recipes in batches (and in worker processes) before scoring them.

Parsing (clause-level LAC) and whole-text segmentation of the generated texts are most of an evaluation's
time; both are pure functions of the text, so they fill the scorer's memo tables up front and the scoring
loop itself stays simple and single-process. Both run batched (``RecipeParser.parse_many``, the segmenter's
``cut_many``: one ONNX call per group of equal-length inputs instead of one per clause, 4-5x faster, same
results), in N processes when asked. Workers are spawned (not forked) because the parent already holds an
ONNX Runtime session, which is not fork-safe.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Sequence

_WORKER = None


def _tools(glossary, segmenter: str):
    from dishgraph.eval.text_metrics import default_segmenter
    from dishgraph.ingest.parser import RecipeParser

    return RecipeParser(glossary, segmenter), default_segmenter(segmenter, glossary)


def _init(glossary, segmenter: str) -> None:
    global _WORKER
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _WORKER = _tools(glossary, segmenter)


def _work(texts: Sequence[str], tools=None) -> list[tuple[list, list[str]]]:
    parser, segment = tools or _WORKER
    many = getattr(segment, "many", None)
    words = many(list(texts)) if many is not None else [segment(t) for t in texts]
    return list(zip(parser.parse_many(list(texts)), words))


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
    left alone; below ``min_texts`` the pool is not worth its start-up and the texts are done here, batched.
    Returns the number of texts done.
    """
    todo = [t for t in dict.fromkeys(texts) if t not in skip and (t not in parse.memo or t not in segment.memo)]
    if not todo:
        return 0
    if workers <= 1 or len(todo) < min_texts:
        tools = _tools(glossary, segmenter)
        chunks = [todo[i : i + 250] for i in range(0, len(todo), 250)]
        _fill(parse, segment, chunks, (_work(chunk, tools) for chunk in chunks))
        return len(todo)
    n_chunks = workers * 8
    chunks = [todo[i::n_chunks] for i in range(n_chunks)]
    with mp.get_context("spawn").Pool(workers, initializer=_init, initargs=(glossary, segmenter)) as pool:
        _fill(parse, segment, chunks, pool.imap(_work, chunks))
    return len(todo)


def _fill(parse, segment, chunks, results) -> None:
    """Put each chunk's (actions, tokens) into the memo tables (in-process and pool results alike)."""
    for chunk, done in zip(chunks, results):
        for text, (actions, tokens) in zip(chunk, done):
            parse.memo.setdefault(text, actions)
            segment.memo.setdefault(text, tokens)
