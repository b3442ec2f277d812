"""`dishgraph eval`: CRG level-1 / level-2 evaluation of generated recipes, and PizzaCommonSense step metrics."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, JsonOutOpt, UriOpt, console, emit_json, err_console, print_error, print_note, print_warning,
                                        rows_table)
from dishgraph.jsonsafe import json_safe

app = typer.Typer(help="Evaluate generated recipes (CRG L1/L2, Table 3) and PCS step predictions.",
                  no_args_is_help=True)

DataOpt = typer.Option(None, "--data", help="Data directory (the one holding counterfactual/); default: auto.")
BertModelOpt = typer.Option(None, "--bertscore-model",
                            help="BERTScore model: hub name or local directory (default bert-base-chinese; "
                                 "skipped with a warning if it cannot be loaded).")
LayersOpt = typer.Option(None, "--num-layers", help="BERTScore layer (default: bert_score's table, else last).")
NoBertOpt = typer.Option(False, "--no-bertscore", help="Skip BERTScore.")
DeviceOpt = typer.Option(None, "--device", help="Torch device for BERTScore (default: cuda if available).")
VectorsOpt = typer.Option("ppmi", "--vectors",
                          help="Word vectors for soft L2 matching: a word2vec-style text file, or 'ppmi' to "
                               "train PPMI-SVD vectors on the base recipes.")
PivotsOpt = typer.Option("crg-release", "--pivots",
                         help="Pivot actions: 'crg-release' (pivot_actions.json), 'mined' (mined + annotated "
                              "PIVOT edges of the graph), or a JSON file in the release format.")
ConstraintsOpt = typer.Option(None, "--constraints",
                              help="Order constraints JSON (default: the release's order_constraints.json).")
LimitOpt = typer.Option(None, "--limit", help="Evaluate only the first N instances (quick checks).")
SegOpt = typer.Option("auto", "--segmenter", help="Word segmenter for BLEU, parsing and vectors: lac, jieba, auto.")


def _bertscore_config(model: Optional[str], layers: Optional[int], device: Optional[str], skip: bool):
    """A loadable BERTScore config, or None (skipped, or the default model is not available offline)."""
    from dishgraph.eval.text_metrics import DEFAULT_BERTSCORE_MODEL, BertScoreConfig, load_bertscore

    if skip:
        return None
    cfg = BertScoreConfig(model=model or DEFAULT_BERTSCORE_MODEL, num_layers=layers, device=device)
    try:
        load_bertscore(cfg)
    except (OSError, ValueError) as e:
        if model:
            print_error(f"cannot load BERTScore model {model!r}: {e}")
            raise typer.Exit(2)
        print_warning(f"BERTScore skipped: {cfg.model} is not available "
                          "(pass --bertscore-model DIR for a local copy, or --no-bertscore).")
        return None
    return cfg


NoGraphOpt = typer.Option(False, "--no-graph", help="Parse base recipes instead of reading their parses from the graph.")


def _open_graph(db: Optional[str], uri: Optional[str], needed: bool):
    """The ingested graph (read-only), or None when there is none or it cannot be opened and is not needed."""
    from dishgraph import config
    from dishgraph.graph.factory import open_store

    if not uri and not config.server_uri() and not config.db_path(db).exists():
        if needed:
            _fail(ValueError(f"no graph database at {config.db_path(db)} (run `dishgraph ingest counterfactual`)"))
        return None
    try:
        return open_store(uri=uri, db=db, read_only=True)
    except Exception as e:  # in use by a writer, unreachable server: parse instead unless the graph is needed
        if needed:
            _fail(e)
        print_note(f"graph not used ({e}); parsing base recipes instead.")
        return None


def _base_cache(store, glossary) -> Optional[dict]:
    """Base-recipe parses from the graph (None, with a note, if the graph has none)."""
    from dishgraph.eval.graph_cache import base_parses

    if store is None:
        return None
    cache = base_parses(store, glossary.ingredient, note=print_note)
    if not cache:
        print_note("no parsed base recipes in the graph; parsing them instead.")
        return None
    return cache


def _reference(data: Optional[str], pivots: str, constraints: Optional[str], store=None):
    from dishgraph.eval.l2 import L2Reference, _read_json
    from dishgraph.eval.outputs import crg_dir

    d = crg_dir(data)
    if pivots == "mined":
        from dishgraph.eval.graph_cache import graph_pivots

        piv = graph_pivots(store)
        if not any(piv.values()):
            _fail(ValueError("no mined pivots in the graph (run `dishgraph pivots mine --all` first)"))
        cons_path = Path(constraints) if constraints else d / "order_constraints.json"
        return L2Reference.from_data(piv, _read_json(cons_path) if cons_path.exists() else {})
    if pivots == "crg-release" and not constraints:
        return L2Reference.from_release(d)
    piv_path = d / "pivot_actions.json" if pivots == "crg-release" else Path(pivots)
    cons_path = Path(constraints) if constraints else d / "order_constraints.json"
    return L2Reference.from_data(_read_json(piv_path), _read_json(cons_path) if cons_path.exists() else {})


def _graph_knowledge(data, pivots: str, constraints, glossary, db, uri, no_graph: bool):
    """(L2 reference, base-recipe parses) with the graph opened only as long as needed."""
    store = None if no_graph and pivots != "mined" else _open_graph(db, uri, needed=pivots == "mined")
    try:
        return _reference(data, pivots, constraints, store), (None if no_graph else _base_cache(store, glossary))
    except (ValueError, FileNotFoundError) as e:
        _fail(e)
    finally:
        if store is not None:
            store.close()


def _fail(e: Exception) -> None:
    print_error(f"{e}")
    raise typer.Exit(2)


def _progress(total: int, label: str):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    prog = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err_console, transient=True)
    return prog, prog.add_task(label, total=total)


def _print_table(rows: list[dict], title: str) -> None:
    """Metrics down, models across: the 15 Table-3 columns do not fit a terminal the other way round (with
    many models the common table splits the model columns, the metric column repeated)."""
    from dishgraph.eval.crg import COLUMNS, missing_notes

    models = {f"m{i}": r["model"] for i, r in enumerate(rows)}  # two files may share a stem
    table = [{"metric": header, **{m: r.get(k) for m, r in zip(models, rows)}} for k, header in COLUMNS]
    console.print(rows_table(table, title, headers=models, notes=missing_notes(rows)))


@app.command("l1")
def l1(out: Path = typer.Argument(..., help="Generated recipes: 2,500 lines or JSONL {base,target,index,text}."),
       data: Optional[str] = DataOpt, bertscore_model: Optional[str] = BertModelOpt,
       num_layers: Optional[int] = LayersOpt, no_bertscore: bool = NoBertOpt, device: Optional[str] = DeviceOpt,
       segmenter: str = SegOpt, limit: Optional[int] = LimitOpt, as_json: bool = JsonOpt,
       json_out: Optional[Path] = JsonOutOpt):
    """L1: coverage of the added/replaced ingredient and preservation (BLEU-4, BERTScore) vs the base recipe."""
    from dishgraph.eval.l1 import evaluate_l1
    from dishgraph.eval.outputs import load_instances, read_outputs
    from dishgraph.eval.text_metrics import default_segmenter, memoize

    try:
        instances = load_instances(data)
        outputs = read_outputs(out, instances)[:limit]
        instances = instances[:limit]
    except (ValueError, FileNotFoundError) as e:
        _fail(e)
    cfg = _bertscore_config(bertscore_model, num_layers, device, no_bertscore)
    res = evaluate_l1(outputs, instances, memoize(default_segmenter(segmenter)), cfg, with_bertscore=cfg is not None)
    if as_json or json_out:
        emit_json(json_safe(res), json_out)
    if not as_json:
        console.print(rows_table([{k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items()}],
                                 f"CRG L1 — {out.name}"))


@app.command("l2")
def l2(out: Path = typer.Argument(..., help="Generated recipes: 2,500 lines or JSONL {base,target,index,text}."),
       data: Optional[str] = DataOpt, vectors: str = VectorsOpt, pivots: str = PivotsOpt,
       constraints: Optional[str] = ConstraintsOpt, segmenter: str = SegOpt, limit: Optional[int] = LimitOpt,
       db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, no_graph: bool = NoGraphOpt,
       as_json: bool = JsonOpt, json_out: Optional[Path] = JsonOutOpt):
    """L2: action-level hard/soft precision, recall, F1 against pivot actions, F1 of insertions/removals,
    order accuracy (CRG's L2_eval logic on our parser)."""
    from dishgraph.eval.crg import corpus_vectors, default_parse
    from dishgraph.eval.embeddings import PhraseEmbedder
    from dishgraph.eval.l2 import evaluate_l2
    from dishgraph.eval.outputs import crg_dir, load_instances, read_outputs
    from dishgraph.eval.text_metrics import default_segmenter, memoize, warm_from_disk
    from dishgraph.ingest.glossary import Glossary

    try:
        instances = load_instances(data)
        outputs = read_outputs(out, instances)[:limit]
        instances = instances[:limit]
        glossary = Glossary.load(crg_dir(data) / "glossary.json")
    except (ValueError, FileNotFoundError) as e:
        _fail(e)
    reference, cache = _graph_knowledge(data, pivots, constraints, glossary, db, uri, no_graph)
    seg = memoize(default_segmenter(segmenter, glossary))
    warm_from_disk(seg, [i.base_recipe for i in instances], segmenter)  # base tokens persist between runs
    try:
        wv = corpus_vectors(instances, seg, vectors)
    except (ValueError, FileNotFoundError) as e:
        _fail(e)
    table = glossary.ingredient
    prog, task = _progress(len(instances), "L2")
    with prog:
        res = evaluate_l2(outputs, instances, default_parse(glossary, segmenter), reference,
                          PhraseEmbedder(wv, seg).similarity, lambda s: table.get(s, s), parse_cache=cache,
                          progress=lambda k: prog.advance(task, k))
    if as_json or json_out:
        emit_json(json_safe(res), json_out)
    if not as_json:
        console.print(rows_table([{k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items()}],
                                 f"CRG L2 — {out.name}"))


@app.command("crg")
def crg(outs: list[Path] = typer.Argument(..., help="One or more generated-output files; each is a table row."),
        data: Optional[str] = DataOpt, bertscore_model: Optional[str] = BertModelOpt,
        num_layers: Optional[int] = LayersOpt, no_bertscore: bool = NoBertOpt, device: Optional[str] = DeviceOpt,
        vectors: str = VectorsOpt, pivots: str = PivotsOpt, constraints: Optional[str] = ConstraintsOpt,
        segmenter: str = SegOpt, limit: Optional[int] = LimitOpt, db: Optional[str] = DbOpt,
        uri: Optional[str] = UriOpt, no_graph: bool = NoGraphOpt,
        workers: int = typer.Option(2, "--workers", "-w", help="Processes that parse and segment the outputs."),
        as_json: bool = JsonOpt, json_out: Optional[Path] = JsonOutOpt):
    """The full CRG table (paper Table 3): L1 and L2 for each output file."""
    from dishgraph.eval.crg import CrgScorer, table_row
    from dishgraph.eval.outputs import crg_dir, load_instances, read_present
    from dishgraph.ingest.glossary import Glossary

    try:
        everything = load_instances(data)
        files = {p: read_present(p, everything) for p in outs}  # a JSONL file may hold a subset run
        files = {p: (inst[:limit], txt[:limit]) for p, (inst, txt) in files.items()}
        instances = everything[:limit]
        glossary = Glossary.load(crg_dir(data) / "glossary.json")
    except (ValueError, FileNotFoundError) as e:
        _fail(e)
    reference, cache = _graph_knowledge(data, pivots, constraints, glossary, db, uri, no_graph)
    cfg = _bertscore_config(bertscore_model, num_layers, device, no_bertscore)
    try:
        scorer = CrgScorer(instances, glossary, reference, base_parses=cache, segmenter=segmenter,
                           vectors=vectors, bertscore_config=cfg, data_dir=data, workers=workers)
    except (ValueError, FileNotFoundError) as e:
        _fail(e)
    results, rows = {}, []
    prog, task = _progress(sum(len(i) for i, _ in files.values()), "CRG eval")
    with prog:
        for p, (inst, outputs) in files.items():
            res = scorer.score(outputs, inst, progress=lambda k: prog.advance(task, k))
            res["n"] = len(inst)
            results[str(p)] = res
            rows.append(table_row(res, p.stem if len(inst) == len(instances) else f"{p.stem} (n={len(inst)})"))
    if as_json or json_out:
        emit_json(json_safe({"rows": rows, "results": results}), json_out)
    if not as_json:
        _print_table(rows, f"CRG evaluation (percentages; L2 on the {pivots} pivot actions)")


@app.command("pcs")
def pcs(pred: Path = typer.Argument(..., help="Predicted PCS table (.json/.jsonl/.csv/.tsv)."),
        gold: Path = typer.Argument(..., help="Gold PCS table with instruction, input, action, output."),
        fields: str = typer.Option("input,output", "--fields", help="Comma-separated columns to score."),
        bertscore_model: Optional[str] = typer.Option(None, "--bertscore-model",
                                                      help="BERTScore model (hub name or local dir); off if unset."),
        num_layers: Optional[int] = LayersOpt, device: Optional[str] = DeviceOpt,
        as_json: bool = JsonOpt, json_out: Optional[Path] = JsonOutOpt):
    """PCS step metrics: exact set match, item F1, ROUGE-L, BLEU-4, METEOR, BERTScore per column."""
    from dishgraph.eval.pcs_metrics import evaluate_pcs, read_pcs_table
    from dishgraph.eval.text_metrics import BertScoreConfig

    try:
        p_rows, g_rows = read_pcs_table(pred), read_pcs_table(gold)
        cfg = BertScoreConfig(model=bertscore_model, num_layers=num_layers, device=device) if bertscore_model else None
        res = evaluate_pcs(p_rows, g_rows, [f.strip() for f in fields.split(",") if f.strip()],
                           bertscore_config=cfg, pred_name=str(pred), gold_name=str(gold))
    except (ValueError, FileNotFoundError, OSError) as e:
        _fail(e)
    if as_json or json_out:
        emit_json(json_safe(res), json_out)
    if not as_json:
        rows = [{"field": f, **{k: (round(v, 2) if isinstance(v, float) else v) for k, v in s.items()}}
                for f, s in res.items() if isinstance(s, dict)]
        console.print(rows_table(rows, f"PCS metrics — {res['n']} rows"))
