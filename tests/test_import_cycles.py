"""No import cycle among dishgraph's modules, counting imports inside functions (a cycle hidden in a function
body is still a cycle: it only fails later, and it ties the layers together all the same)."""

from __future__ import annotations

import grimp


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("dishgraph", cache_dir=None)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    graph = _graph()
    # imports inside function bodies count: this one is (eval reads the segmenter only when it segments)
    assert graph.direct_import_exists(importer="dishgraph.eval.text_metrics", imported="dishgraph.ingest.segment")
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    cycles = _cycles(edges)
    shown = []
    for component in cycles:
        a, b = component[0], component[1]
        chain = graph.find_shortest_chain(importer=a, imported=b) or ()
        back = graph.find_shortest_chain(importer=b, imported=a) or ()
        shown.append(" -> ".join([*chain, *back[1:]]))
    assert not cycles, "import cycles:\n  " + "\n  ".join(shown)
