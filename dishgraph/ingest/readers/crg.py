"""The CRG release's text files (base recipes, dish pairs, changing ingredients) and the whole release
directory read at once (`read_crg_release`: the text files, the glossary and the pivots, aligned)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.readers.lines import (
    MAX_LINE_BYTES,
    MAX_NAME_CHARS,
    check_recipe,
    clean_name,
    clean_text,
    iter_lines,
)
from dishgraph.ingest.readers.pivots import Constraints, Pivots, read_pivots
from dishgraph.ingest.readers.report import ReadContext, ReadError, ReadReport


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


def read_base_recipes(
    path: str | Path,
    *,
    report: ReadReport | None = None,
    strict: bool = False,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_name_chars: int = MAX_NAME_CHARS,
) -> Iterator[BaseRecipe]:
    """Stream ``base \\t target \\t recipe`` lines."""
    ctx = ReadContext(Path(path), report, strict)
    start = ctx.report.read
    for line, text in iter_lines(ctx, max_line_bytes):
        cols = text.split("\t")
        if len(cols) != 3:
            ctx.skip(line, "columns", f"expected 3 tab-separated columns (base, target, recipe), got {len(cols)}")
            continue
        base = clean_name(cols[0], ctx, line, max_chars=max_name_chars, what="base dish")
        target = clean_name(cols[1], ctx, line, max_chars=max_name_chars, what="target dish")
        if not target:
            ctx.skip(line, "empty-dish", "empty target dish name")
            continue
        recipe = clean_text(cols[2], ctx, line)
        if not check_recipe(ctx, line, base, recipe):
            continue
        ctx.ok()
        yield BaseRecipe(base, target, recipe, ctx.file, line)
    ctx.done(start)


def read_dish_pairs(
    path: str | Path, *, report: ReadReport | None = None, strict: bool = False, max_name_chars: int = MAX_NAME_CHARS
) -> list[DishPair]:
    """``base target`` per line (whitespace-separated; the last line may lack its newline)."""
    ctx = ReadContext(Path(path), report, strict)
    start, pairs = ctx.report.read, []
    for line, text in iter_lines(ctx, MAX_LINE_BYTES):
        cols = text.split()
        if len(cols) != 2:
            ctx.skip(line, "columns", f"expected 2 dish names (base target), got {len(cols)}")
            continue
        base, target = (clean_name(c, ctx, line, max_chars=max_name_chars) for c in cols)
        pairs.append(DishPair(base, target, line))
        ctx.ok()
    ctx.done(start)
    return pairs


def read_changing_ingredients(
    path: str | Path, *, report: ReadReport | None = None, strict: bool = False, max_name_chars: int = MAX_NAME_CHARS
) -> list[Change]:
    """One token = add it; two tokens = replace the first by the second (the release writes an add as
    a line with a leading space, i.e. an empty "old" ingredient)."""
    ctx = ReadContext(Path(path), report, strict)
    start, changes = ctx.report.read, []
    for line, text in iter_lines(ctx, MAX_LINE_BYTES):
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


@dataclass
class CrgRelease:
    """The CRG release in memory, except the recipes, which `recipes()` streams on demand."""

    root: Path
    pairs: list[DishPair]  # each with its .change
    glossary: Glossary
    pivots: Pivots
    constraints: Constraints
    recipes_path: Path
    report: ReadReport
    sources: dict[str, str] = field(default_factory=dict)  # which file each part came from
    strict: bool = False

    def recipes(self, report: ReadReport | None = None) -> Iterator[BaseRecipe]:
        """A fresh stream over ``base_recipes.txt`` (counts go to ``report`` or ``self.report``)."""
        return read_base_recipes(
            self.recipes_path, report=report if report is not None else self.report, strict=self.strict
        )


def _first(root: Path, names: Iterable[str]) -> Path | None:
    return next((root / n for n in names if (root / n).exists()), None)


def read_crg_release(
    root: str | Path,
    *,
    source: Literal["auto", "json", "pkl"] = "auto",
    report: ReadReport | None = None,
    strict: bool = False,
) -> CrgRelease:
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
        raise FileNotFoundError(
            f"{root}: not a CRG release directory (missing {', '.join(missing)}); run `dishgraph data fetch`"
        )
    pairs = _aligned_pairs(root, report, strict)
    glossary_path, pivots_path = _knowledge_paths(root, source)
    try:
        glossary = Glossary.load(glossary_path)
    except ValueError as e:
        raise ReadError(str(glossary_path), None, "glossary", str(e)) from None
    pivots, constraints = read_pivots(pivots_path, report=report, strict=strict)
    _drop_unknown_targets(pivots, constraints, {p.target for p in pairs}, pivots_path, report, strict)
    return CrgRelease(
        root,
        pairs,
        glossary,
        pivots,
        constraints,
        root / "base_recipes.txt",
        report,
        {"glossary": str(glossary_path), "pivots": str(pivots_path)},
        strict,
    )


def _aligned_pairs(root: Path, report: ReadReport, strict: bool) -> list[DishPair]:
    """The dish pairs, each with the change on its line of ``changing_ingres.txt``."""
    pairs = read_dish_pairs(root / "dish_pairs.txt", report=report, strict=strict)
    changes = read_changing_ingredients(root / "changing_ingres.txt", report=report, strict=strict)
    by_line = {c.line: c for c in changes}
    if len(pairs) != len(changes) or set(by_line) != {p.line for p in pairs}:
        only_p = sorted({p.line for p in pairs} - set(by_line))
        only_c = sorted(set(by_line) - {p.line for p in pairs})
        raise ReadError(
            str(root / "changing_ingres.txt"),
            None,
            "alignment",
            f"{len(changes)} changes for {len(pairs)} dish pairs; pair lines without a change: "
            f"{only_p[:10]}, change lines without a pair: {only_c[:10]}",
        )
    return [replace(p, change=by_line[p.line]) for p in pairs]


def _knowledge_paths(root: Path, source: str) -> tuple[Path, Path]:
    """The glossary and pivot files ``source`` asks for (JSON, the original pickles, or JSON when present)."""
    pkl_dirs = ("original/", "")
    json_glossary, json_pivots = _first(root, ["glossary.json"]), _first(root, ["pivot_actions.json"])
    pkl_glossary = _first(root, [d + "glossary_dict.pkl" for d in pkl_dirs])
    pkl_pivots = _first(root, [d + "pivot_actions.pkl" for d in pkl_dirs])
    glossary_path = (
        pkl_glossary if source == "pkl" else (json_glossary if source == "json" else json_glossary or pkl_glossary)
    )
    pivots_path = pkl_pivots if source == "pkl" else (json_pivots if source == "json" else json_pivots or pkl_pivots)
    if glossary_path is None or pivots_path is None:
        raise FileNotFoundError(
            f"{root}: no {'glossary' if glossary_path is None else 'pivot actions'} "
            f"({source}) found; expected glossary.json / pivot_actions.json or "
            "original/glossary_dict.pkl / original/pivot_actions.pkl"
        )
    return glossary_path, pivots_path


def _drop_unknown_targets(
    pivots: Pivots, constraints: Constraints, targets: set[str], pivots_path: Path, report: ReadReport, strict: bool
) -> None:
    """Pivots and constraints of a dish that is no pair's target are skipped (strict: an error)."""
    for t in dict.fromkeys(t for t in (*pivots, *constraints) if t not in targets):
        msg = f"target dish {t!r} is not in dish_pairs.txt; its pivots and constraints are skipped"
        if strict:
            raise ReadError(str(pivots_path), f"[{t!r}]", "unknown-dish", msg)
        report.note(str(pivots_path), f"[{t!r}]", "unknown-dish", msg, skip=True)
        pivots.pop(t, None)
        constraints.pop(t, None)
