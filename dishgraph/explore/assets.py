"""The explorer page's own CSS and JavaScript (inlined into every page: no CDN, nothing fetched at view time).

Kept as Python strings so they ship with the package as code. The script reads the embedded JSON, lays
the actions out (columns by dish, rows by order constraints, relaxed by a small deterministic force
simulation), draws SVG, and wires search, zoom/pan and a details panel. Data strings reach the DOM only
through ``textContent``.
"""

CSS = r"""
:root { --remove: #d62728; --insert: #2ca02c; --manual: #ff9f1c; --plain: #6b8cae; --base: #1f5fa8;
        --target: #8e44ad; --hit: #ffd400; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, "Noto Sans CJK SC", "PingFang SC", sans-serif; color: #222;
       background: #fafafa; height: 100vh; display: flex; flex-direction: column; }
header { padding: 8px 14px; border-bottom: 1px solid #ddd; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px 0; }
h1 .arrow { color: #999; }
#title-base { color: var(--base); } #title-target { color: var(--target); }
#summary { color: #555; font-size: 13px; }
.controls { margin: 6px 0; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
#search { width: 340px; max-width: 100%; padding: 4px 8px; font-size: 14px; }
#search-count { color: #555; min-width: 90px; }
button { padding: 2px 9px; font-size: 14px; cursor: pointer; }
#legend { font-size: 12px; color: #444; display: flex; flex-wrap: wrap; gap: 14px; }
#legend .sw { display: inline-block; width: 11px; height: 11px; border-radius: 50%; margin-right: 4px;
              vertical-align: -1px; }
#legend .ln { display: inline-block; width: 22px; height: 0; border-top: 2px solid; margin-right: 4px;
              vertical-align: 3px; }
#notes { margin: 4px 0 0 0; padding-left: 18px; color: #8a5a00; font-size: 12px; }
main { flex: 1; display: flex; min-height: 0; }
#graph { flex: 1; background: #fff; cursor: grab; user-select: none; }
#graph.panning { cursor: grabbing; }
aside { width: 340px; overflow: auto; border-left: 1px solid #ddd; padding: 10px 12px; background: #fcfcfc; }
aside h2 { font-size: 16px; margin: 0 0 6px 0; }
aside h3 { font-size: 13px; margin: 10px 0 4px 0; color: #444; }
aside ul { margin: 0; padding-left: 18px; }
aside .key { font-family: ui-monospace, monospace; font-size: 12px; color: #666; word-break: break-all; }
aside .link { color: #1f5fa8; cursor: pointer; text-decoration: underline; }
.hint { color: #777; }
.column-title { font-size: 15px; font-weight: 600; fill: #666; text-anchor: middle; }
.node circle { stroke: #fff; stroke-width: 1.5; cursor: pointer; }
.node text { font-size: 12px; fill: #222; paint-order: stroke; stroke: #fff; stroke-width: 3px;
             pointer-events: none; }
.node.pivot text { font-weight: 600; }
.node.hit circle { stroke: var(--hit); stroke-width: 5; }
.node.hit text { font-size: 14px; }
.node.dim { opacity: 0.18; }
.node.selected circle { stroke: #000; stroke-width: 3; }
.edge { fill: none; stroke-width: 1.4; opacity: 0.55; }
.edge.base { stroke: var(--base); } .edge.target { stroke: var(--target); }
.edge.reference { stroke-dasharray: 5 4; }
.edge.dim { opacity: 0.06; }
.edge.active { opacity: 1; stroke-width: 2.6; }
/* A phone (390 px): side by side, the 340 px details column left the graph a 50 px strip. Stack instead:
   the page scrolls, the graph (laid out in bands by the script at this same width, labels at 12 CSS px) is
   as tall as its drawing, the details follow below it, and the controls share the width rather than
   pushing "fit" off the edge. The desktop layout above is untouched. */
@media (max-width: 700px) {
  body { height: auto; min-height: 100vh; }
  header { padding: 8px 10px; }
  #search { flex: 1 1 150px; width: auto; min-width: 0; }
  #search-count { min-width: 0; }
  main { flex: none; flex-direction: column; }
  #graph { flex: none; width: 100%; height: auto; }  /* the script sets it: the drawing's height */
  .node.hit text { font-size: 12px; }  /* labels are cut to their cell at 12 px */
  .edge { opacity: 0.35; }  /* edges cross the rows of labels here: lighter (a selected action's stay dark) */
  aside { width: auto; border-left: none; border-top: 1px solid #ddd; }
}
"""

JS = r"""
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("dishgraph-data").textContent);
  var svg = document.getElementById("graph");
  var viewport = document.getElementById("viewport");
  var box0 = svg.getBoundingClientRect();  // the desktop layout's box, measured before the header fills in
  var COLOURS = {remove: "var(--remove)", insert: "var(--insert)", manual: "var(--manual)"};

  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]); }
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, text, parent, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function pct(f) { return (f === null || f === undefined) ? "–" : (100 * f).toFixed(0) + "%"; }

  // ------------------------------------------------------------------ header
  document.getElementById("title-base").textContent = data.base;
  document.getElementById("title-target").textContent = data.target;
  var pair = data.pair;
  var summary = [];
  if (pair) {
    summary.push("recipes: " + pair.base_recipes + " / " + pair.target_recipes);
    if (pair.change_from || pair.change_to) summary.push("change: " + (pair.change_from || "∅") + " → " +
                                                          (pair.change_to || "∅") + " (" + pair.change_kind + ")");
    else if (pair.change_kind) summary.push("pair: " + pair.change_kind);
  }
  summary.push("top " + data.top + " actions per dish");
  summary.push("pivots: " + data.pivot_actions_total + " actions, " + data.pivots_total +
               " edges (one per source), " + data.pivots.length + " drawn");
  summary.push("order constraints: " + data.constraints.base.length + " / " + data.constraints.target.length);
  document.getElementById("summary").textContent = summary.join(" · ");
  var notes = document.getElementById("notes");
  data.notes.forEach(function (n) { html("li", n, notes); });
  (data.composed_from || []).forEach(function (r) {
    html("li", "composed from " + r.role + " (" + (100 * r.weight).toFixed(0) + "% of the weight, " + r.dishes +
         " dishes): " + r.top.join(", ") + (r.dishes > r.top.length ? ", …" : ""), notes);
  });
  var legend = document.getElementById("legend");
  [["remove", "pivot: remove"], ["insert", "pivot: insert"], ["manual", "pivot: manual check"],
   ["plain", "frequent action"]].forEach(function (x) {
    var s = html("span", null, legend); var sw = html("span", null, s, "sw");
    sw.style.background = "var(--" + x[0] + ")"; s.appendChild(document.createTextNode(x[1]));
  });
  [["base", "MUST_PRECEDE in " + data.base], ["target", "MUST_PRECEDE in " + data.target]].forEach(function (x) {
    var s = html("span", null, legend); var ln = html("span", null, s, "ln");
    ln.style.borderColor = "var(--" + x[0] + ")"; s.appendChild(document.createTextNode(x[1]));
  });
  var ref = html("span", null, legend); var rl = html("span", null, ref, "ln");
  rl.style.borderTopStyle = "dashed"; rl.style.borderColor = "#777";
  ref.appendChild(document.createTextNode("reference (crg-release)"));

  // ------------------------------------------------------------------ graph model
  var nodes = data.nodes.map(function (n, i) { return Object.assign({index: i}, n); });
  // Maps keyed by data (action keys) or by the URL have no prototype: "__proto__" or "constructor" is a key.
  var byId = Object.create(null);
  nodes.forEach(function (n) { byId[n.id] = n; });
  var edges = [];
  ["base", "target"].forEach(function (side) {
    data.constraints[side].forEach(function (c) {
      if (byId[c.cause] && byId[c.effect]) edges.push({side: side, c: c, s: byId[c.cause], t: byId[c.effect]});
    });
  });
  edges.forEach(function (e) { e.s[e.side] = true; e.t[e.side] = true; });
  nodes.forEach(function (n) {
    var inBase = (n.fb || 0) > 0 || n.base === true, inTarget = (n.ft || 0) > 0 || n.target === true;
    if (n.pivot === "remove") n.col = 0;
    else if (n.pivot === "insert") n.col = 2;
    else if (inBase && inTarget) n.col = 1;
    else n.col = inTarget ? 2 : 0;
    n.r = 5 + 16 * Math.sqrt(Math.max(n.fb || 0, n.ft || 0));
    n.out = []; n.inn = [];
  });
  edges.forEach(function (e) { e.s.out.push(e); e.t.inn.push(e); });

  // Rows: longest path over MUST_PRECEDE (cycles broken by visiting order), so causes sit above effects.
  var rank = Object.create(null), visiting = Object.create(null);
  function depth(n) {
    if (rank[n.id] !== undefined) return rank[n.id];
    if (visiting[n.id]) return 0;
    visiting[n.id] = true;
    var d = 0;
    n.inn.forEach(function (e) { d = Math.max(d, depth(e.s) + 1); });
    visiting[n.id] = false;
    rank[n.id] = d;
    return d;
  }
  nodes.forEach(depth);
  var maxRank = Math.max.apply(null, nodes.map(function (n) { return rank[n.id]; }).concat([1]));
  var columns = [[], [], []];
  nodes.forEach(function (n) { columns[n.col].push(n); });
  // Connected actions in rank order (causes first), then the others by frequency: the desktop layout's rows
  // and the phone layout's reading order.
  columns.forEach(function (col) {
    col.sort(function (a, b) {
      var ra = a.inn.length + a.out.length ? rank[a.id] : maxRank + 1, rb = b.inn.length + b.out.length ? rank[b.id] : maxRank + 1;
      return ra - rb || Math.max(b.fb || 0, b.ft || 0) - Math.max(a.fb || 0, a.ft || 0);
    });
  });

  // Two layouts, chosen at the CSS's stacking width. Columns (desktop): the groups side by side, rows by rank,
  // relaxed by forces, the drawing scaled to fit the graph's box. Bands (a phone): laid out at least 700 px wide
  // and scaled to 390 px, the columns drew 5 px labels over a 60vh box mostly left blank; instead the groups
  // stack one under another, a few actions a row in reading order, drawn at scale 1 (labels keep their CSS
  // size) in a graph exactly as tall as the drawing.
  var NARROW = "(max-width: 700px)";  // the @media rule of the CSS
  function narrow() { return !!(window.matchMedia && window.matchMedia(NARROW).matches); }
  var W = 0, H = 0, bandsH = 0, mode = null, titlePos = [];

  function layoutColumns(box) {
    W = Math.max(700, box.width || 1000); H = Math.max(500, box.height || 700);
    // Column widths follow how many actions each holds (at least a sixth of the page each).
    var shares = columns.map(function (c) { return Math.max(c.length, nodes.length / 6, 1); });
    var total = shares.reduce(function (a, b) { return a + b; }, 0);
    var colX = [], colW = [], left = 0;
    shares.forEach(function (sh) { var w = W * sh / total; colX.push(left + w / 2); colW.push(w); left += w; });
    titlePos = colX.map(function (x) { return {x: x, y: 36, anchor: ""}; });
    var TOP = 70, BOTTOM = H - 30;
    columns.forEach(function (col) {
      // Start: rank decides the row of connected actions, frequency the row of the others; spread evenly.
      col.forEach(function (n, k) {
        n.ty = TOP + (BOTTOM - TOP) * (col.length > 1 ? k / (col.length - 1) : 0.5);
        n.x = colX[n.col] + ((k % 3) - 1) * colW[n.col] * 0.25;
        n.y = n.ty;
        n.vx = 0; n.vy = 0;
      });
    });

    // A small deterministic force simulation: repulsion, springs along constraints, pull to column and row.
    for (var it = 0; it < 300; it++) {
      var alpha = 1 - it / 300;
      for (var i = 0; i < nodes.length; i++) {
        var a = nodes[i];
        for (var j = i + 1; j < nodes.length; j++) {
          var b = nodes[j], dx = (a.x - b.x) / 2.2, dy = a.y - b.y, d2 = dx * dx + dy * dy + 0.01;
          if (d2 > 40000) continue;
          var f = 1800 / d2, d = Math.sqrt(d2);
          var fx = f * dx / d, fy = f * dy / d;
          a.vx += fx; a.vy += fy; b.vx -= fx; b.vy -= fy;
        }
      }
      edges.forEach(function (e) {
        var dx = e.t.x - e.s.x, dy = e.t.y - e.s.y, d = Math.sqrt(dx * dx + dy * dy) + 0.01;
        var f = (d - 120) * 0.002;
        e.s.vx += f * dx / d; e.s.vy += f * dy / d; e.t.vx -= f * dx / d; e.t.vy -= f * dy / d;
        if (dy < 30) { e.s.vy -= 0.8; e.t.vy += 0.8; }  // cause above effect
      });
      nodes.forEach(function (n) {
        n.vx += (colX[n.col] - n.x) * 0.004;
        n.vy += (n.ty - n.y) * 0.01;
        n.x += Math.max(-25, Math.min(25, n.vx * alpha)); n.y += Math.max(-25, Math.min(25, n.vy * alpha));
        n.x = Math.max(colX[n.col] - colW[n.col] * 0.45, Math.min(colX[n.col] + colW[n.col] * 0.3, n.x));
        n.y = Math.max(TOP, Math.min(BOTTOM, n.y));
        n.vx *= 0.6; n.vy *= 0.6;
      });
    }
  }

  function layoutBands(width) {
    var PAD = 8, per = Math.max(1, Math.floor((width - 2 * PAD) / 170)), cellW = (width - 2 * PAD) / per, y = 0;
    W = width;
    titlePos = [];
    columns.forEach(function (col, c) {
      y += 24;
      titlePos[c] = {x: PAD, y: y, anchor: "start"};
      y += 8;
      for (var k = 0; k < col.length; k += per) {
        var row = col.slice(k, k + per);
        var rh = Math.max(16, Math.max.apply(null, row.map(function (n) { return 2 * n.r; }))) + 8;
        row.forEach(function (n, j) {
          n.x = PAD + j * cellW + n.r + 1; n.y = y + rh / 2;
          n.room = cellW - 2 * n.r - 12;  // the label's width: the cell less the circle and the gaps
        });
        y += rh;
      }
      y += 4;
    });
    bandsH = y + 8;
  }

  // ------------------------------------------------------------------ drawing
  var defs = svg.querySelector("defs");
  ["base", "target", "active"].forEach(function (side) {
    var m = el("marker", {id: "arrow-" + side, viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "9",
                          markerHeight: "9", markerUnits: "userSpaceOnUse", orient: "auto-start-reverse"}, defs);
    el("path", {d: "M0,0 L10,5 L0,10 z", fill: side === "active" ? "#000" :
                (side === "base" ? "#1f5fa8" : "#8e44ad")}, m);
  });
  var titles = [[0, data.base + " only · remove"], [1, "both dishes"], [2, data.target + " · insert"]];
  var titleEls = titles.map(function (t) {
    var tx = el("text", {"class": "column-title"}, viewport);
    tx.textContent = t[1];
    return tx;
  });
  var edgeLayer = el("g", {"class": "edges"}, viewport);
  var nodeLayer = el("g", {"class": "nodes"}, viewport);
  edges.forEach(function (e) {
    var ref = e.c.source === "crg-release";
    e.el = el("path", {"class": "edge " + e.side + (ref ? " reference" : ""),
                       "marker-end": "url(#arrow-" + e.side + ")"}, edgeLayer);
    if (e.c.ate !== null && e.c.ate !== undefined) e.el.style.strokeWidth = (1 + 6 * e.c.ate).toFixed(2);
    var tip = el("title", {}, e.el);
    tip.textContent = e.s.label + " must precede " + e.t.label + " in " + (e.side === "base" ? data.base : data.target) +
      (e.c.ate !== null && e.c.ate !== undefined ? " (ψ = " + e.c.ate.toFixed(3) + ")" : "") + " · " + e.c.source;
  });
  nodes.forEach(function (n) {
    var g = el("g", {"class": "node" + (n.pivot ? " pivot " + n.pivot : "")}, nodeLayer);
    g.setAttribute("data-id", n.id);
    var c = el("circle", {r: n.r.toFixed(1)}, g);
    c.style.fill = COLOURS[n.pivot] || "var(--plain)";
    n.text = el("text", {x: (n.r + 3).toFixed(1), y: "4"}, g);
    var tip = el("title", {}, g);
    tip.textContent = n.label + "  f(" + data.base + ") = " + pct(n.fb) + ", f(" + data.target + ") = " + pct(n.ft) +
      (n.examples.length ? "\n" + n.examples.join(" / ") : "");
    g.addEventListener("click", function (ev) { ev.stopPropagation(); select(n); });
    n.el = g;
  });

  // Positions from the layout: titles, edges, nodes; on a phone a label longer than its cell is cut to it
  // (the tooltip and the details panel keep it whole).
  function place() {
    titleEls.forEach(function (tx, c) {
      tx.setAttribute("x", titlePos[c].x); tx.setAttribute("y", titlePos[c].y); tx.style.textAnchor = titlePos[c].anchor;
    });
    edges.forEach(function (e) {
      var dx = e.t.x - e.s.x, dy = e.t.y - e.s.y, d = Math.sqrt(dx * dx + dy * dy) + 0.01;
      var x1 = e.s.x + dx / d * e.s.r, y1 = e.s.y + dy / d * e.s.r;
      var x2 = e.t.x - dx / d * (e.t.r + 2), y2 = e.t.y - dy / d * (e.t.r + 2);
      var bend = 0.15 * (e.side === "base" ? 1 : -1);
      if (mode === "bands") bend *= Math.min(1, 30 / (0.15 * d));  // a bow of 30 px at most, kept inside the width
      var cx = (x1 + x2) / 2 - dy * bend, cy = (y1 + y2) / 2 + dx * bend;
      if (mode === "bands") cx = Math.max(2, Math.min(W - 2, cx));
      e.el.setAttribute("d", "M" + x1 + "," + y1 + " Q" + cx + "," + cy + " " + x2 + "," + y2);
    });
    nodes.forEach(function (n) {
      n.el.setAttribute("transform", "translate(" + n.x + "," + n.y + ")");
      n.text.textContent = n.label;
      if (mode === "bands") cutLabel(n.text, n.label, n.room);
    });
  }
  function cutLabel(t, label, room) {
    if (t.getComputedTextLength() <= room) return;
    var chars = Array.from(label), lo = 0, hi = chars.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      t.textContent = chars.slice(0, mid).join("") + "…";
      if (t.getComputedTextLength() <= room) lo = mid; else hi = mid - 1;
    }
    t.textContent = chars.slice(0, lo).join("") + "…";
  }

  // ------------------------------------------------------------------ details panel
  var details = document.getElementById("details");
  var selected = null;
  function select(n) {
    if (selected) selected.el.classList.remove("selected");
    edges.forEach(function (e) { e.el.classList.remove("active"); e.el.setAttribute("marker-end", "url(#arrow-" + e.side + ")"); });
    selected = n;
    details.textContent = "";
    if (!n) { html("p", "Click an action for details.", details, "hint"); return; }
    n.el.classList.add("selected");
    html("h2", n.label, details);
    html("div", n.id, details, "key");
    html("h3", "frequency (share of recipes)", details);
    var ul = html("ul", null, details);
    html("li", data.base + ": " + pct(n.fb), ul);
    html("li", data.target + ": " + pct(n.ft), ul);
    var srcs = Object.keys(n.pivots);
    if (srcs.length) {
      html("h3", "pivot", details);
      var pu = html("ul", null, details);
      srcs.sort().forEach(function (s) { html("li", n.pivots[s] + " (" + s + ")", pu); });
    }
    function list(title, items, other) {
      if (!items.length) return;
      html("h3", title, details);
      var l = html("ul", null, details);
      items.forEach(function (e) {
        e.el.classList.add("active"); e.el.setAttribute("marker-end", "url(#arrow-active)");
        var li = html("li", null, l);
        var a = html("span", other(e).label, li, "link");
        a.addEventListener("click", function () { select(other(e)); });
        li.appendChild(document.createTextNode(" · " + (e.side === "base" ? data.base : data.target) +
          (e.c.ate !== null && e.c.ate !== undefined ? " · ψ " + e.c.ate.toFixed(3) : "") + " · " + e.c.source));
      });
    }
    list("must precede it", n.inn, function (e) { return e.s; });
    list("must follow it", n.out, function (e) { return e.t; });
    if (n.examples.length) {
      html("h3", "example phrases", details);
      var eu = html("ul", null, details);
      n.examples.forEach(function (p) { html("li", p, eu); });
    }
  }
  svg.addEventListener("click", function () { select(null); });

  // ------------------------------------------------------------------ search
  var search = document.getElementById("search");
  var count = document.getElementById("search-count");
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    var hits = 0;
    nodes.forEach(function (n) {
      var text = (n.label + " " + n.id + " " + n.examples.join(" ")).toLowerCase();
      var hit = q !== "" && text.indexOf(q) >= 0;
      if (hit) hits++;
      n.el.classList.toggle("hit", hit);
      n.el.classList.toggle("dim", q !== "" && !hit);
    });
    edges.forEach(function (e) {
      e.el.classList.toggle("dim", q !== "" && !(e.s.el.classList.contains("hit") || e.t.el.classList.contains("hit")));
    });
    count.textContent = q ? hits + " match" + (hits === 1 ? "" : "es") : "";
    document.getElementById("status").setAttribute("data-hits", String(hits));
  }
  search.addEventListener("input", runSearch);

  // ------------------------------------------------------------------ zoom and pan
  var view = {x: 0, y: 0, k: 1};
  var fitted = true;  // still the fitted view (no zoom or pan yet): refit when the window changes size
  function apply() { viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")"); }
  function fit() {
    var box = svg.getBoundingClientRect();
    if (mode === "bands") {  // scale 1, unless something drawn still reaches past the width
      var bb0 = null;
      try { bb0 = viewport.getBBox(); } catch (err) { bb0 = null; }
      var right = Math.max(W, bb0 && bb0.width ? bb0.x + bb0.width + 4 : 0);
      var k1 = Math.min(1, (box.width || W) / right);
      view = {k: k1, x: 0, y: 0};
      svg.style.height = Math.ceil(bandsH * k1) + "px";
      fitted = true;
      apply();
      return;
    }
    var xs = nodes.map(function (n) { return n.x; }), ys = nodes.map(function (n) { return n.y; });
    var minX = Math.min.apply(null, xs.concat([0])), maxX = Math.max.apply(null, xs.concat([W - 120])) + 120;
    var minY = 0, maxY = Math.max.apply(null, ys.concat([H / 2])) + 30;
    var bb = null;  // what is drawn, labels included: a long label (秋葵 (class 洋葱)) must fit too
    try { bb = viewport.getBBox(); } catch (err) { bb = null; }
    if (bb && bb.width) { minX = Math.min(minX, bb.x); maxX = Math.max(maxX, bb.x + bb.width + 4); }
    var k = Math.min((box.width || W) / (maxX - minX), (box.height || H) / (maxY - minY));
    view = {k: k, x: -minX * k, y: -minY * k};
    fitted = true;
    apply();
  }
  function zoomAt(factor, px, py) {
    var k = Math.max(0.1, Math.min(8, view.k * factor));
    view.x = px - (px - view.x) * (k / view.k); view.y = py - (py - view.y) * (k / view.k); view.k = k;
    fitted = false;
    apply();
  }
  svg.addEventListener("wheel", function (ev) {
    if (mode === "bands" && !ev.ctrlKey) return;  // a page-tall graph: the wheel scrolls the page (pinch zooms)
    ev.preventDefault();
    var box = svg.getBoundingClientRect();
    zoomAt(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - box.left, ev.clientY - box.top);
  }, {passive: false});
  var drag = null;
  svg.addEventListener("mousedown", function (ev) { drag = {x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y}; svg.classList.add("panning"); });
  window.addEventListener("mousemove", function (ev) {
    if (!drag) return;
    view.x = drag.vx + ev.clientX - drag.x; view.y = drag.vy + ev.clientY - drag.y; fitted = false; apply();
  });
  window.addEventListener("mouseup", function () { drag = null; svg.classList.remove("panning"); });
  document.getElementById("zoom-in").addEventListener("click", function () { var b = svg.getBoundingClientRect(); zoomAt(1.25, b.width / 2, b.height / 2); });
  document.getElementById("zoom-out").addEventListener("click", function () { var b = svg.getBoundingClientRect(); zoomAt(0.8, b.width / 2, b.height / 2); });
  document.getElementById("zoom-reset").addEventListener("click", fit);
  function layout(box) {
    mode = narrow() ? "bands" : "columns";
    if (mode === "bands") {
      // The graph is as tall as the drawing: that can give the page a scrollbar, which narrows the graph;
      // then lay out once more for the width that is left.
      for (var pass = 0; pass < 2; pass++) {
        var w = svg.getBoundingClientRect().width || 360;
        layoutBands(w);
        svg.style.height = Math.ceil(bandsH) + "px";
        if (Math.abs(svg.getBoundingClientRect().width - w) < 1) break;
      }
    } else {
      svg.style.height = "";
      layoutColumns(box || svg.getBoundingClientRect());
    }
    place();
    fit();
  }
  // A phone turned sideways, or a window resized across the stacking width, changes the graph's box: a new
  // layout where the width picks the other one (or a phone's width changed), else a refit.
  window.addEventListener("resize", function () {
    if (narrow() !== (mode === "bands") || (mode === "bands" && Math.abs(svg.getBoundingClientRect().width - W) >= 1)) layout();
    else if (fitted) fit();
  });
  layout(box0);

  // The URL fragment can pre-fill the search and select an action (#q=洋葱&select=切|洋葱|), to share a view.
  // A malformed escape (#q=%) is taken literally rather than stopping the page.
  function fragment(name) {
    var m = new RegExp("[#&]" + name + "=([^&]*)").exec(window.location.hash);
    if (!m) return null;
    try { return decodeURIComponent(m[1]); } catch (err) { return m[1]; }
  }
  var q = fragment("q");
  if (q !== null) { search.value = q; }
  runSearch();
  var sel = fragment("select");
  if (sel !== null && Object.prototype.hasOwnProperty.call(byId, sel)) select(byId[sel]);
  var status = document.getElementById("status");
  status.setAttribute("data-nodes", String(nodes.length));
  status.setAttribute("data-edges", String(edges.length));
  status.textContent = "rendered " + nodes.length + " actions and " + edges.length + " order constraints";
})();
"""
