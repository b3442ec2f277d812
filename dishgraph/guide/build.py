"""Build the Neo4j Browser guide (``:play URL``) from dishgraph's named queries.

Neo4j Browser fetches the page, splits it on ``<slide>`` elements and turns every ``<pre class="runnable">``
into a block that copies its text content (trimmed) into the editor. Each slide runs one named query's
Neo4j text *exactly* (its ``.neo4j`` variant where one exists), preceded by a ``:param {…}`` block with
example values from the real data, so the guide cannot drift from what ``dishgraph`` itself runs.
"""

from __future__ import annotations

import html
import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from dishgraph.graph import queries

GUIDE_DIR = Path(__file__).resolve().parent
SLIDES_SPEC = GUIDE_DIR / "slides.json"
GUIDE_FILE = "guide.html"

# Used only when the data directory cannot be found: the first pair of the CRG release and its first
# order-constrained action, the same values the data gives.
FALLBACK_EXAMPLES = {
    "base": "白灼菜心",
    "target": "白灼秋葵",
    "dish": "白灼秋葵",
    "action": "切|洋葱|",
    "pair": "白灼菜心->白灼秋葵",
    "limit": 25,
    "top": 5,
    "recipe": "pcs:70f228d93a",  # PizzaCommonSense "pizza dough for 4 recipe" (after `ingest pcs`)
    "comestible": "flour",
}


@dataclass(frozen=True)
class GuideSlide:
    query: str  # the named query this slide runs
    title: str
    text: str  # exactly the Neo4j text of the named query
    params: dict  # example values for the :param block


@dataclass
class Guide:
    title: str
    html: str
    slides: list[GuideSlide]
    skipped: list[str] = field(default_factory=list)  # named queries that do not exist (yet)


def example_params(data_dir: Path | None = None) -> dict:
    """Example parameter values from the real data: the first CRG dish pair with order constraints."""
    from dishgraph import config
    from dishgraph.actions import ProtoAction

    try:
        crg = config.data_dir(data_dir) / "counterfactual"
        constraints = json.loads((crg / "order_constraints.json").read_text(encoding="utf-8"))
        pairs = [ln.split() for ln in (crg / "dish_pairs.txt").read_text(encoding="utf-8").splitlines()]
    except (FileNotFoundError, json.JSONDecodeError):
        return dict(FALLBACK_EXAMPLES)
    for base, target in (p for p in pairs if len(p) == 2):
        if constraints.get(target):
            action = ProtoAction.from_release(constraints[target][0]["action"]).key
            return {
                **FALLBACK_EXAMPLES,
                "base": base,
                "target": target,
                "dish": target,
                "action": action,
                "pair": f"{base}->{target}",
            }
    return dict(FALLBACK_EXAMPLES)


def _cypher_literal_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else json.dumps(key, ensure_ascii=False)


def param_command(params: dict) -> str:
    """``:param {dish: "白灼秋葵", action: "切|洋葱|"}``: Browser replaces its parameters with this map."""
    body = ", ".join(f"{_cypher_literal_key(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in params.items())
    return ":param {" + body + "}"


def load_spec(path: Path = SLIDES_SPEC) -> dict:
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}: not valid JSON: {e.msg}") from e
    for i, s in enumerate(spec.get("slides", [])):
        missing = {"query", "title"} - set(s)
        if missing:
            raise ValueError(f"{path}: slide {i + 1} lacks {sorted(missing)}")
    return spec


def collect_slides(spec: dict, examples: dict) -> tuple[list[GuideSlide], list[str]]:
    """Look each slide's query up by name; a query that does not exist yet skips its slide with a warning."""
    slides, skipped = [], []
    known = set(queries.names())
    for s in spec["slides"]:
        name = s["query"]
        if name not in known:
            warnings.warn(
                f"guide: no named query {name!r} in {queries.CYPHER_DIR}; slide {s['title']!r} skipped", stacklevel=2
            )
            skipped.append(name)
            continue
        q = queries.get(name, "neo4j")
        params = {}
        for p in q.params:
            if p not in examples:
                warnings.warn(
                    f"guide: no example value for ${p} of {name!r}; the :param block sets it to null", stacklevel=2
                )
            params[p] = examples.get(p)
        slides.append(GuideSlide(name, s["title"], q.text, params))
    return slides, skipped


def _runnable(text: str, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    return f'<pre mode="cypher" class="pre-scrollable code runnable"{extra}>{html.escape(text, quote=False)}</pre>'


def _paragraphs(items: list[str]) -> str:
    # The spec's paragraphs are trusted HTML fragments written by us (they hold <code> markup).
    return "\n".join(f"        <p>{p}</p>" for p in items)


def render(spec: dict, slides: list[GuideSlide]) -> str:
    intro = spec.get("intro", {})
    specs = {s["query"]: s for s in spec["slides"]}
    parts = []
    if intro:
        parts.append(f"""    <slide class="row-fluid">
      <div class="col-sm-3">
        <h3>{html.escape(intro.get("title", spec["title"]))}</h3>
        <p class="lead">{html.escape(intro.get("lead", ""))}</p>
      </div>
      <div class="col-sm-9">
{_paragraphs(intro.get("paragraphs", []))}
        <ol>
{chr(10).join(f"          <li>{html.escape(s.title)} (<code>{html.escape(s.query)}</code>)</li>" for s in slides)}
        </ol>
      </div>
    </slide>""")
    for s in slides:
        src = specs[s.query]
        parts.append(f"""    <slide class="row-fluid" data-query="{html.escape(s.query)}">
      <div class="col-sm-3">
        <h3>{html.escape(s.title)}</h3>
        <p class="lead">{html.escape(src.get("lead", ""))}</p>
      </div>
      <div class="col-sm-9">
{_paragraphs(src.get("paragraphs", []))}
        <p>Set the parameters:</p>
        {_runnable(param_command(s.params), data_params_for=s.query)}
        <p>Run the named query <code>{html.escape(s.query)}</code>:</p>
        {_runnable(s.text, data_query=s.query)}
      </div>
    </slide>""")
    slides_html = "\n".join(parts)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(spec["title"])}</title>
</head>
<body>
<article class="guide">
  <carousel class="deck container-fluid">
{slides_html}
  </carousel>
</article>
</body>
</html>
"""


def build_guide(data_dir: Path | None = None, spec_path: Path = SLIDES_SPEC) -> Guide:
    """The guide in memory: HTML plus which slides made it in and which were skipped."""
    spec = load_spec(spec_path)
    slides, skipped = collect_slides(spec, example_params(data_dir))
    return Guide(spec["title"], render(spec, slides), slides, skipped)


def write_guide(out_dir: str | Path, data_dir: Path | None = None) -> tuple[Path, Guide]:
    """Write ``guide.html`` into out_dir (created if needed); return its path and the guide."""
    guide = build_guide(data_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / GUIDE_FILE
    from dishgraph.outputs import write_text

    write_text(path, guide.html)
    return path, guide
