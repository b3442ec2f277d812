"""Help text that the terminal wraps: docstrings are written at the source's line length, and typer's rich
help keeps every line break after the first paragraph, so at another width a sentence broke mid-line
("… on the embedded database" / "(LadybugDB)," on a line of its own). `reflow` joins each paragraph's lines
into one (a list item starts its own line); the terminal wraps it at its width."""

from __future__ import annotations

import re

_ITEM = re.compile(r"^\s*([-*•]|\d+[.)])\s")


def reflow(text: str | None) -> str | None:
    """``text`` with every line break inside a paragraph made a space, paragraphs (blank-line separated)
    kept, each list item (``- x``, ``1. x``) on its own line; a paragraph that starts with click's ``\\b``
    (no rewrapping) and anything after ``\\f`` are left as written."""
    if not text or "\n" not in text.strip():
        return text
    head, cut, tail = text.partition("\f")
    paragraphs = []
    for para in re.split(r"\n[ \t]*\n", head.strip("\n")):
        if para.lstrip().startswith("\b"):
            paragraphs.append(para)
            continue
        lines = [line.strip() for line in para.split("\n")]
        out = [lines[0]]
        for raw, line in zip(para.split("\n")[1:], lines[1:]):
            if _ITEM.match(raw):
                out.append(line)
            else:
                out[-1] = f"{out[-1]} {line}".strip()
        paragraphs.append("\n".join(out))
    return "\n\n".join(paragraphs) + cut + tail
