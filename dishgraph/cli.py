"""The `dishgraph` command line. Each command is a thin wrapper over one Python API call."""
from __future__ import annotations

import importlib

import typer

from dishgraph.cli_errors import DishgraphGroup

app = typer.Typer(help="dishgraph: recipe corpora as action graphs in a Cypher graph database.",
                  no_args_is_help=True, add_completion=False, cls=DishgraphGroup,
                  pretty_exceptions_show_locals=False)


@app.callback()
def _main(debug: bool = typer.Option(False, "--debug", envvar="DISHGRAPH_DEBUG",
                                     help="Show the full traceback of an error (also DISHGRAPH_DEBUG=1).")):
    """dishgraph: recipe corpora as action graphs in a Cypher graph database.

    Exit codes: 0 success, 1 failed, 2 usage error, 3 finished with skipped input (see docs/cli.md).
    """

# Command groups live in dishgraph/commands/<group>.py, each exposing `app` (a typer.Typer).
GROUPS = {}


def _register() -> None:
    import pkgutil

    import dishgraph.commands as pkg

    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        module = importlib.import_module(f"dishgraph.commands.{mod}")
        sub = getattr(module, "app", None)
        if isinstance(sub, typer.Typer):
            name = getattr(module, "GROUP_NAME", mod.replace("_", "-"))
            GROUPS[name] = module
            app.add_typer(sub, name=name)
        for fn in getattr(module, "TOP_LEVEL", []):  # commands that live at the top level
            app.command()(fn)
    # A module may add commands to another module's group: EXTRA = {"eval": [fn, ...]}.
    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        module = importlib.import_module(f"dishgraph.commands.{mod}")
        for group, fns in getattr(module, "EXTRA", {}).items():
            for fn in fns:
                GROUPS[group].app.command()(fn)


_register()

if __name__ == "__main__":
    app()
