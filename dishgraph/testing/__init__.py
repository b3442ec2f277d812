"""Scaffolding for tests and benchmarks, kept out of the runtime packages: corpora with planted answers
(`planted`) and tiny local models (`tiny_models`). Nothing under ``dishgraph`` outside this package imports it."""
