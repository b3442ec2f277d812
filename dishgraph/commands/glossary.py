"""`dishgraph glossary build CORPUS`: a CRG-style glossary (verb/ingredient/tool classes) from a corpus."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, progress, rows_table
from dishgraph.commands._options import JsonOpt, SegmenterOpt

app = typer.Typer(
    help="Build glossaries of verb, ingredient and tool classes.", no_args_is_help=True, cls=DishgraphGroup
)


@app.command()
def build(
    corpus: Path = typer.Argument(..., help="Recipes: one per line, or CRG base_recipes.txt (3rd column)."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the glossary JSON (release schema)."),
    k_verb: int = typer.Option(92, "--k-verb", help="Number of verb classes (release: 92)."),
    k_ingredient: int = typer.Option(476, "--k-ingredient", help="Number of ingredient classes (release: 476)."),
    k_tool: int = typer.Option(20, "--k-tool", help="Number of tool classes (release: 20)."),
    overrides: Path | None = typer.Option(
        None, "--overrides", help="Expert override JSON (drop/assign/merge/rename per kind)."
    ),
    min_count: int = typer.Option(3, "--min-count", help="Minimum frequency of a candidate word."),
    segmenter: str = SegmenterOpt,
    reference: Path | None = typer.Option(
        None,
        "--reference",
        help="Glossary to compare classes with (adjusted Rand index); default: the CRG release if found.",
    ),
    as_json: bool = JsonOpt,
):
    """Candidates by POS and frequency → PPMI-SVD vectors → K-means per kind → overrides → JSON."""
    from dishgraph.ingest.jobs import build_glossary_files

    with exit_on(OSError, ValueError, code=2), progress(disable=as_json, transient=False) as bar:
        task = bar.add_task("segmenting", total=None)
        glossary, rep = build_glossary_files(
            corpus,
            {"verb": k_verb, "ingredient": k_ingredient, "tool": k_tool},
            overrides,
            reference,
            segmenter=segmenter,
            min_count=min_count,
            progress=lambda n, total: bar.update(task, advance=n, total=total),
        )
    emit_json(glossary.to_json(), out)
    if as_json:
        return emit_json(rep.to_dict())
    console.print(
        rows_table(
            [
                {"kind": kd, "candidates": rep.candidates[kd], "classes": rep.classes[kd]}
                for kd in ("verb", "ingredient", "tool")
            ],
            f"glossary from {rep.recipes} recipes",
        )
    )
    if rep.verb_ari is not None:
        console.print(
            rows_table(
                [
                    {"kind": "verb", "shared forms": rep.verb_shared, "ARI vs reference": rep.verb_ari},
                    {
                        "kind": "ingredient",
                        "shared forms": rep.ingredient_shared,
                        "ARI vs reference": rep.ingredient_ari,
                    },
                ],
                "agreement with the reference glossary",
            )
        )
    console.print(f"wrote {out}")
