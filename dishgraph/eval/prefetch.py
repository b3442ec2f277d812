"""Parse and segment generated recipes in batches (and in worker processes) before scoring them.

Parsing (clause-level LAC) and whole-text segmentation of the generated texts are most of an evaluation's
time; both are pure functions of the text, so they fill the scorer's memo tables up front and the scoring
loop itself stays simple and single-process. With N workers, N - 1 processes are spawned and this process
takes chunks from the same queue. Both run batched (``RecipeParser.parse_many``, the segmenter's
``cut_many``: one ONNX call per group of equal-length inputs instead of one per clause, 4-5x faster, same
results), in N processes when asked. Workers are spawned (not forked) because the parent already holds an
ONNX Runtime session, which is not fork-safe.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import tempfile
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

_WORKER = None


def _tools(glossary, segmenter: str, clause_tokens=None):
    from dishgraph.eval.clause_cache import with_clause_memo
    from dishgraph.eval.text_metrics import default_segmenter
    from dishgraph.ingest.parser import RecipeParser

    parser = with_clause_memo(RecipeParser(glossary, segmenter), clause_tokens)
    return parser, default_segmenter(segmenter, glossary)


def _init(glossary_path: str, segmenter: str, clause_tokens=None) -> None:
    global _WORKER
    from dishgraph.ingest.glossary import Glossary

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _WORKER = _tools(Glossary.load(glossary_path), segmenter, clause_tokens)


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
    clause_tokens=None,
) -> int:
    """Fill ``parse.memo`` (a CachedParse) and ``segment.memo`` (a memoized segmenter) for ``texts``.

    Texts in ``skip`` (e.g. base recipes, whose parses come from the graph) and texts already memoized are
    left alone; below ``min_texts`` the pool is not worth its start-up and the texts are done here, batched.
    ``clause_tokens`` is a table from ``clause_cache.base_clause_tokens``: clauses found there are not
    segmented again. Returns the number of texts done.
    """
    todo = [t for t in dict.fromkeys(texts) if t not in skip and (t not in parse.memo or t not in segment.memo)]
    if not todo:
        return 0
    if workers <= 1 or len(todo) < min_texts:
        tools = _tools(glossary, segmenter, clause_tokens)
        chunks = [todo[i : i + 250] for i in range(0, len(todo), 250)]
        _fill(parse, segment, chunks, (_work(chunk, tools) for chunk in chunks))
        return len(todo)
    if getattr(mp.current_process(), "_inheriting", False):
        # A spawned worker re-running a script that calls this at import time (no `if __name__ ==
        # "__main__":` guard): fail here, in the main thread, so the worker exits and its parent, seeing a
        # broken pool, does the work itself. Spawning again from here would hang both.
        raise RuntimeError("prefetch called while a spawned process is starting (guard the script's main code)")
    n_chunks = workers * 8
    pending = deque(todo[i::n_chunks] for i in range(n_chunks))
    done: list[tuple[list[str], list]] = []
    errors: list[BaseException] = []
    tools = _tools(glossary, segmenter, clause_tokens)  # this process's models are loaded already
    here = lambda chunk: _work(chunk, tools)  # noqa: E731
    # Workers read the glossary from a file: a start-up message over the pipe's 64 KiB (a pickled glossary
    # is 127 KB) blocks the parent until the child reads it all, forever if the child dies first.
    scratch = tempfile.TemporaryDirectory(prefix="dishgraph-prefetch-")
    glossary_path = Path(scratch.name) / "glossary.json"
    glossary_path.write_text(json.dumps(glossary.to_json(), ensure_ascii=False), encoding="utf-8")
    with (
        scratch,
        ProcessPoolExecutor(
            workers - 1,
            mp_context=mp.get_context("spawn"),
            initializer=_init,
            initargs=(str(glossary_path), segmenter, clause_tokens),
        ) as pool,
    ):
        feeders = [
            threading.Thread(target=_share, args=(pending, lambda c: pool.submit(_work, c).result(), done, errors))
            for _ in range(workers - 1)
        ]
        for f in feeders:
            f.start()
        _share(pending, here, done, errors)  # this process takes chunks too
        for f in feeders:
            f.join()
    _share(pending, here, done, errors)  # chunks handed back by a worker that could not start
    if errors:
        raise errors[0]
    _fill(parse, segment, [c for c, _ in done], (r for _, r in done))
    return len(todo)


def _share(pending: deque, run, done: list, errors: list) -> None:
    """Take chunks off the shared queue until it is empty (or a chunk failed anywhere): one loop per
    spawned worker (a thread waiting on it) and one in this process, which would otherwise sit idle while
    the workers parse. Spawning one process fewer saves its start-up (imports and models: ~2.4 s of CPU).

    A worker that dies or cannot start (a script calling this at import time, without the
    ``if __name__ == "__main__":`` guard spawned processes need) hands its chunk back: this process does
    the rest, slower but whole, instead of waiting forever on a pool that keeps restarting workers."""
    while not errors:
        try:
            chunk = pending.popleft()
        except IndexError:
            return
        try:
            done.append((chunk, run(chunk)))
        except BrokenProcessPool:
            pending.appendleft(chunk)
            return
        except BaseException as e:  # noqa: BLE001 - re-raised by prefetch in the calling thread
            errors.append(e)
            return


def _fill(parse, segment, chunks, results) -> None:
    """Put each chunk's (actions, tokens) into the memo tables (in-process and pool results alike)."""
    for chunk, done in zip(chunks, results):
        for text, (actions, tokens) in zip(chunk, done):
            parse.memo.setdefault(text, actions)
            segment.memo.setdefault(text, tokens)


def prefetch_parses(outputs: Sequence[str], instances: Sequence, glossary, segmenter: str, cache):
    """A CachedParse holding the parses of every output the graph does not serve, parsed in one batched
    ``parse_many`` with the base clauses' tokens from the disk cache (``eval.clause_cache``): the same
    actions as one parse each, in a third of the time for an edited recipe. L2 alone needs no whole-text
    words, so this is `prefetch` without them, in this process."""
    from dishgraph.eval.clause_cache import base_clause_tokens, with_clause_memo
    from dishgraph.eval.l2 import CachedParse
    from dishgraph.ingest.parser import RecipeParser

    parser = RecipeParser(glossary, segmenter)
    parse = CachedParse(parser.parse, cache)
    bases = [i.base_recipe for i in instances]
    served = set(bases) if cache is not None else set()  # the graph's parses of the bases stay first
    todo = [t for t in dict.fromkeys([*outputs, *bases]) if t not in served]
    if todo:
        with_clause_memo(parser, base_clause_tokens(parser, bases))
        parse.memo.update(zip(todo, parser.parse_many(todo)))
    return parse
