"""Parse recipes in worker processes and load the action graphs in batched transactions.

Resumable by construction: a recipe is marked ``parsed`` only after its steps are written, every write
is a MERGE on a stable key, and parsing is deterministic; so an ingest killed at any point and re-run
ends with exactly the counts of an uninterrupted run.
"""
from __future__ import annotations

import multiprocessing as mp
import os
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from dishgraph.graph.store import GraphStore, batched
from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.loader import ParsedRecipe, ParsedRows, RecipeRecord, mark_parsed, write_parsed

_WORKER_PARSER = None


def _init_worker(glossary: Glossary, segmenter: str, parser="rules") -> None:
    global _WORKER_PARSER
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from dishgraph.ingest.parser import make_parser

    _WORKER_PARSER = make_parser(glossary, parser, segmenter)


def worker_context(parser=None):
    """Processes for parse workers start from a clean server process (forkserver), not as forks of this one:
    a fork inherits whatever this process runs, and a LAC/ONNX session or an open database here (a notebook
    that parsed a recipe first, a test run) crashed forked workers with a segfault. A parser *object* cannot
    travel to a fresh process, so it alone is still forked."""
    if os.name != "posix":
        return mp.get_context("spawn")
    return mp.get_context("forkserver" if parser is None or isinstance(parser, str) else "fork")


def _parse_chunk(chunk: Sequence[tuple[str, str]]) -> list[ParsedRecipe]:
    parsed = _WORKER_PARSER.parse_many([text for _, text in chunk])
    return [ParsedRecipe(rid, actions) for (rid, _), actions in zip(chunk, parsed)]


def _parse_chunk_rows(chunk: Sequence[tuple[str, str]]) -> ParsedRows:
    """What the ingest workers send back: loader rows, cheap to pickle (see ``ParsedRows``)."""
    return ParsedRows.of(_parse_chunk(chunk))


@dataclass
class ParseStats:
    recipes: int = 0
    skipped_already_parsed: int = 0
    steps: int = 0
    with_actions: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


def progress_bar(disable: bool = False) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                    disable=disable)


def _chunks(todo: list, workers: int) -> list[list]:
    size = max(1, len(todo) // (workers * 4))
    return [todo[i:i + size] for i in range(0, len(todo), size)]


# Parsed recipes held before one load: each embedded load ends in one checkpoint whose cost grows with the
# database (benchmarks/bench_copy_checkpoint.py), so big loads amortise it. Elsewhere every write is a
# per-row MERGE or CREATE, and the parse batch is load batch enough.
LOAD_BATCH_BULK = 20_000
# Parse batches submitted ahead of the one being collected, so workers stay busy through a long load
# (a 20k-recipe load takes ~17 s, in which two workers parse ~6 batches of 2,000).
PARSE_AHEAD = 8


def default_load_batch(store: GraphStore, mode: str, batch_size: int) -> int:
    """Recipes per load: ``LOAD_BATCH_BULK`` where the embedded bulk path runs, else the parse batch."""
    return LOAD_BATCH_BULK if store.backend == "ladybug" and mode in ("auto", "copy") else batch_size


# Loaded recipes are made durable (one checkpoint) and marked parsed at least every load, and otherwise
# once those waiting reach this share of the recipes already durable, up to DURABLE_MAX: a checkpoint
# costs time in proportion to the database, so spacing them out with its size keeps its share of the
# ingest flat (~20 checkpoints for 1M recipes instead of one or two per load). The price: a kill takes
# back at most that many loaded recipes, which the next run parses again.
DURABLE_FRACTION = 0.25
DURABLE_MAX = 100_000


def durable_every(store: GraphStore, durable: int, load_batch: int, mode: str = "auto") -> int:
    """How many loaded recipes may wait for their checkpoint, given how many this run made durable."""
    if store.backend != "ladybug" or mode not in ("auto", "copy"):
        return load_batch  # commits are durable (Neo4j), or per-row writes fill the WAL: nothing to amortise
    return max(load_batch, min(int(DURABLE_FRACTION * durable), DURABLE_MAX))


def parse_and_load(store: GraphStore, recipes: Iterable[RecipeRecord], glossary: Glossary, *,
                   segmenter: str = "auto", parser="rules", workers: int = 1, batch_size: int = 2000,
                   load_batch: int | None = None, total: int | None = None, show_progress: bool = True,
                   mode: str = "auto", on_progress: Callable[[ParseStats], None] | None = None) -> ParseStats:
    """Parse recipes not yet marked parsed and load their steps; ``workers`` > 1 parses in processes.

    With workers, up to ``PARSE_AHEAD`` batches are parsed while this thread loads (it alone touches the
    database). Parsed recipes are loaded ``load_batch`` at a time (default: ``default_load_batch``); a
    recipe is marked parsed only once its steps are durable (``durable_every`` spaces those checkpoints
    out as the database grows), so a kill loses at most that many parses.
    ``recipes`` may be a lazy iterator whose consumption writes the records it yields (corpus ingest
    does); ``mode`` is the loader's write path (auto | merge | create | copy). ``on_progress`` gets the
    running stats after every parse batch (notebooks, benchmarks). ``parser`` is a name (``rules`` or a
    dependency backend, see ``parser.make_parser``) or a parser object; a recipe already marked parsed is
    not parsed again by another parser.
    """
    import time

    stats = ParseStats()
    load_batch = load_batch or default_load_batch(store, mode, batch_size)
    t0 = time.perf_counter()
    pool = None
    from dishgraph.ingest.parser import check_parser

    check_parser(parser)  # fail here, not in a pool initializer (a failing one is retried forever)
    if workers > 1:
        pool = worker_context(parser).Pool(workers, initializer=_init_worker,
                                           initargs=(glossary, segmenter, parser))
    else:
        _init_worker(glossary, segmenter, parser)

    with progress_bar(disable=not show_progress) as bar, store.bulk_session():
        task = bar.add_task("parse+load", total=total, rate="")

        buffer: list[ParsedRows] = []     # parsed, not yet loaded
        n_buffered = 0
        buffered: set[str] = set()
        unmarked: dict[str, dict] = {}    # loaded, waiting for their checkpoint and mark
        durable = 0

        def commit() -> None:
            nonlocal durable
            if not unmarked:
                return  # COPYs left (records already parsed) are made durable as the session ends
            store.make_durable()
            mark_parsed(store, unmarked.values())
            durable += len(unmarked)
            unmarked.clear()

        def flush() -> None:
            nonlocal n_buffered
            if buffer:
                rows = ParsedRows.concat(buffer)
                stats.steps += write_parsed(store, rows, mode=mode)
                stats.with_actions += rows.with_actions
                unmarked.update((row["id"], row) for row in rows.marks)
            buffer.clear()
            buffered.clear()
            n_buffered = 0
            if len(unmarked) >= durable_every(store, durable, load_batch, mode):
                commit()

        def collect(job) -> None:
            nonlocal n_buffered
            n_batch, result, _ = job
            parts = result.get() if pool is not None else [result]
            for part in parts:
                buffer.append(part)
                buffered.update(part.ids)
                n_buffered += len(part.marks)
            if n_buffered >= load_batch:
                flush()
            stats.recipes += n_batch
            elapsed = time.perf_counter() - t0
            bar.update(task, advance=n_batch, rate=f"{stats.recipes / max(elapsed, 1e-9):,.0f} recipes/s")
            if on_progress is not None:
                stats.seconds = elapsed
                on_progress(stats)

        pending: deque = deque()  # (n records, parse result, ids): submitted, not yet collected
        try:
            for batch in batched(recipes, batch_size):
                ids = [r.id for r in batch]
                in_flight = {rid for job in pending for rid in job[2]}  # a repeat waits for these
                done = ({row["id"] for row in store.query("parsed_recipe_ids", ids=ids)} | in_flight | buffered
                        | unmarked.keys())
                todo = list({r.id: (r.id, r.text) for r in batch if r.id not in done}.values())
                stats.skipped_already_parsed += len(batch) - len(todo)
                result = (pool.map_async(_parse_chunk_rows, _chunks(todo, workers)) if pool is not None
                          else _parse_chunk_rows(todo))
                pending.append((len(batch), result, [rid for rid, _ in todo]))
                while len(pending) > PARSE_AHEAD:  # workers keep parsing while this thread loads
                    collect(pending.popleft())
            while pending:
                collect(pending.popleft())
            flush()
            commit()
        finally:
            if pool is not None:
                if any(not job[1].ready() for job in pending):
                    pool.terminate()  # an error mid-run: do not wait for parses nobody will load
                else:
                    pool.close()
                pool.join()
    stats.seconds = time.perf_counter() - t0
    return stats
