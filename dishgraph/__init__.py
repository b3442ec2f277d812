"""dishgraph: recipe corpora as action graphs in a Cypher graph database."""

from dishgraph.offline import quiet_dependencies

__version__ = "0.1.0"

quiet_dependencies()  # before any dependency is imported: nothing reaches the network unless asked


def __getattr__(name):  # lazy: `from dishgraph import DishGraph` without importing torch etc.
    if name == "DishGraph":
        from dishgraph.api import DishGraph

        return DishGraph
    raise AttributeError(name)
