"""`dishgraph diner`: DiNeR dish-name components, TMCD splits and generalization forms; `dishgraph eval diner`."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, JsonOutOpt, UriOpt, console, emit_json, err_console, print_error,
                                        open_store, rows_table)

app = typer.Typer(help="DiNeR in the graph: parse dish names into food/action/flavour components, build "
                       "TMCD splits, classify test dishes by generalization form.", no_args_is_help=True)

GlossaryOpt = typer.Option(None, "--glossary", help="DiNeR glossary JSON (default: data/diner/glossary.json).")
ExtraOpt = typer.Option(None, "--extra-glossary",
                        help="Extra entries in the same JSON shape ({food|action|flavour: {surface: cluster}}); "
                             "repeatable. `--extra-glossary shipped` uses dishgraph/diner/extra_glossary.json.")


def _glossary(path: Optional[Path], extra: Optional[List[str]]):
    from dishgraph.diner.names import EXTRA_GLOSSARY, DinerGlossary

    extras = [EXTRA_GLOSSARY if e == "shipped" else Path(e) for e in (extra or [])]
    try:
        return DinerGlossary.load(path, extras)
    except (OSError, ValueError) as e:
        print_error(str(e))
        raise typer.Exit(2)


def _parse_rows(parses) -> list[dict]:
    return [{"name": p.name, "components": " ".join(f"{c.surface}/{c.type}:{c.cluster}" for c in p.components),
             "atoms": len(p.atoms), "compounds": len(p.compounds)} for p in parses]


@app.command()
def parse(names: Optional[List[str]] = typer.Argument(None, help="Dish names to parse."),
          names_file: Optional[Path] = typer.Option(None, "--names-file",
                                                    help="Also parse the names in this file (whitespace-separated)."),
          glossary: Optional[Path] = GlossaryOpt, extra_glossary: Optional[List[str]] = ExtraOpt,
          as_json: bool = JsonOpt):
    """Parse dish names by DiNeR's maximal matching; unparsable names are listed with their remainder."""
    from dishgraph.diner.names import parse_names, read_names

    g = _glossary(glossary, extra_glossary)
    try:
        todo = list(names or []) + (read_names(names_file) if names_file else [])
    except (OSError, ValueError) as e:
        print_error(str(e))
        raise typer.Exit(2)
    if not todo:
        print_error("give dish names or --names-file")
        raise typer.Exit(2)
    rep = parse_names(todo, g)
    if as_json:
        return emit_json({**rep.to_dict(), "parses": [p.to_dict() for p in rep.parsed + rep.failed]})
    if rep.parsed:
        console.print(rows_table(_parse_rows(rep.parsed), "parsed"))
    if rep.failed:
        console.print(rows_table(rep.to_dict()["unparsed"], "not parsable with this glossary"))
    console.print(f"{len(rep.parsed)} parsed, {len(rep.failed)} not parsable")


@app.command()
def load(db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, glossary: Optional[Path] = GlossaryOpt,
         extra_glossary: Optional[List[str]] = ExtraOpt, as_json: bool = JsonOpt):
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
    rows = [("train / test dishes", f"{s['n_train']} / {s['n_test']}"),
            ("compound divergence (a=0.1)", f"{s['divergence']:.4f}"),
            ("atom divergence (a=0.5)", f"{s['atom_divergence']:.4f}"),
            ("divergence after atom balancing", f"{s['initial_divergence']:.4f}"),
            ("test compounds seen in train", f"{s['test_compounds_seen']:.2%}"),
            ("every test atom in train", str(s["atoms_covered"])),
            ("swaps (balancing + search)", f"{s['balance_swaps']} + {s['swaps']}"),
            ("stopped", s["stopped"]), ("seed", str(s["seed"])), ("seconds", f"{s['seconds']:.3f}")]
    console.print(rows_table([{"figure": k, "value": v} for k, v in rows], title))


@app.command()
def split(name: str = typer.Option("tmcd", "--name", help="Name of the stored split."),
          ratio: float = typer.Option(4.5, "--ratio", help="Train:test size ratio (DiNeR: 4.5)."),
          divergence: Optional[float] = typer.Option(0.98, "--divergence",
                                                     help="Stop at this compound divergence (DiNeR: 0.6/0.8/0.98); "
                                                          "0 = run until no swap improves."),
          seed: int = typer.Option(1, "--seed", help="Seed of the initial shuffle."),
          restarts: int = typer.Option(1, "--restarts",
                                       help="Try seeds seed..seed+N-1, keep the first reaching the target."),
          max_iterations: Optional[int] = typer.Option(None, "--max-iterations", help="Cap on swaps."),
          method: str = typer.Option("fast", "--method", help="fast (incremental) | naive (recompute)."),
          names_file: Optional[Path] = typer.Option(None, "--names-file",
                                                    help="Split the names in this file instead of the graph's "
                                                         "dishes (nothing is stored)."),
          out: Optional[Path] = typer.Option(None, "--out", help="Write {train: [...], test: [...]} dish names."),
          glossary: Optional[Path] = GlossaryOpt, extra_glossary: Optional[List[str]] = ExtraOpt,
          db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """TMCD split of every parsable Dish in the graph (stored as a Split), or of a names file."""
    from rich.progress import Progress, SpinnerColumn, TextColumn

    from dishgraph.diner.graph import export_split, split_graph, split_parses, store_components
    from dishgraph.diner.names import parse_names, read_names

    g = _glossary(glossary, extra_glossary)
    divergence = divergence if divergence and divergence > 0 else None
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=err_console,
                  disable=as_json, transient=True) as bar:
        task = bar.add_task("balancing atoms", total=None)

        def tick(swaps: int, d: float) -> None:
            bar.update(task, description=f"swaps {swaps}  divergence {d:.4f}")

        try:
            if names_file:
                rep = parse_names(read_names(names_file), g)
                unparsed = rep.to_dict()["unparsed"]
                result = split_parses(rep.parsed, ratio=ratio, target_divergence=divergence, seed=seed,
                                      restarts=restarts, max_iterations=max_iterations, method=method, progress=tick)
                parts = {"train": result.train_names, "test": result.test_names}
            else:
                with open_store(db, uri) as store:
                    unparsed = store_components(store, g).unparsed
                    result = split_graph(store, name, ratio=ratio, target_divergence=divergence, seed=seed,
                                         restarts=restarts, max_iterations=max_iterations, method=method,
                                         progress=tick)
                    parts = export_split(store, name)
        except (OSError, ValueError) as e:
            print_error(str(e))
            raise typer.Exit(1)
    if out:
        emit_json(parts, out)
    summary = {**result.summary(), "name": None if names_file else name, "unparsed": len(unparsed)}
    if as_json:
        return emit_json(summary)
    _print_split(result, f"TMCD split {'of ' + str(names_file) if names_file else repr(name)}")
    if unparsed:
        console.print(f"{len(unparsed)} names not parsable, left out (see `dishgraph diner parse`)")


@app.command()
def forms(split_name: str = typer.Argument(..., help="A stored split (see `dishgraph diner splits`)."),
          show: int = typer.Option(0, "--show", help="Also list this many test dishes with their form."),
          db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt,
          json_out: Optional[Path] = JsonOutOpt):
    """Count test dishes per generalization form (Seen, Subset, Single, CombTwo, AddOne, RecoTwo, ...)."""
    from dishgraph.diner.forms import forms as run_forms

    with open_store(db, uri, read_only=True) as store:
        try:
            rep = run_forms(store, split_name)
        except KeyError as e:
            print_error(f"{e.args[0]}")
            raise typer.Exit(1)
    if json_out:
        emit_json(rep.to_dict(), json_out)
    if as_json:
        return emit_json(rep.to_dict())
    console.print(rows_table([rep.counts], f"generalization forms of the {len(rep.form_of)} test dishes of "
                                           f"{split_name!r}"))
    if show:
        rows = [{"dish": d, "form": f} for d, f in list(rep.form_of.items())[:show]]
        console.print(rows_table(rows, "test dishes"))


@app.command()
def export(split_name: str = typer.Argument(..., help="A stored split."),
           recipes: bool = typer.Option(False, "--recipes", help="Recipe ids (via HAS_RECIPE) instead of dish names."),
           out: Optional[Path] = typer.Option(None, "--out", help="Write the JSON here (default: stdout)."),
           db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt):
    """Export a split as JSON {train: [...], test: [...]} of dish names or recipe ids."""
    from dishgraph.diner.graph import export_split

    with open_store(db, uri, read_only=True) as store:
        try:
            parts = export_split(store, split_name, "recipes" if recipes else "dishes")
        except KeyError as e:
            print_error(f"{e.args[0]}")
            raise typer.Exit(1)
    emit_json(parts, out)
    if out:
        err_console.print(f"wrote {len(parts['train'])} train / {len(parts['test'])} test to {out}")


@app.command()
def splits(db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """List the stored splits with their divergences."""
    from dishgraph.diner.graph import list_splits, split_info

    with open_store(db, uri, read_only=True) as store:
        rows = [split_info(store, s["name"]) for s in list_splits(store)]
    if as_json:
        return emit_json(rows)
    console.print(rows_table(rows, "splits") if rows else "no splits stored")


@app.command()
def dataset(out: Path = typer.Option(..., "--out", help="Output directory: manifest.json, <split>/train*.jsonl, "
                                                       "<split>/test.jsonl (and pretrain.jsonl)."),
            divergence: Optional[List[float]] = typer.Option(None, "--divergence",
                                                             help="TMCD compound divergence(s) to build; repeatable "
                                                                  "(default: the paper's 0.98, 0.8 and 0.6)."),
            random_split: bool = typer.Option(True, "--random/--no-random", help="Also build a random split."),
            train_fraction: Optional[List[float]] = typer.Option(None, "--train-fraction",
                                                                 help="Training fractions p in (0, 1] for the "
                                                                      "controllability study; repeatable "
                                                                      "(default: 1.0 only)."),
            seed: int = typer.Option(1, "--seed", help="Seed of the splits and subsamples."),
            restarts: int = typer.Option(50, "--restarts", help="TMCD greedy restarts (seeds seed.."
                                                                "seed+N-1); the most divergent is kept."),
            ratio: float = typer.Option(4.5, "--ratio", help="Train:test dish ratio (DiNeR: 4.5)."),
            prefix: str = typer.Option("diner", "--prefix", help="Stored splits are named PREFIX-tmcd-D and "
                                                                 "PREFIX-random."),
            pretrain_corpus: bool = typer.Option(False, "--pretrain-corpus",
                                                 help="Also write pretrain.jsonl: recipes of no dataset dish, "
                                                      "without those whose title contains a dataset dish name."),
            glossary: Optional[Path] = GlossaryOpt, extra_glossary: Optional[List[str]] = ExtraOpt,
            db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """Build DiNeR recognition datasets (instructions -> dish name) from the graph's recipes, split by TMCD."""
    from rich.progress import Progress, SpinnerColumn, TextColumn

    from dishgraph.diner.dataset import DIVERGENCES, DatasetConfig, build_dataset

    g = _glossary(glossary, extra_glossary)
    cfg = DatasetConfig(out=str(out), divergences=tuple(divergence or DIVERGENCES), random_split=random_split,
                        fractions=tuple(train_fraction or (1.0,)), ratio=ratio, seed=seed, restarts=restarts,
                        prefix=prefix, pretrain_corpus=pretrain_corpus)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=err_console,
                  disable=as_json, transient=True) as bar:
        task = bar.add_task("opening the graph", total=None)
        try:
            with open_store(db, uri) as store:
                rep = build_dataset(store, g, cfg, lambda msg: bar.update(task, description=msg))
        except (OSError, ValueError) as e:
            print_error(str(e))
            raise typer.Exit(1)
    if as_json:
        return emit_json(rep.to_dict())
    console.print(f"{rep.examples} examples of {rep.dishes} dishes ({rep.unparsed_dishes} dish names not parsable) "
                  f"-> {out}", markup=False)
    console.print(rows_table([{"split": s["name"], "divergence": round(s["divergence"], 4),
                               "atom cov.": round(s["atom_coverage"], 4),
                               "dishes tr/te": f"{s['train_dishes']}/{s['test_dishes']}",
                               "recipes tr/te": f"{s['train_examples']}/{s['test_examples']}"}
                              for s in rep.splits], "splits (stored in the graph)"))
    if rep.pretrain:
        console.print(f"pretraining corpus: {rep.pretrain['recipes']} recipes "
                      f"({rep.pretrain['excluded_by_title']} left out by the title rule)")


def _fail(e: Exception, code: int = 1):
    print_error(str(e))
    raise typer.Exit(code)


@app.command()
def recognize(dataset_dir: Path = typer.Argument(..., help="A `dishgraph diner dataset` output directory."),
              out: Optional[Path] = typer.Option(None, "--out", help="Predictions JSONL (the file `eval diner` "
                                                                    "reads); with --grid: a directory of "
                                                                    "<split>.p<p>.jsonl files."),
              split_name: Optional[str] = typer.Option(None, "--split", help="Split of the manifest (default: its "
                                                                             "first, the 0.98 TMCD split)."),
              train_fraction: float = typer.Option(1.0, "--train-fraction", help="Train on this fraction's file."),
              grid: bool = typer.Option(False, "--grid", help="Every split x every train fraction of the "
                                                              "manifest (the controllability study)."),
              features: str = typer.Option("graph", "--features", help="graph (the action graph only) | text "
                                                                       "(instruction character n-grams) | "
                                                                       "graph+text."),
              cluster_model: str = typer.Option("nb", "--cluster-model", help="nb (complement naive Bayes, "
                                                                              "seconds) | logreg (minutes)."),
              baseline: Optional[str] = typer.Option(None, "--baseline", help="Trivial baseline instead of the "
                                                                              "model: components (most frequent "
                                                                              "per type) | name (most frequent "
                                                                              "name)."),
              seed: int = typer.Option(0, "--seed", help="Seed of the classifiers."),
              glossary: Optional[Path] = GlossaryOpt, extra_glossary: Optional[List[str]] = ExtraOpt,
              db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """Recognize dish names from the recipes' action graphs (scikit-learn, CPU): train on a split's train
    side, predict its test side, write predictions for `eval diner`."""
    from dishgraph.diner.recognizer import run_recognizer

    g = _glossary(glossary, extra_glossary)
    try:
        with open_store(db, uri, read_only=True) as store:
            result = run_recognizer(store, dataset_dir, out, split=split_name, fraction=train_fraction, grid=grid,
                                    features=features, cluster_model=cluster_model, baseline=baseline, seed=seed,
                                    glossary=g)
    except (OSError, ValueError) as e:
        _fail(e)
    if as_json:
        return emit_json(result)
    console.print(rows_table([{"split": r["split"], "p": r["p"], "train": r["train_examples"],
                               "test": r["test_examples"], "F1": round(100 * r["f1"], 2),
                               "EM": round(100 * r["exact_match"], 2), "train s": round(r["seconds_train"], 2)}
                              for r in result["runs"]], f"dish-name recognition ({result['model']})"))
    if result.get("out"):
        console.print(f"predictions -> {result['out']}", markup=False)


@app.command()
def grid(dataset_dir: Path = typer.Argument(..., help="The dataset the predictions belong to (its manifest)."),
         preds_dir: Path = typer.Argument(..., help="Directory of <split>.p<p>.jsonl predictions files."),
         png: Optional[Path] = typer.Option(None, "--png", help="Also plot F1 and EM against p per split."),
         glossary: Optional[Path] = GlossaryOpt, extra_glossary: Optional[List[str]] = ExtraOpt,
         as_json: bool = JsonOpt):
    """The controllability grid (divergence x training fraction p) of a model's predictions: table and PNG."""
    from dishgraph.diner.dataset import load_manifest
    from dishgraph.diner.grid import grid_table, plot_grid, score_grid

    g = _glossary(glossary, extra_glossary)
    try:
        rows = score_grid(preds_dir, load_manifest(dataset_dir), g)
        if png:
            plot_grid(rows, png)
    except (OSError, ValueError) as e:
        _fail(e)
    if as_json:
        return emit_json({"cells": rows, "f1": grid_table(rows, "f1"), "exact_match": grid_table(rows, "exact_match")})
    console.print(rows_table(grid_table(rows, "f1"), "component F1 (%) by divergence x p"))
    console.print(rows_table(grid_table(rows, "exact_match"), "exact match (%) by divergence x p"))
    if png:
        console.print(f"plot -> {png}", markup=False)


@app.command()
def prompts(dataset_dir: Path = typer.Argument(..., help="A `dishgraph diner dataset` output directory."),
            out: Path = typer.Option(..., "--out", help="Prompts JSONL (with --answers: the predictions JSONL "
                                                        "for `eval diner`)."),
            split_name: Optional[str] = typer.Option(None, "--split", help="Split of the manifest (default: its "
                                                                           "first)."),
            train_fraction: float = typer.Option(1.0, "--train-fraction", help="Draw exemplars from this "
                                                                               "fraction's training file."),
            guide: Optional[Path] = typer.Option(None, "--guide", help="Predictions JSONL (id, pred) whose "
                                                                       "components pick exemplars by F1, e.g. "
                                                                       "`diner recognize` output."),
            answers: Optional[Path] = typer.Option(None, "--answers", help="Read LLM answers (JSONL id, answer) "
                                                                           "for the prompts of --prompts-file and "
                                                                           "write predictions to --out."),
            prompts_file: Optional[Path] = typer.Option(None, "--prompts-file", help="The prompts the answers "
                                                                                     "belong to."),
            glossary: Optional[Path] = GlossaryOpt, extra_glossary: Optional[List[str]] = ExtraOpt):
    """LLM prompts with two selective demonstrations per test recipe (component F1 + BM25); read answers back."""
    from dishgraph.diner.dataset import read_jsonl, split_files, write_jsonl
    from dishgraph.diner.prompts import answers_to_predictions, build_prompts

    try:
        if answers:
            if not prompts_file:
                _fail(ValueError("--answers needs --prompts-file (the prompts they answer)"), 2)
            rows = answers_to_predictions(read_jsonl(prompts_file), read_jsonl(answers), str(answers))
            write_jsonl(out, rows)
            console.print(f"{len(rows)} predictions -> {out} (score with `dishgraph eval diner {out}`)", markup=False)
            return
        g = _glossary(glossary, extra_glossary)
        train_path, test_path, _ = split_files(dataset_dir, split_name, train_fraction)
        guide_map = None
        if guide:
            guide_map = {r["id"]: r["pred"] for r in read_jsonl(guide) if isinstance(r.get("id"), str)
                         and isinstance(r.get("pred"), str)}
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(TextColumn("choosing demonstrations"), BarColumn(), MofNCompleteColumn(),
                      console=err_console, transient=True) as bar:
            task = bar.add_task("prompts", total=None)
            rows = build_prompts(read_jsonl(train_path), read_jsonl(test_path), guide_map, g,
                                 lambda n, total: bar.update(task, completed=n, total=total))
        write_jsonl(out, rows)
    except (OSError, ValueError) as e:
        _fail(e)
    console.print(f"{len(rows)} prompts -> {out}; send each 'prompt' to an LLM, save JSONL {{id, answer}}, then "
                  f"`dishgraph diner prompts DATASET --prompts-file {out} --answers ANSWERS --out preds.jsonl`",
                  markup=False)


def eval_diner(predictions: Path = typer.Argument(..., help="JSONL, one {\"pred\": ..., \"gold\": ...} per line "
                                                            "(or \"name\" for the gold; optional \"form\")."),
               split_name: Optional[str] = typer.Option(None, "--split",
                                                        help="Stored split whose test forms give the per-form "
                                                             "breakdown."),
               glossary: Optional[Path] = GlossaryOpt, extra_glossary: Optional[List[str]] = ExtraOpt,
               db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt,
               json_out: Optional[Path] = JsonOutOpt):
    """DiNeR dish-name recognition: component micro-F1, exact match, per type and per generalization form."""
    from dishgraph.diner.metrics import evaluate_file

    g = _glossary(glossary, extra_glossary)
    form_of = None
    if split_name:
        from dishgraph.diner.forms import forms as run_forms

        with open_store(db, uri, read_only=True) as store:
            try:
                form_of = run_forms(store, split_name).form_of
            except KeyError as e:
                print_error(f"{e.args[0]}")
                raise typer.Exit(1)
    try:
        scores = evaluate_file(predictions, g, form_of)
    except (OSError, ValueError) as e:
        print_error(str(e))
        raise typer.Exit(2)
    d = scores.to_dict()
    if json_out:
        emit_json(d, json_out)
    if as_json:
        return emit_json(d)
    console.print(rows_table([{"n": d["n"], "F1 (micro)": d["micro"]["f1"], "P": d["micro"]["precision"],
                               "R": d["micro"]["recall"], "F1 (per-example mean)": d["macro"]["f1"],
                               "EM": d["exact_match"], "unparsable preds": d["unparsable_predictions"],
                               "skipped golds": len(d["skipped"])}], "DiNeR dish-name recognition"))
    console.print(rows_table([{"type": t, **{k: c[k] for k in ("f1", "precision", "recall", "n_gold")}}
                              for t, c in d["by_type"].items()], "per component type"))
    console.print(rows_table([{"form": f, **v} for f, v in d["by_form"].items()], "per generalization form"))
    if d["skipped"]:
        console.print(rows_table(d["skipped"], "gold names the glossary cannot parse (not scored)"))


eval_diner.__name__ = "diner"  # typer names the command after the function: `dishgraph eval diner`
EXTRA = {"eval": [eval_diner]}
