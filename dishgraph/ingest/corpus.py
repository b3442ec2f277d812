"""`dishgraph ingest corpus FILE`: any corpus the readers accept, streamed in constant memory.

Records are read, upserted (dishes, recipes) and parsed chunk by chunk, so a multi-GB XiaChuFang dump
never sits in memory, and a killed run resumes where it stopped (parsed recipes are skipped).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

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
    skipped_lines: int = 0
    junk: dict[str, int] = field(default_factory=dict)  # junk kind -> records (see ingest/junk.py)
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    read_report: ReadReport | None = field(default=None, repr=False)  # the full skip report (not in to_dict)

    @property
    def exit_code(self) -> int:
        """0, or `dishgraph.errors.EXIT_SKIPPED` when any record was skipped (see `ReadReport.exit_code`)."""
        from dishgraph.errors import EXIT_OK, EXIT_SKIPPED

        return EXIT_SKIPPED if self.skipped_lines else EXIT_OK

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("read_report", None)
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
    from dishgraph.errors import InputError, UsageError
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import CORPUS_FORMATS, check_encoding, estimate_records, read_corpus

    for name, value in (("chunk_size", chunk_size), ("load_batch", load_batch or 1), ("workers", workers)):
        if not isinstance(value, int) or value < 1:
            raise UsageError(f"{name} must be a positive integer, not {value!r}")
    if fmt not in CORPUS_FORMATS:
        raise UsageError(f"unknown corpus format {fmt!r}; expected one of {', '.join(CORPUS_FORMATS)}")
    try:
        encoding = check_encoding(encoding)
    except ValueError as e:
        raise UsageError(str(e)) from None
    t0 = time.perf_counter()
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: " + ("dangling symbolic link" if path.is_symlink() else "no such file"))
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a corpus file")
    source = source or path.name
    report = report if report is not None else ReadReport()
    rep = CorpusReport()
    loader.load_glossary(store, glossary)

    def records() -> Iterator[loader.RecipeRecord]:
        for r in read_corpus(
            path,
            format=fmt,
            dish_field=dish_field,
            title_field=title_field,
            text_field=text_field,
            steps_field=steps_field,
            id_field=id_field,
            report=report,
            encoding=encoding,
        ):
            kind = junk_kind(r.text)
            if kind:
                rep.junk[kind] = rep.junk.get(kind, 0) + 1
                if len(junk_messages) < 20:
                    junk_messages.append(f"{path}:{r.line}: recipe for {r.dish!r} skipped as junk ({kind})")
                continue
            yield loader.RecipeRecord(
                loader.recipe_id(source, r.dish, r.text), r.dish, r.text, source=f"{source}", line=r.line
            )

    seen_dishes: set[str] = set()
    junk_messages: list[str] = []

    def loaded() -> Iterator[loader.RecipeRecord]:
        """Records after their chunk is written: the parser consumes this lazily, so memory stays flat."""
        for chunk in batched(records(), chunk_size):
            new = [r.dish for r in chunk if r.dish not in seen_dishes]
            seen_dishes.update(new)
            loader.load_dishes(store, new, source, mode=mode)
            loader.load_recipes(store, chunk, batch_size=chunk_size, mode=mode)
            rep.recipes += len(chunk)
            yield from chunk

    if parse:
        total = estimate_records(path, fmt) if show_progress else None  # the bar's total and ETA
        st = parse_and_load(
            store,
            loaded(),
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
        rep.steps, rep.with_actions = st.steps, st.with_actions
        rep.skipped_already_parsed = st.skipped_already_parsed
        if st.recipes > st.with_actions:
            rep.junk[NO_ACTION] = st.recipes - st.with_actions
    else:
        for _ in loaded():
            pass
    rep.dishes = len(seen_dishes)
    rep.skipped_lines = report.skipped
    rep.skipped_by_reason = dict(report.skipped_by_reason)
    rep.messages = list(report.messages[:20]) + junk_messages
    rep.read_report = report
    if report.read_by_file.get(str(path), 0) == 0:
        why = f" ({report.summary()}; first: {report.messages[0]})" if report.messages else " (the file is empty)"
        raise InputError(f"{path}: no recipe could be read{why}")
    if rep.recipes == 0 and rep.junk:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(rep.junk.items()))
        raise InputError(f"{path}: every record read is junk ({kinds}; first: {junk_messages[0]})")
    rep.seconds = time.perf_counter() - t0
    return rep
