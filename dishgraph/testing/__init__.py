"""Scaffolding for tests and benchmarks, kept out of the runtime packages: corpora with planted answers
(`planted`), the release's base recipes parsed into a graph (`base_dishes`) and tiny local models
(`tiny_models`). Nothing under ``dishgraph`` outside this package imports it."""
