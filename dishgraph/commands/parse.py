"""`dishgraph parse TEXT`: recipe text → actions with spans (`eval parse-recall` lives in the eval group)."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.commands._common import console, emit_json, rows_table
from dishgraph.commands._options import AllActionsOpt, GlossaryOpt, JsonOpt, ParserOpt, SegmenterOpt
from dishgraph.knowledge.typed import form_with_class


def action_rows(actions, classes: dict[str, str] | None = None) -> list[dict]:
    """Table rows: the typed reading (foods with their glossary class where it differs, heat / time / shape)
    beside the CRG proto-action the graph keys the step by."""
    classes = classes or {}

    def foods(a) -> str:
        return ("^" if a.foods_inherited else "") + "、".join(form_with_class(f, classes.get(f)) for f in a.foods)

    return [
        {
            "step": a.step,
            "span": f"{a.start}-{a.end}",
            "phrase": a.phrase,
            "verb": a.verb,
            "foods": foods(a),
            "heat/time/shape": " ".join(x for x in (a.heat, a.duration, a.shape) if x),
            "proto": str(a.proto) if a.proto else "",
        }
        for a in actions
    ]


def action_json(a) -> dict:
    return {
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
        "culinary": a.culinary,
        "foods": a.foods,
        "foods_inherited": a.foods_inherited,
        "heat": a.heat,
        "duration": a.duration,
        "shape": a.shape,
        "objects": [{"form": o.form, "role": o.role, "start": o.start, "end": o.end} for o in a.objects],
    }


def parse(
    text: str = typer.Argument(..., help="Recipe text, or @FILE to read it from a file."),
    segmenter: str = SegmenterOpt,
    parser_name: str = ParserOpt,
    glossary: Path | None = GlossaryOpt,
    all_actions: bool = AllActionsOpt,
    as_json: bool = JsonOpt,
):
    """Parse one recipe into actions and print them: the cooking steps with their foods, heat, time and cut
    shape (the typed reading) beside the proto-action of glossary classes the graph keys them by; --json gives
    every action with both readings."""
    from dishgraph.ingest.jobs import recipe_parser, recipe_text

    text = recipe_text(text)
    parser = recipe_parser(glossary, parser_name, segmenter)
    actions = parser.parse(text)
    if as_json:
        return emit_json([action_json(a) for a in actions])
    shown = actions if all_actions else [a for a in actions if a.culinary]
    classes = parser.glossary.ingredient if hasattr(parser, "glossary") else {}
    console.print(rows_table(action_rows(shown, classes), f"{len(shown)} actions ({parser.name})"))
