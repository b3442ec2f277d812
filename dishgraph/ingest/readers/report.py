"""How every reader reports bad input: `ReadReport` counts, `ReadError` stops, `ReadContext` is one file's
bookkeeping (skip or raise, count, log), shared by the line, CRG, pivot and corpus readers."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)


class ReadError(ValueError):
    """A bad record in strict mode, or input that cannot be read on at all."""

    def __init__(self, file: str, line: int | str | None, reason: str, message: str):
        self.file, self.line, self.reason = file, line, reason
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {message}")


@dataclass
class ReadReport:
    """What a read did: records yielded, records skipped and records flagged, by reason.

    The reusable skip mechanism of every reader and ingest: ``skip(file, line, reason, message)`` counts a
    record that was *not* stored (any reason string: reader reasons such as ``json``, ``encoding``,
    ``corrupt``; content kinds an ingest adds later), ``warn(...)`` one that was stored with a flag.
    Pass one instance to several readers to aggregate. ``messages`` keeps the first ``max_messages``
    messages (``file:line: ...``); the counters are always complete. Blank lines are counted apart
    (``blank``): they are not skipped input. ``exit_code`` is what a command should exit with after a
    run that otherwise succeeded (`dishgraph.errors.EXIT_SKIPPED` when anything was skipped).
    """

    max_messages: int = 50
    read: int = 0
    blank: int = 0
    skipped_by_reason: Counter = field(default_factory=Counter)
    warned_by_reason: Counter = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    read_by_file: Counter = field(default_factory=Counter)
    skipped_by_file: Counter = field(default_factory=Counter)

    @property
    def skipped(self) -> int:
        return sum(self.skipped_by_reason.values())

    @property
    def warned(self) -> int:
        return sum(self.warned_by_reason.values())

    @property
    def exit_code(self) -> int:
        from dishgraph.errors import EXIT_OK, EXIT_SKIPPED

        return EXIT_SKIPPED if self.skipped else EXIT_OK

    def note(self, file: str, line: int | str | None, reason: str, message: str, *, skip: bool) -> None:
        (self.skipped_by_reason if skip else self.warned_by_reason)[reason] += 1
        if skip:
            self.skipped_by_file[file] += 1
        if len(self.messages) < self.max_messages:
            where = f"{file}:{line}" if line is not None else file
            text = f"{where}: {message}" + ("" if skip else " (kept)")
            self.messages.append(text)
            log.info(text)  # the report holds it; commands print it (a warning would print twice)

    def skip(self, file: str, line: int | str | None, reason: str, message: str) -> None:
        """A record that was not stored, counted under ``reason`` and reported as ``file:line: message``."""
        self.note(file, line, reason, message, skip=True)

    def warn(self, file: str, line: int | str | None, reason: str, message: str) -> None:
        """A record that was stored, with a flag worth knowing."""
        self.note(file, line, reason, message, skip=False)

    def summary(self) -> str:
        def fmt(c: Counter) -> str:
            return ", ".join(f"{n} {r}" for r, n in c.most_common())

        s = f"read {self.read} records"
        if self.skipped:
            s += f"; skipped {self.skipped} ({fmt(self.skipped_by_reason)})"
        if self.warned:
            s += f"; {self.warned} warnings ({fmt(self.warned_by_reason)})"
        return s

    def to_dict(self) -> dict:
        return {
            "read": self.read,
            "skipped": self.skipped,
            "skipped_by_reason": dict(self.skipped_by_reason),
            "warnings": self.warned,
            "warnings_by_reason": dict(self.warned_by_reason),
            "blank": self.blank,
            "files": list(self.files),
            "read_by_file": dict(self.read_by_file),
            "skipped_by_file": dict(self.skipped_by_file),
            "messages": list(self.messages),
        }


class ReadContext:
    """Per-file bookkeeping: where we are, and whether problems skip or raise."""

    def __init__(self, path: Path, report: ReadReport | None, strict: bool, encoding: str = "auto"):
        self.path, self.file = path, str(path)
        self.report = report if report is not None else ReadReport()
        self.strict = strict
        self.encoding = encoding
        if self.file not in self.report.files:
            self.report.files.append(self.file)

    def skip(self, line, reason: str, message: str) -> None:
        if self.strict:
            raise ReadError(self.file, line, reason, message)
        self.report.note(self.file, line, reason, message, skip=True)

    def warn(self, line, reason: str, message: str) -> None:
        if self.strict:
            raise ReadError(self.file, line, reason, message)
        self.report.note(self.file, line, reason, message, skip=False)

    def ok(self) -> None:
        self.report.read += 1
        self.report.read_by_file[self.file] += 1

    def blank(self) -> None:
        self.report.blank += 1

    def done(self, start_read: int) -> None:
        n = self.report.read - start_read
        log.info("%s: %d records; totals so far: %s", self.file, n, self.report.summary())
