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


# ---------------------------------------------------------------- scoring
ROLE_CODES = {name: code for code, name in ROLES.items()}


def predicted(parser, rec: GoldRecipe, typed: bool = True) -> GoldRecipe:
    """The parser's reading of ``rec.text`` in the dev set's own terms, so that one scorer serves both a parser
    and a second annotation: its culinary actions (verb spans, with their foods; ``^`` for inherited ones) and
    every object its actions attach (span and role).

    A parser whose actions carry no typed reading (the rule parser before typed objects) is read the way it
    presents itself: every action is culinary, every ingredient a food and every tool a tool. ``typed=False``
    reads a typed parser that way too: its CRG reading, which is the parser as it was before typed objects."""
    actions, objects = [], {}
    for a in parser.parse(rec.text):
        if not typed and a.proto is None:
            continue
        vs, ve = getattr(a, "verb_start", 0), getattr(a, "verb_end", 0)
        if ve <= vs:  # no verb span: the verb's first occurrence in its phrase
            k = a.phrase.find(a.verb)
            vs = a.start + max(k, 0)
            ve = vs + (len(a.verb) if k >= 0 else len(a.phrase))
        if typed and hasattr(a, "objects"):
            objs = [(o.start, o.end, o.form, ROLE_CODES.get(o.role, "O")) for o in a.objects]
            foods, inherited = list(a.foods), list(a.foods) if a.foods_inherited else []
        else:
            objs = _legacy_objects(a)
            foods, inherited = list(a.ingredients), list(a.ingredients) if a.inherited else []
        for o in objs:
            objects.setdefault((o[0], o[1]), GoldObject(*o))
        if getattr(a, "culinary", True) or not typed:
            actions.append(GoldAction(vs, ve, rec.text[vs:ve], tuple(foods), tuple(inherited)))
    return GoldRecipe(rec.id, rec.text, actions, sorted(objects.values(), key=lambda o: (o.start, o.end)))


def _legacy_objects(a) -> list[tuple[int, int, str, str]]:
    out = []
    if a.inherited:
        return out
    for forms, role in ((a.ingredients, "F"), (a.tools, "T")):
        for f in forms:
            k = a.phrase.find(f)
            if k >= 0:
                out.append((a.start + k, a.start + k + len(f), f, role))
    return out


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def match_spans(gold: list[tuple[int, int]], pred: list[tuple[int, int]]) -> dict[int, int]:
    """One-to-one matching of predicted to gold spans that overlap: the largest overlaps first, then the
    nearest starts (a parser's phrase may overlap two gold spans; each gold span is claimed once)."""
    pairs = sorted(
        (-_overlap(g, p), abs(g[0] - p[0]), i, j)
        for j, p in enumerate(pred)
        for i, g in enumerate(gold)
        if _overlap(g, p) > 0
    )
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, _, i, j in pairs:
        if j not in out and i not in used:
            out[j] = i
            used.add(i)
    return out


def _same_food(a: str, b: str) -> bool:
    """A parser names foods by glossary forms (姜 of 姜丝), an annotator by the written span: one inside the
    other is the same food."""
    return a in b or b in a


def _food_hits(gold: list[str], pred: list[str]) -> int:
    left, hits = list(gold), 0
    for p in pred:
        k = next((i for i, g in enumerate(left) if _same_food(p, g)), None)
        if k is not None:
            hits += 1
            left.pop(k)
    return hits


def _pct(num: int, den: int) -> float | None:
    return round(100.0 * num / den, 1) if den else None


def score(gold: list[GoldRecipe], pred: list[GoldRecipe], verb_forms: Iterable[str] = ()) -> dict:
    """Verb P/R, glossary-verb recall, role accuracy and food-attachment P/R (explicit foods only, and with
    inherited ones) of ``pred`` against ``gold``, records paired by id (micro-averaged over actions/objects).

    ``verb_forms``: the glossary's verb forms; a gold action whose text contains one counts towards
    glossary-verb recall (what a glossary-driven parser can find at all)."""
    forms = sorted(set(verb_forms), key=len)
    by_id = {r.id: r for r in pred}
    c = dict.fromkeys(
        (
            "recipes",
            "gold_actions",
            "pred_actions",
            "verb_tp",
            "gloss_gold",
            "gloss_tp",
            "pred_objects",
            "matched_objects",
            "role_ok",
            "gold_objects",
        ),
        0,
    )
    att = {k: dict.fromkeys(("gold", "pred", "tp"), 0) for k in ("explicit", "all")}
    confusion: dict[str, int] = {}
    for g in gold:
        p = by_id.get(g.id)
        if p is None:
            continue
        c["recipes"] += 1
        c["gold_actions"] += len(g.actions)
        c["pred_actions"] += len(p.actions)
        m = match_spans([(a.start, a.end) for a in g.actions], [(a.start, a.end) for a in p.actions])
        c["verb_tp"] += len(m)
        hit = set(m.values())
        for i, a in enumerate(g.actions):
            if any(f in a.text for f in forms):
                c["gloss_gold"] += 1
                c["gloss_tp"] += i in hit
        for kind in ("explicit", "all"):
            for a in g.actions:
                att[kind]["gold"] += len(_foods(a, kind))
            for j, a in enumerate(p.actions):
                pf = _foods(a, kind)
                att[kind]["pred"] += len(pf)
                if j in m:
                    att[kind]["tp"] += _food_hits(_foods(g.actions[m[j]], kind), pf)
        c["gold_objects"] += len(g.objects)
        c["pred_objects"] += len(p.objects)
        mo = match_spans([(o.start, o.end) for o in g.objects], [(o.start, o.end) for o in p.objects])
        c["matched_objects"] += len(mo)
        for j, i in mo.items():
            ok = p.objects[j].role == g.objects[i].role
            c["role_ok"] += ok
            if not ok:
                key = f"{g.objects[i].role}->{p.objects[j].role}"
                confusion[key] = confusion.get(key, 0) + 1
    return {
        "counts": c,
        "verb_precision": _pct(c["verb_tp"], c["pred_actions"]),
        "verb_recall": _pct(c["verb_tp"], c["gold_actions"]),
        "glossary_verb_recall": _pct(c["gloss_tp"], c["gloss_gold"]),
        "role_accuracy": _pct(c["role_ok"], c["matched_objects"]),
        "object_recall": _pct(c["matched_objects"], c["gold_objects"]),
        "attachment": {
            kind: {
                "precision": _pct(v["tp"], v["pred"]),
                "recall": _pct(v["tp"], v["gold"]),
                **v,
            }
            for kind, v in att.items()
        },
        "role_confusion": dict(sorted(confusion.items(), key=lambda kv: -kv[1])),
    }


def _foods(a: GoldAction, kind: str) -> list[str]:
    if kind == "all":
        return list(a.foods)
    inherited = list(a.inherited)
    out = []
    for f in a.foods:
        if f in inherited:
            inherited.remove(f)
        else:
            out.append(f)
    return out


def score_parser(parser, gold: list[GoldRecipe], typed: bool = True) -> dict:
    """``score`` of a parser's reading of the gold texts (glossary-verb recall from the parser's glossary);
    ``typed=False`` scores its CRG reading (``predicted``)."""
    return score(gold, [predicted(parser, r, typed) for r in gold], parser.glossary.verb)


def agree(first: list[GoldRecipe], second: list[GoldRecipe], verb_forms: Iterable[str] = ()) -> dict:
    """Inter-annotator agreement: ``score`` of the second annotation against the first, on the records both
    have (P of one against the other is R the other way round)."""
    ids = {r.id for r in second}
    return score([r for r in first if r.id in ids], second, verb_forms)


def _print_score(s: dict) -> None:
    c = s["counts"]
    print(f"{c['recipes']} recipes, {c['gold_actions']} gold actions, {c['pred_actions']} predicted")
    print(f"verb P {s['verb_precision']}  R {s['verb_recall']}  glossary-verb R {s['glossary_verb_recall']}")
    print(f"role accuracy {s['role_accuracy']} ({c['role_ok']}/{c['matched_objects']} matched objects)")
    for kind, v in s["attachment"].items():
        print(f"attachment ({kind}) P {v['precision']}  R {v['recall']}")


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
    s = sub.add_parser("score", help="score the rule parser on dev-set files (verb P/R, roles, attachment)")
    s.add_argument("files", nargs="+", type=Path)
    s.add_argument("--data", type=Path, default=Path("../shared/data"))
    s.add_argument("--segmenter", default="auto")
    s.add_argument("--json", action="store_true", help="print the figures as JSON")
    s.add_argument("--crg", action="store_true", help="score the CRG reading (the parser before typed objects)")
    a = sub.add_parser("agree", help="agreement of a second annotation (FILE2) with a first (FILE1)")
    a.add_argument("first", type=Path)
    a.add_argument("second", type=Path)
    a.add_argument("--data", type=Path, default=Path("../shared/data"))
    a.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.cmd in ("score", "agree"):
        return _score_main(args)
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


def _score_main(args) -> int:
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser

    glossary = Glossary.load(args.data / "counterfactual" / "glossary.json")
    try:
        if args.cmd == "agree":
            out = agree(read_file(args.first, args.data), read_file(args.second, args.data), glossary.verb)
        else:
            gold = read_all(args.files, args.data)
            out = score_parser(RecipeParser(glossary, args.segmenter), gold, typed=not args.crg)
    except DevsetError as e:
        print(f"error: {e}")
        return 1
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=1))
    else:
        _print_score(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
