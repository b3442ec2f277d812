"""Reading JSONL files of objects: one place for the line loop and its one-line errors.

Standard library only, so file-only paths (the GPU bundle) can use it without the graph stack.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator


def json_objects(path: str | Path, what: str = "a JSON object") -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a line that is not JSON, or not an object, raises a
    ValueError naming the file and line (``what`` says what the line should have been)."""
    path = Path(path)
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: invalid JSON ({e.msg})") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{lineno}: expected {what}")
            yield lineno, obj
