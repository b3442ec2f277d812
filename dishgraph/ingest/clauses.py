"""Recipe text → steps and clauses with character spans (the unit both recipe parsers work on).

Both the rule parser (``ingest.parser``) and the dependency parser (``ingest.depparse``) split a recipe the
same way, so the splitter lives here, below both: neither parser module needs the other for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dishgraph.ingest.sections import hidden_spans


@dataclass(frozen=True)
class Clause:
    step: int  # numbered step / sentence index
    index: int  # clause index within the recipe
    start: int  # span in the original text
    end: int
    text: str


# Step markers: "1、" "1." "1）" "(1)" "①" "⑴" "一、" "步骤1" "第一步" at a line/sentence start or after
# punctuation (cookbooks number their steps 一、二、三、 as often as 1、2、3、).
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳⑴⑵⑶⑷⑸⑹⑺⑻⑼⑽"
_STEP_RE = re.compile(
    r"(?:步骤\s*\d+\s*[:：、.．)）]?|第[一二三四五六七八九十\d]+步\s*[:：、.．]?|[" + _CIRCLED + r"]"
    r"|[(（]\d{1,2}[)）]|(?<![\d.])\d{1,2}\s*(?:[、)）]|[.．](?!\d))"
    r"|(?<![一二三四五六七八九十])[一二三四五六七八九十]{1,2}[、．])"
)
_SENT_END = "。！？!?；;\n\r"
_CLAUSE_END = "，,：:~～…"


def split_clauses(text: str) -> list[Clause]:
    """Steps and clauses with spans into ``text`` (step markers and punctuation are not part of a clause)."""
    if not text:
        return []
    breaks: set[int] = set()  # positions where a new step starts
    sections = hidden_spans(text)  # section labels and non-method sections: skipped, each ends a step
    after_section = {b for _, b in sections}
    marker_spans = []
    for m in _STEP_RE.finditer(text):
        s = m.start()
        if s == 0 or s in after_section or text[s - 1] in _SENT_END + _CLAUSE_END + "。 \t" or text[s - 1].isspace():
            breaks.add(s)
            marker_spans.append((m.start(), m.end()))
    breaks.update(a for a, _ in sections)
    skip = {i for a, b in marker_spans + sections for i in range(a, b)}
    out: list[Clause] = []
    step, cstart, pending_step = 0, None, False
    i = 0
    n = len(text)

    def flush(end: int):
        nonlocal cstart
        if cstart is not None:
            a, b = cstart, end
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if b > a:
                out.append(Clause(step, len(out), a, b, text[a:b]))
        cstart = None

    while i < n:
        ch = text[i]
        if i in breaks:
            flush(i)
            if out and out[-1].step == step:
                step += 1
            pending_step = False
        if i in skip:
            i += 1
            continue
        if ch in _SENT_END:
            flush(i)
            if out and out[-1].step == step:
                pending_step = True
        elif ch in _CLAUSE_END:
            flush(i)
        else:
            if cstart is None:
                if pending_step:
                    step += 1
                    pending_step = False
                cstart = i
        i += 1
    flush(n)
    return out
