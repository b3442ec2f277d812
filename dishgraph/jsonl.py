"""Reading JSONL files of objects: one place for the line loop and its one-line errors.

Standard library only, so file-only paths (the GPU bundle) can use it without the graph stack.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path


def json_objects(path: str | Path, what: str = "a JSON object") -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a line that is not JSON, or not an object, raises a
    ValueError naming the file and line (``what`` says what the line should have been)."""
    path = Path(path)
    with path.open(encoding="utf-8") as fh:
        yield from objects_in_lines(fh, path, what)


def objects_in_lines(
    lines: Iterable[str], source: str | Path, what: str = "a JSON object", *, bad_json: str = "invalid JSON"
) -> Iterator[tuple[int, dict]]:
    """`json_objects` over lines already read (``source`` names them in errors; ``bad_json`` is how a line
    that does not parse is described)."""
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{source}:{lineno}: {bad_json} ({e.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{source}:{lineno}: expected {what}")
        yield lineno, obj
