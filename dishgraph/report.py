"""`report/index.html` of the main job: one self-contained page (inline CSS, plots as data URIs).

Bar charts are plain HTML/CSS so Chinese labels render with the browser's fonts; only the numeric
histogram is a matplotlib PNG (no CJK font is needed for it).

The markup is in jinja2 templates (``dishgraph/templates/report.html``, its macros in ``_report.html`` and
the stylesheet in ``report.css``), rendered with autoescaping on for every template: this module only
shapes the report's data into plain values (strings already formatted as numbers, lists, dicts), and every
one of them is escaped where the page shows it. Nothing is marked safe: the histogram's data URI is base64
(escaping leaves it as it is), and the CSS is template source, not a value. A value that ever has to go into
the page unescaped must be wrapped in ``markupsafe.Markup`` here, with the reason in a comment beside it.
"""

from __future__ import annotations

import base64
import io
import math
from functools import cache
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


# The paper's Table 3 rows (CRG, EMNLP 2022; generators trained on 1.5M recipes) as the README cites them:
# Hard F1 only; every other column is "—" rather than a value we would have to invent.
PAPER_TABLE3 = [
    {"model": "paper: GPT-2 (D)", "hard_f1": 15.9},
    {"model": "paper: GPT-2 (D+R)", "hard_f1": 17.2},
    {"model": "paper: Delorean", "hard_f1": 17.5},
]
HEADLINE_MARK = "(composed, fair)"  # the demo's label of the fair composed editor (`demo.DEMO_LABELS`)
MISSING = "—"
# Readable headers of the report's own tables (the results table takes the CRG evaluation's).
HEADERS = {
    "step": "Step",
    "seconds": "Seconds",
    "time": "Time",
    "detail": "Detail",
    "label": "Node label",
    "nodes": "Nodes",
    "type": "Relationship",
    "relationships": "Relationships",
    "figure": "Figure",
    "value": "Value",
    "kind": "Kind",
    "action": "Action",
    "source": "Source",
    "fb": "f_base",
    "ft": "f_target",
    "model": "Generator",
}
FIGURES = {
    "recipes": "recipes",
    "share_with_actions": "share with actions",
    "steps_per_recipe": "steps per recipe",
    "inherited_per_recipe": "inherited steps per recipe",
    "distinct_proto_actions": "distinct proto-actions",
    "n_train": "train dishes",
    "n_test": "test dishes",
    "divergence": "compound divergence",
    "atom_divergence": "atom divergence",
    "ratio": "train/test ratio",
}


@cache
def _env() -> jinja2.Environment:
    """The templates' environment. ``autoescape=True`` escapes every ``{{ value }}`` in every template,
    whatever its file's name (text and attribute values alike: ``& < > " '``), so nothing reaches the page
    unescaped unless this module wraps it in ``markupsafe.Markup`` (it wraps nothing today)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a misspelt name fails the render instead of printing nothing
        finalize=lambda v: "" if v is None else v,  # a None shows as nothing (not "None"), as before
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _header(c: str, headers: dict[str, str]) -> str:
    return headers.get(c) or HEADERS.get(c) or c.replace("_", " ").capitalize()


def _cell(v, c: str, decimals: int, label: str = "") -> dict:
    """One cell: its class (None: no class attribute), its text, and ``label`` (its column's header), what a
    narrow screen shows beside the value, where the results table becomes one card per row (see the CSS)."""
    if v is None or v == "":
        return {"cls": "num missing", "label": label, "text": MISSING}
    if isinstance(v, bool):
        return {"cls": None, "label": label, "text": str(v)}
    if isinstance(v, float):
        return {"cls": "num", "label": label, "text": f"{v:,.{decimals}f}"}
    if isinstance(v, int):
        return {"cls": "num", "label": label, "text": f"{v:,}"}
    if isinstance(v, (list, tuple)):
        v = ", ".join(map(str, v))
    text = str(v)
    return {"cls": text if c == "kind" else "wrap" if len(text) > 40 else "", "label": label, "text": text}


def _decimals(values) -> int:
    """One number of decimals per column: 2, or 4 for a column of fine fractions (a divergence, a share)."""
    fl = [v for v in values if isinstance(v, float)]
    return 4 if fl and all(abs(v) < 1 for v in fl) and any(round(v, 2) != v for v in fl) else 2


def _table(
    rows: list[dict], cols: list[str] | None = None, headers: dict | None = None, row_class=None, cls: str = ""
) -> dict | None:
    """A table for the ``table`` macro, which puts it in a horizontally scrolling box (a wide table never
    widens the page); None for no rows (the macro says "none")."""
    if not rows:
        return None
    cols = cols or list(rows[0])
    headers = headers or {}
    decimals = {c: _decimals([r.get(c) for r in rows]) for c in cols}
    return {
        "cls": cls,  # the table's class; a row's is ``row_class(row)``
        "heads": [_header(c, headers) for c in cols],
        "rows": [
            {
                "cls": row_class(r) if row_class else "",
                "cells": [_cell(r.get(c), c, decimals[c], _header(c, headers)) for c in cols],
            }
            for r in rows
        ],
    }


def nice_ceiling(top: float) -> float:
    """The round number (1, 2, 2.5 or 5 times a power of ten) at or just above ``top``: the end of an axis
    on which values of 13.3, 16.2 and 17.5 fill 66–88% of the track instead of 13–18% of a 0–100 one."""
    if top <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(top))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= top - 1e-9)


def _bars(
    items: list[tuple[str, float | None]], *, scale: float | None = None, fmt: str = "{:.2f}", paper=()
) -> dict | None:
    """Horizontal bars for the ``bars`` macro, a grid of label | track | value. ``scale`` is the value of a
    full track (100 for the shares of recipes); None: `nice_ceiling` of the largest value, so differences
    show. None for no items (the macro says "none")."""
    if not items:
        return None
    top = scale or nice_ceiling(max((v for _, v in items if v is not None), default=0))
    rows = []
    for k, v in items:
        width = 0.0 if v is None else max(0.0, min(100.0, 100.0 * v / top))
        rows.append(
            {
                "label": k,
                "cls": "bar paper" if k in paper else "bar",
                "width": f"{width:.1f}",
                "value": MISSING if v is None else fmt.format(v),
            }
        )
    return {"rows": rows, "top": f"{top:g}"}


def _histogram_png(values: list[int]) -> str:
    """Proto-actions per recipe as a PNG data URI ('' if matplotlib is unavailable or no data)."""
    if not values:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    ax.hist(values, bins=range(0, max(values) + 2), color="#4c78a8")
    ax.set_xlabel("proto-action instances (steps) per recipe")
    ax.set_ylabel("recipes")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    # base64 has no character that escaping changes: the template escapes it like any value, unmarked
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _is_headline(row: dict) -> bool:
    return HEADLINE_MARK in str(row.get("model", ""))


def _results(res: list[dict]) -> dict:
    """The headline: our rows, the paper's beside them, the fair composed editor marked; then the metric
    bars, each chart on an axis from 0 to a round number just above its largest value (`nice_ceiling`), named
    in its title. A column no row of ours has (BERTScore without a local model) is left out."""
    from dishgraph.eval.crg import COLUMNS

    headers = dict(COLUMNS)
    cols = ["model"] + [k for k, _ in COLUMNS if any(r.get(k) is not None for r in res)]
    left_out = [h for k, h in COLUMNS if k not in cols]
    head = next((r for r in res if _is_headline(r)), None)
    lead = None
    if head and head.get("hard_f1") is not None:
        lead = {
            "hard_f1": f"{head['hard_f1']:.2f}",
            "n_scored": f"{head['n_scored']:,}" if head.get("n_scored") else "",
            "beside": ", ".join(f"{str(p['model']).removeprefix('paper: ')} {p['hard_f1']}" for p in PAPER_TABLE3),
        }
    paper_rows = [{k: p.get(k) for k in cols} for p in PAPER_TABLE3]
    ordered = [r for r in res if _is_headline(r)] + paper_rows + [r for r in res if not _is_headline(r)]
    table = _table(
        ordered,
        cols,
        {"model": "Generator", **headers},
        lambda r: "headline" if _is_headline(r) else "paper" if str(r.get("model")).startswith("paper:") else "",
        cls="results",
    )
    charts = []
    paper = {p["model"] for p in PAPER_TABLE3}
    for key, title in (("hard_f1", "Hard F1"), ("bleu4", "BLEU-4 vs the base recipe"), ("coi_added", "CoI add")):
        items = [(r["model"], r.get(key)) for r in res]
        if key == "hard_f1":
            items += [(p["model"], p["hard_f1"]) for p in PAPER_TABLE3]
        top = nice_ceiling(max((v for _, v in items if v is not None), default=0))
        charts.append({"title": title, "top": f"{top:g}", "bars": _bars(items, scale=top, paper=paper)})
    return {"lead": lead, "table": table, "left_out": ", ".join(left_out), "charts": charts}


def _top_actions(top: dict) -> list[dict]:
    """Top actions of the dishes with the most recipes (most first), each with its recipe count."""

    def recipes(acts: list[dict]) -> int:
        return max((int(a.get("total") or 0) for a in acts), default=0)

    dishes = []
    for dish, acts in sorted(top.items(), key=lambda kv: -recipes(kv[1])):
        n = recipes(acts)
        items = [
            (f"{a['action']} ({a['n']})" if a.get("n") is not None else a["action"], a["freq"] * 100) for a in acts
        ]
        dishes.append(
            {"dish": dish, "recipes": f"{n:,}" if n else "", "bars": _bars(items, scale=100.0, fmt="{:.0f}%")}
        )
    return dishes


def render_html(rep) -> str:
    """The page, from a `DemoReport` (or its dict): the data shaped here, the markup in ``report.html``."""
    d = rep.to_dict() if hasattr(rep, "to_dict") else dict(rep)
    c = d.get("counts", {})
    ex = d.get("example_pair") or {}
    page = {
        "database": d["database"],
        "seconds": f"{d['seconds']:.1f}",
        "missing": MISSING,
        "results": _results(d["results"]) if d.get("results") else None,
        "steps": _table(
            [
                {  # three columns, so the detail keeps room to wrap on a phone
                    "step": s["name"],
                    "time": "skipped" if s["skipped"] else f"{s['seconds']:,.1f} s",
                    "detail": s["detail"],
                }
                for s in d["steps"]
            ]
        ),
        "graph": [
            _table([{"label": k, "nodes": v} for k, v in c.get("nodes", {}).items() if v]),
            _table([{"type": k, "relationships": v} for k, v in c.get("relationships", {}).items() if v]),
            _table([{"figure": FIGURES.get(k, k), "value": v} for k, v in d.get("graph", {}).items()]),
        ],
        "histogram": _histogram_png(d.get("steps_per_recipe", [])),
        "top_actions": _top_actions(d["top_actions"]) if d.get("top_actions") else None,
        "pivots": (
            {
                "base": ex["base"],
                "target": ex["target"],
                "table": _table(ex["pivots"], ["kind", "action", "source", "fb", "ft"]),
            }
            if ex
            else None
        ),
        "split": (
            _table([{"figure": FIGURES.get(k, k), "value": v} for k, v in d["split"].items()])
            if d.get("split")
            else None
        ),
    }
    return _env().get_template("report.html").render(page)


def write_html(rep, path: str | Path) -> Path:
    path = Path(path)
    from dishgraph.outputs import write_text

    write_text(path, render_html(rep))
    return path
