"""`dishgraph eval`: CRG level-1 / level-2 evaluation of generated recipes, and PizzaCommonSense step metrics."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, open_store, print_note, print_warning, progress, rows_table
from dishgraph.commands._options import (
    DataOpt,
    DbOpt,
    DinerGlossaryOpt,
    ExtraGlossaryOpt,
    GlossaryOpt,
    JsonOpt,
    JsonOutOpt,
    ParserOpt,
    SegmenterOpt,
    UriOpt,
)
from dishgraph.commands.ingest import capped_workers
from dishgraph.ingest.crg import SOURCE as RELEASE
from dishgraph.jsonsafe import json_safe

app = typer.Typer(
    help="Evaluate generated recipes (CRG L1/L2, Table 3) and PCS step predictions.",
    no_args_is_help=True,
    cls=DishgraphGroup,
)

BertModelOpt = typer.Option(
    None,
    "--bertscore-model",
    help="BERTScore model: a local directory (or a hub name, which may download it); default "
    "$DISHGRAPH_BERTSCORE_MODEL, else BERTScore is skipped. The paper used bert-base-chinese.",
)
LayersOpt = typer.Option(None, "--num-layers", help="BERTScore layer (default: bert_score's table, else last).")
NoBertOpt = typer.Option(False, "--no-bertscore", help="Skip BERTScore even if a model is named.")
DeviceOpt = typer.Option(None, "--device", help="Torch device for BERTScore (default: cuda if available).")
VectorsOpt = typer.Option(
    "ppmi",
    "--vectors",
    help="Word vectors for soft L2 matching: a word2vec-style text file, or 'ppmi' to "
    "train PPMI-SVD vectors on the base recipes.",
)
PivotsOpt = typer.Option(
    RELEASE,
    "--pivots",
    help=f"Pivot actions: '{RELEASE}' (pivot_actions.json), 'mined' (mined + annotated "
    "PIVOT edges of the graph), or a JSON file in the release format.",
)
ConstraintsOpt = typer.Option(
    None, "--constraints", help="Order constraints JSON (default: the release's order_constraints.json)."
)
LimitOpt = typer.Option(None, "--limit", help="Evaluate only the first N instances (quick checks).")
NoGraphOpt = typer.Option(
    False, "--no-graph", help="Parse base recipes instead of reading their parses from the graph."
)


def _progress(label: str):
    """(progress, advance): a bar whose ``advance(k, total=None)`` the scoring calls after k instances;
    ``prog.phase(text)`` names the stage that runs now beside the label (parsing, segmenting, scoring)."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    prog = progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    task = prog.add_task(label, total=None)
    prog.phase = lambda text: prog.update(task, description=f"{label}: {text}")  # type: ignore[attr-defined]
    return prog, lambda k, total=None: prog.update(task, advance=k, total=total)


def _print_scores(res: dict, title: str) -> None:
    console.print(rows_table([{k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items()}], title))


def _print_table(rows: list[dict], title: str) -> None:
    """Metrics down, models across: the 15 Table-3 columns do not fit a terminal the other way round (with
    many models the common table splits the model columns, the metric column repeated)."""
    from dishgraph.eval.crg import COLUMNS, missing_notes

    models = {f"m{i}": r["model"] for i, r in enumerate(rows)}  # two files may share a stem
    table = [{"metric": header, **{m: r.get(k) for m, r in zip(models, rows)}} for k, header in COLUMNS]
    console.print(rows_table(table, title, headers=models, notes=missing_notes(rows)))


@app.command("l1")
def l1(
    out: Path = typer.Argument(..., help="Generated recipes: 2,500 lines or JSONL {base,target,index,text}."),
    data: str | None = DataOpt,
    bertscore_model: str | None = BertModelOpt,
    num_layers: int | None = LayersOpt,
    no_bertscore: bool = NoBertOpt,
    device: str | None = DeviceOpt,
    segmenter: str = SegmenterOpt,
    limit: int | None = LimitOpt,
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """L1: coverage of the added/replaced ingredient and preservation (BLEU-4, BERTScore) vs the base recipe."""
    from dishgraph.eval.jobs import score_l1

    res = score_l1(
        out,
        data,
        segmenter,
        limit,
        warn=print_warning,
        bertscore=dict(model=bertscore_model, layers=num_layers, device=device, skip=no_bertscore),
    )
    if as_json or json_out:
        emit_json(json_safe(res), json_out)
    if not as_json:
        _print_scores(res, f"CRG L1 — {out.name}")


@app.command("l2")
def l2(
    out: Path = typer.Argument(..., help="Generated recipes: 2,500 lines or JSONL {base,target,index,text}."),
    data: str | None = DataOpt,
    vectors: str = VectorsOpt,
    pivots: str = PivotsOpt,
    constraints: str | None = ConstraintsOpt,
    segmenter: str = SegmenterOpt,
    limit: int | None = LimitOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    no_graph: bool = NoGraphOpt,
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """L2: action-level hard/soft precision, recall, F1 against pivot actions, F1 of insertions/removals,
    order accuracy (CRG's L2_eval logic on our parser)."""
    from dishgraph.eval.jobs import score_l2

    prog, advance = _progress("L2")
    with prog:
        res = score_l2(
            out,
            data,
            vectors=vectors,
            pivots=pivots,
            constraints=constraints,
            segmenter=segmenter,
            limit=limit,
            db=db,
            uri=uri,
            no_graph=no_graph,
            progress=advance,
            note=print_note,
        )
    if as_json or json_out:
        emit_json(json_safe(res), json_out)
    if not as_json:
        _print_scores(res, f"CRG L2 — {out.name}")


@app.command("crg")
def crg(
    outs: list[Path] = typer.Argument(..., help="One or more generated-output files; each is a table row."),
    data: str | None = DataOpt,
    bertscore_model: str | None = BertModelOpt,
    num_layers: int | None = LayersOpt,
    no_bertscore: bool = NoBertOpt,
    device: str | None = DeviceOpt,
    vectors: str = VectorsOpt,
    pivots: str = PivotsOpt,
    constraints: str | None = ConstraintsOpt,
    segmenter: str = SegmenterOpt,
    limit: int | None = LimitOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    no_graph: bool = NoGraphOpt,
    workers: int = typer.Option(
        2,
        "--workers",
        "-w",
        min=1,
        callback=capped_workers,
        help="Processes that parse and segment the outputs (at most twice the cores and what free memory takes).",
    ),
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """The full CRG table (paper Table 3): L1 and L2 for each output file."""
    from dishgraph.eval.jobs import score_crg

    prog, advance = _progress("CRG eval")
    with prog:
        table = score_crg(
            outs,
            data,
            pivots=pivots,
            constraints=constraints,
            limit=limit,
            db=db,
            uri=uri,
            no_graph=no_graph,
            segmenter=segmenter,
            vectors=vectors,
            workers=workers,
            bertscore=dict(model=bertscore_model, layers=num_layers, device=device, skip=no_bertscore),
            note=print_note,
            warn=print_warning,
            progress=advance,
            phase=prog.phase,
        )
    if as_json or json_out:
        emit_json(json_safe(table), json_out)
    if not as_json:
        _print_table(table["rows"], f"CRG evaluation (percentages; L2 on the {pivots} pivot actions)")


@app.command("pcs")
def pcs(
    pred: Path = typer.Argument(
        ..., help="Predictions: `dishgraph pcs predict`'s JSONL (recipe, annotator, row, input, output) or a table."
    ),
    gold: Path = typer.Argument(
        ...,
        help="Gold: a split name (train, val, test: the release in the data directory, as `pcs predict` takes "
        "it), a release split directory or file (the paper's columns), or a flat PCS table.",
    ),
    fields: str = typer.Option("input,output", "--fields", help="Columns to score (flat tables only)."),
    bertscore_model: str | None = typer.Option(
        None, "--bertscore-model", help="BERTScore model (hub name or local dir); off if unset."
    ),
    num_layers: int | None = LayersOpt,
    device: str | None = DeviceOpt,
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """PCS metrics. Against a release split: input EMA / ROUGE-L, output BLEU / ROUGE-L / METEOR (percent,
    docs/pcs.md); against a flat table: exact set match, item F1, ROUGE-L, BLEU-4, METEOR per column."""
    from dishgraph.eval.pcs_paper import evaluate_files
    from dishgraph.eval.text_metrics import BertScoreConfig
    from dishgraph.pcs.tables import PCSFormatError

    with exit_on(ValueError, OSError, PCSFormatError, code=2):
        cfg = BertScoreConfig(model=bertscore_model, num_layers=num_layers, device=device) if bertscore_model else None
        res = evaluate_files(pred, gold, [f.strip() for f in fields.split(",") if f.strip()], cfg)
    if as_json or json_out:
        emit_json(json_safe(res), json_out)
    if not as_json:
        console.print(_pcs_table(res))


def _pcs_table(res: dict):
    if "input_ema" in res:  # the paper's columns: one row
        return rows_table([{k: round(v, 2) if isinstance(v, float) else v for k, v in res.items()}], "PCS (paper)")
    rows = [
        {"field": f, **{k: (round(v, 2) if isinstance(v, float) else v) for k, v in s.items()}}
        for f, s in res.items()
        if isinstance(s, dict)
    ]
    return rows_table(rows, f"PCS metrics — {res['n']} rows")


@app.command("parse-recall")
def parse_recall(
    data: Path | None = DataOpt,
    segmenter: str = SegmenterOpt,
    parser_name: str = ParserOpt,
    glossary: Path | None = GlossaryOpt,
    missed: int = typer.Option(0, help="Also list this many missed pivots."),
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """Recall of the released remove-pivots among proto-actions parsed from each base dish's 50 recipes."""
    from dishgraph import config
    from dishgraph.eval.parse_recall import parse_recall as run
    from dishgraph.ingest.jobs import recipe_parser

    parser = recipe_parser(glossary, parser_name, segmenter, data)
    with progress(disable=as_json, transient=False) as bar:
        task = bar.add_task("parsing base recipes", total=2500)
        res = run(config.data_dir(data) / "counterfactual", parser, progress=lambda n: bar.advance(task, n))
    if json_out:
        emit_json(res.to_dict(), json_out)
    if as_json:
        return emit_json(res.to_dict())
    console.print(
        rows_table(
            [
                {
                    "parser": parser.name,
                    "recall": res.recall,
                    "found": res.found,
                    "pivots": res.total,
                    "recipes with actions": f"{res.recipes_with_actions}/{res.recipes}",
                    "actions/recipe": res.actions_per_recipe,
                    "proto-actions/recipe": res.protos_per_recipe,
                }
            ],
            "parse recall of released remove-pivots",
        )
    )
    if missed:
        console.print(rows_table(res.missed[:missed], "missed pivots"))


@app.command("diner")
def diner(
    predictions: Path = typer.Argument(
        ..., help='JSONL, one {"pred": ..., "gold": ...} per line (or "name" for the gold; optional "form").'
    ),
    split_name: str | None = typer.Option(
        None, "--split", help="Stored split whose test forms give the per-form breakdown."
    ),
    glossary: Path | None = DinerGlossaryOpt,
    extra_glossary: list[str] | None = ExtraGlossaryOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """DiNeR dish-name recognition: component micro-F1, exact match, per type and per generalization form."""
    from dishgraph.diner.jobs import evaluate_predictions, load_glossary

    g = load_glossary(glossary, extra_glossary)
    with exit_on(KeyError, code=1):
        d = evaluate_predictions(predictions, g, split_name, lambda: open_store(db, uri, read_only=True)).to_dict()
    if json_out:
        emit_json(d, json_out)
    if as_json:
        return emit_json(d)
    console.print(
        rows_table(
            [
                {
                    "n": d["n"],
                    "F1 (micro)": d["micro"]["f1"],
                    "P": d["micro"]["precision"],
                    "R": d["micro"]["recall"],
                    "F1 (per-example mean)": d["macro"]["f1"],
                    "EM": d["exact_match"],
                    "unparsable preds": d["unparsable_predictions"],
                    "skipped golds": len(d["skipped"]),
                }
            ],
            "DiNeR dish-name recognition",
        )
    )
    console.print(
        rows_table(
            [
                {"type": t, **{k: c[k] for k in ("f1", "precision", "recall", "n_gold")}}
                for t, c in d["by_type"].items()
            ],
            "per component type",
        )
    )
    console.print(rows_table([{"form": f, **v} for f, v in d["by_form"].items()], "per generalization form"))
    if d["skipped"]:
        console.print(rows_table(d["skipped"], "gold names the glossary cannot parse (not scored)"))
