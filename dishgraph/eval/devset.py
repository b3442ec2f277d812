"""The annotated parsing dev set: its seeded draw, its markup, and the reader that checks it.

Why a markup and not character offsets: annotators (people or helper sessions) write the recipe text once with
inline tags, which is quick to write and to review; offsets are computed here, and the reader proves that the
markup with its tags removed is exactly the recipe text of the corpus line it names. The guideline is
``docs/annotation-guideline.md``; the files are ``tests/data/devset/*.txt``.

Markup (one record a block)::

    ### xiachufang:1234
    {洋葱/F}<剥皮=洋葱><洗净=洋葱>，<切成=^洋葱>{丝/S}，{大火/H}<炒=^洋葱>{2分钟/D}

- ``{TEXT/ROLE}`` an object span and its role (``ROLES``);
- ``<TEXT>`` a culinary action span; ``<TEXT=a,b>`` with the foods it acts on, as surface forms that are
  food spans of the same recipe; ``^`` before a food marks it *inherited* (not written in the action's clause);
- a literal ``{ } < > \\`` of the recipe text is written with a backslash before it.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dishgraph.errors import DishgraphError

ROLES = {
    "F": "food",
    "T": "tool",
    "H": "heat",
    "D": "duration",
    "Q": "quantity",
    "S": "shape",
    "ST": "state",
    "O": "other",
}
SOURCES = {"xiachufang": "xiachufang/recipes.jsonl", "classic": "classic/recipes.jsonl"}
DRAW_SEED = 2026
HEADER = re.compile(r"^### (?P<source>[a-z]+):(?P<line>\d+)\s*$")


class DevsetError(DishgraphError):
    """A dev-set file that does not parse or does not match its corpus line (file:line: what)."""


@dataclass(frozen=True)
class GoldObject:
    start: int
    end: int
    text: str
    role: str  # a value of ROLES


@dataclass(frozen=True)
class GoldAction:
    start: int
    end: int
    text: str
    foods: tuple[str, ...] = ()  # surface forms of the foods it acts on
    inherited: tuple[str, ...] = ()  # those of ``foods`` not written in the action's clause


@dataclass
class GoldRecipe:
    id: str  # "source:line", line 1-based in the corpus file
    text: str
    actions: list[GoldAction] = field(default_factory=list)
    objects: list[GoldObject] = field(default_factory=list)


# ---------------------------------------------------------------- the draw
def draw(data: Path, n: dict[str, int], seed: int = DRAW_SEED) -> list[dict]:
    """The first ``n[source]`` lines of each corpus in a seeded random order (nested: a larger ``n`` extends
    a smaller one), as ``{"id", "dish", "text"}`` records in annotation order: two XiaChuFang records, then one
    classic, so that any prefix of the draw keeps the 2:1 mix the dev set asks for."""
    picked: dict[str, list[dict]] = {}
    for source, count in n.items():
        lines = (data / SOURCES[source]).read_text(encoding="utf-8").splitlines()
        order = random.Random(f"{seed}:{source}").sample(range(len(lines)), len(lines))
        picked[source] = []
        for i in order[:count]:
            rec = json.loads(lines[i])
            picked[source].append({"id": f"{source}:{i + 1}", "dish": rec.get("dish", ""), "text": rec["text"]})
    xcf, classic = picked.get("xiachufang", []), picked.get("classic", [])
    out: list[dict] = []
    for k in range(max(len(xcf) // 2 + 1, len(classic))):  # two XiaChuFang records, then one classic
        out.extend(xcf[2 * k : 2 * k + 2] + classic[k : k + 1])
    return out


def corpus_text(data: Path, rid: str) -> str:
    source, line = rid.split(":")
    with open(data / SOURCES[source], encoding="utf-8") as fh:
        for i, raw in enumerate(fh, 1):
            if i == int(line):
                return json.loads(raw)["text"]
    raise KeyError(rid)


# ---------------------------------------------------------------- markup
def parse_markup(markup: str) -> GoldRecipe:
    """Markup → text + spans. Raises ``ValueError`` naming the character position of a malformed tag."""
    text: list[str] = []
    actions: list[GoldAction] = []
    objects: list[GoldObject] = []
    i, n = 0, len(markup)
    while i < n:
        ch = markup[i]
        if ch == "\\" and i + 1 < n:
            text.append(markup[i + 1])
            i += 2
            continue
        if ch in "{<":
            close = "}" if ch == "{" else ">"
            j = markup.find(close, i + 1)
            if j < 0:
                raise ValueError(f"unclosed {ch!r} at character {i + 1}")
            body = markup[i + 1 : j]
            if "{" in body or "<" in body:
                raise ValueError(f"nested tag at character {i + 1}: {markup[i : j + 1]!r}")
            start = sum(len(t) for t in text)
            if ch == "{":
                surface, sep, role = body.rpartition("/")
                if not sep or role not in ROLES or not surface:
                    raise ValueError(f"object tag needs {{TEXT/ROLE}} with ROLE in {'/'.join(ROLES)}: {{{body}}}")
                objects.append(GoldObject(start, start + len(surface), surface, role))
            else:
                surface, _, foods = body.partition("=")
                if not surface:
                    raise ValueError(f"empty action tag at character {i + 1}")
                names = [f.strip() for f in re.split(r"[,，]", foods) if f.strip()] if foods else []
                actions.append(
                    GoldAction(
                        start,
                        start + len(surface),
                        surface,
                        tuple(f.lstrip("^") for f in names),
                        tuple(f.lstrip("^") for f in names if f.startswith("^")),
                    )
                )
            text.append(surface)
            i = j + 1
            continue
        if ch in "}>":
            raise ValueError(f"stray {ch!r} at character {i + 1} (a literal one is written \\{ch})")
        text.append(ch)
        i += 1
    return GoldRecipe("", "".join(text), actions, objects)


def _blocks(path: Path) -> Iterator[tuple[int, str, str]]:
    """(header line number, id, markup) for each record block of a dev-set file."""
    rid, start, body = None, 0, []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = HEADER.match(line)
        if m:
            if rid is not None:
                yield start, rid, "".join(body)
            rid, start, body = f"{m['source']}:{m['line']}", no, []
        elif line.startswith("### "):
            raise DevsetError(f"{path}:{no}: a header is '### SOURCE:LINE' (source {', '.join(SOURCES)})")
        elif rid is not None:
            body.append(line.strip())
        elif line.strip() and not line.startswith("#"):
            raise DevsetError(f"{path}:{no}: text before the first '### SOURCE:LINE' header")
    if rid is not None:
        yield start, rid, "".join(body)


def read_file(path: Path, data: Path | None = None) -> list[GoldRecipe]:
    """Every record of a dev-set file; with ``data``, each text must equal its corpus line's text."""
    out = []
    for no, rid, markup in _blocks(path):
        try:
            rec = parse_markup(markup)
        except ValueError as e:
            raise DevsetError(f"{path}:{no}: {rid}: {e}") from None
        rec.id = rid
        _check_foods(path, no, rec)
        if data is not None:
            want = corpus_text(data, rid)
            if rec.text != want:
                k = next((k for k, (a, b) in enumerate(zip(rec.text, want)) if a != b), min(len(rec.text), len(want)))
                raise DevsetError(
                    f"{path}:{no}: {rid}: text differs from the corpus at character {k + 1}: "
                    f"markup has {rec.text[k : k + 12]!r}, corpus has {want[k : k + 12]!r}"
                )
        out.append(rec)
    return out


def _check_foods(path: Path, no: int, rec: GoldRecipe) -> None:
    foods = {o.text for o in rec.objects if o.role == "F"}
    for a in rec.actions:
        missing = [f for f in a.foods if f not in foods]
        if missing:
            raise DevsetError(
                f"{path}:{no}: {rec.id}: action <{a.text}> at character {a.start + 1} names "
                f"{', '.join(missing)}, which is no {{…/F}} span of this recipe"
            )


def read_all(paths: Iterable[Path], data: Path | None = None) -> list[GoldRecipe]:
    return [r for p in paths for r in read_file(p, data)]


def _main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m dishgraph.eval.devset", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="write the seeded draw as JSONL (id, dish, text)")
    d.add_argument("--data", type=Path, default=Path("../shared/data"))
    d.add_argument("--xiachufang", type=int, default=200)
    d.add_argument("--classic", type=int, default=100)
    d.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("check", help="check dev-set files against the corpus and count their spans")
    c.add_argument("files", nargs="+", type=Path)
    c.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = ap.parse_args(argv)
    if args.cmd == "draw":
        recs = draw(args.data, {"xiachufang": args.xiachufang, "classic": args.classic})
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
        print(f"{len(recs)} records → {args.out}")
        return 0
    try:
        recs = read_all(args.files, args.data)
    except DevsetError as e:
        print(f"error: {e}")
        return 1
    roles: dict[str, int] = {}
    for r in recs:
        for o in r.objects:
            roles[o.role] = roles.get(o.role, 0) + 1
    n_act = sum(len(r.actions) for r in recs)
    n_edge = sum(len(a.foods) for r in recs for a in r.actions)
    print(f"{len(recs)} recipes, {n_act} actions, {sum(roles.values())} objects {roles}, {n_edge} action→food edges")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
