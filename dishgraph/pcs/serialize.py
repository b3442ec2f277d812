"""Tables as text for text-to-text models, as in the PCS paper: cells joined by ``<s>``, rows by ``<n>``.

The model sees every instruction and action and must fill the masked input/output cells. Two masking
styles: ``tokens`` puts ``<in>`` / ``<out>`` in the masked cells and the target lists the filled cells row
by row (``input <s> output <n> …``); ``sentinel`` puts T5's ``<extra_id_k>`` in the k-th masked cell and the
target is ``<extra_id_0> cell <extra_id_1> cell …`` (T5's span-corruption shape). `parse_target` inverts
either target, also when a model's output is malformed (missing cells come back empty, never shifted).

Example (tokens)::

    source  preheat oven . <s> <in> <s> preheat <s> <out> <n> cut brie . <s> <in> <s> cut <s> <out>
    target  NA <s> NA <n> brie <s> sliced brie
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from dishgraph.pcs.tables import (
    COLUMNS,
    PCSRow,
    PCSTable,
    format_input_cell,
    format_output_cell,
    parse_input_cell,
    parse_output_cell,
)

CELL_SEP = "<s>"
ROW_SEP = "<n>"
IN_MASK = "<in>"
OUT_MASK = "<out>"
MARKUP = (CELL_SEP, ROW_SEP, IN_MASK, OUT_MASK)
MASKS = ("tokens", "sentinel")
FIELDS = ("input", "output")
N_SENTINELS = 100  # T5 vocabularies carry <extra_id_0> … <extra_id_99>
_SENTINEL_RE = re.compile(r"<extra_id_(\d+)>")
_MARKUP_RE = re.compile("|".join(re.escape(t) for t in MARKUP) + r"|<extra_id_\d+>")


def sentinel(k: int) -> str:
    return f"<extra_id_{k}>"


def markup_tokens(mask: str = "tokens") -> list[str]:
    """Tokens a tokenizer must know as single units for this masking style."""
    _check_mask(mask)
    return [CELL_SEP, ROW_SEP] + ([IN_MASK, OUT_MASK] if mask == "tokens" else [])


@dataclass(frozen=True)
class Example:
    source: str
    target: str
    recipe: str  # table id
    start: int  # rows [start, end) of the table
    end: int


def clean_cell(text: str) -> str:
    """Cells may not contain the markup: such strings become spaces; whitespace collapses."""
    return re.sub(r"\s+", " ", _MARKUP_RE.sub(" ", text)).strip()


def _cells(row: PCSRow) -> dict[str, str]:
    return {
        "instruction": row.instruction,
        "input": format_input_cell(row.inputs),
        "action": row.action,
        "output": format_output_cell(row.output),
    }


def linearize(rows: Sequence[PCSRow]) -> str:
    """The complete table as one string (no masking)."""
    return f" {ROW_SEP} ".join(f" {CELL_SEP} ".join(clean_cell(_cells(r)[c]) for c in COLUMNS) for r in rows)


def parse_linearized(text: str) -> list[PCSRow]:
    """Inverse of `linearize` (also for a model that generates whole tables); short rows are padded."""
    rows = []
    for chunk in _split(text, ROW_SEP):
        cells = (_split(chunk, CELL_SEP) + ["", "", "", ""])[:4]
        rows.append(
            PCSRow(
                instruction=cells[0],
                inputs=parse_input_cell(cells[1]),
                action=cells[2],
                output=parse_output_cell(cells[3]),
            )
        )
    return rows


def serialize_rows(
    rows: Sequence[PCSRow], mask: str = "tokens", fields: Sequence[str] = FIELDS, prefix: str = ""
) -> tuple[str, str]:
    """(source, target) for rows with the ``fields`` cells masked."""
    _check_mask(mask)
    fields = _check_fields(fields)
    src_rows, tgt_rows, tgt_spans = [], [], []
    k = 0
    for r in rows:
        cells = {c: clean_cell(v) for c, v in _cells(r).items()}
        src, tgt = [], []
        for c in COLUMNS:
            if c in fields:
                if mask == "tokens":
                    src.append(IN_MASK if c == "input" else OUT_MASK)
                    tgt.append(cells[c])
                else:
                    if k >= N_SENTINELS:
                        raise ValueError(f"more than {N_SENTINELS} masked cells: serialize fewer rows at a time")
                    src.append(sentinel(k))
                    tgt_spans.append(f"{sentinel(k)} {cells[c]}")
                    k += 1
            else:
                src.append(cells[c])
        src_rows.append(f" {CELL_SEP} ".join(src))
        tgt_rows.append(f" {CELL_SEP} ".join(tgt))
    source = f" {ROW_SEP} ".join(src_rows)
    if prefix:
        source = f"{prefix} {source}"
    target = f" {ROW_SEP} ".join(tgt_rows) if mask == "tokens" else " ".join(tgt_spans)
    return source, target


def serialize_table(
    table: PCSTable, mask: str = "tokens", fields: Sequence[str] = FIELDS, max_rows: int | None = None, prefix: str = ""
) -> list[Example]:
    """One example per table, or per window of ``max_rows`` rows (long recipes exceed model lengths)."""
    n = len(table.rows)
    size = max_rows or n or 1
    out = []
    for start in range(0, max(n, 1), size):
        rows = table.rows[start : start + size]
        src, tgt = serialize_rows(rows, mask, fields, prefix)
        out.append(Example(src, tgt, table.id, start, start + len(rows)))
    return out


def parse_target(text: str, n_rows: int, mask: str = "tokens", fields: Sequence[str] = FIELDS) -> list[dict[str, str]]:
    """A (possibly malformed) model output → ``n_rows`` dicts of the masked cells (missing → "")."""
    _check_mask(mask)
    fields = _check_fields(fields)
    out = [{f: "" for f in fields} for _ in range(n_rows)]
    if mask == "tokens":
        for i, chunk in enumerate(_split(text, ROW_SEP)[:n_rows]):
            for f, cell in zip(fields, _split(chunk, CELL_SEP)):
                out[i][f] = cell
        return out
    parts = _SENTINEL_RE.split(text)  # [before, k, cell, k, cell, ...]
    for k, cell in zip(parts[1::2], parts[2::2]):
        k = int(k)
        row, col = divmod(k, len(fields))
        if row < n_rows:
            out[row][fields[col]] = clean_cell(cell)
    return out


def fill_rows(rows: Sequence[PCSRow], predicted: Sequence[dict[str, str]]) -> list[PCSRow]:
    """Rows with their masked cells replaced by predictions (instruction, action, source line kept)."""
    out = []
    for r, p in zip(rows, predicted):
        new = replace(r, inputs=list(r.inputs))
        if "input" in p:
            new.inputs = parse_input_cell(p["input"])
        if "output" in p:
            new.output = parse_output_cell(p["output"])
        out.append(new)
    return out


def _split(text: str, sep: str) -> list[str]:
    return [x.strip() for x in re.split(r"\s*" + re.escape(sep) + r"\s*", text.strip())] if text.strip() else []


def _check_mask(mask: str) -> None:
    if mask not in MASKS:
        raise ValueError(f"unknown mask style {mask!r}; expected one of {MASKS}")


def _check_fields(fields: Sequence[str]) -> tuple[str, ...]:
    fields = tuple(c for c in COLUMNS if c in fields)  # column order, whatever order was passed
    if not fields or not set(fields) <= set(FIELDS):
        raise ValueError(f"fields must be a non-empty subset of {FIELDS}")
    return fields
