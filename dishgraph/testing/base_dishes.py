"""The release's real base recipes loaded and parsed into a graph: several tests need the same small real graph
(the base dishes with the most recipes) and build it the same way."""

from __future__ import annotations

from pathlib import Path


def load_base_dishes(store, crg_dir: Path, glossary, largest: int = 3) -> list:
    """Load and parse the recipes of the ``largest`` base dishes (by number of recipes) of the CRG release into
    ``store``; their `loader.RecipeRecord`s, dish by dish."""
    from dishgraph.eval.parse_recall import read_base_recipes
    from dishgraph.ingest import loader
    from dishgraph.ingest.parser import RecipeParser

    parser = RecipeParser(glossary)
    by_dish = read_base_recipes(crg_dir)
    dishes = sorted(by_dish, key=lambda d: -len(by_dish[d]))[:largest]
    loader.load_dishes(store, dishes, "crg")
    recs = [loader.RecipeRecord(loader.recipe_id("crg", d, t), d, t, "crg") for d in dishes for t in by_dish[d]]
    loader.load_recipes(store, recs)
    loader.load_parsed(store, [loader.ParsedRecipe(r.id, parser.parse(r.text)) for r in recs])
    return recs
