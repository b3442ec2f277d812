"""Readers for the released data: typed records out, no database in.

Every reader streams (constant memory on multi-GB dumps, `.gz` read transparently) and treats bad input
the same way: a malformed record is *skipped with a message naming file and line* and counted in a
`ReadReport`; with ``strict=True`` the first one raises `ReadError` instead. A bad record never costs a
good one. Decisions worth knowing:

* Text without any CJK character is **kept** and flagged (`no-cjk` warning): the parser simply finds no
  actions in it, and dropping it silently would hide a corpus problem rather than surface it.
* Dish names are data, never query text, so quotes or Cypher-looking names are kept verbatim; control /
  format characters are stripped and names are capped at ``max_name_chars`` (a warning each time).
* Lines that are not UTF-8 are skipped (replacement characters would corrupt the text we key on); a BOM
  and CRLF line ends are accepted silently; blank lines are counted (`blank`) without a message.
* ``strict=True`` turns every message into a `ReadError`, flags included (for curated inputs).
* Lines longer than ``max_line_bytes`` (default 1 MiB) are skipped without ever being held in memory.
* In a top-level JSON array, elements that are not usable records are skipped like lines, but broken JSON
  *syntax* stops the read with `ReadError` (resynchronising inside JSON is guesswork); use JSONL for
  dumps that may be damaged.
"""
from __future__ import annotations

import gzip
import json
import logging
import re
import sys
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Literal

from dishgraph.actions import ProtoAction
from dishgraph.ingest.glossary import Glossary

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 1 << 20
MAX_NAME_CHARS = 100
_WS = re.compile(r"[ \t\r\n]*")
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # undecodable bytes under errors="surrogateescape"
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")  # Cc (no \t \n) + surrogates
_FORMAT = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
_STEP_FIELDS = ("recipeInstructions", "instructions", "steps")
_TITLE_FIELDS = ("title", "name")
_ID_FIELDS = ("id", "_id", "recipe_id")
PIVOT_KINDS = {0: "remove", 1: "insert"}


# --------------------------------------------------------------------------------------------- reports


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
        return {"read": self.read, "skipped": self.skipped, "skipped_by_reason": dict(self.skipped_by_reason),
                "warnings": self.warned, "warnings_by_reason": dict(self.warned_by_reason), "blank": self.blank,
                "files": list(self.files), "read_by_file": dict(self.read_by_file),
                "skipped_by_file": dict(self.skipped_by_file), "messages": list(self.messages)}


class _Ctx:
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


# ------------------------------------------------------------------------------------------ low level

CHUNK_BYTES = 1 << 16
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


# What a Chinese recipe corpus comes in besides UTF-8 (detection chooses only among these).
_CANDIDATE_ENCODINGS = ["gb18030", "big5", "utf_16_le", "utf_16_be", "utf_32_le", "utf_32_be"]


def _open_binary(path: Path) -> BinaryIO:
    """The file's bytes (``.gz`` decompressed); a missing path, a directory or a dangling link raise OSError."""
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def check_encoding(encoding: str) -> str:
    """``auto`` or a codec name Python knows (normalised); ValueError otherwise."""
    import codecs

    if encoding == "auto":
        return encoding
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r}; use auto or a codec name such as utf-8, gb18030, "
                         "big5, utf-16") from None


def detect_encoding(head: bytes) -> str:
    """The encoding of a file from its first bytes: a BOM, else UTF-8 if the bytes are UTF-8, else
    charset-normalizer's best guess (GBK/GB18030, Big5, UTF-16 without BOM, ...), else UTF-8 (whose bad
    lines are then skipped one by one with their line numbers)."""
    import codecs

    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc
    if head.count(b"\x00") * 10 < len(head):  # not UTF-16/32 (whose ASCII half is NUL bytes)
        try:
            codecs.getincrementaldecoder("utf-8")().decode(head, final=False)  # a cut last character is fine
            return "utf-8"
        except UnicodeDecodeError:
            pass
        text = head.decode("utf-8", errors="replace")
        bad = text.count("\ufffd")
        if bad <= max(4, len(head) // 1000) or sum(1 for ch in text if ord(ch) > 127) > 4 * bad:
            return "utf-8"  # UTF-8 with a few damaged lines: those are skipped, the rest is read
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(head, cp_isolation=_CANDIDATE_ENCODINGS).best()
    except Exception:  # noqa: BLE001 - detection is a best effort; UTF-8 with per-line skips is the fallback
        best = None
    if best is None or not best.encoding:
        return "utf-8"
    name = codecs.lookup(best.encoding).name
    return "gb18030" if name in ("gbk", "gb2312", "hz") else name  # GB18030 is the superset that decodes all


def _raw_chunks(ctx: _Ctx) -> Iterator[bytes]:
    """The file's bytes in chunks, as UTF-8 (other encodings transcoded; undecodable bytes pass through as
    invalid UTF-8, so the line that holds them is skipped, not the file). Damage to a ``.gz`` (bad CRC,
    truncated tail) ends the read *after* every complete record before it, with one skip naming the line
    and the uncompressed byte offset; ``strict`` raises instead."""
    import codecs

    with _open_binary(ctx.path) as fh:
        offset, first, decoder, line_guess = 0, True, None, 1
        while True:
            try:
                chunk = fh.read1(CHUNK_BYTES)
            except (EOFError, OSError, zlib.error) as e:  # truncated / corrupt gzip
                ctx.damaged = (offset, f"{type(e).__name__}: {e}")
                if decoder is not None:
                    yield _final(decoder)
                return
            if first:
                first = False
                enc = ctx.encoding if ctx.encoding != "auto" else detect_encoding(chunk)
                ctx.detected_encoding = enc
                if codecs.lookup(enc).name == "utf-8":
                    if chunk.startswith(b"\xef\xbb\xbf"):
                        chunk = chunk[3:]
                elif enc == "utf-8-sig":
                    chunk = chunk[3:]
                else:
                    decoder = codecs.getincrementaldecoder(enc)(errors="surrogateescape")
            if not chunk:
                if decoder is not None:
                    yield _final(decoder)
                return
            offset += len(chunk)
            if decoder is not None:
                chunk = decoder.decode(chunk).encode("utf-8", "surrogateescape")
            yield chunk


def _final(decoder) -> bytes:
    """What an incremental decoder still holds at the end of the file; a cut last character (an odd byte
    of UTF-16) becomes an invalid byte, so its line is skipped as not decodable rather than raising."""
    try:
        return decoder.decode(b"", final=True).encode("utf-8", "surrogateescape")
    except UnicodeDecodeError:
        return b"\xff"


def _raw_lines(ctx: _Ctx, max_line_bytes: int) -> Iterator[bytes | None]:
    """Lines as bytes without their ends (``\n``, ``\r\n``, or ``\r`` alone in a file with CR-only line
    ends); None for a line longer than ``max_line_bytes``, which is never held whole in memory."""
    sep, pending, too_long = None, b"", False
    for chunk in _raw_chunks(ctx):
        if sep is None:  # the line end is the first one seen: \n (also \r\n), else a lone \r (old Mac files)
            if b"\n" in chunk or b"\r" in chunk:
                sep = b"\n" if b"\n" in chunk else b"\r"
            else:  # no line end yet (a first line longer than a chunk)
                if not too_long:
                    pending += chunk
                    if len(pending) > max_line_bytes:
                        pending, too_long = b"", True
                continue
        if too_long:  # the rest of an over-long line: dropped up to its end
            i = chunk.find(sep)
            if i < 0:
                continue
            chunk, too_long = chunk[i + 1:], False
            yield None
        parts = (pending + chunk).split(sep)
        pending = parts.pop()
        for raw in parts:
            if len(raw) > max_line_bytes:
                yield None
            else:
                yield raw[:-1] if raw.endswith(b"\r") else raw
        if len(pending) > max_line_bytes:
            pending, too_long = b"", True
    if too_long:
        yield None
    elif pending and getattr(ctx, "damaged", None) is None:  # a line cut by damage is part of the damage
        yield pending[:-1] if pending.endswith(b"\r") else pending


def _iter_lines(ctx: _Ctx, max_line_bytes: int) -> Iterator[tuple[int, str]]:
    """(line number, decoded line without its end) for every readable, non-blank line."""
    ctx.damaged = None
    lineno = 0
    for raw in _raw_lines(ctx, max_line_bytes):
        lineno += 1
        if raw is None:
            ctx.skip(lineno, "too-long", f"line longer than {max_line_bytes} bytes")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            enc = getattr(ctx, "detected_encoding", "utf-8")
            ctx.skip(lineno, "encoding", f"not {enc.upper() if enc.startswith('utf') else enc} "
                                         f"(byte {e.start}: {raw[e.start:e.start + 1]!r}); try --encoding")
            continue
        if not text.strip():
            ctx.blank()
            continue
        yield lineno, text
    _report_damage(ctx, lineno + 1)


def _report_damage(ctx: _Ctx, line) -> None:
    if getattr(ctx, "damaged", None) is not None:
        offset, why = ctx.damaged
        ctx.damaged = None
        ctx.skip(line, "corrupt", f"compressed data damaged after byte {offset} of the uncompressed stream "
                                  f"({why}); records before it were read, nothing after it can be")


def clean_name(name: Any, ctx: _Ctx | None = None, line=None, *, max_chars: int = MAX_NAME_CHARS,
               what: str = "dish name") -> str:
    """A dish/ingredient name as data: control and format characters removed, whitespace collapsed,
    length capped. Quotes and anything Cypher-looking are kept: values never enter query text."""
    s = str(name)
    cleaned = "".join(" " if ch in "\t\n\r\v\f" else ch for ch in s
                      if ch in "\t\n\r\v\f" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"))
    cleaned = " ".join(cleaned.split())
    if ctx is not None and cleaned != s.strip() and cleaned != " ".join(s.split()):
        ctx.warn(line, "control-chars", f"{what} {s[:40]!r}: control/format characters removed")
    if len(cleaned) > max_chars:
        if ctx is not None:
            ctx.warn(line, "long-name", f"{what} of {len(cleaned)} characters cut to {max_chars}")
        cleaned = cleaned[:max_chars]
    return cleaned


def _clean_text(text: str, ctx: _Ctx, line) -> str:
    """Recipe text: control characters (other than newlines/tabs) removed, surrounding space stripped."""
    text = text.replace("\r", "")
    cleaned, n = _CONTROL.subn("", text)
    if n:
        ctx.warn(line, "control-chars", f"{n} control characters removed from the text")
    cleaned = cleaned.strip()
    # A text made only of zero-width / format characters (U+200B, U+FEFF, bidi marks) and spaces is empty,
    # not a recipe. Texts with other content keep them: the text is what recipe ids are hashed from.
    return cleaned if _FORMAT.sub("", cleaned).strip() else ""


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def _check_recipe(ctx: _Ctx, line, dish: str, text: str) -> bool:
    """Shared record checks; False means skip the record (already reported)."""
    if not dish:
        ctx.skip(line, "empty-dish", "empty dish name")
        return False
    if not text:
        ctx.skip(line, "empty-recipe", f"empty recipe for dish {dish!r}")
        return False
    if not has_cjk(text):
        ctx.warn(line, "no-cjk", f"recipe for {dish!r} has no Chinese character")
    return True


# ------------------------------------------------------------------------------------------ CRG files


@dataclass(frozen=True)
class BaseRecipe:
    """One line of ``base_recipes.txt``: a recipe of ``base`` to be rewritten into ``target``."""

    base: str
    target: str
    text: str
    file: str
    line: int

    @property
    def dish(self) -> str:
        return self.base


@dataclass(frozen=True)
class Change:
    """The changing ingredient of a dish pair: ``replace`` old by new, or ``add`` new (old is None)."""

    kind: Literal["replace", "add"]
    old: str | None
    new: str
    line: int


@dataclass(frozen=True)
class DishPair:
    base: str
    target: str
    line: int
    change: Change | None = None  # filled by `read_crg_release`


def read_base_recipes(path: str | Path, *, report: ReadReport | None = None, strict: bool = False,
                      max_line_bytes: int = MAX_LINE_BYTES, max_name_chars: int = MAX_NAME_CHARS
                      ) -> Iterator[BaseRecipe]:
    """Stream ``base \\t target \\t recipe`` lines."""
    ctx = _Ctx(Path(path), report, strict)
    start = ctx.report.read
    for line, text in _iter_lines(ctx, max_line_bytes):
        cols = text.split("\t")
        if len(cols) != 3:
            ctx.skip(line, "columns", f"expected 3 tab-separated columns (base, target, recipe), got {len(cols)}")
            continue
        base = clean_name(cols[0], ctx, line, max_chars=max_name_chars, what="base dish")
        target = clean_name(cols[1], ctx, line, max_chars=max_name_chars, what="target dish")
        if not target:
            ctx.skip(line, "empty-dish", "empty target dish name")
            continue
        recipe = _clean_text(cols[2], ctx, line)
        if not _check_recipe(ctx, line, base, recipe):
            continue
        ctx.ok()
        yield BaseRecipe(base, target, recipe, ctx.file, line)
    ctx.done(start)


def read_dish_pairs(path: str | Path, *, report: ReadReport | None = None, strict: bool = False,
                    max_name_chars: int = MAX_NAME_CHARS) -> list[DishPair]:
    """``base target`` per line (whitespace-separated; the last line may lack its newline)."""
    ctx = _Ctx(Path(path), report, strict)
    start, pairs = ctx.report.read, []
    for line, text in _iter_lines(ctx, MAX_LINE_BYTES):
        cols = text.split()
        if len(cols) != 2:
            ctx.skip(line, "columns", f"expected 2 dish names (base target), got {len(cols)}")
            continue
        base, target = (clean_name(c, ctx, line, max_chars=max_name_chars) for c in cols)
        pairs.append(DishPair(base, target, line))
        ctx.ok()
    ctx.done(start)
    return pairs


def read_changing_ingredients(path: str | Path, *, report: ReadReport | None = None, strict: bool = False,
                              max_name_chars: int = MAX_NAME_CHARS) -> list[Change]:
    """One token = add it; two tokens = replace the first by the second (the release writes an add as
    a line with a leading space, i.e. an empty "old" ingredient)."""
    ctx = _Ctx(Path(path), report, strict)
    start, changes = ctx.report.read, []
    for line, text in _iter_lines(ctx, MAX_LINE_BYTES):
        toks = [clean_name(t, ctx, line, max_chars=max_name_chars, what="ingredient") for t in text.split()]
        if len(toks) == 1:
            changes.append(Change("add", None, toks[0], line))
        elif len(toks) == 2:
            changes.append(Change("replace", toks[0], toks[1], line))
        else:
            ctx.skip(line, "columns", f"expected 1 (add) or 2 (replace) ingredients, got {len(toks)}")
            continue
        ctx.ok()
    ctx.done(start)
    return changes


# --------------------------------------------------------------------------- pivots and constraints

Pivots = dict[str, list[tuple[ProtoAction, str]]]
Constraints = dict[str, list[dict]]


def _proto_from_tuple(obj) -> ProtoAction:
    """The pickle shape ``(verb, (ingredients, tools))`` (list or tuple) → ProtoAction."""
    verb, (ingr, tools) = obj
    if not isinstance(verb, str) or not all(isinstance(x, str) for x in (*ingr, *tools)):
        raise TypeError("verb, ingredients and tools must be strings")
    return ProtoAction(verb, frozenset(ingr), frozenset(tools))


def _proto_from_json(obj) -> ProtoAction:
    if not isinstance(obj, dict) or not isinstance(obj.get("verb"), str):
        raise TypeError("expected {verb, ingredients, tools}")
    p = ProtoAction.from_release(obj)
    if not all(isinstance(x, str) for x in (*p.ingredients, *p.tools)):
        raise TypeError("ingredients and tools must be strings")
    return p


def _load_json(path: Path):
    try:
        with open(path, encoding="utf-8-sig") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise ReadError(str(path), e.lineno, "json", f"not valid JSON ({e.msg}, column {e.colno})") from None
    except UnicodeDecodeError as e:
        raise ReadError(str(path), None, "encoding", f"not UTF-8 (byte offset {e.start})") from None


def _parse_pivots(data, ctx: _Ctx, from_pickle: bool) -> Pivots:
    if not isinstance(data, dict):
        raise ReadError(ctx.file, None, "shape", "pivots must map target dish -> list of pivot actions")
    out: Pivots = {}
    for dish, items in data.items():
        kept = out.setdefault(clean_name(dish, ctx, f"[{dish!r}]"), [])
        for i, it in enumerate(items if isinstance(items, list) else [items]):
            where = f"[{dish!r}][{i}]"
            try:
                if from_pickle:
                    proto_obj, kind_code = it
                    proto, kind = _proto_from_tuple(proto_obj), PIVOT_KINDS[kind_code]
                else:
                    proto, kind = _proto_from_json(it), it["kind"]
                    if kind not in PIVOT_KINDS.values():
                        raise KeyError(kind)
            except (TypeError, ValueError, KeyError) as e:
                ctx.skip(where, "pivot", f"malformed pivot action {str(it)[:80]} ({type(e).__name__}: {e})")
                continue
            kept.append((proto, kind))
            ctx.ok()
    return out


def _parse_constraints(data, ctx: _Ctx, from_pickle: bool) -> Constraints:
    if not isinstance(data, dict):
        raise ReadError(ctx.file, None, "shape", "constraints must map target dish -> list of actions")
    out: Constraints = {}
    for dish, items in data.items():
        kept = out.setdefault(clean_name(dish, ctx, f"[{dish!r}]"), [])
        for i, it in enumerate(items if isinstance(items, list) else [items]):
            where = f"[{dish!r}][{i}]"
            try:
                if from_pickle:
                    action_obj, pair_objs = it
                    action = _proto_from_tuple(action_obj)
                    pairs = [(_proto_from_tuple(c), _proto_from_tuple(e)) for c, e in pair_objs]
                else:
                    action = _proto_from_json(it["action"])
                    pairs = [(_proto_from_json(c), _proto_from_json(e)) for c, e in it["pairs"]]
            except (TypeError, ValueError, KeyError) as e:
                ctx.skip(where, "constraint", f"malformed order constraint {str(it)[:80]} "
                                              f"({type(e).__name__}: {e})")
                continue
            kept.append({"action": action, "pairs": pairs})
            ctx.ok()
    return out


def read_pivots(path: str | Path, *, report: ReadReport | None = None, strict: bool = False
                ) -> tuple[Pivots, Constraints]:
    """Pivots ``{target: [(ProtoAction, "remove"|"insert")]}`` and constraints ``{target: [{"action":
    ProtoAction, "pairs": [(cause, effect)]}]}`` from the original ``pivot_actions.pkl`` (a list
    ``[pivots, constraints]``; kind 0 = remove, 1 = insert), or from ``pivot_actions.json`` together with
    the ``order_constraints.json`` beside it."""
    path = Path(path)
    if path.suffix == ".pkl":
        from dishgraph.ingest.safe_pickle import safe_load

        data = safe_load(path)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise ReadError(str(path), None, "shape", "expected a list of two dicts [pivots, constraints]")
        ctx = _Ctx(path, report, strict)
        return _parse_pivots(data[0], ctx, True), _parse_constraints(data[1], ctx, True)
    ctx = _Ctx(path, report, strict)
    pivots = _parse_pivots(_load_json(path), ctx, False)
    cpath = path.with_name("order_constraints.json")
    constraints: Constraints = {}
    if cpath.exists():
        constraints = _parse_constraints(_load_json(cpath), _Ctx(cpath, ctx.report, strict), False)
    return pivots, constraints


# --------------------------------------------------------------------------------------- the release


@dataclass
class CrgRelease:
    """The CRG release in memory, except the recipes, which `recipes()` streams on demand."""

    root: Path
    pairs: list[DishPair]                   # each with its .change
    glossary: Glossary
    pivots: Pivots
    constraints: Constraints
    recipes_path: Path
    report: ReadReport
    sources: dict[str, str] = field(default_factory=dict)  # which file each part came from
    strict: bool = False

    def recipes(self, report: ReadReport | None = None) -> Iterator[BaseRecipe]:
        """A fresh stream over ``base_recipes.txt`` (counts go to ``report`` or ``self.report``)."""
        return read_base_recipes(self.recipes_path, report=report if report is not None else self.report,
                                 strict=self.strict)


def _first(root: Path, names: Iterable[str]) -> Path | None:
    return next((root / n for n in names if (root / n).exists()), None)


def read_crg_release(root: str | Path, *, source: Literal["auto", "json", "pkl"] = "auto",
                     report: ReadReport | None = None, strict: bool = False) -> CrgRelease:
    """Read a CRG release directory (``dish_pairs.txt``, ``changing_ingres.txt``, ``base_recipes.txt``,
    glossary and pivots as JSON or as the original pickles in ``original/`` or beside the text files).

    ``source`` picks JSON or pickle for glossary and pivots ("auto": JSON when present). Pairs and
    changes are aligned by line number; a pair without a change (or the reverse) is an error.
    """
    root = Path(root)
    report = report if report is not None else ReadReport()
    need = ["dish_pairs.txt", "changing_ingres.txt", "base_recipes.txt"]
    missing = [n for n in need if not (root / n).exists()]
    if missing:
        raise FileNotFoundError(f"{root}: not a CRG release directory (missing {', '.join(missing)}); "
                                "run `dishgraph data fetch`")
    pairs = read_dish_pairs(root / "dish_pairs.txt", report=report, strict=strict)
    changes = read_changing_ingredients(root / "changing_ingres.txt", report=report, strict=strict)
    by_line = {c.line: c for c in changes}
    if len(pairs) != len(changes) or set(by_line) != {p.line for p in pairs}:
        only_p = sorted({p.line for p in pairs} - set(by_line))
        only_c = sorted(set(by_line) - {p.line for p in pairs})
        raise ReadError(str(root / "changing_ingres.txt"), None, "alignment",
                        f"{len(changes)} changes for {len(pairs)} dish pairs; pair lines without a change: "
                        f"{only_p[:10]}, change lines without a pair: {only_c[:10]}")
    pairs = [replace(p, change=by_line[p.line]) for p in pairs]

    pkl_dirs = ("original/", "")
    json_glossary, json_pivots = _first(root, ["glossary.json"]), _first(root, ["pivot_actions.json"])
    pkl_glossary = _first(root, [d + "glossary_dict.pkl" for d in pkl_dirs])
    pkl_pivots = _first(root, [d + "pivot_actions.pkl" for d in pkl_dirs])
    glossary_path = pkl_glossary if source == "pkl" else (json_glossary if source == "json" else
                                                          json_glossary or pkl_glossary)
    pivots_path = pkl_pivots if source == "pkl" else (json_pivots if source == "json" else
                                                      json_pivots or pkl_pivots)
    if glossary_path is None or pivots_path is None:
        raise FileNotFoundError(f"{root}: no {'glossary' if glossary_path is None else 'pivot actions'} "
                                f"({source}) found; expected glossary.json / pivot_actions.json or "
                                "original/glossary_dict.pkl / original/pivot_actions.pkl")
    try:
        glossary = Glossary.load(glossary_path)
    except ValueError as e:
        raise ReadError(str(glossary_path), None, "glossary", str(e)) from None
    pivots, constraints = read_pivots(pivots_path, report=report, strict=strict)

    targets = {p.target for p in pairs}
    for t in dict.fromkeys(t for t in (*pivots, *constraints) if t not in targets):
        msg = f"target dish {t!r} is not in dish_pairs.txt; its pivots and constraints are skipped"
        if strict:
            raise ReadError(str(pivots_path), f"[{t!r}]", "unknown-dish", msg)
        report.note(str(pivots_path), f"[{t!r}]", "unknown-dish", msg, skip=True)
        pivots.pop(t, None)
        constraints.pop(t, None)
    return CrgRelease(root, pairs, glossary, pivots, constraints, root / "base_recipes.txt", report,
                      {"glossary": str(glossary_path), "pivots": str(pivots_path)}, strict)


# ------------------------------------------------------------------------------------ DiNeR glossary

DINER_KINDS = ("food", "action", "flavour")


@dataclass
class DinerGlossary:
    """DiNeR's dish-name glossary: surface form → cluster, for food, action (cooking method), flavour."""

    food: dict[str, str] = field(default_factory=dict)
    action: dict[str, str] = field(default_factory=dict)
    flavour: dict[str, str] = field(default_factory=dict)

    def table(self, kind: str) -> dict[str, str]:
        if kind not in DINER_KINDS:
            raise ValueError(f"unknown DiNeR glossary kind {kind!r}; expected one of {DINER_KINDS}")
        return getattr(self, kind)

    def clusters(self, kind: str) -> list[str]:
        return sorted(set(self.table(kind).values()))

    def to_json(self) -> dict:
        return {k: dict(self.table(k)) for k in DINER_KINDS}


def read_diner_glossary(path: str | Path) -> DinerGlossary:
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict) or not all(isinstance(data.get(k), dict) for k in DINER_KINDS):
        raise ReadError(str(path), None, "shape", f"DiNeR glossary must map each of {DINER_KINDS} to "
                                                  "{surface: cluster}")
    tables = {}
    for k in DINER_KINDS:
        t: dict[str, str] = {}
        for surface, cluster in data[k].items():
            s = str(surface).strip()
            if s and s not in t:
                t[s] = str(cluster).strip()
        tables[k] = t
    return DinerGlossary(**tables)


# ----------------------------------------------------------------------------------- generic corpora


@dataclass(frozen=True)
class CorpusRecipe:
    dish: str
    title: str | None
    text: str
    id: str | None
    file: str
    line: int


def join_steps(steps: Iterable[Any]) -> str:
    """A list of steps as one numbered text ("1、…2、…"), the way the CRG recipes number their steps.
    Step items may be strings or dicts with a "text" field (schema.org HowToStep); anything else (a
    nested list, a number, true) is not a step: TypeError, and the reader skips the record."""
    parts = []
    for i, s in enumerate(steps, 1):
        if isinstance(s, dict):
            s = s.get("text") or s.get("step") or ""
        if s is None:
            continue
        if not isinstance(s, str):
            raise TypeError(f"step {i} is a {_json_type(s)}, not text")
        s = s.strip()
        if s:
            parts.append(f"{len(parts) + 1}、{s}")
    return "".join(parts)


def _json_type(v: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", list: "list", dict: "object",
            type(None): "null", str: "string"}.get(type(v), type(v).__name__)


CORPUS_FORMATS = ("auto", "jsonl", "json", "tsv")


def _sniff_format(path: Path) -> str:
    name = path.name[:-3] if path.suffix == ".gz" else path.name
    suffix = Path(name).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".tsv", ".txt", ".tab"):
        return "tsv"
    try:
        with _open_binary(path) as fh:
            head = fh.read(4096)
    except (EOFError, zlib.error, gzip.BadGzipFile):
        return "jsonl"  # unreadable head: the line reader reports the damage
    enc = detect_encoding(head)
    if enc not in ("utf-8", "utf-8-sig"):
        head = head.decode(enc, errors="ignore").encode("utf-8")
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"["):
        return "json"
    if head.startswith(b"{"):
        return "jsonl"
    return "tsv"


class _Fields:
    """Which fields of a record hold what, with the XiaChuFang fallbacks when a name is not given."""

    def __init__(self, dish, title, text, steps, ident):
        self.dish, self.title, self.text, self.steps, self.id = dish, title, text, steps, ident

    @staticmethod
    def _get(rec: dict, name, fallbacks=()):
        if name is not None:
            return rec.get(name)
        return next((rec[f] for f in fallbacks if rec.get(f) not in (None, "", [])), None)

    def extract(self, rec: dict, ctx: _Ctx, line: int, max_name_chars: int) -> CorpusRecipe | None:
        raw_dish = rec.get(self.dish)
        if raw_dish is None:
            ctx.skip(line, "missing-dish", f"no usable {self.dish!r} field")
            return None
        if not isinstance(raw_dish, str):  # JSON true is not the dish "True", nor 5 the dish "5"
            ctx.skip(line, "bad-dish", f"{self.dish!r} is a {_json_type(raw_dish)}, not text")
            return None
        text = rec.get(self.text) if self.steps is None else None
        if text in (None, "", []):
            steps = self._get(rec, self.steps, () if self.steps else _STEP_FIELDS)
            text = steps if steps is not None else text
        if isinstance(text, str) and text.lstrip().startswith("["):  # a JSON list in a TSV cell
            try:
                text = json.loads(text)
            except (ValueError, RecursionError):
                pass
        if isinstance(text, list):
            try:
                text = join_steps(text)
            except TypeError as e:
                ctx.skip(line, "bad-text", f"list of steps with an item that is not a step ({e})")
                return None
        elif text is not None and not isinstance(text, str):
            ctx.skip(line, "bad-text", f"text field is a {_json_type(text)}, not text or a list of steps")
            return None
        dish = clean_name(raw_dish, ctx, line, max_chars=max_name_chars)
        text = _clean_text(text or "", ctx, line)
        if not _check_recipe(ctx, line, dish, text):
            return None
        title = self._get(rec, self.title, _TITLE_FIELDS if self.title is None else ())
        if title is not None and not isinstance(title, str):
            ctx.warn(line, "bad-title", f"title is a {_json_type(title)}, not text; ignored")
            title = None
        title = clean_name(title, ctx, line, max_chars=4 * max_name_chars, what="title") if title else None
        ident = self._get(rec, self.id, _ID_FIELDS if self.id is None else ())
        if ident is not None and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
            ctx.warn(line, "bad-id", f"id is a {_json_type(ident)}, not text or an integer; ignored")
            ident = None
        return CorpusRecipe(dish, title or None, text, None if ident in (None, "") else str(ident),
                            ctx.file, line)


def _jsonl_records(ctx: _Ctx, max_line_bytes: int) -> Iterator[tuple[int, Any]]:
    for line, text in _iter_lines(ctx, max_line_bytes):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            ctx.skip(line, "json", f"malformed JSON ({e.msg}, column {e.colno})")
            continue
        except (ValueError, RecursionError) as e:  # a >4,300-digit integer; nesting deeper than the stack
            ctx.skip(line, "json", f"JSON this reader refuses ({_json_refusal(e)})")
            continue
        yield line, value


def _json_refusal(e: BaseException) -> str:
    if isinstance(e, RecursionError):
        return "nested too deeply"
    if "integer string conversion" in str(e):
        return f"an integer of more than {sys.get_int_max_str_digits()} digits"
    return " ".join(str(e).split())[:120]


def _json_array_records(ctx: _Ctx, max_record_chars: int, chunk_chars: int = 1 << 18
                        ) -> Iterator[tuple[int, Any]]:
    """Elements of a top-level JSON array, parsed incrementally (memory ~ chunk + largest element)."""
    import codecs

    decoder = json.JSONDecoder()
    ctx.damaged = None
    chunks = _raw_chunks(ctx)
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
    pending_text = ""
    buf, pos, eof, line = "", 0, False, 1  # line = line number at buf[pos]

    def read_text() -> str:
        nonlocal pending_text
        while len(pending_text) < chunk_chars:
            raw = next(chunks, None)
            if raw is None:
                pending_text += utf8.decode(b"", final=True)
                break
            pending_text += utf8.decode(raw)
        out, pending_text = pending_text[:chunk_chars], pending_text[chunk_chars:]
        return out

    def fill() -> bool:
        nonlocal buf, pos, eof
        if eof:
            return False
        chunk = read_text()
        if not chunk:
            eof = True
            return False
        buf = buf[pos:] + chunk
        pos = 0
        return True

    def skip_ws() -> str | None:
        nonlocal pos, line
        while True:
            m = _WS.match(buf, pos)
            line += buf.count("\n", pos, m.end())
            pos = m.end()
            if pos < len(buf):
                return buf[pos]
            if not fill():
                return None

    def stop(at_line: int, message: str) -> None:
        """Broken array syntax: the elements before were read (and are kept); resynchronising inside JSON
        is guesswork, so the rest of the file is one skip (strict: an error)."""
        if getattr(ctx, "damaged", None) is not None:
            _report_damage(ctx, at_line)
        else:
            ctx.skip(at_line, "json", message + "; elements before it were read, the rest of the file was not")

    try:
        if skip_ws() != "[":
            raise ReadError(ctx.file, line, "json", "a .json corpus must be one top-level array "
                                                    "(or use JSONL: one object per line, --format jsonl)")
        pos += 1
        first = True
        while True:
            ch = skip_ws()
            if ch is None:
                return stop(line, "unexpected end of file inside the top-level array")
            if ch == "]":
                return
            if not first:
                if ch != ",":
                    return stop(line, f"expected ',' or ']' between elements, found {ch!r}")
                pos += 1
                if skip_ws() is None:
                    return stop(line, "unexpected end of file after ','")
            first = False
            start_line = line
            while True:  # decode one element, reading more until it is complete and followed by , or ]
                try:
                    value, end = decoder.raw_decode(buf, pos)
                    tail = _WS.match(buf, end).end()
                    if tail < len(buf) or eof:
                        break
                except json.JSONDecodeError as e:
                    if eof or len(buf) - pos > max_record_chars:
                        return stop(start_line + buf.count("\n", pos, e.pos),
                                    f"malformed JSON element, or one over {max_record_chars} characters ({e.msg})")
                except (ValueError, RecursionError) as e:
                    return stop(start_line, f"JSON element this reader refuses ({_json_refusal(e)})")
                if not fill():
                    eof = True
            line += buf.count("\n", pos, end)
            pos = end
            yield start_line, value
    finally:
        chunks.close()


def _tsv_records(ctx: _Ctx, max_line_bytes: int, f: _Fields) -> Iterator[tuple[int, Any]]:
    """TSV whose first line is a header naming the fields, or headerless ``dish \\t text``."""
    header: list[str] | None = None
    for line, text in _iter_lines(ctx, max_line_bytes):
        cols = text.split("\t")
        if header is None:  # first readable line: a header if it names the dish and a text/steps field
            text_cols = {f.text, f.steps, *_STEP_FIELDS} - {None}
            header = cols if f.dish in cols and text_cols & set(cols) else []
            if header:
                continue
        if header:
            if len(cols) != len(header):
                ctx.skip(line, "columns", f"expected {len(header)} tab-separated columns, got {len(cols)}")
                continue
            yield line, dict(zip(header, cols))
        elif len(cols) != 2:
            ctx.skip(line, "columns", f"expected 2 tab-separated columns (dish, text) or a header line "
                                      f"naming {f.dish!r} and {f.text!r}; got {len(cols)}")
        else:
            yield line, {f.dish: cols[0], f.text: cols[1]}


def _has_escaped_bytes(obj) -> bool:
    if isinstance(obj, str):
        return _ESCAPED_BYTE.search(obj) is not None
    if isinstance(obj, dict):
        return any(_has_escaped_bytes(k) or _has_escaped_bytes(v) for k, v in obj.items())
    if isinstance(obj, list):
        return any(_has_escaped_bytes(v) for v in obj)
    return False


def _has_escaped_bytes_safe(obj) -> bool:
    try:
        return _has_escaped_bytes(obj)
    except RecursionError:
        return False


def estimate_records(path: str | Path, format: str = "auto") -> int | None:
    """About how many records a corpus file holds, for progress bars and their ETA: the non-blank lines of
    an uncompressed JSONL or TSV file (a TSV header and malformed lines count too: an upper bound). None
    for a JSON array or a ``.gz`` file, where counting would cost a second full read."""
    path = Path(path)
    if path.suffix == ".gz" or (_sniff_format(path) if format == "auto" else format) not in ("jsonl", "tsv"):
        return None
    with open(path, "rb") as fh:
        head = fh.read(CHUNK_BYTES)
        sep = b"\r" if (b"\r" in head and b"\n" not in head) else b"\n"
        if detect_encoding(head) not in ("utf-8", "utf-8-sig"):
            return None  # a transcoded file: not worth a second pass
        fh.seek(0)
        if sep == b"\r":
            return sum(1 for line in fh.read().split(sep) if line.strip())
        return sum(1 for line in fh if line.strip())


def read_corpus(path: str | Path, format: str = "auto", dish_field: str = "dish", title_field: str | None = None,
                text_field: str = "text", steps_field: str | None = None, id_field: str | None = None, *,
                report: ReadReport | None = None, strict: bool = False, max_line_bytes: int = MAX_LINE_BYTES,
                max_name_chars: int = MAX_NAME_CHARS, encoding: str = "auto") -> Iterator[CorpusRecipe]:
    """Stream recipes from JSONL, a top-level JSON array, or TSV (``.gz`` accepted).

    Each record needs a dish (``dish_field``) and a text: ``text_field``, or a list of steps
    (``steps_field``; when not given, ``recipeInstructions`` / ``instructions`` / ``steps`` are tried
    if the text field is missing) joined as numbered steps. ``title_field`` / ``id_field`` default to
    ``title``/``name`` and ``id``/``_id``/``recipe_id`` when present. ``encoding``: ``auto`` (a BOM, else
    UTF-8, else a detected GB18030/Big5/UTF-16...) or a codec name.
    """
    path = Path(path)
    if format not in CORPUS_FORMATS:
        raise ValueError(f"unknown corpus format {format!r}; expected auto, jsonl, json or tsv")
    ctx = _Ctx(path, report, strict, check_encoding(encoding))
    start = ctx.report.read
    fmt = _sniff_format(path) if format == "auto" else format
    f = _Fields(dish_field, title_field, text_field, steps_field, id_field)
    if fmt == "jsonl":
        records = _jsonl_records(ctx, max_line_bytes)
    elif fmt == "json":
        records = _json_array_records(ctx, max_line_bytes)
    elif fmt == "tsv":
        records = _tsv_records(ctx, max_line_bytes, f)
    else:
        raise ValueError(f"unknown corpus format {format!r}; expected auto, jsonl, json or tsv")
    for line, rec in records:
        if not isinstance(rec, dict):
            ctx.skip(line, "not-an-object", f"expected a JSON object, got {type(rec).__name__}")
            continue
        if fmt == "json" and _has_escaped_bytes_safe(rec):
            ctx.skip(line, "encoding", "not UTF-8")
            continue
        r = f.extract(rec, ctx, line, max_name_chars)
        if r is not None:
            ctx.ok()
            yield r
    ctx.done(start)
