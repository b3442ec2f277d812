"""DiNeR dish-name recognition datasets built from the graph (instructions -> dish name).

Every recipe whose dish name parses with the DiNeR glossary becomes one example. Splits are made over
*dish names* (all recipes of a dish fall on one side, so a test name is never seen in training): TMCD
splits at the paper's compound divergences (0.98 / 0.8 / 0.6) and a random split, each stored in the
graph as a ``Split`` and its test side labelled by generalization form (``forms``). The training side can
be subsampled to fractions p for the paper's controllability study.

Layout of the output directory::

    manifest.json                      sizes, divergence reached, atom coverage, forms, seed, files
    <split>/train.jsonl                every training example (p = 1.0)
    <split>/train.p0.2.jsonl ...       seeded subsamples of the training recipes, one per fraction
    <split>/test.jsonl                 test examples with their ``form``
    pretrain.jsonl                     (optional) recipes of no dataset dish, for continual pretraining

Example fields: ``id`` (recipe id), ``instructions`` (the recipe text), ``name`` (the dish name),
``components`` ([{surface, type, cluster}] in name order), ``compounds`` (keys of >= 2 atoms) and, on the
test side, ``form``. The pretraining corpus follows DiNeR's leakage rule: a recipe whose title contains
any dataset dish name is left out (containment, not equality, so 麻婆豆腐（简易版） is excluded too). The
graph keeps a recipe's dish name (for XiaChuFang the curated label or the lightly cleaned title), not the
raw title, so that is what the rule reads.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dishgraph.diner.forms import forms_in_memory
from dishgraph.diner.graph import store_components, store_split
from dishgraph.diner.names import DinerGlossary, NameParse, parse_name
from dishgraph.diner.tmcd import ATOM_ALPHA, COMPOUND_ALPHA, Split, chernoff_divergence, count_all, tmcd_split
from dishgraph.graph.base import GraphStore

DIVERGENCES = (0.98, 0.8, 0.6)
FRACTIONS = (0.2, 0.4, 0.6, 0.8, 1.0)
PROMPT_SUFFIX = "这道菜的菜名是什么？"


@dataclass
class Example:
    id: str
    instructions: str
    name: str
    components: list[dict]
    compounds: list[str]
    form: str | None = None

    def to_dict(self) -> dict:
        d = {
            "id": self.id,
            "instructions": self.instructions,
            "name": self.name,
            "components": self.components,
            "compounds": self.compounds,
        }
        if self.form is not None:
            d["form"] = self.form
        return d


@dataclass
class DatasetConfig:
    out: str
    divergences: Sequence[float] = DIVERGENCES
    random_split: bool = True
    fractions: Sequence[float] = (1.0,)
    ratio: float = 4.5
    seed: int = 1
    restarts: int = 50  # greedy restarts are cheap (~30 ms each on 2.7k names); keep the most divergent
    prefix: str = "diner"
    pretrain_corpus: bool = False
    min_instruction_chars: int = 1


@dataclass
class DatasetReport:
    out: str
    examples: int
    dishes: int
    unparsed_dishes: int
    splits: list[dict] = field(default_factory=list)
    pretrain: dict | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def recipes_by_dish(store: GraphStore) -> list[dict]:
    """(dish, id, text) of every recipe in the graph (named query ``lm_training_recipes``)."""
    return store.query("lm_training_recipes")


def build_examples(rows: Iterable[dict], parses: dict[str, NameParse], min_chars: int = 1) -> list[Example]:
    """Recipes of parsed dishes as examples (in recipe-id order); empty instructions are dropped."""
    out = []
    for r in rows:
        p = parses.get(r["dish"])
        text = (r.get("text") or "").strip()
        if p is None or not p.ok or len(text) < min_chars:
            continue
        out.append(
            Example(
                r["id"],
                text,
                p.name,
                [{"surface": c.surface, "type": c.type, "cluster": c.cluster} for c in p.components],
                sorted(p.compounds),
            )
        )
    return out


def random_dish_split(names: Sequence[str], atoms: Sequence[frozenset], ratio: float, seed: int) -> Split:
    """A seeded random split of dish names at the TMCD ratio, measured the same way as a TMCD split."""
    order = list(range(len(names)))
    random.Random(seed).shuffle(order)
    n_test = max(1, round(len(names) / (ratio + 1)))
    train, test = order[: len(order) - n_test], order[len(order) - n_test :]
    from dishgraph.diner.names import compound_keys

    comps = [compound_keys(a) for a in atoms]
    c1, c2 = count_all(comps, train), count_all(comps, test)
    a1, a2 = count_all(atoms, train), count_all(atoms, test)
    return Split(
        train=train,
        test=test,
        divergence=chernoff_divergence(c1, c2, COMPOUND_ALPHA),
        atom_divergence=chernoff_divergence(a1, a2, ATOM_ALPHA),
        initial_divergence=0.0,
        seed=seed,
        ratio=ratio,
        target_divergence=None,
        swaps=0,
        balance_swaps=0,
        stopped="random",
        atoms_covered=all(a1[a] >= 1 for a in a2),
        test_compounds_seen=(len(set(c2) & set(c1)) / len(c2) if c2 else 0.0),
        seconds=0.0,
        method="random",
        names=list(names),
    )


def atom_coverage(train_atoms: Iterable[frozenset], test_atoms: Iterable[frozenset]) -> float:
    """Share of test atom occurrences whose atom occurs in some training name (1.0 = TMCD's guarantee)."""
    seen = set().union(*train_atoms) if train_atoms else set()
    occ = [a for s in test_atoms for a in s]
    return sum(a in seen for a in occ) / len(occ) if occ else 1.0


def subsample(examples: Sequence[Example], fraction: float, seed: int) -> list[Example]:
    """A seeded subsample of ``fraction`` of the examples, in their original order."""
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"train fraction must be in (0, 1], got {fraction}")
    if fraction >= 1.0:
        return list(examples)
    k = max(1, round(len(examples) * fraction))
    keep = set(random.Random(seed).sample(range(len(examples)), k))
    return [e for i, e in enumerate(examples) if i in keep]


def write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    n = 0
    from dishgraph.outputs import atomic_write

    with atomic_write(path) as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1
    return n


def read_jsonl(path: str | Path) -> list[dict]:
    """JSONL objects; a bad line is a one-line error naming file and line."""
    from dishgraph.jsonl import json_objects

    return [obj for _, obj in json_objects(path)]


def leaks(title: str, names: set[str], longest: int) -> bool:
    """Whether some dataset dish name occurs inside ``title`` (every substring looked up in a set)."""
    n = len(title)
    return any(title[i:j] in names for i in range(n) for j in range(i + 1, min(n, i + longest) + 1))


def split_name(prefix: str, divergence: float | None) -> str:
    return f"{prefix}-random" if divergence is None else f"{prefix}-tmcd-{divergence:g}"


def build_dataset(
    store: GraphStore, glossary: DinerGlossary, config: DatasetConfig, progress: Callable[[str], None] | None = None
) -> DatasetReport:
    """Parse every dish, build the examples, make and store each split, write JSONL and the manifest."""
    say = progress or (lambda _msg: None)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    for p in config.fractions:
        if not 0.0 < p <= 1.0:
            raise ValueError(f"train fraction must be in (0, 1], got {p}")
    say("parsing dish names")
    comp_report = store_components(store, glossary)
    rows = recipes_by_dish(store)
    parses = {d: parse_name(d, glossary) for d in {r["dish"] for r in rows}}
    examples = build_examples(rows, parses, config.min_instruction_chars)
    if not examples:
        raise ValueError("no recipe of the graph has a dish name the DiNeR glossary parses; ingest a corpus first")
    by_dish: dict[str, list[Example]] = {}
    for e in examples:
        by_dish.setdefault(e.name, []).append(e)
    dishes = sorted(by_dish)
    atoms = [parses[d].atoms for d in dishes]
    report = DatasetReport(
        out=str(out), examples=len(examples), dishes=len(dishes), unparsed_dishes=len(comp_report.unparsed)
    )
    plan: list[float | None] = list(config.divergences) + ([None] if config.random_split else [])
    for target in plan:
        name = split_name(config.prefix, target)
        say(f"splitting {name}")
        if target is None:
            split = random_dish_split(dishes, atoms, config.ratio, config.seed)
        else:
            split = tmcd_split(
                atoms,
                ratio=config.ratio,
                target_divergence=target,
                seed=config.seed,
                restarts=config.restarts,
                names=dishes,
            )
        store_split(store, split, name)
        # in memory, not through the Cypher of `forms`: the same forms (tested), but its cover query held 4 GB
        # of page cache on the demo graph
        form_of = forms_in_memory(
            [parses[d].atoms for d in split.train_names], {d: parses[d].atoms for d in split.test_names}
        )
        report.splits.append(_write_split(out, name, target, split, by_dish, form_of, config))
    if config.pretrain_corpus:
        report.pretrain = _write_pretrain(out, rows, set(dishes))
    manifest = {
        "seed": config.seed,
        "ratio": config.ratio,
        "fractions": list(config.fractions),
        "examples": report.examples,
        "dishes": report.dishes,
        "unparsed_dishes": report.unparsed_dishes,
        "glossary": list(glossary.sources),
        "prompt_suffix": PROMPT_SUFFIX,
        "splits": report.splits,
        "pretrain": report.pretrain,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return report


def _write_split(
    out: Path,
    name: str,
    target: float | None,
    split: Split,
    by_dish: dict[str, list[Example]],
    form_of: dict[str, str],
    config: DatasetConfig,
) -> dict:
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    train_dishes, test_dishes = split.train_names, split.test_names
    train = [e for dish in train_dishes for e in by_dish[dish]]
    train.sort(key=lambda e: e.id)
    test = [
        Example(**{**e.__dict__, "form": form_of.get(e.name, "n/a")}) for dish in test_dishes for e in by_dish[dish]
    ]
    test.sort(key=lambda e: e.id)
    files = {"test": f"{name}/test.jsonl", "train": {}}
    train_sizes = {}
    for p in config.fractions:
        part = subsample(train, p, config.seed)
        fname = "train.jsonl" if p >= 1.0 else f"train.p{p:g}.jsonl"
        write_jsonl(d / fname, (e.to_dict() for e in part))
        files["train"][f"{p:g}"] = f"{name}/{fname}"
        train_sizes[f"{p:g}"] = len(part)
    if "1" not in files["train"]:  # the full training side is always written
        write_jsonl(d / "train.jsonl", (e.to_dict() for e in train))
        files["train"]["1"] = f"{name}/train.jsonl"
        train_sizes["1"] = len(train)
    write_jsonl(d / "test.jsonl", (e.to_dict() for e in test))
    atoms_of = {e.name: frozenset(f"{c['type']}:{c['cluster']}" for c in e.components) for e in train + test}
    forms_recipes = Counter(e.form for e in test)
    forms_dishes = Counter(form_of.get(x, "n/a") for x in test_dishes)
    return {
        "name": name,
        "kind": "random" if target is None else "tmcd",
        "target_divergence": target,
        "divergence": split.divergence,
        "atom_divergence": split.atom_divergence,
        "atoms_covered": split.atoms_covered,
        "atom_coverage": atom_coverage([atoms_of[x] for x in train_dishes], [atoms_of[x] for x in test_dishes]),
        "test_compounds_seen": split.test_compounds_seen,
        "stopped": split.stopped,
        "seed": split.seed,
        "seconds": split.seconds,
        "train_dishes": len(train_dishes),
        "test_dishes": len(test_dishes),
        "train_examples": len(train),
        "test_examples": len(test),
        "train_sizes": train_sizes,
        "forms_dishes": dict(forms_dishes),
        "forms_examples": dict(forms_recipes),
        "files": files,
    }


def _write_pretrain(out: Path, rows: Sequence[dict], names: set[str]) -> dict:
    longest = max((len(n) for n in names), default=0)
    kept = excluded = in_dataset = 0
    with (out / "pretrain.jsonl").open("w", encoding="utf-8") as fh:
        for r in rows:
            text = (r.get("text") or "").strip()
            if not text:
                continue
            if r["dish"] in names:
                in_dataset += 1
                continue
            if leaks(r["dish"], names, longest):
                excluded += 1
                continue
            fh.write(json.dumps({"id": r["id"], "instructions": text}, ensure_ascii=False) + "\n")
            kept += 1
    return {"file": "pretrain.jsonl", "recipes": kept, "dataset_recipes": in_dataset, "excluded_by_title": excluded}


def load_manifest(dataset_dir: str | Path) -> dict:
    path = Path(dataset_dir) / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no manifest (build the dataset with `dishgraph diner dataset`)") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: line {e.lineno}: invalid JSON ({e.msg})") from None


def split_files(dataset_dir: str | Path, split: str | None = None, fraction: float = 1.0) -> tuple[Path, Path, dict]:
    """(train file, test file, split entry) of one split of a dataset (default: the first in the manifest)."""
    m = load_manifest(dataset_dir)
    entries = {s["name"]: s for s in m["splits"]}
    if not entries:
        raise ValueError(f"{dataset_dir}: the manifest lists no splits")
    name = split or next(iter(entries))
    if name not in entries:
        raise ValueError(f"{dataset_dir}: no split {name!r}; the manifest has {sorted(entries)}")
    s = entries[name]
    key = f"{fraction:g}"
    if key not in s["files"]["train"]:
        raise ValueError(
            f"{dataset_dir}: split {name!r} has no train fraction {key}; it has {sorted(s['files']['train'])}"
        )
    base = Path(dataset_dir)
    return base / s["files"]["train"][key], base / s["files"]["test"], s
