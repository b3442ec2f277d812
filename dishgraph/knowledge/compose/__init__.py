"""Composed target knowledge: what a dish with few or no recipes would do, from the dishes it is made of.

CRG's premise is compositional: red-braised crucian carp = what red-braising does + what is done to a crucian
carp. Every CRG target dish lacks recipes, so its action frequencies are *estimated* by mixing what the graph
knows (each source a frequency table over proto-actions, pooled from real recipes):

- ``base``: the base dish's recipes with the changed ingredient's class swapped for the new one, recipe by
  recipe (``add`` pairs: kept as they are);
- ``action`` / ``flavour`` / ``food``: for each DiNeR component of the target's name (白灼, 酸辣, 秋葵 …), the
  recipes of every other dish whose name has it, pooled, so each dish weighs by its recipe count;
- ``class``: recipes of every other dish that handle the new ingredient's class;
- ``own``: the target's own recipes, where the corpus has some.

The estimate is a shrunk mixture ``f(a) = Σ_s W_s f_s(a) / Σ_s W_s`` with ``W_s = w_kind · n_s / (n_s + k)``:
a source of few recipes says little, a source kind that predicts held-out dishes badly gets a small weight.
The component weights are fitted by leave-one-dish-out over corpus dishes (``validate``: hide a dish, compose
it, compare with its real USES), the ``base`` weight and the pivot thresholds on the even CRG pairs; nothing
reads a released pivot or constraint.

The result is graph data: ``(:Dish)-[:COMPOSED_USES {freq, weight, source, corpus_recipes}]->(:ProtoAction)``
with provenance ``(:Dish)-[:COMPOSED_FROM {role, atom, weight, recipes}]->(:Dish)``; pivots are mined from it
in Cypher (``pivot_mine_composed``) as ``PIVOT {source: "composed"}``, and order constraints are transferred
from the contributing dishes as ``MUST_PRECEDE {source: "composed"}``.

The parts, by concern: ``settings``, ``sources``, ``mixing``, ``storing``, ``validation``, ``ranking``, ``pairs``."""

from dishgraph.knowledge.compose.mixing import (  # noqa: F401
    compose_spec,
    known_classes,
    mix,
)
from dishgraph.knowledge.compose.pairs import (  # noqa: F401
    ComposeReport,
    compose_pairs,
    mine_composed,
    transfer_constraints,
)
from dishgraph.knowledge.compose.ranking import (  # noqa: F401
    corpus_rates,
    fit_ranker,
    rank_inserts,
    ranker_examples,
)
from dishgraph.knowledge.compose.settings import (  # noqa: F401
    DEFAULT_INSERTS,
    INSERT_METHODS,
    KINDS,
    RANKER,
    RULE,
    RULE_AND_RANKER,
    STORE_MIN_FREQ,
    ComposedThresholds,
    ComposeSettings,
)
from dishgraph.knowledge.compose.sources import (  # noqa: F401
    Composition,
    Source,
    TargetSpec,
    _classes,
    _pool,
    _pool_by_corpus,
    _sid,
    base_source,
    class_source,
    class_sources,
    component_source,
    component_sources,
    default_glossaries,
    ensure_components,
    gather_sources,
    own_source,
    pair_spec,
    real_uses,
    swap_class,
)
from dishgraph.knowledge.compose.storing import (  # noqa: F401
    StaleKnowledge,
    composed_state,
    corpus_recipes,
    ensure_fresh,
    write_composition,
)
from dishgraph.knowledge.compose.validation import (  # noqa: F401
    FIT_GRID,
    FIT_MIN_FREQ,
    SHRINK_GRID,
    DishValidation,
    Example,
    ValidationReport,
    _lodo_score,
    _trimmed,
    fit_settings,
    fit_weights,
    holdout_specs,
    leave_one_dish_out,
    lodo_examples,
    pseudo_pair_examples,
    pseudo_pair_specs,
    top_overlap,
    weighted_jaccard,
)
from dishgraph.knowledge.insert_ranker import DEFAULT_MODEL, MODELS  # noqa: F401  (the ranker's registry)

__all__ = [
    "ComposeReport",
    "ComposeSettings",
    "ComposedThresholds",
    "Composition",
    "DEFAULT_INSERTS",
    "DishValidation",
    "Example",
    "FIT_GRID",
    "FIT_MIN_FREQ",
    "INSERT_METHODS",
    "KINDS",
    "RANKER",
    "RULE",
    "RULE_AND_RANKER",
    "SHRINK_GRID",
    "STORE_MIN_FREQ",
    "Source",
    "StaleKnowledge",
    "TargetSpec",
    "ValidationReport",
    "_classes",
    "_lodo_score",
    "_pool",
    "_pool_by_corpus",
    "_sid",
    "_trimmed",
    "base_source",
    "class_source",
    "class_sources",
    "component_source",
    "component_sources",
    "compose_pairs",
    "compose_spec",
    "composed_state",
    "corpus_rates",
    "corpus_recipes",
    "default_glossaries",
    "ensure_components",
    "ensure_fresh",
    "fit_ranker",
    "fit_settings",
    "fit_weights",
    "gather_sources",
    "holdout_specs",
    "known_classes",
    "leave_one_dish_out",
    "lodo_examples",
    "mine_composed",
    "mix",
    "own_source",
    "pair_spec",
    "pseudo_pair_examples",
    "pseudo_pair_specs",
    "rank_inserts",
    "ranker_examples",
    "real_uses",
    "swap_class",
    "top_overlap",
    "transfer_constraints",
    "weighted_jaccard",
    "write_composition",
    "DEFAULT_MODEL",
    "MODELS",
]
