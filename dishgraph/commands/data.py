"""`dishgraph data locate` / `dishgraph data fetch`: find or download the released data."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on, reported
from dishgraph.commands._common import console, emit_json, progress, rows_table
from dishgraph.commands._options import JsonOpt, renamed

app = typer.Typer(
    help="Find or download the released data (CRG release, DiNeR glossary, PizzaCommonSense).",
    no_args_is_help=True,
    cls=DishgraphGroup,
)

_GROUP_OVER = 20  # a folder with more files than this is one table row ("pizzacommonsense/train/*.txt: 744 files")


def _grouped(rows: list[dict], key: str = "file") -> list[dict]:
    """Table rows with the files of a large folder folded into one row (JSON keeps every file)."""
    from collections import Counter

    folders = Counter(str(Path(r[key]).parent) for r in rows)
    out: list[dict] = []
    folded: dict[str, dict] = {}
    for r in rows:
        folder = str(Path(r[key]).parent)
        if folders[folder] <= _GROUP_OVER:
            out.append(r)
            continue
        if folder not in folded:
            folded[folder] = {k: None for k in r} | {key: f"{folder}/* ({folders[folder]} files)"}
            out.append(folded[folder])
        row = folded[folder]
        for k, v in r.items():
            if k == key:
                continue
            if isinstance(v, int) and not isinstance(v, bool):
                row[k] = (row[k] or 0) + v
            elif row[k] is None:
                row[k] = v
            elif row[k] != v:
                if k == "sha256":
                    row[k] = "MISMATCH" if "MISMATCH" in (v, row[k]) else row[k]
                elif k == "source" and ":" in str(v):  # owner/repo@commit:a/b.txt → owner/repo@commit:a/*
                    row[k] = str(v).rsplit("/", 1)[0] + "/*"
                else:
                    row[k] = "mixed"
    return out


@app.command()
def locate(
    data: Path | None = typer.Option(
        None, "--data", help="Data directory to check first (default: $DISHGRAPH_DATA, then ./shared/data upwards)."
    ),
    no_verify: bool = typer.Option(False, "--no-verify", help="Skip the SHA-256 check of each file."),
    as_json: bool = JsonOpt,
):
    """Print where the data was found and which release files exist (and match their pinned hashes)."""
    from dishgraph.ingest.fetch import locate as _locate

    loc = _locate(data, verify=not no_verify)
    if as_json:
        return emit_json(loc.to_dict())
    if loc.root is not None:
        console.print(f"data directory: {loc.root}")
    rows = [
        {
            "file": f.dest,
            "exists": "yes" if f.exists else "NO",
            "bytes": f.bytes,
            "sha256": {True: "ok", False: "MISMATCH", None: "-"}[f.verified],
            "source": f.source,
        }
        for f in loc.files
    ]
    console.print(rows_table(_grouped(rows), "release files"))
    if loc.root is None:
        raise reported(f"no data found: {loc.error}")
    if not all(f.exists for f in loc.files):
        raise typer.Exit(1)  # the table says which file is missing


@app.command(cls=renamed({"--dest": "--data"}))
def fetch(
    dest: Path | None = typer.Option(
        None,
        "--data",
        help="Data directory to write into, the --data other commands read "
        "(default: $DISHGRAPH_DATA, else ./shared/data, which `data locate` finds from here).",
    ),
    base_url: str = typer.Option(
        "https://raw.githubusercontent.com",
        "--base-url",
        envvar="DISHGRAPH_DATA_URL",
        help="Raw-file server; files are read from BASE/OWNER/REPO/COMMIT/PATH (a mirror: $DISHGRAPH_DATA_URL).",
    ),
    timeout: float = typer.Option(60.0, help="Seconds before a stalled download fails."),
    no_derive: bool = typer.Option(
        False, "--no-derive", help="Only download: derive no file (the release's JSON, the two corpora)."
    ),
    only: list[str] = typer.Option(
        [],
        "--only",
        help="Only this data set (repeatable): counterfactual, diner, pizzacommonsense, xiachufang, classic.",
    ),
    as_json: bool = JsonOpt,
):
    """Download the CRG release, the DiNeR glossary and PizzaCommonSense at pinned commits, verify SHA-256, write
    atomically (a re-run fetches only what is missing or wrong), and print each data set's licence."""
    from rich.progress import BarColumn, DownloadColumn, TextColumn, TransferSpeedColumn

    from dishgraph.ingest.fetch import (
        DATASETS,
        LICENCES,
        FetchError,
        HashMismatchError,
        default_dest,
        fetch_release,
        select,
    )

    with exit_on(ValueError, code=2):
        files, derived = select(only or DATASETS)

    dest = dest or default_dest()
    tasks: dict[str, int] = {}
    with (
        progress(
            TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(), disable=as_json
        ) as prog,
        exit_on(FetchError, HashMismatchError, code=1),
    ):

        def on_progress(spec, n):  # one bar per data set (PizzaCommonSense alone is 997 files)
            name = spec.dest.split("/", 1)[0]
            if name not in tasks:
                total = sum(f.size for f in files if f.dest.startswith(name + "/"))
                tasks[name] = prog.add_task(name, total=total)
            prog.advance(tasks[name], n)

        results = fetch_release(
            dest,
            base_url=base_url,
            timeout=timeout,
            derive=not no_derive,
            files=files,
            derived=derived,
            on_progress=on_progress,
        )
    if as_json:
        return emit_json({"dest": str(dest), "files": [r.to_dict() for r in results]})
    rows = [{"file": r.dest, "status": r.status, "bytes": r.bytes} for r in results]
    console.print(rows_table(_grouped(rows), f"release files in {dest}"))
    for name in sorted({r.dest.split("/", 1)[0] for r in results}):
        console.print(f"{name}: {LICENCES.get(name, 'see its README')}")
