"""DiNeR (Hu et al., EMNLP 2023) in dishgraph: dish names as food / action / flavour components.

- ``names``: the glossary and DiNeR's maximal-matching parser (``parse_name``), compounds of a name;
- ``tmcd``: TMCD splits with the reference greedy search, incremental (``tmcd_split``);
- ``graph``: components, compounds and splits stored on Dish nodes (``store_components``, ``store_split``);
- ``forms``: generalization forms of test dishes by Cypher (``forms.forms(store, split)``);
- ``metrics``: component F1 with DiNeR's approximation, exact match (``diner_f1``).
"""

from dishgraph.diner.graph import export_split, split_graph, store_components, store_split
from dishgraph.diner.metrics import diner_f1
from dishgraph.diner.names import DinerGlossary, NameParse, parse_name, parse_names
from dishgraph.diner.tmcd import Split, chernoff_divergence, tmcd_split

__all__ = [
    "DinerGlossary",
    "NameParse",
    "Split",
    "chernoff_divergence",
    "diner_f1",
    "export_split",
    "parse_name",
    "parse_names",
    "split_graph",
    "store_components",
    "store_split",
    "tmcd_split",
]
