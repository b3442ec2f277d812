"""Bytes to lines and names, for every line-based reader: ``.gz``, encoding detection, over-long and undecodable
lines skipped one by one, and the clean-up every dish name and recipe text goes through."""

from __future__ import annotations

import errno
import gzip
import io
import os
import re
import stat
import unicodedata
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from dishgraph.ingest.readers.report import ReadContext

MAX_LINE_BYTES = 1 << 20
MAX_NAME_CHARS = 100
# The longest recipe text one record may hold. Parsing costs memory in proportion to the text (a 1 MB text of
# short clauses: 111,100 steps, 722 MB), so a cap per recipe keeps an ingest's memory bounded by its batch
# sizes, not by its longest line. The real corpora stay far below it: longest text 498 characters in the CRG
# release, 2,964 in the XiaChuFang sample, 5,724 in the classic corpus (measured over every record).
MAX_RECIPE_CHARS = 20_000
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")  # Cc (no \t \n) + surrogates
_FORMAT = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
CHUNK_BYTES = 1 << 16
# A streamed input (a corpus, a CRG text file; ``.gz`` or not) yields at most this many bytes, and a ``.gz``
# at most `MAX_GZIP_RATIO` times what it has taken of its compressed bytes: a 2 MB gzip of 2 GB of newlines
# ran past 120 s (each blank line handled in turn). Real text compresses about 3x (the XiaChuFang and classic
# corpora: 3.0x; deflate's limit is 1,032x); the largest corpus of the release is 8 MB. The ratio is judged
# once `RATIO_FLOOR` bytes came out, so a small file is never refused for it. Reading stops at the cap, after
# every record before it: the stop is skipped input named with its file and line (exit 3), as damage is.
MAX_GZIP_RATIO = 100
RATIO_FLOOR = 1 << 20
MAX_STREAM_BYTES = 16 << 30
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


# What a Chinese recipe corpus comes in besides UTF-8 (detection chooses only among these).
_CANDIDATE_ENCODINGS = ["gb18030", "big5", "utf_16_le", "utf_16_be", "utf_32_le", "utf_32_be"]


def is_stream(path: Path) -> bool:
    """A pipe, FIFO or socket (``<(cat x)``, ``/dev/stdin``, ``mkfifo``): bytes that can be read only once."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def check_input(path: Path) -> None:
    """Refuse what no reader should open: a device (``/dev/zero`` never ends) and a symbolic link loop
    (reported as "dangling" before); OSError naming the path."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "a symbolic link loop (the link points back to itself)", str(path)) from None
        return  # missing, dangling, unreadable: the open that follows says which, naming the path
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise OSError(errno.EINVAL, "a device, not a file: give a file, a pipe or a FIFO", str(path))


class _Replay(io.RawIOBase):
    """A stream's bytes from the start: the head already read (to sniff the format and the encoding), then
    the rest from the stream itself. Opening a pipe twice lost the head (5 of 199 records, uncounted) and a
    FIFO opened twice waited for a second writer forever."""

    def __init__(self, head: bytes, fh: BinaryIO):
        self._head, self._fh, self._pos = memoryview(head), fh, 0

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        """Bytes handed out so far (a gzip stream's compressed bytes taken: `MAX_GZIP_RATIO`)."""
        return self._pos

    def readinto(self, b: Any) -> int:
        if self._head.nbytes:
            n = min(len(b), self._head.nbytes)
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            self._pos += n
            return n
        data = self._fh.read(len(b))
        b[: len(data)] = data
        self._pos += len(data)
        return len(data)

    def close(self) -> None:
        self._fh.close()
        super().close()


_STREAMS: dict[str, _Replay] = {}  # streams whose head was read, waiting for their one reader


def read_head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes (fewer at the end) of a file or a stream; a stream is kept open, its head
    replayed by the next `open_binary` of the same path, so that it is read once."""
    if not is_stream(path):
        with open(path, "rb") as fh:
            return fh.read(size)
    fh = open(path, "rb", buffering=0)
    head = b""
    while len(head) < size and (part := fh.read(size - len(head))):
        head += part
    old = _STREAMS.pop(str(path), None)
    if old is not None:
        old.close()
    _STREAMS[str(path)] = _Replay(head, fh)  # type: ignore[arg-type]
    return head


def open_binary(path: Path) -> BinaryIO:
    """The file's bytes (``.gz`` decompressed, also a gzip stream); a missing path, a directory or a dangling
    link raise OSError. A stream whose head `read_head` took is read on from there, never reopened."""
    check_input(path)
    replay = _STREAMS.pop(str(path), None)
    if replay is None and not is_stream(path):
        return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")
    if replay is None:
        read_head(path, 2)
        replay = _STREAMS.pop(str(path))
    buffered = io.BufferedReader(replay, CHUNK_BYTES)
    if path.suffix == ".gz" or buffered.peek(2)[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[return-value]
    return buffered  # type: ignore[return-value]


def check_encoding(encoding: str) -> str:
    """``auto`` or a codec name Python knows (normalised); ValueError otherwise."""
    import codecs

    if encoding == "auto":
        return encoding
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise ValueError(
            f"unknown encoding {encoding!r}; use auto or a codec name such as utf-8, gb18030, big5, utf-16"
        ) from None


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


def raw_chunks(ctx: ReadContext) -> Iterator[bytes]:
    """The file's bytes in chunks, as UTF-8 (other encodings transcoded; undecodable bytes pass through as
    invalid UTF-8, so the line that holds them is skipped, not the file). Damage to a ``.gz`` (bad CRC,
    truncated tail) ends the read *after* every complete record before it, with one skip naming the line
    and the uncompressed byte offset; ``strict`` raises instead."""
    import codecs

    with open_binary(ctx.path) as fh:
        offset, first, decoder = 0, True, None
        compressed = fh.fileobj if isinstance(fh, gzip.GzipFile) else None  # its tell(): compressed bytes taken
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
            if (stop := _past_cap(offset, compressed)) is not None:
                ctx.damaged = (offset - len(chunk), "too-large", stop)
                if decoder is not None:
                    yield _final(decoder)
                return
            if decoder is not None:
                chunk = decoder.decode(chunk).encode("utf-8", "surrogateescape")
            yield chunk


def _past_cap(offset: int, compressed: Any) -> str | None:
    """Why reading must stop once ``offset`` bytes came out (of a gzip whose source is ``compressed``), or None."""
    if offset > MAX_STREAM_BYTES:
        return f"yields past {_size(MAX_STREAM_BYTES)}; at most {_size(MAX_STREAM_BYTES)} are read from one input"
    if compressed is None or offset <= RATIO_FLOOR:
        return None
    try:
        taken = compressed.tell()
    except (OSError, ValueError):
        return None
    if offset > MAX_GZIP_RATIO * max(taken, 1):
        return (
            f"decompresses past {offset // max(taken, 1):,}x its size ({_size(offset)} from {_size(taken)} "
            f"compressed; at most {MAX_GZIP_RATIO}x, text compresses about 3x): a decompression bomb"
        )
    return None


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,} bytes"


def _final(decoder) -> bytes:
    """What an incremental decoder still holds at the end of the file; a cut last character (an odd byte
    of UTF-16) becomes an invalid byte, so its line is skipped as not decodable rather than raising."""
    try:
        return decoder.decode(b"", final=True).encode("utf-8", "surrogateescape")
    except UnicodeDecodeError:
        return b"\xff"


def _raw_lines(ctx: ReadContext, max_line_bytes: int) -> Iterator[bytes | None]:
    """Lines as bytes without their ends (``\n``, ``\r\n``, or ``\r`` alone in a file with CR-only line
    ends); None for a line longer than ``max_line_bytes``, which is never held whole in memory.

    The line end is ``\n`` as soon as one is seen; a lone ``\r`` (old Mac files) only where no ``\n``
    comes within ``max_line_bytes`` (or before the end). Deciding on the first chunk holding either split a
    JSON line at a raw CR (legal JSON whitespace) whenever its LF came a chunk later."""
    sep, pending, too_long = None, b"", False
    for chunk in raw_chunks(ctx):
        if sep is None:
            if too_long:  # an over-long first line, dropped: its end is the first LF, else a CR
                if b"\n" not in chunk and b"\r" not in chunk:
                    continue
                sep = b"\n" if b"\n" in chunk else b"\r"
                too_long, chunk = False, chunk[chunk.find(sep) + 1 :]
                yield None
            else:
                pending += chunk
                if b"\n" in pending:
                    sep, chunk, pending = b"\n", pending, b""
                elif len(pending) <= max_line_bytes:
                    continue  # no LF yet: wait (a first line longer than a chunk)
                elif b"\r" in pending:
                    sep, chunk, pending = b"\r", pending, b""  # CR-only line ends
                else:
                    pending, too_long = b"", True
                    continue
        if too_long:  # the rest of an over-long line: dropped up to its end
            i = chunk.find(sep)
            if i < 0:
                continue
            chunk, too_long = chunk[i + 1 :], False
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
    elif sep is None and b"\r" in pending.rstrip(b"\r") and getattr(ctx, "damaged", None) is None:
        yield from (raw if len(raw) <= max_line_bytes else None for raw in pending.split(b"\r") if raw)
    elif pending and getattr(ctx, "damaged", None) is None:  # a line cut by damage is part of the damage
        yield pending[:-1] if pending.endswith(b"\r") else pending


def iter_lines(ctx: ReadContext, max_line_bytes: int) -> Iterator[tuple[int, str]]:
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
            ctx.skip(
                lineno,
                "encoding",
                f"not {enc.upper() if enc.startswith('utf') else enc} "
                f"(byte {e.start}: {raw[e.start : e.start + 1]!r}); try --encoding",
            )
            continue
        if not text.strip():
            ctx.blank()
            continue
        yield lineno, text
    report_damage(ctx, lineno + 1)


def report_damage(ctx: ReadContext, line) -> None:
    if getattr(ctx, "damaged", None) is not None:
        if len(ctx.damaged) == 3:  # a cap (`_past_cap`): reading stopped at this line
            offset, reason, why = ctx.damaged
            ctx.damaged = None
            ctx.skip(line, reason, f"{why}; reading stopped here, after byte {offset:,} of the "
                     "uncompressed stream: records before it were read, nothing after it is")  # fmt: skip
            return
        offset, why = ctx.damaged
        ctx.damaged = None
        ctx.skip(
            line,
            "corrupt",
            f"compressed data damaged after byte {offset} of the uncompressed stream "
            f"({why}); records before it were read, nothing after it can be",
        )


def clean_name(
    name: Any, ctx: ReadContext | None = None, line=None, *, max_chars: int = MAX_NAME_CHARS, what: str = "dish name"
) -> str:
    """A dish/ingredient name as data: control and format characters removed, whitespace collapsed,
    length capped. Quotes and anything Cypher-looking are kept: values never enter query text."""
    s = str(name)
    cleaned = "".join(
        " " if ch in "\t\n\r\v\f" else ch
        for ch in s
        if ch in "\t\n\r\v\f" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
    )
    cleaned = " ".join(cleaned.split())
    if ctx is not None and cleaned != s.strip() and cleaned != " ".join(s.split()):
        ctx.warn(line, "control-chars", f"{what} {s[:40]!r}: control/format characters removed")
    if len(cleaned) > max_chars:
        if ctx is not None:
            ctx.warn(line, "long-name", f"{what} of {len(cleaned)} characters cut to {max_chars}")
        cleaned = cleaned[:max_chars]
    return cleaned


def clean_text(text: str, ctx: ReadContext, line) -> str:
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


def check_recipe(ctx: ReadContext, line, dish: str, text: str) -> bool:
    """Shared record checks; False means skip the record (already reported)."""
    if not dish:
        ctx.skip(line, "empty-dish", "empty dish name")
        return False
    if not text:
        ctx.skip(line, "empty-recipe", f"empty recipe for dish {dish!r}")
        return False
    if len(text) > MAX_RECIPE_CHARS:
        ctx.skip(
            line,
            "long-recipe",
            f"recipe for {dish!r} of {len(text):,} characters, over the cap of {MAX_RECIPE_CHARS:,}: skipped",
        )
        return False
    if not has_cjk(text):
        ctx.warn(line, "no-cjk", f"recipe for {dish!r} has no Chinese character")
    return True
