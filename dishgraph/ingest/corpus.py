"""`dishgraph ingest corpus FILE`: any corpus the readers accept, streamed in constant memory.

Records are read, upserted (dishes, recipes) and parsed chunk by chunk, so a multi-GB XiaChuFang dump
never sits in memory, and a killed run resumes where it stopped (parsed recipes are skipped).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from dishgraph.graph.base import GraphStore
from dishgraph.graph.values import batched
from dishgraph.ingest import loader
from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.junk import NO_ACTION, junk_kind
from dishgraph.ingest.readers import ReadReport


@dataclass
class CorpusReport:
    recipes: int = 0
    dishes: int = 0
    steps: int = 0
    with_actions: int = 0
    skipped_already_parsed: int = 0
    duplicates: int = 0  # records repeating an earlier record of the same source (same dish and text): left out
    already_loaded: int = 0  # records an earlier ingest of this source loaded from the same line (a re-run)
    truncated_steps: int = 0  # recipes whose steps were cut to pipeline.MAX_RECIPE_STEPS
    skipped_lines: int = 0
    junk: dict[str, int] = field(default_factory=dict)  # junk kind -> records (see ingest/junk.py)
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    read_report: ReadReport | None = field(default=None, repr=False)  # the full skip report (not in to_dict)
    # the dishes this ingest read recipes of: what derived data it can make stale (not in to_dict: a large corpus
    # has hundreds of thousands)
    touched_dishes: list[str] = field(default_factory=list, repr=False)

    @property
    def exit_code(self) -> int:
        """0, or `dishgraph.errors.EXIT_SKIPPED` when any record was skipped (see `ReadReport.exit_code`)."""
        from dishgraph.errors import EXIT_OK, EXIT_SKIPPED

        return EXIT_SKIPPED if self.skipped_lines else EXIT_OK

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("read_report", None)
        d.pop("touched_dishes", None)
        return d


def ingest_corpus(
    store: GraphStore,
    path: str | Path,
    glossary: Glossary,
    *,
    fmt: str = "auto",
    source: str | None = None,
    dish_field: str = "dish",
    title_field: str | None = None,
    text_field: str = "text",
    steps_field: str | None = None,
    id_field: str | None = None,
    segmenter: str = "auto",
    parser: str = "rules",
    workers: int = 1,
    chunk_size: int = 20_000,
    load_batch: int | None = None,
    show_progress: bool = True,
    parse: bool = True,
    mode: str = "auto",
    on_progress=None,
    encoding: str = "auto",
    report: ReadReport | None = None,
) -> CorpusReport:
    """Read, upsert and parse a corpus chunk by chunk; ``mode`` is the loader's write path (auto|merge|create|copy).

    ``load_batch`` is how many parsed recipes go into one load (see ``pipeline.default_load_batch``).
    Malformed records are skipped with ``file:line`` messages (``messages``) and counted in
    ``skipped_lines`` / ``skipped_by_reason`` (``report``, a `ReadReport`, collects them; pass one to add
    skips of your own); every good record is loaded. A file that yields no record at all raises
    `InputError`: an ingest of nothing is never a success. ``on_progress`` is ``parse_and_load``'s hook.
    """
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import estimate_records, read_corpus

    encoding = _checked_options(fmt, encoding, chunk_size=chunk_size, load_batch=load_batch or 1, workers=workers)
    t0 = time.perf_counter()
    path = _corpus_file(path)
    read = partial(
        read_corpus,
        path,
        format=fmt,
        dish_field=dish_field,
        title_field=title_field,
        text_field=text_field,
        steps_field=steps_field,
        id_field=id_field,
        encoding=encoding,
    )
    job = _CorpusLoad(store, path, source or path.name, read, report if report is not None else ReadReport())
    # Written as reading starts (``_CorpusLoad.loaded``), once the parse workers are starting (they load their
    # models meanwhile), and before any COPY (a logged write after one would force an early checkpoint).
    job.before_first = partial(loader.load_glossary, store, glossary)
    if parse:
        total = estimate_records(path, fmt) if show_progress else None  # the bar's total and ETA
        stats = parse_and_load(
            store,
            job.loaded(chunk_size, mode),
            glossary,
            segmenter=segmenter,
            parser=parser,
            workers=workers,
            batch_size=min(chunk_size, 2000),
            load_batch=load_batch,
            total=total,
            show_progress=show_progress,
            mode=mode,
            on_progress=on_progress,
        )
        job.count_parsed(stats)
    else:
        for _ in job.loaded(chunk_size, mode):
            pass
    rep = job.finish()
    rep.seconds = time.perf_counter() - t0
    return rep


def _checked_options(fmt: str, encoding: str, **positive: int) -> str:
    """Refuse nonsense options before anything is read or written; returns the encoding as the readers name it."""
    from dishgraph.errors import UsageError
    from dishgraph.ingest.readers import CORPUS_FORMATS, check_encoding

    for name, value in positive.items():
        if not isinstance(value, int) or value < 1:
            raise UsageError(f"{name} must be a positive integer, not {value!r}")
    if fmt not in CORPUS_FORMATS:
        raise UsageError(f"unknown corpus format {fmt!r}; expected one of {', '.join(CORPUS_FORMATS)}")
    try:
        return check_encoding(encoding)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _corpus_file(path: str | Path) -> Path:
    """The corpus path, if it is a file (a missing file, a dangling link or a directory is an InputError)."""
    from dishgraph.errors import InputError, nearest_path
    from dishgraph.ingest.readers.lines import check_input

    path = Path(path)
    if path.is_symlink() or path.exists():
        try:
            check_input(path)  # a link loop, a device (/dev/zero never ends)
        except OSError as e:
            raise InputError(f"{path}: {e.strerror}") from None
    if not path.exists():
        raise InputError(
            f"{path}: " + ("dangling symbolic link" if path.is_symlink() else "no such file" + nearest_path(str(path)))
        )
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a corpus file")
    return path


FIRST_CHUNK = 2_000  # records read and written before the first parse batch goes out (one batch)


def growing_batches(rows: Iterable[Any], first: int, size: int) -> Iterator[list[Any]]:
    """``rows`` in lists: the first of ``first`` rows, the others of ``size`` (the last one shorter)."""
    it = iter(rows)
    head = list(islice(it, first))
    if head:
        yield head
        yield from batched(it, size)


@dataclass
class _CorpusLoad:
    """One ingest's running state: what is read (``read`` is the reader, called once, lazily), the dishes
    already written, the junk left out, and the report being filled."""

    store: GraphStore
    path: Path
    source: str
    read: Callable[..., Iterable[Any]]
    report: ReadReport
    rep: CorpusReport = field(default_factory=CorpusReport)
    seen_dishes: set[str] = field(default_factory=set)
    junk_messages: list[str] = field(default_factory=list)
    before_first: Callable[[], None] | None = None  # run once, as reading starts

    def recipes(self) -> Iterator[loader.RecipeRecord]:
        """The reader's records as recipe records; junk texts are counted by kind and left out."""
        for r in self.read(report=self.report):
            kind = junk_kind(r.text)
            if kind:
                self.rep.junk[kind] = self.rep.junk.get(kind, 0) + 1
                if len(self.junk_messages) < 20:
                    self.junk_messages.append(f"{self.path}:{r.line}: recipe for {r.dish!r} skipped as junk ({kind})")
                continue
            yield loader.RecipeRecord(
                loader.recipe_id(self.source, r.dish, r.text), r.dish, r.text, source=self.source, line=r.line
            )

    def loaded(self, chunk_size: int, mode: str) -> Iterator[loader.RecipeRecord]:
        """Records after their chunk is written: the parser consumes this lazily, so memory stays flat. The
        first chunk is short (``FIRST_CHUNK``): parsing starts once it is written, not after the first
        ``chunk_size`` records are read and written with the parse workers idle."""
        self._run_before_first()
        for chunk in growing_batches(self.recipes(), min(chunk_size, FIRST_CHUNK), chunk_size):
            chunk = self.without_duplicates(chunk)
            new = [r.dish for r in chunk if r.dish not in self.seen_dishes]
            self.seen_dishes.update(new)
            loader.load_dishes(self.store, new, self.source, mode=mode)
            loader.load_recipes(self.store, chunk, batch_size=chunk_size, mode=mode)
            self.rep.recipes += len(chunk)
            yield from chunk

    def _run_before_first(self) -> None:
        if self.before_first is not None:
            self.before_first()
            self.before_first = None

    def without_duplicates(self, chunk: list[loader.RecipeRecord]) -> list[loader.RecipeRecord]:
        """The chunk less exact duplicates (same id: same source, dish and text), counted as ``duplicates``.

        The graph remembers the line each recipe was first loaded from, so no set of every id read is kept
        (memory stays bounded by the chunk): a record whose recipe is there *from another line* repeats an
        earlier record; one there from *its own* line was loaded by an earlier run (``already_loaded``) and
        goes on, so that a run killed before parsing it resumes."""
        first: dict[str, int | None] = {}
        there = loader.existing_recipe_lines(self.store, [r.id for r in chunk])
        out = []
        for r in chunk:
            line = first.get(r.id, there.get(r.id))
            if r.id in first or (r.id in there and line != r.line):
                self.rep.duplicates += 1
                if len(self.junk_messages) < 20:
                    self.junk_messages.append(
                        f"{self.path}:{r.line}: recipe for {r.dish!r} repeats line {line} word for word: "
                        "left out as a duplicate"
                    )
                continue
            self.rep.already_loaded += r.id in there
            first[r.id] = r.line
            out.append(r)
        return out

    def count_parsed(self, stats: Any) -> None:
        """Steps and parsed recipes from ``parse_and_load``; a recipe that yields no action is junk too."""
        self.rep.steps, self.rep.with_actions = stats.steps, stats.with_actions
        self.rep.skipped_already_parsed = stats.skipped_already_parsed
        self.rep.truncated_steps = stats.truncated
        self.junk_messages.extend(stats.errors)
        parsed = stats.recipes - stats.skipped_already_parsed  # parsed in this run (not a recipe parsed before)
        if parsed > stats.with_actions:
            self.rep.junk[NO_ACTION] = parsed - stats.with_actions

    def finish(self) -> CorpusReport:
        """The filled report; an ingest that read nothing, or only junk, is an InputError, never a success."""
        from dishgraph.errors import InputError

        rep, report = self.rep, self.report
        rep.dishes = len(self.seen_dishes)
        rep.touched_dishes = sorted(self.seen_dishes)
        rep.skipped_lines = report.skipped
        rep.skipped_by_reason = dict(report.skipped_by_reason)
        rep.messages = list(report.messages[:20]) + self.junk_messages
        rep.read_report = report
        if report.read_by_file.get(str(self.path), 0) == 0:
            why = f" ({report.summary()}; first: {report.messages[0]})" if report.messages else " (the file is empty)"
            raise InputError(f"{self.path}: no recipe could be read{why}")
        if rep.recipes == 0 and rep.junk:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(rep.junk.items()))
            raise InputError(f"{self.path}: every record read is junk ({kinds}; first: {self.junk_messages[0]})")
        return rep
