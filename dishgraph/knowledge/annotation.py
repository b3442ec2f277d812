"""The human-in-the-loop step of pivot mining (CRG §4.2): questions for actions in M, majority votes back.

``export_questions`` writes one CSV row per candidate action with three real example phrases (cells that a
spreadsheet would run as formulas are escaped, and the escape is removed on import: ``dishgraph.csvcells``);
annotators fill the ``answer`` column (one file each, or several ``answer_*`` columns in one file);
``import_answers`` pools the votes, takes the majority (more than half), and records the decision as
an ``annotated`` PIVOT edge carrying the vote counts, which overrides the mined kind of that action.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dishgraph import csvcells
from dishgraph.actions import ProtoAction
from dishgraph.graph.base import GraphStore
from dishgraph.knowledge.pivots import ANNOTATED, MINED, pair_info, parse_pair, pivots

ANSWERS = ("does not occur", "rarely", "sometimes", "always")
_ALIASES = {
    **{a: a for a in ANSWERS},
    "0": "does not occur",
    "1": "rarely",
    "2": "sometimes",
    "3": "always",
    "never": "does not occur",
    "no": "does not occur",
    "not": "does not occur",
    "none": "does not occur",
    "不出现": "does not occur",
    "没有": "does not occur",
    "很少": "rarely",
    "偶尔": "rarely",
    "有时": "sometimes",
    "经常": "sometimes",
    "总是": "always",
    "一定": "always",
}
COLUMNS = [
    "pair",
    "base",
    "target",
    "action",
    "action_text",
    "candidate",
    "side",
    "fb",
    "ft",
    "question",
    "example_1",
    "example_2",
    "example_3",
    "answer",
]
N_EXAMPLES = 3


def normalize_answer(text: str) -> str | None:
    key = " ".join(text.strip().lower().replace("_", " ").split())
    return _ALIASES.get(key)


def _side(fb: float, ft: float) -> str:
    return "base" if fb > ft else "target"


def examples(
    store: GraphStore, keys: Sequence[str], dishes: Sequence[str], n: int = N_EXAMPLES
) -> dict[str, list[str]]:
    """Up to n distinct example phrases per action, from the pair's own recipes first."""
    out: dict[str, list[str]] = {k: [] for k in keys}
    if not keys:
        return out
    for r in store.query("pivot_examples", keys=list(keys), dishes=list(dishes)):
        got = out[r["action"]]
        if r["phrase"] and r["phrase"] not in got and len(got) < n:
            got.append(r["phrase"])
    return out


def export_questions(store: GraphStore, pair: str, out: str | Path, *, include_mined: bool = False) -> int:
    """Write the annotation CSV for a mined pair: M (and P_R ∪ P_I if asked); returns #questions."""
    base, target = parse_pair(pair)
    key = pair_info(store, f"{base}->{target}")["pair"]
    kinds = ("manual", "remove", "insert") if include_mined else ("manual",)
    cands = [p for p in pivots(store, base, target, source=MINED) if p.kind in kinds]
    ex = examples(store, [p.action for p in cands], [base, target])
    rows = []
    for p in cands:
        text = str(ProtoAction.from_key(p.action))
        phr = ex[p.action] + [""] * N_EXAMPLES
        rows.append(
            {
                "pair": key,
                "base": base,
                "target": target,
                "action": p.action,
                "action_text": text,
                "candidate": p.kind,
                "side": _side(p.fb or 0.0, p.ft or 0.0),
                "fb": p.fb,
                "ft": p.ft,
                "question": f"How often does {text} occur in recipes of {target}? Answer one of: {' / '.join(ANSWERS)}",
                **{f"example_{i + 1}": phr[i] for i in range(N_EXAMPLES)},
                "answer": "",
            }
        )
    csvcells.write_rows(out, COLUMNS, rows)  # formula-like cells escaped: annotators open this in spreadsheets
    return len(cands)


@dataclass
class Decision:
    pair: str
    action: str
    side: str
    kind: str  # remove | insert | none
    votes: dict[str, int]
    n: int


@dataclass
class ImportReport:
    decisions: list[Decision] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # too few annotators

    def to_dict(self) -> dict:
        return {
            "decisions": [asdict(d) for d in self.decisions],
            "skipped": self.skipped,
            "added": {k: sum(d.kind == k for d in self.decisions) for k in ("remove", "insert", "none")},
        }


def decide(side: str, votes: Counter) -> str:
    """Majority (more than half of all votes): a base-side action nobody cooks in the target is removed,
    a target-side action that occurs sometimes or always is inserted; anything else adds nothing."""
    n = sum(votes.values())
    if side == "base" and votes["does not occur"] * 2 > n:
        return "remove"
    if side == "target" and (votes["sometimes"] + votes["always"]) * 2 > n:
        return "insert"
    return "none"


def read_answers(paths: Iterable[str | Path]) -> dict[tuple[str, str], dict]:
    """(pair, action) -> {side, fb, ft, votes: Counter}; a bad answer raises naming file and line."""
    pooled: dict[tuple[str, str], dict] = {}
    for path in paths:
        path = Path(path)
        cols, rows = csvcells.read_rows(path)  # the export's formula escapes removed: values as exported
        missing = {"pair", "action"} - set(cols)
        answer_cols = [c for c in cols if c.lower().startswith("answer")]
        if missing or not answer_cols:
            raise ValueError(f"{path}:1: header needs pair, action and answer column(s); got {cols}")
        for line, row in rows:
            q = pooled.setdefault(
                (row.get("pair", ""), row.get("action", "")),
                {
                    "side": row.get("side") or "",
                    "fb": _float(row.get("fb")),
                    "ft": _float(row.get("ft")),
                    "votes": Counter(),
                },
            )
            for c in answer_cols:
                cell = (row.get(c) or "").strip()
                if not cell:
                    continue
                ans = normalize_answer(cell)
                if ans is None:
                    raise ValueError(
                        f"{path}:{line}: answer {cell!r} in column {c!r} is not one of {', '.join(ANSWERS)}"
                    )
                q["votes"][ans] += 1
    return pooled


def _float(x) -> float | None:
    try:
        return float(x) if x not in (None, "") else None
    except ValueError:
        return None


def import_answers(store: GraphStore, paths: Sequence[str | Path], *, min_annotators: int = 3) -> ImportReport:
    """Pool answers from the files, decide by majority, store ``annotated`` PIVOT edges with votes."""
    rep = ImportReport()
    mined_cache: dict[str, dict] = {}
    rows = []
    for (pair, action), q in sorted(read_answers(paths).items()):
        n = sum(q["votes"].values())
        if n < min_annotators:
            rep.skipped.append({"pair": pair, "action": action, "answers": n})
            continue
        if pair not in mined_cache:
            base, target = parse_pair(pair)
            mined_cache[pair] = {p.action: p for p in pivots(store, base, target, source=MINED)}
        mined = mined_cache[pair].get(action)
        fb = mined.fb if mined else q["fb"]
        ft = mined.ft if mined else q["ft"]
        side = _side(fb or 0.0, ft or 0.0) if fb is not None and ft is not None else q["side"]
        if side not in ("base", "target"):
            raise ValueError(f"{pair} / {action}: unknown side; mine the pair first or keep the fb/ft columns")
        votes = {a: q["votes"][a] for a in ANSWERS}
        kind = decide(side, q["votes"])
        rep.decisions.append(Decision(pair, action, side, kind, votes, n))
        rows.append(
            {
                "pair": pair,
                "key": action,
                "kind": kind,
                "source": ANNOTATED,
                "fb": fb,
                "ft": ft,
                "votes": json.dumps(votes, ensure_ascii=False),
            }
        )
    for r in rows:
        store.query("pivot_clear_action", pair=r["pair"], key=r["key"], source=ANNOTATED)
    store.write("pivot_write_annotated", rows)
    return rep
