"""`dishgraph parse TEXT`: recipe text → actions with spans (`eval parse-recall` lives in the eval group)."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.commands._common import console, emit_json, rows_table
from dishgraph.commands._options import GlossaryOpt, JsonOpt, ParserOpt, SegmenterOpt


def action_rows(actions) -> list[dict]:
    return [
        {
            "step": a.step,
            "clause": a.clause,
            "span": f"{a.start}-{a.end}",
            "phrase": a.phrase,
            "verb": a.verb,
            "ingredients": "、".join(a.ingredients),
            "tools": "、".join(a.tools),
            "inherited": "yes" if a.inherited else "",
            "proto": str(a.proto) if a.proto else "",
        }
        for a in actions
    ]


def parse(
    text: str = typer.Argument(..., help="Recipe text, or @FILE to read it from a file."),
    segmenter: str = SegmenterOpt,
    parser_name: str = ParserOpt,
    glossary: Path | None = GlossaryOpt,
    as_json: bool = JsonOpt,
):
    """Parse one recipe into actions (verb, ingredients, tools, span, proto-action) and print them."""
    from dishgraph.ingest.jobs import recipe_parser, recipe_text

    text = recipe_text(text)
    parser = recipe_parser(glossary, parser_name, segmenter)
    actions = parser.parse(text)
    if as_json:
        return emit_json(
            [
                {
                    "verb": a.verb,
                    "ingredients": a.ingredients,
                    "tools": a.tools,
                    "start": a.start,
                    "end": a.end,
                    "phrase": a.phrase,
                    "step": a.step,
                    "clause": a.clause,
                    "inherited": a.inherited,
                    "proto": a.proto.to_release() if a.proto else None,
                }
                for a in actions
            ]
        )
    console.print(rows_table(action_rows(actions), f"{len(actions)} actions ({parser.name})"))
