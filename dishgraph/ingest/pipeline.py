"""Parse recipes in worker processes and load the action graphs in batched transactions.

Resumable by construction: a recipe is marked ``parsed`` only after its steps are written, every write
is a MERGE on a stable key, and parsing is deterministic; so an ingest killed at any point and re-run
ends with exactly the counts of an uninterrupted run.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from dishgraph.errors import DishgraphError
from dishgraph.graph.base import GraphStore
from dishgraph.graph.values import batched
from dishgraph.ingest.culinary import CulinaryTally
from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.loader import (
    ParsedRecipe,
    ParsedRows,
    RecipeRecord,
    food_classes,
    mark_culinary,
    mark_parsed,
    write_parsed,
)

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


# The most steps one recipe may give. With the reader's cap on a recipe's characters (``MAX_RECIPE_CHARS``,
# 20,000) a text of short clauses still gives ~6,700 actions; each step costs rows in every load buffer, so
# this cap is what keeps a load's memory bounded by its recipe count. No real recipe comes near it: at most
# 67 steps in the CRG release, 170 in the XiaChuFang sample, 582 in the classic corpus (every record parsed).
MAX_RECIPE_STEPS = 2_000


def _parse_capped(chunk: Sequence[tuple[str, str]]) -> tuple[list[ParsedRecipe], list[tuple[str, int]]]:
    """Parsed recipes, each cut to ``MAX_RECIPE_STEPS`` actions, and (id, actions parsed) of those cut."""
    parsed = _WORKER_PARSER.parse_many([text for _, text in chunk])
    cut = [(rid, len(a)) for (rid, _), a in zip(chunk, parsed) if len(a) > MAX_RECIPE_STEPS]
    return [ParsedRecipe(rid, a[:MAX_RECIPE_STEPS]) for (rid, _), a in zip(chunk, parsed)], cut


def _parse_chunk(chunk: Sequence[tuple[str, str]]) -> list[ParsedRecipe]:
    return _parse_capped(chunk)[0]


def _parse_chunk_rows(chunk: Sequence[tuple[str, str]]) -> ParsedRows:
    """What the ingest workers send back: loader rows, cheap to pickle (see ``ParsedRows``), with the recipes
    whose actions were cut to ``MAX_RECIPE_STEPS``."""
    parsed, cut = _parse_capped(chunk)
    rows = ParsedRows.of(parsed)
    rows.truncated = cut
    return rows


@dataclass
class ParseStats:
    recipes: int = 0
    skipped_already_parsed: int = 0
    steps: int = 0
    with_actions: int = 0
    truncated: int = 0  # recipes whose steps were cut to MAX_RECIPE_STEPS
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)  # `source:line: …` messages (the first MAX_MESSAGES)


def progress_bar(disable: bool = False) -> Progress:
    """The ingest's bar, on stderr: stdout holds the result (a table, or JSON a pipe reads)."""
    from dishgraph.terminal_text import safe_console

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=safe_console(stderr=True),
        disable=disable,
    )


def _chunks(todo: list, workers: int) -> list[list]:
    size = max(1, len(todo) // (workers * 4))
    return [todo[i : i + size] for i in range(0, len(todo), size)]


# Parsed recipes held before one load: each embedded load ends in one checkpoint whose cost grows with the
# database (benchmarks/bench_copy_checkpoint.py), so big loads amortise it. Elsewhere every write is a
# per-row MERGE or CREATE, and the parse batch is load batch enough.
LOAD_BATCH_BULK = 20_000
# Parse batches submitted ahead of the one being collected, so workers stay busy through a long load
# (a 20k-recipe load takes ~17 s, in which two workers parse ~6 batches of 2,000).
PARSE_AHEAD = 8
MAX_MESSAGES = 20


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


def parse_and_load(
    store: GraphStore,
    recipes: Iterable[RecipeRecord],
    glossary: Glossary,
    *,
    segmenter: str = "auto",
    parser="rules",
    workers: int = 1,
    batch_size: int = 2000,
    load_batch: int | None = None,
    total: int | None = None,
    show_progress: bool = True,
    mode: str = "auto",
    on_progress: Callable[[ParseStats], None] | None = None,
) -> ParseStats:
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
    stats = ParseStats()
    batch = load_batch or default_load_batch(store, mode, batch_size)
    loads = _Loads(store, stats, batch, mode, food_classes(glossary), fresh=not store.query("proto_any"))
    t0 = time.perf_counter()
    pool = _start_parsers(glossary, segmenter, parser, workers)
    with progress_bar(disable=not show_progress) as bar, store.bulk_session():
        task = bar.add_task("parse+load", total=total, rate="")

        def collect(job: _Job) -> None:
            parts = job.result.get() if pool is not None else [job.result]
            _note_truncated(stats, parts, job.where)
            loads.add(parts)
            stats.recipes += job.n_records
            elapsed = time.perf_counter() - t0
            bar.update(task, advance=job.n_records, rate=f"{stats.recipes / max(elapsed, 1e-9):,.0f} recipes/s")
            if on_progress is not None:
                stats.seconds = elapsed
                on_progress(stats)

        pending: deque[_Job] = deque()  # submitted, not yet collected
        try:
            for batch in batched(recipes, batch_size):
                pending.append(_submit(store, batch, pending, loads, pool, workers))
                while len(pending) > PARSE_AHEAD:  # workers keep parsing while this thread loads
                    collect(pending.popleft())
            while pending:
                collect(pending.popleft())
            loads.flush()
            loads.commit()
        finally:
            _stop_parsers(pool, pending)
    if loads.fresh and mode != "merge":
        loads.settle_culinary()  # the graph's every proto-action and step came from this run: its tally
    else:
        mark_culinary(store, glossary)
    stats.seconds = time.perf_counter() - t0
    return stats


@dataclass
class _Job:
    """One submitted parse batch: how many records it covered, the (async) parse result, the ids parsed."""

    n_records: int
    result: Any
    ids: list[str]
    where: dict[str, str] = field(default_factory=dict)  # id -> "source:line", for messages


def _note_truncated(stats: ParseStats, parts: Iterable[ParsedRows], where: dict[str, str]) -> None:
    """Count (and name the first of) the recipes whose steps were cut to ``MAX_RECIPE_STEPS``."""
    for part in parts:
        for rid, n in part.truncated:
            stats.truncated += 1
            if len(stats.errors) < MAX_MESSAGES:
                stats.errors.append(
                    f"{where.get(rid, rid)}: recipe {rid} gave {n:,} steps; the first {MAX_RECIPE_STEPS:,} were kept"
                )


def _start_parsers(glossary: Glossary, segmenter: str, parser, workers: int):
    """A pool of parse workers (None when parsing in this process, whose parser is then set up here)."""
    from dishgraph.ingest.parser import check_parser

    check_parser(parser)  # fail here, not in a pool initializer (a failing one is retried forever)
    if workers > 1:
        try:
            return worker_context(parser).Pool(
                workers, initializer=_init_worker, initargs=(glossary, segmenter, parser)
            )
        except (BrokenPipeError, EOFError):  # a worker died before it read its start-up message
            raise DishgraphError(
                "parse workers exited while starting; from a script, put its main code under "
                '`if __name__ == "__main__":` (workers import the main module), or pass workers=1'
            ) from None
    _init_worker(glossary, segmenter, parser)
    return None


def _stop_parsers(pool, pending: deque[_Job]) -> None:
    if pool is None:
        return
    if any(not job.result.ready() for job in pending):
        pool.terminate()  # an error mid-run: do not wait for parses nobody will load
    else:
        pool.close()
    pool.join()


def _submit(
    store: GraphStore, batch: list[RecipeRecord], pending: deque[_Job], loads: _Loads, pool, workers: int
) -> _Job:
    """Start parsing the batch's recipes that are neither marked parsed, nor in flight, nor waiting to load."""
    ids = [r.id for r in batch]
    in_flight = {rid for job in pending for rid in job.ids}  # a repeat waits for these
    done = {row["id"] for row in store.query("parsed_recipe_ids", ids=ids)} | in_flight | loads.holding()
    todo = list({r.id: (r.id, r.text) for r in batch if r.id not in done}.values())
    loads.stats.skipped_already_parsed += len(batch) - len(todo)
    result = pool.map_async(_parse_chunk_rows, _chunks(todo, workers)) if pool is not None else _parse_chunk_rows(todo)
    where = {r.id: f"{r.source}:{r.line}" for r in batch}
    return _Job(len(batch), result, [rid for rid, _ in todo], where)


def _new_steps(part: ParsedRows, buffered: set[str]) -> Any:
    """The part's steps less those of recipes already buffered (``ParsedRows.concat`` keeps a recipe's first
    rows only: the tally must count what is loaded)."""
    return part.without(buffered.intersection(part.ids)).steps


class _Loads:
    """Parsed recipes on their way into the graph: buffered (parsed, not loaded) until ``load_batch`` of them
    are loaded at once, then unmarked (loaded, waiting for the checkpoint after which they are marked parsed;
    ``durable_every`` spaces the checkpoints out)."""

    def __init__(
        self, store: GraphStore, stats: ParseStats, load_batch: int, mode: str, foods: set[str], fresh: bool = False
    ):
        self.store, self.stats, self.load_batch, self.mode = store, stats, load_batch, mode
        # The steps' readings, counted as parsed rows arrive (the workers still parsing): new proto-actions
        # are written with their culinary flag; ``fresh`` (the graph had no proto-action) lets
        # ``settle_culinary`` finish the flags from these counts alone.
        self.foods, self.fresh = foods, fresh
        self.tally = CulinaryTally()
        self.flagged: dict[str, bool] = {}  # key -> the flag a load wrote
        self.buffer: list[ParsedRows] = []
        self.n_buffered = 0
        self.buffered: set[str] = set()
        self.unmarked: dict[str, dict] = {}
        self.durable = 0

    def holding(self) -> set[str]:
        """Ids parsed in this run and not yet marked parsed in the graph."""
        return self.buffered | self.unmarked.keys()

    def add(self, parts: Iterable[ParsedRows]) -> None:
        for part in parts:
            self.tally.count_steps(_new_steps(part, self.buffered))
            self.buffer.append(part)
            self.buffered.update(part.ids)
            self.n_buffered += len(part.marks)
        if self.n_buffered >= self.load_batch:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            rows = ParsedRows.concat(self.buffer)
            flags = self.tally.verdicts(rows.action_keys(), self.foods)
            self.stats.steps += write_parsed(self.store, rows, mode=self.mode, culinary=flags)
            if self.mode != "merge":  # MERGE writes no flag: mark_culinary then settles them
                for key, flag in flags.items():
                    self.flagged.setdefault(key, flag)  # a key already there keeps the flag it was written with
            self.stats.with_actions += rows.with_actions
            self.unmarked.update((row["id"], row) for row in rows.marks)
        self.buffer.clear()
        self.buffered.clear()
        self.n_buffered = 0
        if len(self.unmarked) >= durable_every(self.store, self.durable, self.load_batch, self.mode):
            self.commit()

    def settle_culinary(self) -> int:
        """Set the culinary flag that the run's counts give where a load wrote another (a key whose steps in
        a later load outweighed the first load's): what ``mark_culinary`` would do, for a graph all of whose
        proto-actions and steps this run wrote. Returns how many flags changed."""
        final = self.tally.verdicts(self.flagged, self.foods)
        rows = [{"key": k, "culinary": v} for k, v in final.items() if self.flagged[k] is not v]
        return self.store.write("proto_set_culinary", rows) if rows else 0

    def commit(self) -> None:
        if not self.unmarked:
            return  # COPYs left (records already parsed) are made durable as the session ends
        self.store.make_durable()
        mark_parsed(self.store, self.unmarked.values())
        self.durable += len(self.unmarked)
        self.unmarked.clear()
