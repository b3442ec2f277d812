"""dishgraph: recipe corpora as action graphs in a Cypher graph database."""

__version__ = "0.1.0"


def __getattr__(name):  # lazy: `from dishgraph import DishGraph` without importing torch etc.
    if name == "DishGraph":
        from dishgraph.api import DishGraph

        return DishGraph
    raise AttributeError(name)
