"""The DiNeR jobs behind `dishgraph diner …` and `dishgraph eval diner`, one call each (the commands parse
options, make the call, print what it returns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dishgraph.diner.tmcd import Split
from dishgraph.errors import UsageError
from dishgraph.graph.base import GraphStore


def load_glossary(path: Path | None = None, extra: Sequence[str] | None = None):
    """The DiNeR glossary (default: data/diner/glossary.json) plus extra entry files; ``shipped`` names
    dishgraph/diner/extra_glossary.json (the CLI's default) and ``none`` adds nothing (DiNeR's glossary
    alone). One that cannot be read is a `UsageError`."""
    from dishgraph.diner.names import EXTRA_GLOSSARY, DinerGlossary

    extras = [EXTRA_GLOSSARY if e == "shipped" else Path(e) for e in dict.fromkeys(extra or []) if e != "none"]
    try:
        return DinerGlossary.load(path, extras)
    except (OSError, ValueError) as e:
        raise UsageError(str(e)) from None


def names_to_parse(names: Sequence[str] | None, names_file: Path | None) -> list[str]:
    """Dish names given as arguments, then those of a names file; none at all is a `UsageError`."""
    from dishgraph.diner.names import read_names

    try:
        todo = list(names or []) + (read_names(names_file) if names_file else [])
    except (OSError, ValueError) as e:
        raise UsageError(str(e)) from None
    if not todo:
        raise UsageError("give dish names or --names-file")
    return todo


@dataclass
class SplitRun:
    """A TMCD split made by `split_dishes`: the split, its train/test names, the names left out."""

    result: Split
    parts: dict[str, list[str]]
    unparsed: list = field(default_factory=list)
    name: str | None = None  # the stored split's name; None for a names file (nothing stored)

    def summary(self) -> dict:
        return {**self.result.summary(), "name": self.name, "unparsed": len(self.unparsed)}


def split_dishes(
    open_store: Callable[[], GraphStore], glossary, name: str = "tmcd", names_file: Path | None = None, **options
) -> SplitRun:
    """TMCD split of every parsable Dish in the graph (its components stored, the split stored as ``name``),
    or of the names in ``names_file`` (nothing stored, no database opened). ``options`` go to
    `split_parses` / `split_graph` (ratio, target_divergence, seed, restarts, max_iterations, method,
    progress); a target divergence of 0 means none (run until no swap improves)."""
    from dishgraph.diner.graph import export_split, split_graph, split_parses, store_components
    from dishgraph.diner.names import parse_names, read_names

    if not options.get("target_divergence") or options["target_divergence"] <= 0:
        options["target_divergence"] = None
    if names_file:
        rep = parse_names(read_names(names_file), glossary)
        result = split_parses(rep.parsed, **options)
        return SplitRun(result, {"train": result.train_names, "test": result.test_names}, rep.to_dict()["unparsed"])
    with open_store() as store:
        unparsed = store_components(store, glossary).unparsed
        result = split_graph(store, name, **options)
        return SplitRun(result, export_split(store, name), unparsed, name)


def evaluate_predictions(
    predictions: Path, glossary, split_name: str | None = None, open_store: Callable[[], GraphStore] | None = None
):
    """Score a predictions file (`diner.metrics.evaluate_file`), broken down by the generalization forms of
    the stored split ``split_name`` when given (an unknown split raises KeyError). An unreadable file is a
    `UsageError`."""
    from dishgraph.diner.metrics import evaluate_file

    form_of = None
    if split_name:
        if open_store is None:
            raise ValueError("a split's forms need the graph: pass open_store")
        from dishgraph.diner.forms import forms

        with open_store() as store:
            form_of = forms(store, split_name).form_of
    try:
        return evaluate_file(predictions, glossary, form_of)
    except (OSError, ValueError) as e:
        raise UsageError(str(e)) from None


def write_prompts(
    dataset_dir: Path,
    out: Path,
    glossary,
    split: str | None = None,
    fraction: float = 1.0,
    guide: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """LLM prompts with two selective demonstrations per test recipe of a dataset split, written to ``out``;
    ``guide``: predictions (id, pred) whose components pick the demonstrations. Returns how many."""
    from dishgraph.diner.dataset import read_jsonl, split_files, write_jsonl
    from dishgraph.diner.prompts import build_prompts

    train_path, test_path, _ = split_files(dataset_dir, split, fraction)
    guide_map = None
    if guide:
        guide_map = {
            r["id"]: r["pred"]
            for r in read_jsonl(guide)
            if isinstance(r.get("id"), str) and isinstance(r.get("pred"), str)
        }
    rows = build_prompts(read_jsonl(train_path), read_jsonl(test_path), guide_map, glossary, progress)
    return write_jsonl(out, rows)


def write_answers(prompts_file: Path | None, answers: Path, out: Path) -> int:
    """LLM answers (JSONL id, answer) joined to the prompts they answer, written to ``out`` as predictions
    for `eval diner`. Returns how many."""
    from dishgraph.diner.dataset import read_jsonl, write_jsonl
    from dishgraph.diner.prompts import answers_to_predictions

    if not prompts_file:
        raise UsageError("--answers needs --prompts-file (the prompts they answer)")
    rows = answers_to_predictions(read_jsonl(prompts_file), read_jsonl(answers), str(answers))
    write_jsonl(out, rows)
    return len(rows)
