"""`dishgraph diner`: DiNeR dish-name components, TMCD splits and generalization forms (`eval diner`: eval group)."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, err_console, open_store, progress, rows_table, spinner
from dishgraph.commands._options import DbOpt, JsonOpt, JsonOutOpt, UriOpt
from dishgraph.commands._options import DinerGlossaryOpt as GlossaryOpt
from dishgraph.commands._options import ExtraGlossaryOpt as ExtraOpt

app = typer.Typer(
    help="DiNeR in the graph: parse dish names into food/action/flavour components, build "
    "TMCD splits, classify test dishes by generalization form.",
    no_args_is_help=True,
    cls=DishgraphGroup,
)


def _glossary(path: Path | None, extra: list[str] | None):
    from dishgraph.diner.jobs import load_glossary

    return load_glossary(path, extra)


def _parse_rows(parses) -> list[dict]:
    return [
        {
            "name": p.name,
            "components": " ".join(f"{c.surface}/{c.type}:{c.cluster}" for c in p.components),
            "atoms": len(p.atoms),
            "compounds": len(p.compounds),
        }
        for p in parses
    ]


@app.command()
def parse(
    names: list[str] | None = typer.Argument(None, help="Dish names to parse."),
    names_file: Path | None = typer.Option(
        None, "--names-file", help="Also parse the names in this file (whitespace-separated)."
    ),
    glossary: Path | None = GlossaryOpt,
    extra_glossary: list[str] | None = ExtraOpt,
    as_json: bool = JsonOpt,
):
    """Parse dish names by DiNeR's maximal matching; unparsable names are listed with their remainder."""
    from dishgraph.diner.jobs import names_to_parse
    from dishgraph.diner.names import parse_names

    g = _glossary(glossary, extra_glossary)
    rep = parse_names(names_to_parse(names, names_file), g)
    if as_json:
        return emit_json({**rep.to_dict(), "parses": [p.to_dict() for p in rep.parsed + rep.failed]})
    if rep.parsed:
        console.print(rows_table(_parse_rows(rep.parsed), "parsed"))
    if rep.failed:
        console.print(rows_table(rep.to_dict()["unparsed"], "not parsable with this glossary"))
    console.print(f"{len(rep.parsed)} parsed, {len(rep.failed)} not parsable")


@app.command()
def load(
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    glossary: Path | None = GlossaryOpt,
    extra_glossary: list[str] | None = ExtraOpt,
    as_json: bool = JsonOpt,
):
    """Parse every Dish in the graph and store its Components and Compounds (re-running replaces them)."""
    from dishgraph.diner.graph import store_components

    g = _glossary(glossary, extra_glossary)
    with open_store(db, uri) as store:
        rep = store_components(store, g)
    if as_json:
        return emit_json(rep.to_dict())
    d = rep.to_dict()
    unparsed = d.pop("unparsed")
    console.print(rows_table([d], "dish-name components stored"))
    if unparsed:
        console.print(rows_table(unparsed, "not parsable (no components stored)"))


def _print_split(split, title: str) -> None:
    s = split.summary()
    rows = [
        ("train / test dishes", f"{s['n_train']} / {s['n_test']}"),
        ("compound divergence (a=0.1)", f"{s['divergence']:.4f}"),
        ("atom divergence (a=0.5)", f"{s['atom_divergence']:.4f}"),
        ("divergence after atom balancing", f"{s['initial_divergence']:.4f}"),
        ("test compounds seen in train", f"{s['test_compounds_seen']:.2%}"),
        ("every test atom in train", str(s["atoms_covered"])),
        ("swaps (balancing + search)", f"{s['balance_swaps']} + {s['swaps']}"),
        ("stopped", s["stopped"]),
        ("seed", str(s["seed"])),
        ("seconds", f"{s['seconds']:.3f}"),
    ]
    console.print(rows_table([{"figure": k, "value": v} for k, v in rows], title))


@app.command()
def split(
    name: str = typer.Option("tmcd", "--name", help="Name of the stored split."),
    ratio: float = typer.Option(4.5, "--ratio", help="Train:test size ratio (DiNeR: 4.5)."),
    divergence: float | None = typer.Option(
        0.98,
        "--divergence",
        help="Stop at this compound divergence (DiNeR: 0.6/0.8/0.98); 0 = run until no swap improves.",
    ),
    seed: int = typer.Option(1, "--seed", help="Seed of the initial shuffle."),
    restarts: int = typer.Option(1, "--restarts", help="Try seeds seed..seed+N-1, keep the first reaching the target."),
    max_iterations: int | None = typer.Option(None, "--max-iterations", help="Cap on swaps."),
    method: str = typer.Option("fast", "--method", help="fast (incremental) | naive (recompute)."),
    names_file: Path | None = typer.Option(
        None, "--names-file", help="Split the names in this file instead of the graph's dishes (nothing is stored)."
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write {train: [...], test: [...]} dish names."),
    glossary: Path | None = GlossaryOpt,
    extra_glossary: list[str] | None = ExtraOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """TMCD split of every parsable Dish in the graph (stored as a Split), or of a names file."""
    from dishgraph.diner.jobs import split_dishes

    g = _glossary(glossary, extra_glossary)
    bar, task = spinner(disable=as_json)
    with exit_on(OSError, ValueError, code=1), bar:
        bar.update(task, description="balancing atoms")
        run = split_dishes(
            lambda: open_store(db, uri),
            g,
            name,
            names_file,
            ratio=ratio,
            target_divergence=divergence,
            seed=seed,
            restarts=restarts,
            max_iterations=max_iterations,
            method=method,
            progress=lambda swaps, d: bar.update(task, description=f"swaps {swaps}  divergence {d:.4f}"),
        )
    if out:
        emit_json(run.parts, out)
    if as_json:
        return emit_json(run.summary())
    _print_split(run.result, f"TMCD split {'of ' + str(names_file) if names_file else repr(name)}")
    if run.unparsed:
        console.print(f"{len(run.unparsed)} names not parsable, left out (see `dishgraph diner parse`)")


@app.command()
def forms(
    split_name: str = typer.Argument(..., help="A stored split (see `dishgraph diner splits`)."),
    show: int = typer.Option(0, "--show", help="Also list this many test dishes with their form."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """Count test dishes per generalization form (Seen, Subset, Single, CombTwo, AddOne, RecoTwo, ...)."""
    from dishgraph.diner.forms import forms as run_forms

    with open_store(db, uri, read_only=True) as store, exit_on(KeyError, code=1):
        rep = run_forms(store, split_name)
    if json_out:
        emit_json(rep.to_dict(), json_out)
    if as_json:
        return emit_json(rep.to_dict())
    console.print(
        rows_table([rep.counts], f"generalization forms of the {len(rep.form_of)} test dishes of {split_name!r}")
    )
    if show:
        rows = [{"dish": d, "form": f} for d, f in list(rep.form_of.items())[:show]]
        console.print(rows_table(rows, "test dishes"))


@app.command()
def export(
    split_name: str = typer.Argument(..., help="A stored split."),
    recipes: bool = typer.Option(False, "--recipes", help="Recipe ids (via HAS_RECIPE) instead of dish names."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the JSON here (default: stdout)."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
):
    """Export a split as JSON {train: [...], test: [...]} of dish names or recipe ids."""
    from dishgraph.diner.graph import export_split

    with open_store(db, uri, read_only=True) as store, exit_on(KeyError, code=1):
        parts = export_split(store, split_name, "recipes" if recipes else "dishes")
    emit_json(parts, out)
    if out:
        err_console.print(f"wrote {len(parts['train'])} train / {len(parts['test'])} test to {out}")


@app.command()
def splits(db: str | None = DbOpt, uri: str | None = UriOpt, as_json: bool = JsonOpt):
    """List the stored splits with their divergences."""
    from dishgraph.diner.graph import list_splits, split_info

    with open_store(db, uri, read_only=True) as store:
        rows = [split_info(store, s["name"]) for s in list_splits(store)]
    if as_json:
        return emit_json(rows)
    console.print(rows_table(rows, "splits") if rows else "no splits stored")


@app.command()
def dataset(
    out: Path = typer.Option(
        ...,
        "--out",
        "-o",
        help="Output directory: manifest.json, <split>/train*.jsonl, <split>/test.jsonl (and pretrain.jsonl).",
    ),
    divergence: list[float] | None = typer.Option(
        None,
        "--divergence",
        help="TMCD compound divergence(s) to build; repeatable (default: the paper's 0.98, 0.8 and 0.6).",
    ),
    random_split: bool = typer.Option(True, "--random/--no-random", help="Also build a random split."),
    train_fraction: list[float] | None = typer.Option(
        None,
        "--train-fraction",
        help="Training fractions p in (0, 1] for the controllability study; repeatable (default: 1.0 only).",
    ),
    seed: int = typer.Option(1, "--seed", help="Seed of the splits and subsamples."),
    restarts: int = typer.Option(
        50, "--restarts", help="TMCD greedy restarts (seeds seed..seed+N-1); the most divergent is kept."
    ),
    ratio: float = typer.Option(4.5, "--ratio", help="Train:test dish ratio (DiNeR: 4.5)."),
    prefix: str = typer.Option("diner", "--prefix", help="Stored splits are named PREFIX-tmcd-D and PREFIX-random."),
    pretrain_corpus: bool = typer.Option(
        False,
        "--pretrain-corpus",
        help="Also write pretrain.jsonl: recipes of no dataset dish, "
        "without those whose title contains a dataset dish name.",
    ),
    glossary: Path | None = GlossaryOpt,
    extra_glossary: list[str] | None = ExtraOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Build DiNeR recognition datasets (instructions -> dish name) from the graph's recipes, split by TMCD."""
    from dishgraph.diner.dataset import DIVERGENCES, DatasetConfig, build_dataset

    g = _glossary(glossary, extra_glossary)
    cfg = DatasetConfig(
        out=str(out),
        divergences=tuple(divergence or DIVERGENCES),
        random_split=random_split,
        fractions=tuple(train_fraction or (1.0,)),
        ratio=ratio,
        seed=seed,
        restarts=restarts,
        prefix=prefix,
        pretrain_corpus=pretrain_corpus,
    )
    bar, task = spinner(disable=as_json)
    with exit_on(OSError, ValueError, code=1), bar:
        bar.update(task, description="opening the graph")
        with open_store(db, uri) as store:
            rep = build_dataset(store, g, cfg, lambda msg: bar.update(task, description=msg))
    if as_json:
        return emit_json(rep.to_dict())
    _print_dataset(rep, out)


def _print_dataset(rep, out: Path) -> None:
    console.print(
        f"{rep.examples} examples of {rep.dishes} dishes ({rep.unparsed_dishes} dish names not parsable) -> {out}",
        markup=False,
    )
    console.print(
        rows_table(
            [
                {
                    "split": s["name"],
                    "divergence": round(s["divergence"], 4),
                    "atom cov.": round(s["atom_coverage"], 4),
                    "dishes tr/te": f"{s['train_dishes']}/{s['test_dishes']}",
                    "recipes tr/te": f"{s['train_examples']}/{s['test_examples']}",
                }
                for s in rep.splits
            ],
            "splits (stored in the graph)",
        )
    )
    if rep.pretrain:
        console.print(
            f"pretraining corpus: {rep.pretrain['recipes']} recipes "
            f"({rep.pretrain['excluded_by_title']} left out by the title rule)"
        )


@app.command()
def recognize(
    dataset_dir: Path = typer.Argument(..., help="A `dishgraph diner dataset` output directory."),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Predictions JSONL (the file `eval diner` reads); with --grid: a directory of <split>.p<p>.jsonl files.",
    ),
    split_name: str | None = typer.Option(
        None, "--split", help="Split of the manifest (default: its first, the 0.98 TMCD split)."
    ),
    train_fraction: float = typer.Option(1.0, "--train-fraction", help="Train on this fraction's file."),
    grid: bool = typer.Option(
        False, "--grid", help="Every split x every train fraction of the manifest (the controllability study)."
    ),
    features: str = typer.Option(
        "graph", "--features", help="graph (the action graph only) | text (instruction character n-grams) | graph+text."
    ),
    cluster_model: str = typer.Option(
        "nb", "--cluster-model", help="nb (complement naive Bayes, seconds) | logreg (minutes)."
    ),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        help="Trivial baseline instead of the model: components (most frequent per type) | name (most frequent name).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the classifiers."),
    glossary: Path | None = GlossaryOpt,
    extra_glossary: list[str] | None = ExtraOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Recognize dish names from the recipes' action graphs (scikit-learn, CPU): train on a split's train
    side, predict its test side, write predictions for `eval diner`."""
    from dishgraph.diner.recognizer import run_recognizer

    g = _glossary(glossary, extra_glossary)
    with exit_on(OSError, ValueError, code=1), open_store(db, uri, read_only=True) as store:
        result = run_recognizer(
            store,
            dataset_dir,
            out,
            split=split_name,
            fraction=train_fraction,
            grid=grid,
            features=features,
            cluster_model=cluster_model,
            baseline=baseline,
            seed=seed,
            glossary=g,
        )
    if as_json:
        return emit_json(result)
    console.print(
        rows_table(
            [
                {
                    "split": r["split"],
                    "p": r["p"],
                    "train": r["train_examples"],
                    "test": r["test_examples"],
                    "F1": round(100 * r["f1"], 2),
                    "EM": round(100 * r["exact_match"], 2),
                    "train s": round(r["seconds_train"], 2),
                }
                for r in result["runs"]
            ],
            f"dish-name recognition ({result['model']})",
        )
    )
    if result.get("out"):
        console.print(f"predictions -> {result['out']}", markup=False)


@app.command()
def grid(
    dataset_dir: Path = typer.Argument(..., help="The dataset the predictions belong to (its manifest)."),
    preds_dir: Path = typer.Argument(..., help="Directory of <split>.p<p>.jsonl predictions files."),
    png: Path | None = typer.Option(None, "--png", help="Also plot F1 and EM against p per split."),
    glossary: Path | None = GlossaryOpt,
    extra_glossary: list[str] | None = ExtraOpt,
    as_json: bool = JsonOpt,
):
    """The controllability grid (divergence x training fraction p) of a model's predictions: table and PNG."""
    from dishgraph.diner.dataset import load_manifest
    from dishgraph.diner.grid import grid_table, plot_grid, score_grid

    g = _glossary(glossary, extra_glossary)
    with exit_on(OSError, ValueError, code=1):
        rows = score_grid(preds_dir, load_manifest(dataset_dir), g)
        if png:
            plot_grid(rows, png)
    if as_json:
        return emit_json({"cells": rows, "f1": grid_table(rows, "f1"), "exact_match": grid_table(rows, "exact_match")})
    console.print(rows_table(grid_table(rows, "f1"), "component F1 (%) by divergence x p"))
    console.print(rows_table(grid_table(rows, "exact_match"), "exact match (%) by divergence x p"))
    if png:
        console.print(f"plot -> {png}", markup=False)


@app.command()
def prompts(
    dataset_dir: Path = typer.Argument(..., help="A `dishgraph diner dataset` output directory."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Prompts JSONL (with --answers: the predictions JSONL for `eval diner`)."
    ),
    split_name: str | None = typer.Option(None, "--split", help="Split of the manifest (default: its first)."),
    train_fraction: float = typer.Option(
        1.0, "--train-fraction", help="Draw exemplars from this fraction's training file."
    ),
    guide: Path | None = typer.Option(
        None,
        "--guide",
        help="Predictions JSONL (id, pred) whose components pick exemplars by F1, e.g. `diner recognize` output.",
    ),
    answers: Path | None = typer.Option(
        None,
        "--answers",
        help="Read LLM answers (JSONL id, answer) for the prompts of --prompts-file and write predictions to --out.",
    ),
    prompts_file: Path | None = typer.Option(None, "--prompts-file", help="The prompts the answers belong to."),
    glossary: Path | None = GlossaryOpt,
    extra_glossary: list[str] | None = ExtraOpt,
):
    """LLM prompts with two selective demonstrations per test recipe (component F1 + BM25); read answers back."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn

    from dishgraph.diner.jobs import write_answers, write_prompts

    if answers:
        with exit_on(OSError, ValueError, code=1):
            n = write_answers(prompts_file, answers, out)
        return console.print(f"{n} predictions -> {out} (score with `dishgraph eval diner {out}`)", markup=False)
    g = _glossary(glossary, extra_glossary)
    with (
        exit_on(OSError, ValueError, code=1),
        progress(TextColumn("choosing demonstrations"), BarColumn(), MofNCompleteColumn()) as bar,
    ):
        task = bar.add_task("prompts", total=None)
        n = write_prompts(
            dataset_dir,
            out,
            g,
            split_name,
            train_fraction,
            guide,
            lambda done, total: bar.update(task, completed=done, total=total),
        )
    console.print(
        f"{n} prompts -> {out}; send each 'prompt' to an LLM, save JSONL {{id, answer}}, then "
        f"`dishgraph diner prompts DATASET --prompts-file {out} --answers ANSWERS --out preds.jsonl`",
        markup=False,
    )
