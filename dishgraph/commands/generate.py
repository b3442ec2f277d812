"""`dishgraph generate`: write counterfactual recipes for all CRG instances with a registered generator."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import JsonOpt, console, emit_json, err_console, rows_table

app = typer.Typer(help="Generate counterfactual recipes (one per base recipe) with a registered generator.",
                  no_args_is_help=True)

OutOpt = typer.Option(..., "--out", help="Output file: .jsonl writes {base,target,index,text} records, "
                                         "anything else one recipe per line in base_recipes.txt order.")
DataOpt = typer.Option(None, "--data", help="Data directory (the one holding counterfactual/); default: auto.")
BatchOpt = typer.Option(32, "--batch-size", help="Instances per generate() call.")


def run_generator(name: str, out: Path, data: Optional[str] = None, batch_size: int = 32, **options) -> dict:
    """Generate for every instance with generator `name` and write `out`; returns a small summary."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from dishgraph.eval.outputs import crg_dir, load_instances, write_outputs
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.models import registry

    instances = load_instances(data)
    glossary = Glossary.load(crg_dir(data) / "glossary.json")
    gen = registry.create(name, glossary=glossary, data_dir=data, **options)
    with Progress(TextColumn(name), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as prog:
        task = prog.add_task(name, total=len(instances))
        texts = registry.generate_all(gen, instances, batch_size, lambda k: prog.advance(task, k))
    write_outputs(out, texts, instances)
    changed = sum(t != i.base_recipe for t, i in zip(texts, instances))
    return {"generator": name, "out": str(out), "instances": len(instances), "changed": changed}


def _report(summary: dict, as_json: bool) -> None:
    if as_json:
        emit_json(summary)
    else:
        console.print(rows_table([summary], "generated"))


def _run(name: str, out: Path, data: Optional[str], batch_size: int, as_json: bool, **options) -> None:
    try:
        summary = run_generator(name, out, data, batch_size, **options)
    except (KeyError, ValueError, FileNotFoundError) as e:
        err_console.print(f"[red]error:[/red] {e}")
        raise typer.Exit(2)
    _report(summary, as_json)


@app.command("identity")
def identity(out: Path = OutOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt,
             as_json: bool = JsonOpt):
    """Copy every base recipe unchanged (BLEU 100 anchor)."""
    _run("identity", out, data, batch_size, as_json)


@app.command("replace")
def replace(out: Path = OutOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt,
            synonyms: str = typer.Option("class", "--synonyms",
                                         help="Which mentions to replace: 'class' (all glossary forms of the "
                                              "ingredient's class), 'form' (the form and class forms containing "
                                              "it), 'none' (the exact form)."),
            as_json: bool = JsonOpt):
    """Swap the replaced ingredient's mentions for the new ingredient; "add" pairs are copied."""
    _run("replace", out, data, batch_size, as_json, synonyms=synonyms)


@app.command("run")
def run(name: str = typer.Argument(..., help="Registered generator name (see `dishgraph generate ls`)."),
        out: Path = OutOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt, as_json: bool = JsonOpt):
    """Run any registered generator with its default options."""
    _run(name, out, data, batch_size, as_json)


@app.command("ls")
def ls(as_json: bool = JsonOpt):
    """List registered generators (and modules that failed to import)."""
    from dishgraph.models import registry

    rows = [{"name": n, "class": f"{registry.get(n).__module__}.{registry.get(n).__qualname__}",
             "description": registry.describe(n)} for n in registry.names()]
    errors = registry.discover()
    if as_json:
        return emit_json({"generators": rows, "import_errors": errors})
    console.print(rows_table(rows, "generators"))
    for mod, err in errors.items():
        err_console.print(f"[yellow]warning:[/yellow] {mod} not loaded: {err}")
