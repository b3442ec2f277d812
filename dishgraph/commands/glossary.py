"""`dishgraph glossary build CORPUS`: a CRG-style glossary (verb/ingredient/tool classes) from a corpus."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import (JsonOpt, console, emit_json, err_console, print_error, rows_table)

app = typer.Typer(help="Build glossaries of verb, ingredient and tool classes.", no_args_is_help=True)


@app.command()
def build(corpus: Path = typer.Argument(..., help="Recipes: one per line, or CRG base_recipes.txt (3rd column)."),
          out: Path = typer.Option(..., "--out", help="Where to write the glossary JSON (release schema)."),
          k_verb: int = typer.Option(92, "--k-verb", help="Number of verb classes (release: 92)."),
          k_ingredient: int = typer.Option(476, "--k-ingredient", help="Number of ingredient classes (release: 476)."),
          k_tool: int = typer.Option(20, "--k-tool", help="Number of tool classes (release: 20)."),
          overrides: Optional[Path] = typer.Option(None, "--overrides", help="Expert override JSON "
                                                   "(drop/assign/merge/rename per kind)."),
          min_count: int = typer.Option(3, "--min-count", help="Minimum frequency of a candidate word."),
          segmenter: str = typer.Option("auto", "--segmenter", help="Word segmenter: lac, jieba, auto."),
          reference: Optional[Path] = typer.Option(None, "--reference", help="Glossary to compare classes with "
                                                   "(adjusted Rand index); default: the CRG release if found."),
          as_json: bool = JsonOpt):
    """Candidates by POS and frequency → PPMI-SVD vectors → K-means per kind → overrides → JSON."""
    from rich.progress import Progress

    from dishgraph import config
    from dishgraph.commands._common import emit_json as write_json
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.glossary_build import build_glossary, load_overrides, read_corpus

    try:
        recipes = read_corpus(corpus)
        ov = load_overrides(overrides) if overrides else None
        ref = None
        if reference:
            ref = Glossary.load(reference)
        else:
            try:
                ref = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
            except FileNotFoundError:
                ref = None
    except (OSError, ValueError) as e:
        print_error(f"{e}")
        raise typer.Exit(2)
    with Progress(console=err_console, disable=as_json) as bar:
        task = bar.add_task("segmenting", total=len(recipes))
        glossary, rep = build_glossary(recipes, k={"verb": k_verb, "ingredient": k_ingredient, "tool": k_tool},
                                       segmenter=segmenter, overrides=ov, reference=ref, min_count=min_count,
                                       progress=lambda n: bar.advance(task, n))
    write_json(glossary.to_json(), out)
    if as_json:
        return emit_json(rep.to_dict())
    console.print(rows_table([{"kind": kd, "candidates": rep.candidates[kd], "classes": rep.classes[kd]}
                              for kd in ("verb", "ingredient", "tool")], f"glossary from {rep.recipes} recipes"))
    if rep.verb_ari is not None:
        console.print(rows_table([
            {"kind": "verb", "shared forms": rep.verb_shared, "ARI vs reference": rep.verb_ari},
            {"kind": "ingredient", "shared forms": rep.ingredient_shared, "ARI vs reference": rep.ingredient_ari}],
            "agreement with the reference glossary"))
    console.print(f"wrote {out}")
