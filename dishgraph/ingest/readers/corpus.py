"""Any recipe corpus (JSONL, a top-level JSON array, or TSV; ``.gz`` too) as `CorpusRecipe` records, streamed
in constant memory, with the XiaChuFang field names as fallbacks."""

from __future__ import annotations

import gzip
import json
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dishgraph.ingest.readers.lines import (
    CHUNK_BYTES,
    MAX_LINE_BYTES,
    MAX_NAME_CHARS,
    check_encoding,
    check_recipe,
    clean_name,
    clean_text,
    detect_encoding,
    is_stream,
    iter_lines,
    open_binary,
    raw_chunks,
    read_head,
    report_damage,
)
from dishgraph.ingest.readers.report import ReadContext, ReadError, ReadReport

_WS = re.compile(r"[ \t\r\n]*")
_STRUCTURE = re.compile(r'[\[\]{}",]')  # what delimits a JSON element outside strings
_IN_STRING = re.compile(r'["\\]')  # what ends a string, or escapes its next character
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # undecodable bytes under errors="surrogateescape"
_SURROGATE = re.compile("[\ud800-\udfff]")  # what a JSON "\\ud83d" alone decodes to
_STEP_FIELDS = ("recipeInstructions", "instructions", "steps")
_TITLE_FIELDS = ("title", "name")
_ID_FIELDS = ("id", "_id", "recipe_id")


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
    return {
        bool: "boolean",
        int: "number",
        float: "number",
        list: "list",
        dict: "object",
        type(None): "null",
        str: "string",
    }.get(type(v), type(v).__name__)


CORPUS_FORMATS = ("auto", "jsonl", "json", "tsv", "csv")


def _sniff_format(path: Path) -> str:
    name = path.name[:-3] if path.suffix == ".gz" else path.name
    suffix = Path(name).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".tsv", ".txt", ".tab"):
        return "tsv"
    if suffix == ".csv":
        return "csv"
    try:
        if path.suffix == ".gz":
            with open_binary(path) as fh:
                head = fh.read(4096)
        else:
            head = read_head(path, 4096)  # a stream: kept and replayed to the reader (read once)
            if head.startswith(b"\x1f\x8b"):
                return "jsonl"  # a gzip stream: the line reader decompresses it
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


def _fields_found(rec: dict, shown: int = 8) -> str:
    """ "; its fields: name, steps (name the dish's with --dish-field)": what to pass instead of the default."""
    names = [str(k) for k in rec][:shown]
    more = ", …" if len(rec) > shown else ""
    return f"; its fields: {', '.join(names)}{more} (name the dish's with --dish-field)" if names else ""


class _Fields:
    """Which fields of a record hold what, with the XiaChuFang fallbacks when a name is not given."""

    def __init__(self, dish, title, text, steps, ident):
        self.dish, self.title, self.text, self.steps, self.id = dish, title, text, steps, ident

    @staticmethod
    def _get(rec: dict, name, fallbacks=()):
        if name is not None:
            return rec.get(name)
        return next((rec[f] for f in fallbacks if rec.get(f) not in (None, "", [])), None)

    def extract(self, rec: dict, ctx: ReadContext, line: int, max_name_chars: int) -> CorpusRecipe | None:
        raw_dish = rec.get(self.dish)
        if raw_dish is None:
            ctx.skip(line, "missing-dish", f"no usable {self.dish!r} field{_fields_found(rec)}")
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
        title = self._get(rec, self.title, _TITLE_FIELDS if self.title is None else ())
        for what, value in (("dish", raw_dish), ("text", text), ("title", title)):
            if isinstance(value, str) and (m := _SURROGATE.search(value)):
                # A JSON escape of half a UTF-16 pair ("\ud83d" without its partner): no character at all.
                # Dropping it quietly changed the record; the record is skipped and named instead.
                ctx.skip(
                    line,
                    "surrogate",
                    f"{what} holds a lone surrogate U+{ord(m.group()):04X} (a \\u escape of half a UTF-16 pair, "
                    "not a character)",
                )
                return None
        dish = clean_name(raw_dish, ctx, line, max_chars=max_name_chars)
        text = clean_text(text or "", ctx, line)
        if not check_recipe(ctx, line, dish, text):
            return None
        if title is not None and not isinstance(title, str):
            ctx.warn(line, "bad-title", f"title is a {_json_type(title)}, not text; ignored")
            title = None
        title = clean_name(title, ctx, line, max_chars=4 * max_name_chars, what="title") if title else None
        ident = self._get(rec, self.id, _ID_FIELDS if self.id is None else ())
        if ident is not None and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
            ctx.warn(line, "bad-id", f"id is a {_json_type(ident)}, not text or an integer; ignored")
            ident = None
        return CorpusRecipe(dish, title or None, text, None if ident in (None, "") else str(ident), ctx.file, line)


def _loads_line(text: str) -> Any:
    """One JSONL line; a line that is one value followed by a comma (a JSON array written without its
    brackets, one element a line, as crawlers dump them) is read as that value."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        body = text.rstrip()
        if e.msg == "Extra data" and body.endswith(","):
            return json.loads(body[:-1])
        raise


def _jsonl_records(ctx: ReadContext, max_line_bytes: int) -> Iterator[tuple[int, Any]]:
    for line, text in iter_lines(ctx, max_line_bytes):
        try:
            value = _loads_line(text)
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


def _json_array_records(
    ctx: ReadContext, max_record_chars: int, chunk_chars: int = 1 << 18
) -> Iterator[tuple[int, Any]]:
    """Elements of a top-level JSON array, parsed incrementally (memory ~ chunk + largest element)."""
    ctx.damaged = None
    scanner = _JsonArrayScanner(ctx, chunk_chars)
    try:
        yield from scanner.elements(max_record_chars)
    finally:
        scanner.close()


class _JsonArrayScanner:
    """A cursor over a file's decoded text, read a chunk at a time: ``buf[pos:]`` is not consumed yet and
    ``line`` is the line number at ``pos``."""

    def __init__(self, ctx: ReadContext, chunk_chars: int):
        import codecs

        self.ctx, self.chunk_chars = ctx, chunk_chars
        self.chunks = raw_chunks(ctx)
        self.utf8 = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        self.pending_text = ""
        self.buf, self.pos, self.eof, self.line = "", 0, False, 1

    def close(self) -> None:
        self.chunks.close()

    def _read_text(self) -> str:
        while len(self.pending_text) < self.chunk_chars:
            raw = next(self.chunks, None)
            if raw is None:
                self.pending_text += self.utf8.decode(b"", final=True)
                break
            self.pending_text += self.utf8.decode(raw)
        out, self.pending_text = self.pending_text[: self.chunk_chars], self.pending_text[self.chunk_chars :]
        return out

    def fill(self) -> bool:
        """Append the next chunk to the unconsumed text; False at the end of the file."""
        if self.eof:
            return False
        chunk = self._read_text()
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def skip_ws(self) -> str | None:
        """The next character that is not whitespace (not consumed), or None at the end of the file."""
        while True:
            m = _WS.match(self.buf, self.pos)
            self.line += self.buf.count("\n", self.pos, m.end())
            self.pos = m.end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return None

    def stop(self, at_line: int, message: str) -> None:
        """The file ends inside the array (or inside an element): the elements before were read (and are
        kept); there is nothing after to read on to."""
        if getattr(self.ctx, "damaged", None) is not None:
            report_damage(self.ctx, at_line)
        else:
            self.ctx.skip(at_line, "json", message + "; elements before it were read")

    def elements(self, max_record_chars: int) -> Iterator[tuple[int, Any]]:
        if self.skip_ws() != "[":
            raise ReadError(
                self.ctx.file,
                self.line,
                "json",
                "a .json corpus must be one top-level array (or use JSONL: one object per line, --format jsonl)",
            )
        self.pos += 1
        first = True
        while True:
            ch = self.skip_ws()
            if ch is None:
                return self.stop(self.line, "unexpected end of file inside the top-level array")
            if ch == "]":
                return
            if not first:
                if ch != ",":  # cannot happen: an element ends at a top-level ',' or ']'
                    return self.stop(self.line, f"expected ',' or ']' between elements, found {ch!r}")
                self.pos += 1
                if self.skip_ws() == "]":
                    self.ctx.skip(self.line, "json", "empty element (a ',' before the closing ']')")
                    return
            first = False
            start_line = self.line
            got = self._element_text(max_record_chars)
            if got is None:
                return self.stop(start_line, "unexpected end of file inside an element")
            text, size = got
            if text is None:
                self.ctx.skip(
                    start_line, "too-long", f"JSON element of {size:,} characters, over {max_record_chars:,}: skipped"
                )
                continue
            try:
                value = json.loads(text)
            except json.JSONDecodeError as e:
                at = start_line + text.count("\n", 0, e.pos)
                self.ctx.skip(at, "json", f"malformed JSON element ({e.msg}); skipped, the next one is read")
                continue
            except (ValueError, RecursionError) as e:
                self.ctx.skip(start_line, "json", f"JSON element this reader refuses ({_json_refusal(e)})")
                continue
            yield start_line, value

    def _element_text(self, max_record_chars: int) -> tuple[str | None, int] | None:
        """The text of the element at ``pos`` (up to the ``,`` or ``]`` that ends it at the top level, brackets
        and strings followed, not parsed) and its length in characters; the text is None for an element over
        ``max_record_chars``, which is read past without being held (memory: the limit plus a chunk). None
        when the file ends inside the element. Leaves ``pos`` at the separator, ``line`` counted up to it."""
        i, depth, in_string, dropped, over = self.pos, 0, False, 0, False
        while True:
            if i >= len(self.buf):
                if over:  # an over-long element: let go of what was read of it
                    keep = min(i, len(self.buf))
                    self.line += self.buf.count("\n", self.pos, keep)
                    dropped += keep - self.pos
                    self.pos = keep
                base = self.pos
                if not self.fill():
                    return None
                i -= base
                continue
            if in_string:
                m = _IN_STRING.search(self.buf, i)
                if m is None:
                    i = len(self.buf)
                    continue
                i = m.end() + (m.group() == "\\")  # a backslash escapes the next character, whatever it is
                in_string = m.group() != '"'
            else:
                m = _STRUCTURE.search(self.buf, i)
                if m is None:
                    i = len(self.buf)
                elif depth == 0 and m.group() in ",]":
                    end = m.start()
                    break
                else:
                    i = m.end()
                    c = m.group()
                    in_string = c == '"'
                    depth = depth + 1 if c in "[{" else max(depth - 1, 0) if c in "]}" else depth
            if not over and i - self.pos > max_record_chars:
                over = len(self.buf[self.pos : i].rstrip(" \t\r\n")) > max_record_chars
        text = self.buf[self.pos : end].rstrip(" \t\r\n")
        size = dropped + len(text)
        self.line += self.buf.count("\n", self.pos, end)
        self.pos = end
        if over or len(text) > max_record_chars:
            return None, size
        return text, size


def _table_records(
    ctx: ReadContext, rows: Iterator[tuple[int, list[str], str]], f: _Fields, separated: str
) -> Iterator[tuple[int, Any]]:
    """Records of a table, one ``(line, cells, raw text)`` a row: a first row naming the dish and a text (or
    steps) field is a header, else rows are ``dish, text``. ``separated``: "tab" or "comma", for messages."""
    header: list[str] | None = None
    for line, cols, text in rows:
        if header is None:  # first readable row: a header if it names the dish and a text/steps field
            text_cols = {f.text, f.steps, *_STEP_FIELDS} - {None}
            header = cols if f.dish in cols and text_cols & set(cols) else []
            if header:
                continue
        if header:
            if len(cols) != len(header):
                ctx.skip(line, "columns", f"expected {len(header)} {separated}-separated columns, got {len(cols)}")
                continue
            yield line, dict(zip(header, cols))
        elif len(cols) != 2:
            hint = (
                " (commas, no tab: a comma-separated file? name it .csv or give --format csv)"
                if separated == "tab" and len(cols) == 1 and "," in text
                else ""
            )
            ctx.skip(
                line,
                "columns",
                f"expected 2 {separated}-separated columns (dish, text) or a header line "
                f"naming {f.dish!r} and {f.text!r}; got {len(cols)}{hint}",
            )
        else:
            yield line, {f.dish: cols[0], f.text: cols[1]}


def _tsv_records(ctx: ReadContext, max_line_bytes: int, f: _Fields) -> Iterator[tuple[int, Any]]:
    """TSV whose first line is a header naming the fields, or headerless ``dish \\t text``."""
    rows = ((line, text.split("\t"), text) for line, text in iter_lines(ctx, max_line_bytes))
    return _table_records(ctx, rows, f, "tab")


def _csv_records(ctx: ReadContext, max_line_bytes: int, f: _Fields) -> Iterator[tuple[int, Any]]:
    """Comma-separated values as spreadsheets write them (quoted fields, quotes doubled, commas and line
    breaks inside quotes), through the csv module: a header naming the fields, or headerless ``dish,text``.
    Errors name the line a record ends on."""
    import csv

    at = [0]

    def texts() -> Iterator[str]:
        for line, text in iter_lines(ctx, max_line_bytes):
            at[0] = line
            yield text + "\n"

    def rows() -> Iterator[tuple[int, list[str], str]]:
        reader = csv.reader(texts())
        while True:
            try:
                cols = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                ctx.skip(at[0], "csv", f"not valid CSV ({e})")
                continue
            yield at[0], cols, ""

    return _table_records(ctx, rows(), f, "comma")


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
    an uncompressed JSONL or TSV file (a TSV header, blank and malformed lines count too: an upper bound).
    None for a JSON array, a ``.gz`` file or a stream, where counting would cost a second full read (a pipe
    cannot be read twice). Counted in chunks: a 300 MB single line is never held (786 MB peak before)."""
    path = Path(path)
    if path.suffix == ".gz" or is_stream(path) or not path.is_file():
        return None
    if (_sniff_format(path) if format == "auto" else format) not in ("jsonl", "tsv", "csv"):
        return None
    with open(path, "rb") as fh:
        head = fh.read(CHUNK_BYTES)
        if detect_encoding(head) not in ("utf-8", "utf-8-sig"):
            return None  # a transcoded file: not worth a second pass
        lf, cr = _LineCounter(b"\n"), _LineCounter(b"\r")
        chunk = head
        while chunk:
            lf.feed(chunk)
            cr.feed(chunk)
            chunk = fh.read(CHUNK_BYTES)
        return lf.total() if lf.ends else cr.total()  # CR-only line ends where no LF at all


class _LineCounter:
    """Non-blank lines of a byte stream fed in chunks, holding no line (a line may span many chunks)."""

    def __init__(self, sep: bytes):
        self.sep, self.count, self.ends, self._content = sep, 0, 0, False

    def feed(self, chunk: bytes) -> None:
        parts = chunk.split(self.sep)
        self.ends += len(parts) - 1
        for part in parts[:-1]:
            if self._content or part.strip():
                self.count += 1
            self._content = False
        self._content = self._content or bool(parts[-1].strip())

    def total(self) -> int:
        return self.count + (1 if self._content else 0)


def read_corpus(
    path: str | Path,
    format: str = "auto",
    dish_field: str = "dish",
    title_field: str | None = None,
    text_field: str = "text",
    steps_field: str | None = None,
    id_field: str | None = None,
    *,
    report: ReadReport | None = None,
    strict: bool = False,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_name_chars: int = MAX_NAME_CHARS,
    encoding: str = "auto",
) -> Iterator[CorpusRecipe]:
    """Stream recipes from JSONL, a top-level JSON array, TSV or CSV (``.gz`` accepted).

    Each record needs a dish (``dish_field``) and a text: ``text_field``, or a list of steps
    (``steps_field``; when not given, ``recipeInstructions`` / ``instructions`` / ``steps`` are tried
    if the text field is missing) joined as numbered steps. ``title_field`` / ``id_field`` default to
    ``title``/``name`` and ``id``/``_id``/``recipe_id`` when present. ``encoding``: ``auto`` (a BOM, else
    UTF-8, else a detected GB18030/Big5/UTF-16...) or a codec name.
    """
    path = Path(path)
    if format not in CORPUS_FORMATS:
        raise ValueError(f"unknown corpus format {format!r}; expected auto, jsonl, json, tsv or csv")
    ctx = ReadContext(path, report, strict, check_encoding(encoding))
    start = ctx.report.read
    fmt = _sniff_format(path) if format == "auto" else format
    f = _Fields(dish_field, title_field, text_field, steps_field, id_field)
    if fmt == "jsonl":
        records = _jsonl_records(ctx, max_line_bytes)
    elif fmt == "json":
        records = _json_array_records(ctx, max_line_bytes)
    elif fmt == "tsv":
        records = _tsv_records(ctx, max_line_bytes, f)
    elif fmt == "csv":
        records = _csv_records(ctx, max_line_bytes, f)
    else:
        raise ValueError(f"unknown corpus format {format!r}; expected auto, jsonl, json, tsv or csv")
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
