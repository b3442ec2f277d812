"""PCS tables: one per recipe, one row per atomic step (instruction, input, action, output).

The PizzaCommonSense release stores each recipe as a JSON object
``{"title": …, "id": …, "table": [{"instructions": …, "input": …, "action"|"actions": …, "output": …}]}``
(files end in ``.txt``). An input cell is ``NA``, one comestible, or a set written ``(a; b; c)``; an output
cell is ``NA`` or one comestible. We read that format plus JSON lists, JSONL, CSV and TSV (flat rows with a
``recipe_id``/``recipe``/``title`` column grouping rows into tables; without one the file is one table),
and a directory of any of these. Cells are kept verbatim apart from surrounding whitespace and the set
parentheses, because the comestible graph links an output to a later input only on the exact name.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NA = "NA"
_NA_FORMS = {"", "na", "n/a", "none", "null", "-"}
COLUMNS = ("instruction", "input", "action", "output")
_ALIASES = {
    "instructions": "instruction",
    "inputs": "input",
    "actions": "action",
    "outputs": "output",
    "step": "instruction",
    "text": "instruction",
}
_GROUP_KEYS = ("recipe_id", "recipe", "title")
_TABLE_KEYS = ("table", "rows", "steps")
SUFFIXES = (".json", ".jsonl", ".txt", ".csv", ".tsv")
_ROW_ERROR = "\x00error"


class PCSFormatError(ValueError):
    """A table that cannot be read; names the file and line (0 when the format has no line to point to)."""

    def __init__(self, path: str | Path, line: int, message: str):
        self.path, self.line, self.message = str(path), line, message
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


# ---------------------------------------------------------------------------------------------- cells
def is_na(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and cell.strip().lower() in _NA_FORMS)


def parse_input_cell(cell: Any) -> list[str]:
    """``"(onion; garlic ;butter)"`` and ``"onion; garlic; butter"`` → ["onion", "garlic", "butter"]; ``NA``
    (``N/A``, ``na``, empty) → []; a JSON list is accepted. Only a ``;`` outside parentheses separates items:
    annotators wrote outputs such as ``mixed_(garlic; oil)`` and reuse them verbatim as one later input."""
    if isinstance(cell, (list, tuple)):
        items = [str(x) for x in cell]
    else:
        if is_na(cell):
            return []
        text = str(cell).strip()
        if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1]
        items = split_items(text)
    out: list[str] = []
    for it in (x.strip() for x in items):
        if it and not is_na(it) and it not in out:
            out.append(it)
    return out


def parse_output_cell(cell: Any) -> str | None:
    return None if is_na(cell) else str(cell).strip()


def format_input_cell(items: Iterable[str], release: bool = False) -> str:
    """Canonical ``a; b`` (``(a; b)`` in the release style when there are several), ``NA`` when empty."""
    items = list(items)
    if not items:
        return NA
    text = "; ".join(items)
    return f"({text})" if release and len(items) > 1 else text


def format_output_cell(name: str | None) -> str:
    return name if name else NA


def split_items(text: str) -> list[str]:
    """Split on the ``;`` at parenthesis depth 0 (unbalanced text: on every ``;``)."""
    if not _balanced(text):
        return text.split(";")
    items, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            items.append(text[start:k])
            start = k + 1
    return [*items, text[start:]]


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


# ---------------------------------------------------------------------------------------------- model
@dataclass
class PCSRow:
    instruction: str
    action: str
    inputs: list[str] = field(default_factory=list)
    output: str | None = None
    line: int = 0  # line in the source file (0 = unknown)

    def cells(self, release: bool = False) -> dict[str, str]:
        return {
            "instruction": self.instruction,
            "input": format_input_cell(self.inputs, release),
            "action": self.action,
            "output": format_output_cell(self.output),
        }


@dataclass
class PCSTable:
    id: str
    title: str
    rows: list[PCSRow] = field(default_factory=list)
    source: str = ""  # file it was read from
    line: int = 0  # where the table starts in that file (0 = unknown)
    split: str = ""  # release split (train / val / test) from the directory it was read in; "" = none
    annotator: int = 1  # 2 for a second crowd worker's table of the same recipe (release titles ending _2)
    ingredients: list[str] = field(default_factory=list)  # Recipe1M ingredient lines
    original: list[str] = field(default_factory=list)  # Recipe1M instruction sentences

    @property
    def dish(self) -> str:
        """Release titles are snake_case: ``baked_olive_and_brie_pizza`` → ``baked olive and brie pizza``;
        a second annotation's ``_2`` is not part of the dish name (both tables are the same recipe)."""
        title = self.title[:-2] if self.annotator == 2 and self.title.endswith("_2") else self.title
        return re.sub(r"\s+", " ", title.replace("_", " ")).strip()

    @property
    def key(self) -> tuple[str, int]:
        """What identifies a table: the release id and the annotator (both annotations share the id)."""
        return (self.id, self.annotator)

    @property
    def text(self) -> str:
        return "\n".join(r.instruction for r in self.rows)

    def to_release(self) -> dict:
        """The release's JSON object (``instructions`` key, ``(a; b)`` input sets; Recipe1M fields if any)."""
        extra = {}
        if self.ingredients or self.original:
            extra = {
                "ingredients": [{"text": t} for t in self.ingredients],
                "recipe": [{"text": t} for t in self.original],
            }
        return {
            "title": self.title,
            "id": self.id,
            **extra,
            "table": [
                {
                    "instructions": r.instruction,
                    "input": format_input_cell(r.inputs, True),
                    "action": r.action,
                    "output": format_output_cell(r.output),
                }
                for r in self.rows
            ],
        }

    def to_rows(self) -> list[dict[str, str]]:
        """Flat rows with canonical cells (``a; b``), the shape `dishgraph.eval.pcs_metrics` scores."""
        return [r.cells() for r in self.rows]


def table_id(title: str, instructions: Iterable[str]) -> str:
    """Content id for tables that carry none (the release uses 10 hex digits)."""
    h = hashlib.sha1("\x00".join([title, *instructions]).encode("utf-8")).hexdigest()
    return h[:10]


# ---------------------------------------------------------------------------------------------- reading
def read_pcs(path: str | Path, errors: list[PCSFormatError] | None = None) -> list[PCSTable]:
    """Every table in a file or directory (recursively, sorted). Bad tables raise `PCSFormatError`, or, when
    ``errors`` is a list, are appended there and skipped so that the good tables still load."""
    path = locate(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    files = (
        sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES) if path.is_dir() else [path]
    )
    out: list[PCSTable] = []
    for f in files:
        try:
            tables = _read_file(f, errors)
        except PCSFormatError as e:
            if errors is None:
                raise
            errors.append(e)
            continue
        except (RecursionError, ValueError, OverflowError, TypeError, MemoryError) as e:
            # What json and int() raise on hostile input (100k-deep nesting, a 5,000-digit number, 1e999):
            # this file is skipped and named, the others still load.
            err = PCSFormatError(f, 0, f"cannot be read ({_why(e)})")
            if errors is None:
                raise err from None
            errors.append(err)
            continue
        split = split_of(f, path)
        for t in tables:
            t.split = t.split or split
        out.extend(tables)
    return out


def _why(e: BaseException) -> str:
    if isinstance(e, RecursionError):
        return "nested too deeply"
    if isinstance(e, MemoryError):
        return "too large to hold in memory"
    return " ".join(str(e).split())[:200] or type(e).__name__


# Rows one table may hold: the release's longest has 31; one of 100k rows took minutes and the whole memory.
MAX_ROWS = 1_000

SPLITS = ("train", "val", "valid", "dev", "test")
RELEASE_DIR = "pizzacommonsense"  # the release's directory in the data directory


def locate(path: str | Path) -> Path:
    """``path`` as given, or, for a bare split name (train, val, test) that is no file or directory here,
    that split of the release in the located data directory (`dishgraph.config.data_dir`): `pcs predict
    test`, `eval pcs PRED test` and every other reader of tables take the same names."""
    given = Path(path)
    name = str(path).strip().lower()
    if given.exists() or name not in SPLITS:
        return given
    from dishgraph import config

    try:
        release = config.data_dir() / RELEASE_DIR
    except FileNotFoundError:
        return given
    split = release / ("val" if name in ("valid", "dev") else name)
    return split if split.is_dir() else given


def split_of(file: Path, root: Path) -> str:
    """The release split a file belongs to: the nearest directory named train/val/test (``valid``/``dev``
    read as ``val``) between the file and the path given (that path included); "" when there is none."""
    for parent in [file.parent, *file.parent.parents]:
        if parent.name.lower() in SPLITS:
            name = parent.name.lower()
            return "val" if name in ("valid", "dev") else name
        if parent == root or parent == root.parent:
            break
    return ""


# A table file is read whole; the release's largest is 12 KB (a table holds at most 1,000 rows). A larger
# file is skipped and named with its size (exit 3), the others load.
MAX_TABLE_FILE_BYTES = 1 << 20


def _read_file(path: Path, errors: list[PCSFormatError] | None) -> list[PCSTable]:
    size = path.stat().st_size
    if size > MAX_TABLE_FILE_BYTES:
        raise PCSFormatError(
            path, 0, f"{size:,} bytes; a PCS table file is read whole, at most {MAX_TABLE_FILE_BYTES:,} bytes"
        )
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise PCSFormatError(path, 0, f"not UTF-8 text ({e.reason})") from None
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return _from_delimited(path, text, "," if suffix == ".csv" else "\t", errors)
    stripped = text.lstrip()
    if suffix == ".jsonl" or (stripped.startswith("{") and _looks_jsonl(stripped)):
        return _from_jsonl(path, text, errors)
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise PCSFormatError(path, e.lineno, f"not valid JSON ({e.msg})") from None
        return _from_json(path, text, data, errors)
    if suffix == ".json":
        raise PCSFormatError(path, 1, "expected a JSON object or list")
    return _from_delimited(path, text, "\t", errors)  # a .txt that is not JSON: TSV


def _looks_jsonl(text: str) -> bool:
    """Several top-level objects, one per line (a release file is one object spanning many lines)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return False
    try:
        json.loads(lines[0])
        return True
    except json.JSONDecodeError:
        return False


def _from_json(path: Path, text: str, data: Any, errors) -> list[PCSTable]:
    if isinstance(data, dict) and any(k in data for k in _TABLE_KEYS):
        objs = [data]
    elif (
        isinstance(data, list) and data and all(isinstance(d, dict) and any(k in d for k in _TABLE_KEYS) for d in data)
    ):
        objs = data
    elif isinstance(data, list):
        return _group_rows(path, [(0, r) for r in data], errors)
    else:
        raise PCSFormatError(path, 1, "expected a table object {title, id, table: [...]} or a list")
    n_rows = sum(len(o.get(next(k for k in _TABLE_KEYS if k in o)) or []) for o in objs)
    lines = iter(_row_lines(text, n_rows))
    out = []
    for k, obj in enumerate(objs, start=1):
        rows = obj.get(next(key for key in _TABLE_KEYS if key in obj))
        where = f"table {k}" if len(objs) > 1 else "table"
        if not isinstance(rows, list):
            raise PCSFormatError(path, 0, f"{where}: 'table' must be a list of rows")
        numbered = [(next(lines, 0), r) for r in rows]
        try:
            out.append(_table(path, obj, numbered, where))
        except PCSFormatError as e:
            if errors is None:
                raise
            errors.append(e)
    return out


def _row_lines(text: str, n_rows: int) -> list[int]:
    """The line of each row's instruction key; 0s when they cannot be told apart. ``text`` is also the key
    of Recipe1M's ingredient and sentence objects, so the narrower spellings are tried first."""
    for keys in ("instructions?", "instructions?|step", "instructions?|step|text"):
        found, line, at = [], 1, 0
        for m in re.finditer(rf'"(?:{keys})"\s*:', text):
            line += text.count("\n", at, m.start())  # counted from the previous match: linear, not quadratic
            at = m.start()
            found.append(line)
        if len(found) == n_rows:
            return found
    return [0] * n_rows


def _from_jsonl(path: Path, text: str, errors) -> list[PCSTable]:
    tables, flat = [], []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            err = PCSFormatError(path, n, f"not valid JSON ({e.msg})")
            if errors is None:
                raise err from None
            errors.append(err)
            continue
        if isinstance(obj, dict) and any(k in obj for k in _TABLE_KEYS):
            rows = obj[next(k for k in _TABLE_KEYS if k in obj)]
            try:
                if not isinstance(rows, list):
                    raise PCSFormatError(path, n, "'table' must be a list of rows")
                tables.append(_table(path, obj, [(n, r) for r in rows], "table", line=n))
            except PCSFormatError as e:
                if errors is None:
                    raise
                errors.append(e)
        else:
            flat.append((n, obj))
    return tables + (_group_rows(path, flat, errors) if flat else [])


def _from_delimited(path: Path, text: str, delimiter: str, errors) -> list[PCSTable]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = []
    try:
        for row in reader:
            if None in row:  # the row's table is rejected as a whole (a missing step would corrupt its flow)
                row = {k: v for k, v in row.items() if k is not None}
                row[_ROW_ERROR] = "more cells than header columns"
            rows.append((reader.line_num, row))
    except csv.Error as e:
        raise PCSFormatError(path, reader.line_num, f"malformed {'CSV' if delimiter == ',' else 'TSV'} ({e})") from None
    if reader.fieldnames is None:
        raise PCSFormatError(path, 1, "empty file")
    return _group_rows(path, rows, errors)


def _norm_keys(row: dict) -> dict:
    out = {}
    for k, v in row.items():
        key = str(k).strip().lower().replace(" ", "_")
        out[_ALIASES.get(key, key)] = v
    return out


def _group_rows(path: Path, numbered: list[tuple[int, Any]], errors) -> list[PCSTable]:
    """Flat rows → tables, grouped by a recipe column (first-seen order); no such column: one table."""
    groups: dict[str, list[tuple[int, dict]]] = {}
    for n, raw in numbered:
        if not isinstance(raw, dict):
            err = PCSFormatError(path, n, "row is not an object")
            if errors is None:
                raise err
            errors.append(err)
            continue
        row = _norm_keys(raw)
        key = next((str(row[k]).strip() for k in _GROUP_KEYS if str(row.get(k) or "").strip()), "")
        groups.setdefault(key, []).append((n, row))
    out = []
    for key, rows in groups.items():
        first = rows[0][1]
        meta = {
            "title": str(first.get("title") or first.get("dish") or key or path.stem),
            "id": str(first.get("recipe_id") or ""),
        }
        try:
            out.append(_table(path, meta, rows, f"recipe {key!r}" if key else "table", line=rows[0][0]))
        except PCSFormatError as e:
            if errors is None:
                raise
            errors.append(e)
    return out


def _table(path: Path, meta: dict, numbered: list[tuple[int, Any]], where: str, line: int = 0) -> PCSTable:
    if len(numbered) > MAX_ROWS:
        raise PCSFormatError(
            path, line, f"{where}: {len(numbered):,} rows, more than {MAX_ROWS:,} (a recipe's table has tens)"
        )
    title = str(meta.get("title") or meta.get("dish") or path.stem).strip()
    rows = []
    for k, (n, raw) in enumerate(numbered, start=1):
        if not isinstance(raw, dict):
            raise PCSFormatError(path, n, f"{where} row {k}: not an object")
        if _ROW_ERROR in raw:
            raise PCSFormatError(path, n, f"{where} row {k}: {raw[_ROW_ERROR]}")
        row = _norm_keys(raw)
        missing = [c for c in COLUMNS if c not in row]
        if missing:
            raise PCSFormatError(path, n, f"{where} row {k}: missing column(s) {missing} (have {sorted(row)})")
        instruction = str(row["instruction"] or "").strip()
        if not instruction:
            raise PCSFormatError(path, n, f"{where} row {k}: empty instruction")
        rows.append(
            PCSRow(
                instruction=instruction,
                action=str(row["action"] or "").strip(),
                inputs=parse_input_cell(row["input"]),
                output=parse_output_cell(row["output"]),
                line=n,
            )
        )
    if not rows:
        raise PCSFormatError(path, line, f"{where}: no rows")
    tid = str(meta.get("id") or "").strip() or table_id(title, (r.instruction for r in rows))
    return PCSTable(
        id=tid,
        title=title,
        rows=rows,
        source=str(path),
        line=line or rows[0].line,
        split=str(meta.get("split") or "").strip().lower(),
        annotator=_annotator(path, meta, title),
        ingredients=_text_list(path, meta, "ingredients", where),
        original=_text_list(path, meta, "recipe", where),
    )


def _annotator(path: Path, meta: dict, title: str) -> int:
    """An explicit ``annotator`` field, else 2 for a release table whose title ends in ``_2`` (the release
    marks a second crowd worker's table of a recipe that way: same id, same instructions), else 1."""
    given = meta.get("annotator")
    if given not in (None, ""):
        try:
            return int(given)
        except (TypeError, ValueError, OverflowError):  # 1e999 is infinity: OverflowError
            raise PCSFormatError(path, 0, f"annotator must be an integer, got {given!r}") from None
    return 2 if title.endswith("_2") and "table" in meta else 1


def _text_list(path: Path, meta: dict, key: str, where: str) -> list[str]:
    """Recipe1M's ``[{"text": …}]`` lists (plain string items accepted); absent → []. A scalar is not such a
    list (flat formats use ``recipe`` as the recipe id column) and is ignored."""
    value = meta.get(key)
    if value is None or isinstance(value, (str, int, float)):
        return []
    if not isinstance(value, list):
        raise PCSFormatError(path, 0, f"{where}: {key!r} must be a list of {{'text': ...}} objects")
    out = []
    for item in value:
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str):
            raise PCSFormatError(path, 0, f"{where}: {key!r} item {item!r} has no text")
        out.append(text.strip())
    return out


# ---------------------------------------------------------------------------------------------- writing
def write_pcs(tables: list[PCSTable], path: str | Path) -> Path:
    """Write tables by suffix: ``.json`` (release objects; a single object for one table), ``.jsonl``,
    ``.csv`` / ``.tsv`` (flat rows with ``recipe_id`` and ``title`` columns)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".json", ".txt"):
        data: Any = tables[0].to_release() if len(tables) == 1 else [t.to_release() for t in tables]
        path.write_text(json.dumps(data, ensure_ascii=False, indent=4) + "\n", encoding="utf-8")
    elif suffix == ".jsonl":
        path.write_text(
            "".join(json.dumps(t.to_release(), ensure_ascii=False) + "\n" for t in tables), encoding="utf-8"
        )
    elif suffix in (".csv", ".tsv"):
        with open(path, "w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, ["recipe_id", "title", *COLUMNS], delimiter="," if suffix == ".csv" else "\t")
            w.writeheader()
            for t in tables:
                for r in t.rows:
                    w.writerow({"recipe_id": t.id, "title": t.title, **r.cells()})
    else:
        raise ValueError(f"{path}: unknown table format {suffix!r} (use .json, .jsonl, .csv or .tsv)")
    return path


def table_rows(tables: Iterable[PCSTable]) -> list[dict]:
    """One flat row per table row, keyed by (release id, annotator, row index): the one shape that gold
    tables (`eval pcs`) and predictions (`pcs predict`) are written and compared in."""
    return [
        {
            "recipe": t.id,
            "annotator": t.annotator,
            "row": k,
            "instruction": r.instruction,
            "action": r.action,
            "input": format_input_cell(r.inputs),
            "output": format_output_cell(r.output),
        }
        for t in tables
        for k, r in enumerate(t.rows)
    ]
