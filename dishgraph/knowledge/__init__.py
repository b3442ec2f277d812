"""Culinary knowledge mined from the action graphs (CRG §4.2–4.3), stored back into the graph.

``frequencies`` (dish-level USES edges), ``pivots`` + ``annotation`` (PIVOT edges of dish pairs),
``causal`` (propensity-score estimates of action-order effects), ``order`` (MUST_PRECEDE edges and
order checks). Generated corpora with known answers, for tests and benchmarks: `dishgraph.testing.planted`.
"""
