"""The one schema definition: labels, keys, property types, relationship endpoints.

Ladybug needs every node/rel table declared (with a primary key for MERGE); Neo4j wants uniqueness
constraints on the same keys. Both are generated from this table, and it is also the whitelist of
labels and relationship types that code may ever place into a Cypher string.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class NodeType:
    label: str
    key: str
    props: dict[str, str]  # name -> type (STRING, INT64, DOUBLE, BOOLEAN, STRING[])
    doc: str = ""


@dataclass(frozen=True)
class RelType:
    type: str
    ends: tuple[tuple[str, str], ...]  # (from label, to label) pairs
    props: dict[str, str] = field(default_factory=dict)
    doc: str = ""


NODES: tuple[NodeType, ...] = (
    NodeType("Dish", "name", {"name": "STRING", "source": "STRING"}, "a dish name (base or target)"),
    NodeType(
        "DishPair",
        "key",
        {
            "key": "STRING",
            "base": "STRING",
            "target": "STRING",
            "change_from": "STRING",
            "change_to": "STRING",
            "change_kind": "STRING",
        },
        "a counterfactual task: rewrite base into target; change_kind is replace|add",
    ),
    NodeType(
        "Recipe",
        "id",
        {
            "id": "STRING",
            "dish": "STRING",
            "text": "STRING",
            "source": "STRING",
            "line": "INT64",
            "parsed": "BOOLEAN",
            "n_actions": "INT64",
            "split": "STRING",
            "annotator": "INT64",
            "original": "STRING",
            "digest": "STRING",
        },
        "one recipe text with provenance (file, line); PCS tables add their release split (train/val/test), "
        "annotator (1, or 2 for a second crowd worker's table of the same recipe), the Recipe1M instruction "
        "sentences (original) and a content digest (unchanged tables are skipped on re-ingest)",
    ),
    NodeType(
        "Step",
        "id",
        {
            "id": "STRING",
            "recipe": "STRING",
            "pos": "INT64",
            "phrase": "STRING",
            "verb": "STRING",
            "start": "INT64",
            "end": "INT64",
            "inherited": "BOOLEAN",
            "clause": "INT64",
            "instruction": "STRING",
            "action": "STRING",
            "ingredient_forms": "STRING[]",
            "tool_forms": "STRING[]",
            "sentence": "INT64",
            "culinary": "BOOLEAN",
            "foods": "STRING[]",
            "heat": "STRING",
            "duration": "STRING",
            "shape": "STRING",
            "typed_action": "STRING",
            "typed_classes": "STRING",
        },
        "one action occurrence (parsed) or one PCS row; ingredient_forms / tool_forms are the surface "
        "forms as written (in order) and sentence the numbered step: what evaluation reads back "
        "(null on steps written before they existed); culinary, foods, heat, duration, shape and typed_action "
        "are the typed reading of the same occurrence (docs/typed-reading.md; typed_action names foods by their "
        "canonical names, typed_classes is the same lifted to the release's classes)",
    ),
    NodeType(
        "ProtoAction",
        "key",
        {"key": "STRING", "verb": "STRING", "ingredients": "STRING[]", "tools": "STRING[]", "culinary": "BOOLEAN"},
        "(verb class, ingredient classes, tool classes); culinary: a cooking step on foods in the typed reading "
        "of most of its steps (docs/typed-reading.md)",
    ),
    NodeType("VerbClass", "name", {"name": "STRING"}),
    NodeType("IngredientClass", "name", {"name": "STRING"}),
    NodeType("ToolClass", "name", {"name": "STRING"}),
    NodeType(
        "SurfaceForm",
        "key",
        {"key": "STRING", "form": "STRING", "kind": "STRING"},
        "a glossary surface form; key is kind:form",
    ),
    NodeType(
        "Component",
        "key",
        {"key": "STRING", "type": "STRING", "cluster": "STRING"},
        "DiNeR dish-name atom (type:cluster)",
    ),
    NodeType("Compound", "key", {"key": "STRING", "size": "INT64"}, "a set of >=2 components"),
    NodeType(
        "Split",
        "name",
        {"name": "STRING", "divergence": "DOUBLE", "atom_divergence": "DOUBLE", "seed": "INT64", "ratio": "DOUBLE"},
        "a named TMCD split",
    ),
    NodeType(
        "Comestible",
        "id",
        {"id": "STRING", "name": "STRING", "recipe": "STRING"},
        "a PCS intermediate comestible, scoped to its recipe",
    ),
    NodeType(
        "IngredientLine",
        "id",
        {"id": "STRING", "recipe": "STRING", "pos": "INT64", "text": "STRING"},
        "one line of a PCS recipe's Recipe1M ingredient list (id = recipe id :: ingredient :: position)",
    ),
)

RELS: tuple[RelType, ...] = (
    RelType("HAS_RECIPE", (("Dish", "Recipe"),)),
    RelType("HAS_STEP", (("Recipe", "Step"),)),
    RelType("NEXT", (("Step", "Step"),)),
    RelType("INSTANCE_OF", (("Step", "ProtoAction"),)),
    RelType("VERB", (("ProtoAction", "VerbClass"),)),
    RelType("INGREDIENT", (("ProtoAction", "IngredientClass"),)),
    RelType("TOOL", (("ProtoAction", "ToolClass"),)),
    RelType(
        "FORM_OF", (("SurfaceForm", "VerbClass"), ("SurfaceForm", "IngredientClass"), ("SurfaceForm", "ToolClass"))
    ),
    RelType("BASE", (("DishPair", "Dish"),)),
    RelType("TARGET", (("DishPair", "Dish"),)),
    RelType("USES", (("Dish", "ProtoAction"),), {"freq": "DOUBLE", "n": "INT64", "total": "INT64"}),
    RelType(
        "TYPED_USES",
        (("Dish", "ProtoAction"),),
        {"freq": "DOUBLE", "n": "INT64", "total": "INT64"},
        "share of a dish's recipes with a cooking step whose typed reading is the action (Step.typed_action)",
    ),
    RelType(
        "COMPOSED_USES",
        (("Dish", "ProtoAction"),),
        {"freq": "DOUBLE", "weight": "DOUBLE", "source": "STRING", "corpus_recipes": "INT64"},
        "estimated share of a dish's recipes doing an action, composed from other dishes (knowledge/compose)",
    ),
    RelType(
        "COMPOSED_FROM",
        (("Dish", "Dish"),),
        {"role": "STRING", "atom": "STRING", "weight": "DOUBLE", "recipes": "INT64"},
        "provenance: a dish whose recipes went into a composed dish's knowledge",
    ),
    RelType(
        "PIVOT",
        (("DishPair", "ProtoAction"),),
        {"kind": "STRING", "fb": "DOUBLE", "ft": "DOUBLE", "source": "STRING", "votes": "STRING"},
    ),
    RelType(
        "MUST_PRECEDE",
        (("ProtoAction", "ProtoAction"),),
        {
            "dish": "STRING",
            "ate": "DOUBLE",
            "n_treated": "INT64",
            "n_control": "INT64",
            "estimator": "STRING",
            "source": "STRING",
            "window": "STRING",
            "level": "STRING",
            "n_before": "INT64",
            "n_after": "INT64",
            "ci_low": "DOUBLE",
            "ci_high": "DOUBLE",
            "p_value": "DOUBLE",
            "q_value": "DOUBLE",
            "kept": "BOOLEAN",
            "decision": "STRING",
            "confidence": "DOUBLE",
        },
        "cause must come before effect in dish (dish * : every dish). Estimated and tested constraints carry "
        "their evidence: the effect's 95% interval (ci_low, ci_high), p_value, q_value (Benjamini–Hochberg per "
        "dish and level) and the decision (kept: the interval excludes zero, q ≤ 0.05, one direction, no cycle); "
        "tested ones also their level (dish, family, global), n_before / n_after (recipes with every cause "
        "before every effect, and the reverse) and confidence (lower 95% bound of the share keeping the order)",
    ),
    RelType("HAS_COMPONENT", (("Dish", "Component"),), {"pos": "INT64", "surface": "STRING"}),
    RelType("HAS_COMPOUND", (("Dish", "Compound"),)),
    RelType("PART", (("Compound", "Component"),)),
    RelType("IN_SPLIT", (("Dish", "Split"),), {"part": "STRING"}),
    RelType("INPUT", (("Step", "Comestible"),)),
    RelType("OUTPUT", (("Step", "Comestible"),)),
    RelType("HAS_INGREDIENT", (("Recipe", "IngredientLine"),)),
    RelType(
        "FROM_INGREDIENT",
        (("Comestible", "IngredientLine"),),
        {},
        "a raw PCS comestible (consumed before any step produced it) and the ingredient line it names",
    ),
    RelType(
        "FEEDS",
        (("Comestible", "Comestible"),),
        {"pos": "INT64", "action": "STRING"},
        "a PCS step at pos turned this comestible (one of its inputs) into that one (its output)",
    ),
)

NODE_BY_LABEL = {n.label: n for n in NODES}
REL_BY_TYPE = {r.type: r for r in RELS}


def check_label(label: str) -> str:
    """Return label if whitelisted; the only way a label may enter a query string."""
    if label not in NODE_BY_LABEL:
        raise ValueError(f"label {label!r} is not in the dishgraph schema")
    return label


def check_rel(rel: str) -> str:
    if rel not in REL_BY_TYPE:
        raise ValueError(f"relationship type {rel!r} is not in the dishgraph schema")
    return rel


def ladybug_ddl() -> list[str]:
    stmts = []
    for n in NODES:
        cols = ", ".join(f"`{p}` {t}" for p, t in n.props.items())
        stmts.append(f"CREATE NODE TABLE IF NOT EXISTS {n.label}({cols}, PRIMARY KEY ({n.key}))")
    for r in RELS:
        ends = ", ".join(f"FROM {a} TO {b}" for a, b in r.ends)
        cols = "".join(f", `{p}` {t}" for p, t in r.props.items())
        stmts.append(f"CREATE REL TABLE IF NOT EXISTS {r.type}({ends}{cols})")
    return stmts


def neo4j_ddl() -> list[str]:
    stmts = []
    for n in NODES:
        stmts.append(
            f"CREATE CONSTRAINT {n.label.lower()}_{n.key}_unique IF NOT EXISTS "
            f"FOR (n:{n.label}) REQUIRE n.{n.key} IS UNIQUE"
        )
    stmts.append("CREATE INDEX step_recipe IF NOT EXISTS FOR (s:Step) ON (s.recipe)")
    stmts.append("CREATE INDEX recipe_dish IF NOT EXISTS FOR (r:Recipe) ON (r.dish)")
    return stmts
