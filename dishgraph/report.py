"""`report/index.html` of the main job: one self-contained page (inline CSS, plots as data URIs).

Bar charts are plain HTML/CSS so Chinese labels render with the browser's fonts; only the numeric
histogram is a matplotlib PNG (no CJK font is needed for it).
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

CSS = """
body{font-family:system-ui,"Noto Sans CJK SC","PingFang SC",sans-serif;margin:2rem auto;max-width:1100px;color:#222}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left}
th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;height:.9rem;background:#4c78a8;vertical-align:middle}
.remove{color:#b22}.insert{color:#282}.manual{color:#a70}.skip{color:#888}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:1rem}
"""


def _e(x) -> str:
    return html.escape("" if x is None else str(x))


def _table(rows: list[dict], cols: list[str] | None = None) -> str:
    if not rows:
        return "<p><em>none</em></p>"
    cols = cols or list(rows[0])
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            if isinstance(v, float):
                cells.append(f'<td class="num">{v:.4g}</td>')
            else:
                cells.append(f'<td class="{_e(v) if c == "kind" else ""}">{_e(v)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _bars(items: list[tuple[str, float]], fmt: str = "{:.2f}", width: int = 260) -> str:
    if not items:
        return "<p><em>none</em></p>"
    top = max((v for _, v in items if v is not None), default=0) or 1
    rows = "".join(
        f'<tr><td>{_e(k)}</td><td><span class="bar" style="width:{int(width * (v or 0) / top)}px"></span> '
        f"{fmt.format(v) if v is not None else '—'}</td></tr>"
        for k, v in items
    )
    return f"<table>{rows}</table>"


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
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def render_html(rep) -> str:
    d = rep.to_dict() if hasattr(rep, "to_dict") else dict(rep)
    parts = [
        f"<!doctype html><html lang='zh'><head><meta charset='utf-8'><title>dishgraph report</title>"
        f"<style>{CSS}</style></head><body><h1>dishgraph — main job report</h1>"
        f"<p>Database: <code>{_e(d['database'])}</code>; total {d['seconds']:.1f} s.</p>"
    ]
    parts.append(
        "<h2>Steps</h2>"
        + _table(
            [
                {
                    "step": s["name"],
                    "seconds": s["seconds"],
                    "status": "skipped" if s["skipped"] else "ran",
                    "detail": s["detail"],
                }
                for s in d["steps"]
            ]
        )
    )
    c = d.get("counts", {})
    parts.append(
        "<h2>Graph</h2><div class='grid'><div>"
        + _table([{"label": k, "nodes": v} for k, v in c.get("nodes", {}).items() if v])
        + "</div><div>"
        + _table([{"type": k, "relationships": v} for k, v in c.get("relationships", {}).items() if v])
        + "</div><div>"
        + _table([{"figure": k, "value": v} for k, v in d.get("graph", {}).items()])
        + "</div></div>"
    )
    png = _histogram_png(d.get("steps_per_recipe", []))
    if png:
        parts.append(f"<h2>Proto-actions per recipe</h2><img alt='histogram of actions per recipe' src='{png}'>")
    if d.get("top_actions"):
        parts.append("<h2>Top actions per dish (share of the dish's recipes)</h2><div class='grid'>")
        for dish, acts in d["top_actions"].items():
            parts.append(f"<div><h3>{_e(dish)}</h3>" + _bars([(a["action"], a["freq"]) for a in acts]) + "</div>")
        parts.append("</div>")
    ex = d.get("example_pair") or {}
    if ex:
        parts.append(
            f"<h2>Pivot actions: {_e(ex['base'])} → {_e(ex['target'])}</h2>"
            + _table(ex["pivots"], ["kind", "action", "source", "fb", "ft"])
        )
    if d.get("split"):
        parts.append("<h2>DiNeR TMCD split</h2>" + _table([{"figure": k, "value": v} for k, v in d["split"].items()]))
    res = d.get("results") or []
    if res:
        cols = list(res[0])
        parts.append("<h2>CRG evaluation (L1/L2, %; BERTScore needs a local model)</h2>" + _table(res, cols))
        parts.append("<div class='grid'>")
        for key, title in (("hard_f1", "L2 hard F1"), ("bleu4", "BLEU-4 vs base"), ("coi_added", "CoI add")):
            parts.append(f"<div><h3>{title}</h3>" + _bars([(r["model"], r.get(key)) for r in res]) + "</div>")
        parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(rep, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(render_html(rep), encoding="utf-8")
    return path
