"""Benchmarks print their figures as JSON and, with --json-out, also keep them (benchmarks/results/)."""

from __future__ import annotations

import json
from pathlib import Path


def emit(figures: dict, json_out: str | None) -> None:
    text = json.dumps(figures, ensure_ascii=False, indent=2)
    print(text)
    if json_out:
        Path(json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(json_out).write_text(text + "\n", encoding="utf-8")
