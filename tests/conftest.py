"""Shared fixtures: the real data in ../shared/data and a real embedded database per test."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
if "DISHGRAPH_CACHE" not in os.environ:  # token caches of a test run stay out of the user's ~/.cache
    import tempfile

    os.environ["DISHGRAPH_CACHE"] = tempfile.mkdtemp(prefix="dishgraph-cache-")

import pytest

from dishgraph import config


@pytest.fixture(scope="session")
def release_corpus(crg_dir):
    """A writer of small real corpora: ``release_corpus(path, n)`` writes the first ``n`` base recipes of the
    CRG release to ``path`` as JSONL and returns it."""
    return lambda path, n: _release_corpus(path, crg_dir, n)


def _release_corpus(path, crg_dir, n: int):
    import json

    lines = (crg_dir / "base_recipes.txt").read_text(encoding="utf-8").splitlines()[:n]
    with open(path, "w", encoding="utf-8") as fh:
        for ln in lines:
            dish, _, text = ln.split("\t")
            fh.write(json.dumps({"dish": dish, "text": text}, ensure_ascii=False) + "\n")
    return path


@pytest.fixture(scope="session")
def data_dir():
    return config.data_dir()


@pytest.fixture(scope="session")
def crg_dir(data_dir):
    return data_dir / "counterfactual"


@pytest.fixture(scope="session")
def glossary(crg_dir):
    from dishgraph.ingest.glossary import Glossary

    return Glossary.load(crg_dir / "glossary.json")


@pytest.fixture
def store(tmp_path):
    """A fresh, real LadybugDB database on disk."""
    from dishgraph.graph.ladybug_store import LadybugStore

    s = LadybugStore(tmp_path / "db")
    yield s
    s.close()


def pytest_collection_modifyitems(config, items):
    """Files marked slow run first. `make test` runs files in parallel (pytest-xdist, one file per worker at
    a time): started last, the end-to-end demo (about 4 minutes) ran alone while the other worker sat idle.
    The sort is stable, so every file keeps its own order."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
