"""CRG task instances and generated-output files.

An *instance* is one line of ``base_recipes.txt`` joined with its pair's entry in ``changing_ingres.txt``
(matched through ``dish_pairs.txt`` by (base, target)). Generated outputs are read back in that order, either
as plain text (one recipe per line, 2,500 lines, as the CRG reference scripts expect) or as JSONL records
``{base, target, index, text}``, which survive recipes containing newlines and are checked against the
instances so a shuffled or truncated file fails loudly instead of being scored against the wrong base.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from dishgraph import config
from dishgraph.jsonl import objects_in_lines
from dishgraph.task import ADD, REPLACE, Instance  # the task's types (importable from here too)


def crg_dir(explicit: str | Path | None = None) -> Path:
    """The CRG release directory (``.../counterfactual``); accepts it or the data root."""
    if explicit is not None:
        p = Path(explicit)
        return p / "counterfactual" if (p / "counterfactual" / "base_recipes.txt").exists() else p
    return config.data_dir() / "counterfactual"


def load_changes(directory: str | Path | None = None) -> dict[tuple[str, str], tuple[str, str]]:
    """(base, target) → (old, new) from dish_pairs.txt aligned line by line with changing_ingres.txt."""
    d = crg_dir(directory)
    pairs_path, changes_path = d / "dish_pairs.txt", d / "changing_ingres.txt"
    pairs = [ln for ln in pairs_path.read_text(encoding="utf-8-sig").splitlines()]
    changes = [ln for ln in changes_path.read_text(encoding="utf-8-sig").splitlines()]
    while pairs and not pairs[-1].strip():
        pairs.pop()
    while changes and not changes[-1].strip():
        changes.pop()
    if len(pairs) != len(changes):
        raise ValueError(f"{changes_path}: {len(changes)} lines but {pairs_path} has {len(pairs)}")
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for n, (p, c) in enumerate(zip(pairs, changes), start=1):
        dishes, ingr = p.split(), c.split()
        if len(dishes) != 2:
            raise ValueError(f"{pairs_path}:{n}: expected 'base target', got {p!r}")
        if len(ingr) not in (1, 2):
            raise ValueError(f"{changes_path}:{n}: expected 'new' or 'old new', got {c!r}")
        out[(dishes[0], dishes[1])] = ("", ingr[0]) if len(ingr) == 1 else (ingr[0], ingr[1])
    return out


def load_instances(directory: str | Path | None = None) -> list[Instance]:
    """All instances in base_recipes.txt order (2,500 for the release)."""
    d = crg_dir(directory)
    changes = load_changes(d)
    path = d / "base_recipes.txt"
    instances = []
    with open(path, encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                raise ValueError(f"{path}:{n}: expected 'base\\ttarget\\trecipe'")
            base, target, recipe = parts[0].strip(), parts[1].strip(), "\t".join(parts[2:]).strip()
            if (base, target) not in changes:
                raise ValueError(f"{path}:{n}: pair ({base}, {target}) is not in dish_pairs.txt")
            old, new = changes[(base, target)]
            instances.append(Instance(len(instances), base, target, recipe, REPLACE if old else ADD, old, new))
    return instances


def _is_jsonl(path: Path, first_line: str) -> bool:
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return True
    s = first_line.lstrip()
    if not s.startswith("{"):
        return False
    try:
        return isinstance(json.loads(s), dict) and "text" in json.loads(s)
    except json.JSONDecodeError:
        return False


def read_outputs(path: str | Path, instances: Sequence[Instance]) -> list[str]:
    """Generated recipes aligned with `instances`; plain text (one per line) or JSONL records."""
    path = Path(path)
    raw = path.read_text(encoding="utf-8-sig")
    lines = raw.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # trailing newline
    lines = [ln.rstrip("\r") for ln in lines]
    if lines and _is_jsonl(path, lines[0]):
        return _read_jsonl(path, lines, instances)
    if len(lines) != len(instances):
        raise ValueError(
            f"{path}: {len(lines)} lines but there are {len(instances)} instances "
            "(one generated recipe per line, in base_recipes.txt order)"
        )
    return [ln.strip() for ln in lines]


def read_present(path: str | Path, instances: Sequence[Instance]) -> tuple[list[Instance], list[str]]:
    """The instances an output file has a recipe for, and those recipes (for scoring a subset run).

    JSONL files may hold any subset of the instances (records carry their index); plain-text files must
    still have one line per instance, so both formats return every instance they cover, in file order.
    """
    path = Path(path)
    lines = [ln.rstrip("\r") for ln in path.read_text(encoding="utf-8-sig").split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    if not (lines and _is_jsonl(path, lines[0])):
        return list(instances), read_outputs(path, instances)
    texts = _read_jsonl(path, lines, instances, partial=True)
    present = [i for i, t in enumerate(texts) if t is not None]
    if not present:
        raise ValueError(f"{path}: no records")
    return [instances[i] for i in present], [texts[i] for i in present]  # type: ignore[misc]


def _read_jsonl(path: Path, lines: list[str], instances: Sequence[Instance], partial: bool = False) -> list:
    texts: list[str | None] = [None] * len(instances)
    what = "an object with 'text'"
    for n, rec in objects_in_lines(lines, path, what, bad_json="not valid JSON"):
        if "text" not in rec:
            raise ValueError(f"{path}:{n}: expected {what}")
        idx = rec.get("index", n - 1)
        if not isinstance(idx, int) or not 0 <= idx < len(instances):
            raise ValueError(f"{path}:{n}: index {idx!r} out of range 0..{len(instances) - 1}")
        inst = instances[idx]
        for key in ("base", "target"):
            if key in rec and rec[key] != getattr(inst, key):
                raise ValueError(
                    f"{path}:{n}: {key} {rec[key]!r} does not match instance {idx} ({getattr(inst, key)!r})"
                )
        if texts[idx] is not None:
            raise ValueError(f"{path}:{n}: duplicate record for index {idx}")
        texts[idx] = str(rec["text"]).strip()
    missing = [i for i, t in enumerate(texts) if t is None]
    if missing and not partial:
        raise ValueError(f"{path}: no record for {len(missing)} instance(s), first index {missing[0]}")
    return texts  # type: ignore[return-value]


def write_outputs(path: str | Path, texts: Sequence[str], instances: Sequence[Instance]) -> Path:
    """Write generations: JSONL if the name ends in .jsonl/.json, else one line per instance."""
    path = Path(path)
    if len(texts) != len(instances):
        raise ValueError(f"{len(texts)} generations for {len(instances)} instances")
    path.parent.mkdir(parents=True, exist_ok=True)
    from dishgraph.outputs import atomic_write

    with atomic_write(path) as fh:
        if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
            for inst, text in zip(instances, texts):
                rec = {"base": inst.base, "target": inst.target, "index": inst.index, "text": text}
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        else:
            for text in texts:  # the plain format has no room for newlines inside a recipe
                fh.write(" ".join(str(text).split("\n")).replace("\r", " ").strip() + "\n")
    return path
