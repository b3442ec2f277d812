"""A graph-derived PCS baseline for our Chinese recipes: parsed actions → PCS-style tables.

Each parsed action is one row: instruction = the action's phrase, action = its surface verb. The input is
the action's ingredients, each resolved to the comestible it currently lives in (``切土豆`` then ``炒土豆``:
the second step consumes ``切过的土豆``); when the parser filled an omitted object by inheritance, the input
is the previous step's output instead, which is what the omission refers to. The output is a description
built from the verb and the base ingredients (``炒过的土豆、青椒``), except for motion/handling verbs
(捞出, 放在, 翻, …) on a single comestible, which keep input = output as the PCS annotators did. Actions
with neither ingredients nor an inherited object (开火, 关火) are ``NA → NA`` rows. Outputs are reused
verbatim as later inputs, so `dishgraph.pcs.graph` turns these tables into the same comestible DAG.
"""

from __future__ import annotations

from collections.abc import Sequence

from dishgraph.actions import Action, crg_actions
from dishgraph.pcs.tables import PCSRow, PCSTable

# Glossary verb classes that move or handle food without transforming it (PCS keeps input = output).
MOTION_VERBS = frozenset(
    {"捞出", "放在", "翻", "准备", "用", "等待", "关", "开", "控", "称", "转", "盖上", "挂", "夹", "插"}
)
LIST_SEP = "、"


def describe(verb: str, bases: Sequence[str]) -> str:
    """The output description: ``炒`` + [土豆, 青椒] → ``炒过的土豆、青椒``."""
    return f"{verb}过的{LIST_SEP.join(bases)}"


def baseline_rows(actions: Sequence[Action], track_state: bool = True) -> list[PCSRow]:
    """PCS rows for parsed actions in reading order (see module doc). With ``track_state=False`` inputs
    are the raw ingredient forms (only inherited objects become the previous output)."""
    rows: list[PCSRow] = []
    current: dict[str, str] = {}  # base ingredient -> comestible that now contains it
    bases_of: dict[str, tuple[str, ...]] = {}
    prev_output: str | None = None
    for a in actions:
        if a.inherited and prev_output:
            inputs = [prev_output]
        else:
            inputs = []
            for ing in a.ingredients:
                name = current.get(ing, ing) if track_state else ing
                if name not in inputs:
                    inputs.append(name)
        output = None
        if inputs:
            bases = tuple(dict.fromkeys(b for x in inputs for b in bases_of.get(x, (x,))))
            verb_class = a.proto.verb if a.proto is not None else a.verb
            output = inputs[0] if verb_class in MOTION_VERBS and len(inputs) == 1 else describe(a.verb, bases)
            bases_of[output] = bases
            for b in bases:
                current[b] = output
        rows.append(PCSRow(instruction=a.phrase or a.verb, action=a.verb, inputs=inputs, output=output))
        prev_output = output or prev_output
    return rows


def baseline_table(actions: Sequence[Action], recipe_id: str, title: str = "", track_state: bool = True) -> PCSTable:
    return PCSTable(id=recipe_id, title=title, rows=baseline_rows(actions, track_state))


def recipe_table(
    store, recipe_id: str, parser=None, glossary=None, segmenter: str = "auto", track_state: bool = True
) -> PCSTable:
    """Read a recipe's text from the graph (`pcs_recipe_text`), parse it and build its baseline table."""
    from dishgraph.pcs.graph import resolve_recipe

    recipe_id = resolve_recipe(store, recipe_id)  # an unknown id: UnknownName with the closest PCS ids
    found = store.query("pcs_recipe_text", id=recipe_id)
    if parser is None:
        from dishgraph.ingest.parser import RecipeParser

        if glossary is None:
            from dishgraph import config
            from dishgraph.ingest.glossary import Glossary

            glossary = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
        parser = RecipeParser(glossary, segmenter=segmenter)
    rec = found[0]
    return baseline_table(crg_actions(parser.parse(rec["text"] or "")), recipe_id, rec["dish"] or "", track_state)
