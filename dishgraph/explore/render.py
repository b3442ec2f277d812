"""One self-contained HTML page from a pair view: inline CSS and JS, the data as embedded JSON, no network.

Dish names and phrases come from corpora, so every string is treated as hostile: the title goes through
``html.escape``, the data through ``embed_json`` (``<``, ``>``, ``&`` and the JS line separators escaped as
``\\uXXXX`` so no ``</script>`` or comment opener can close the data block), and the page's script writes
text only with ``textContent``, never ``innerHTML``.
"""

from __future__ import annotations

import html
import json

from dishgraph.explore.assets import CSS, JS

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embed_json(data) -> str:
    """JSON that is safe inside ``<script type="application/json">`` (and still parses to the same value)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, default=str)
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text)


def render_html(view: dict) -> str:
    """The explorer page for a ``pair_view`` dict."""
    title = f"dishgraph explorer: {view['base']} → {view['target']}"
    return f"""<!DOCTYPE html>
<html lang="zh">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{html.escape(title)}</title>
<style>{CSS}</style>
</head>
<body>
<header>
  <h1><span id="title-base"></span> <span class="arrow">→</span> <span id="title-target"></span></h1>
  <div id="summary"></div>
  <div class="controls">
    <input id="search" type="search" placeholder="search actions, ingredients, phrases…" autocomplete="off">
    <span id="search-count"></span>
    <button id="zoom-in" title="zoom in">+</button><button id="zoom-out" title="zoom out">−</button>
    <button id="zoom-reset" title="fit to view">fit</button>
  </div>
  <div id="legend"></div>
  <ul id="notes"></ul>
</header>
<main>
  <svg id="graph" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{html.escape(title)}">
    <defs></defs><g id="viewport"></g>
  </svg>
  <aside id="details"><p class="hint">Click an action for its frequencies, pivots, order constraints and
  example phrases. Drag to pan, wheel to zoom.</p></aside>
</main>
<div id="status" hidden></div>
<script type="application/json" id="dishgraph-data">{embed_json(view)}</script>
<script>{JS}</script>
</body>
</html>
"""
