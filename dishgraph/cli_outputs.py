"""The output rule at the CLI edge: before any command body runs, each of its output options is checked
against its database, its inputs and the data directory's release files (`dishgraph.outputs`).

Why at the edge: every command with an output option gets the same check, a new command included, without
the command doing anything; the library writers then write atomically and re-check against the same
protected paths (`outputs.atomic_write`).

Which parameters are outputs is an allow-list, `OUTPUTS` (``"command path:parameter" -> kind``);
tests/test_outputs.py walks the typer app and fails on an option that looks like an output but is not
listed, so a new one cannot slip past.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dishgraph import outputs

# kind: "file" (a file the command writes), "dir" (a directory it creates or fills), "any" (either).
OUTPUTS: dict[str, str] = {
    "demo:out": "dir",
    "explore:out": "file",
    "data fetch:dest": "release",
    "diner split:out": "file",
    "diner forms:json_out": "file",
    "diner export:out": "file",
    "diner dataset:out": "dir",
    "diner recognize:out": "any",
    "diner grid:png": "file",
    "diner prompts:out": "file",
    "eval l1:json_out": "file",
    "eval l2:json_out": "file",
    "eval crg:json_out": "file",
    "eval pcs:json_out": "file",
    "eval parse-recall:json_out": "file",
    "eval diner:json_out": "file",
    "export neo4j-import:directory": "dir",
    "export tables:directory": "dir",
    **{f"generate {g}:out": "file" for g in ("identity", "replace", "graph", "run", "gpt2-d", "gpt2-dr")},
    **{f"generate {g}:out": "file" for g in ("delorean", "educat")},
    "glossary build:out": "file",
    "gpu bundle:out": "dir",
    "gpu report:out": "file",
    "gpu report:plot": "file",
    "gpu device:out": "file",
    "guide build:out": "dir",
    "pcs table:json_out": "file",
    "pcs predict:out": "file",
    "pcs benchmark:json_out": "file",
    "pivots export-annotation:out": "file",
    "train pcs:output_dir": "dir",
    "train pcs:json_out": "file",
    "train lm:out": "dir",
    "train mlm:out": "dir",
    "train diner:out": "dir",
}

# Parameters that are not file inputs although they hold a path or a name (never protected as inputs).
NOT_INPUTS = frozenset({"db", "uri", "data", "dest", "extra_glossary"})


def _paths(value: Any) -> list[Path]:
    """The paths a parameter names: a path, or text that names an existing file (``--pivots P.json`` takes a
    source name or a file, so it is typed as text; its file is an input all the same)."""
    if isinstance(value, (list, tuple)):
        return [Path(v) for v in value if isinstance(v, (str, os.PathLike))]
    if isinstance(value, os.PathLike):
        return [Path(value)]
    if isinstance(value, str) and value and "\0" not in value and len(value) < 4096 and _exists(value):
        return [Path(value)]
    return []


def _exists(path: str) -> bool:
    try:
        return os.path.exists(path) and not os.path.isdir(path)
    except (OSError, ValueError):
        return False


# Inputs a command streams (read once, front to back): a FIFO or /dev/stdin there is a feature. Every other
# file input is read whole or more than once, so a FIFO blocked forever and /dev/zero grew past 3 GB.
STREAMED_INPUTS = frozenset({"ingest corpus:file"})


_MiB = 1 << 20
# Inputs read whole into memory, each capped at about 10-100x the largest real file of its kind (sizes in the
# data release): past the cap the file is refused with its size before it is read (a 3 GB file grew the
# process past memory first). "*:NAME" is that option of every command. A directory given there (PCS tables)
# is checked file by file where its files are read (`pcs.tables.MAX_TABLE_FILE_BYTES`).
WHOLE_FILE_CAPS: dict[str, int] = {
    "*:glossary": 16 * _MiB,  # glossary.json 154 KB (CRG), 17 KB (DiNeR)
    "*:glossary_path": 16 * _MiB,
    "*:names_file": 16 * _MiB,  # dish names, one a line
    "*:pivots": 64 * _MiB,  # pivot_actions.json 119 KB
    "*:constraints": 64 * _MiB,  # order_constraints.json 142 KB
    "*:vectors": 2048 * _MiB,  # word2vec-style text vectors: real Chinese ones are 1-2 GB
    "pivots import-annotation:files": 64 * _MiB,  # the annotation CSV of every pivot: well under 1 MB
    "ingest pcs:file": 1 * _MiB,  # a PCS table file: 12 KB at most in the release (a 1,000-row cap per table)
    "pcs serialize:file": 1 * _MiB,
    "eval l1:out": 64 * _MiB,  # 2,500 generated recipes (base_recipes.txt, 5,000 recipes: 1.25 MB)
    "eval l2:out": 64 * _MiB,
    "eval crg:outs": 64 * _MiB,
    "eval diner:predictions": 64 * _MiB,
    "glossary build:corpus": 256 * _MiB,  # recipes, one a line: 8 MB for the largest corpus of the release
    "glossary build:overrides": 16 * _MiB,
    "glossary build:reference": 16 * _MiB,
}


def whole_file_cap(command: str, name: str) -> int | None:
    return WHOLE_FILE_CAPS.get(f"{command}:{name}", WHOLE_FILE_CAPS.get(f"*:{name}"))


def size_text(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}".replace(".0 ", " ")
    return f"{n:,} bytes"


def _check_inputs(command: str, params: dict[str, Any]) -> None:
    """A FIFO, socket or device given where a command reads a whole file is a usage error naming it; a file
    past its `WHOLE_FILE_CAPS` is an input error (exit 1) naming it with its size and the cap."""
    import stat

    from dishgraph.errors import InputError, UsageError

    for name, value in params.items():
        if name in NOT_INPUTS or f"{command}:{name}" in STREAMED_INPUTS:
            continue
        for p in _paths(value):
            try:
                st = os.stat(p)
            except OSError:
                continue
            mode = st.st_mode
            cap = whole_file_cap(command, name)
            if cap is not None and stat.S_ISREG(mode) and st.st_size > cap:
                raise InputError(
                    f"{p}: {size_text(st.st_size)}; this input (--{name.replace('_', '-')}) is read whole, "
                    f"at most {size_text(cap)} (the largest real one is far smaller)"
                )
            kind = (
                "a FIFO"
                if stat.S_ISFIFO(mode)
                else "a socket"
                if stat.S_ISSOCK(mode)
                else "a device"
                if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else None
            )
            if kind:
                raise UsageError(f"{p}: {kind}, not a regular file; this input is read whole (give a file)")


def _release_files(data: Any) -> list[Path]:
    """The release files of the data directory this command reads (none when it cannot be located)."""
    from dishgraph import config
    from dishgraph.ingest.fetch import ALL_FILES

    try:
        root = config.data_dir(data if isinstance(data, (str, os.PathLike)) else None)
    except (OSError, ValueError):
        return []
    return [root / s.dest for s in ALL_FILES]


def _database_file(path: Path) -> Path:
    """The file ``--db`` names (``DIR/db`` for a directory), as `graph.ladybug_store.database_file` says,
    without importing the engine: commands of the GPU path (train, generate) run where it is not installed."""
    p = Path(path).expanduser()
    return p / "db" if p.is_dir() else p


def guard(command: str, params: dict[str, Any]) -> None:
    """Check every output parameter of ``command`` (a key prefix of `OUTPUTS`) before the command runs;
    `outputs.OutputRefused` names the first output that may not be written."""
    outs = {name: OUTPUTS[f"{command}:{name}"] for name in params if f"{command}:{name}" in OUTPUTS}
    _check_inputs(command, {k: v for k, v in params.items() if k not in outs})
    outputs.clear_protected()
    if not any(params[n] is not None for n in outs):
        return
    from dishgraph import config

    if "db" in params and not params.get("uri"):
        outputs.protect_database(_database_file(config.db_path(params["db"])))
    for name, value in params.items():
        if name not in outs and name not in NOT_INPUTS:
            outputs.protect(_paths(value), f"an input of this command (--{name.replace('_', '-')})")
    if "release" not in outs.values():
        outputs.protect(_release_files(params.get("data")), "a file of the data release")
    for name, kind in outs.items():
        value = params[name]
        for p in [Path(value)] if isinstance(value, str) else _paths(value):
            if kind == "release":
                continue  # `data fetch` writes the release itself, atomically, under names it knows
            directory = kind == "dir" or (kind == "any" and p.is_dir())
            outputs.check_output(p, directory=directory)
