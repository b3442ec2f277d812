"""A dish-name recognizer over the recipe's action graph alone (no text model, no GPU).

For each recipe the graph gives its proto-actions in step order (named query ``diner_recipe_actions``):
verb class, ingredient classes, tool classes. The features are what that graph shows about a dish:

- bags of verb / ingredient / tool classes, verb-ingredient and verb-tool pairs;
- order: verb bigrams along the step sequence, the first and last verbs, the ingredients of the last
  actions (a dish is often named after what goes in at the end) and of the first ones;
- size: the number of actions (bucketed).

Each DiNeR component type (food / action / flavour) gets two scikit-learn logistic regressions: how many
components of that type the name has (0, 1, 2, 3+), and which clusters (one training row per gold
cluster, so the class probabilities rank clusters). A name is composed from the top-ranked clusters in
the canonical component order learned from the training names (each cluster's mean relative position,
e.g. flavour before action before the main food), each written with its most frequent training surface.

``features="text"`` swaps the graph features for character n-grams of the instructions and
``"graph+text"`` uses both; they are there to show how much of a name the action graph alone carries.
The trivial baselines (``majority``): every test recipe gets the most frequent components of each type
at the most frequent count (``components``), or the most frequent training name (``name``).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dishgraph.diner.names import TYPES, DinerGlossary, parse_name
from dishgraph.graph.base import GraphStore

FEATURES = ("graph", "text", "graph+text")
MAX_COUNT = 3
CLUSTER_MODELS = ("logreg", "nb")
C = 4.0
MAX_ITER = 100
ENDS = 2  # how many actions count as the recipe's first / last


@dataclass
class RecognizerReport:
    features: str
    train_examples: int
    test_examples: int
    seconds_features: float
    seconds_train: float
    seconds_predict: float
    recipes_without_actions: dict[str, int] = field(default_factory=dict)
    composed_unparsable: int = 0  # distinct composed names the glossary cannot read back

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def recipe_actions(store: GraphStore, ids: Sequence[str], batch: int = 2000) -> dict[str, list[dict]]:
    """Proto-actions per recipe id, in step order."""
    out: dict[str, list[dict]] = defaultdict(list)
    for i in range(0, len(ids), batch):
        for r in store.query("diner_recipe_actions", ids=list(ids[i : i + batch])):
            out[r["recipe"]].append(r)
    return out


def graph_features(actions: Sequence[dict]) -> dict[str, float]:
    """Binary features of one recipe's action sequence (see the module docstring)."""
    f: dict[str, float] = {}
    verbs = [a["verb"] for a in actions]
    for a in actions:
        v = a["verb"]
        f[f"v={v}"] = 1.0
        for i in a["ingredients"] or []:
            f[f"i={i}"] = 1.0
            f[f"vi={v}|{i}"] = 1.0
        for t in a["tools"] or []:
            f[f"t={t}"] = 1.0
            f[f"vt={v}|{t}"] = 1.0
    for x, y in zip(verbs, verbs[1:]):
        f[f"vv={x}>{y}"] = 1.0
    for a in actions[-ENDS:]:
        f[f"last_v={a['verb']}"] = 1.0
        for i in a["ingredients"] or []:
            f[f"last_i={i}"] = 1.0
    for a in actions[:ENDS]:
        f[f"first_v={a['verb']}"] = 1.0
        for i in a["ingredients"] or []:
            f[f"first_i={i}"] = 1.0
    n = len(actions)
    f[f"n_actions={'0' if n == 0 else '1-3' if n <= 3 else '4-8' if n <= 8 else '9-15' if n <= 15 else '16+'}"] = 1.0
    return f


def _atoms_by_type(example: dict) -> dict[str, list[str]]:
    """Distinct clusters per type, in name order."""
    out: dict[str, list[str]] = {t: [] for t in TYPES}
    for c in example["components"]:
        if c["cluster"] not in out[c["type"]]:
            out[c["type"]].append(c["cluster"])
    return out


class NameComposer:
    """Canonical component order and surface forms, learned from training names."""

    def __init__(self, train: Iterable[dict]):
        pos: dict[tuple[str, str], list[float]] = defaultdict(list)
        type_pos: dict[str, list[float]] = defaultdict(list)
        surfaces: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for ex in train:
            comps = ex["components"]
            n = len(comps)
            for k, c in enumerate(comps):
                rel = k / (n - 1) if n > 1 else 0.5
                pos[(c["type"], c["cluster"])].append(rel)
                type_pos[c["type"]].append(rel)
                surfaces[(c["type"], c["cluster"])][c["surface"]] += 1
        self.type_pos = {t: sum(v) / len(v) for t, v in type_pos.items()}
        self.pos = {k: sum(v) / len(v) for k, v in pos.items()}
        self.surface = {k: c.most_common(1)[0][0] for k, c in surfaces.items()}

    def order_key(self, type_: str, cluster: str) -> float:
        return self.pos.get((type_, cluster), self.type_pos.get(type_, 0.5))

    def compose(self, atoms: Sequence[tuple[str, str]]) -> str:
        """``[(type, cluster)]`` -> a name, components in canonical order (ties: food last)."""
        ordered = sorted(dict.fromkeys(atoms), key=lambda a: (self.order_key(*a), a[0] == "food"))
        return "".join(self.surface.get(a, a[1]) for a in ordered)


def _fit(X, y, seed: int, kind: str = "logreg"):
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import ComplementNB

    classes = set(y)
    if len(classes) < 2:
        return _Constant(next(iter(classes)))
    if kind == "nb":
        return ComplementNB(alpha=0.3).fit(X, y)
    return LogisticRegression(C=C, max_iter=MAX_ITER, tol=1e-3, random_state=seed).fit(X, y)


class _Constant:
    """A 'classifier' for a target with one class in training."""

    def __init__(self, label):
        self.classes_ = [label]

    def predict_proba(self, X):
        import numpy as np

        return np.ones((X.shape[0], 1))


class GraphRecognizer:
    """Per component type: a count model and a cluster model (see the module docstring)."""

    def __init__(self, features: str = "graph", seed: int = 0, cluster_model: str = "nb"):
        if cluster_model not in CLUSTER_MODELS:
            raise ValueError(f"cluster model must be one of {CLUSTER_MODELS}, not {cluster_model!r}")
        self.cluster_model = cluster_model
        if features not in FEATURES:
            raise ValueError(f"features must be one of {FEATURES}, not {features!r}")
        self.features, self.seed = features, seed

    def _vectorise(self, feats: Sequence[dict], texts: Sequence[str], fit: bool):
        from scipy.sparse import hstack
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.feature_extraction.text import TfidfVectorizer

        parts = []
        if "graph" in self.features:
            if fit:
                self.dv = DictVectorizer()
                parts.append(self.dv.fit_transform(feats))
            else:
                parts.append(self.dv.transform(feats))
        if "text" in self.features:
            if fit:
                self.tv = TfidfVectorizer(
                    analyzer="char", ngram_range=(1, 3), min_df=2, sublinear_tf=True, max_features=200_000
                )
                parts.append(self.tv.fit_transform(texts))
            else:
                parts.append(self.tv.transform(texts))
        return hstack(parts).tocsr() if len(parts) > 1 else parts[0].tocsr()

    def fit(self, train: Sequence[dict], feats: Sequence[dict]) -> GraphRecognizer:
        import numpy as np

        X = self._vectorise(feats, [e["instructions"] for e in train], fit=True)
        self.composer = NameComposer(train)
        self.count_models, self.cluster_models = {}, {}
        by_type = [_atoms_by_type(e) for e in train]
        for t in TYPES:
            counts = [min(len(a[t]), MAX_COUNT) for a in by_type]
            self.count_models[t] = _fit(X, counts, self.seed)
            rows = [i for i, a in enumerate(by_type) for _ in a[t]]
            labels = [c for a in by_type for c in a[t]]
            self.cluster_models[t] = (
                _fit(X[np.array(rows, dtype=int)], labels, self.seed, self.cluster_model) if rows else None
            )
        return self

    def predict_atoms(self, test: Sequence[dict], feats: Sequence[dict]) -> list[list[tuple[str, str]]]:
        import numpy as np

        X = self._vectorise(feats, [e["instructions"] for e in test], fit=False)
        out: list[list[tuple[str, str]]] = [[] for _ in test]
        for t in TYPES:
            cm, km = self.count_models[t], self.cluster_models[t]
            counts = np.asarray(cm.classes_)[cm.predict_proba(X).argmax(1)]
            if km is None:
                continue
            proba = km.predict_proba(X)
            order = np.argsort(-proba, axis=1)
            classes = np.asarray(km.classes_)
            for i, k in enumerate(counts):
                out[i].extend((t, str(c)) for c in classes[order[i, : int(k)]])
        # a name has at least one component: an empty prediction takes the most likely food
        for i, atoms in enumerate(out):
            if not atoms and self.cluster_models["food"] is not None:
                km = self.cluster_models["food"]
                out[i] = [("food", str(km.classes_[int(km.predict_proba(X[i]).argmax())]))]
        return out


def majority_atoms(train: Sequence[dict]) -> list[tuple[str, str]]:
    """The most frequent clusters of each type, as many as the most frequent count of that type."""
    by_type = [_atoms_by_type(e) for e in train]
    atoms: list[tuple[str, str]] = []
    for t in TYPES:
        k = Counter(min(len(a[t]), MAX_COUNT) for a in by_type).most_common(1)[0][0]
        freq = Counter(c for a in by_type for c in a[t])
        atoms.extend((t, c) for c, _ in freq.most_common(k))
    return atoms


def predictions_file_rows(test: Sequence[dict], preds: Sequence[str]) -> list[dict]:
    """The lines `eval diner` reads: pred, gold, form (and the recipe id)."""
    return [
        {"id": e["id"], "pred": p, "gold": e["name"], **({"form": e["form"]} if e.get("form") else {})}
        for e, p in zip(test, preds)
    ]


def recognize(
    store: GraphStore | None,
    train: Sequence[dict],
    test: Sequence[dict],
    *,
    features: str = "graph",
    cluster_model: str = "nb",
    baseline: str | None = None,
    seed: int = 0,
    glossary: DinerGlossary | None = None,
) -> tuple[list[dict], RecognizerReport]:
    """Train on ``train`` examples, predict ``test``; ``baseline`` = "components" | "name" skips the model."""
    if not train or not test:
        raise ValueError(f"need training and test examples (got {len(train)} / {len(test)})")
    t0 = time.perf_counter()
    feats_train: list[dict] = [{} for _ in train]
    feats_test: list[dict] = [{} for _ in test]
    missing = {"train": 0, "test": 0}
    if baseline is None and "graph" in features:
        if store is None:
            raise ValueError("graph features need the graph (open a store)")
        acts = recipe_actions(store, [e["id"] for e in train] + [e["id"] for e in test])
        feats_train = [graph_features(acts.get(e["id"], [])) for e in train]
        feats_test = [graph_features(acts.get(e["id"], [])) for e in test]
        missing = {"train": sum(e["id"] not in acts for e in train), "test": sum(e["id"] not in acts for e in test)}
    t1 = time.perf_counter()
    composer = NameComposer(train)
    if baseline == "components":
        name = composer.compose(majority_atoms(train))
        preds, t2 = [name] * len(test), time.perf_counter()
    elif baseline == "name":
        name = Counter(e["name"] for e in train).most_common(1)[0][0]
        preds, t2 = [name] * len(test), time.perf_counter()
    elif baseline is None:
        model = GraphRecognizer(features, seed, cluster_model).fit(train, feats_train)
        t2 = time.perf_counter()
        preds = [model.composer.compose(a) for a in model.predict_atoms(test, feats_test)]
    else:
        raise ValueError(f"baseline must be 'components' or 'name', not {baseline!r}")
    t3 = time.perf_counter()
    unparsable = 0
    if glossary is not None:
        unparsable = sum(not parse_name(p, glossary).ok for p in set(preds))
    label = f"majority-{baseline}" if baseline else features
    return predictions_file_rows(test, preds), RecognizerReport(
        label, len(train), len(test), t1 - t0, t2 - t1, t3 - t2, missing, unparsable
    )


def run_recognizer(
    store: GraphStore | None,
    dataset_dir,
    out=None,
    *,
    split: str | None = None,
    fraction: float = 1.0,
    grid: bool = False,
    features: str = "graph",
    cluster_model: str = "nb",
    baseline: str | None = None,
    seed: int = 0,
    glossary: DinerGlossary | None = None,
) -> dict:
    """Train and predict on one split (or, with ``grid``, every split x fraction); write predictions; score.

    ``out`` is a JSONL file for one split, a directory of ``<split>.p<p>.jsonl`` for the grid.
    """
    from pathlib import Path

    from dishgraph.diner.dataset import load_manifest, read_jsonl, split_files, write_jsonl
    from dishgraph.diner.grid import cell_name
    from dishgraph.diner.metrics import diner_f1

    glossary = glossary or DinerGlossary.load()
    if grid:
        manifest = load_manifest(dataset_dir)
        cells = [(s["name"], float(p)) for s in manifest["splits"] for p in s["files"]["train"]]
    else:
        cells = [(split, fraction)]
    runs = []
    for name, p in cells:
        train_path, test_path, entry = split_files(dataset_dir, name, p)
        train, test = read_jsonl(train_path), read_jsonl(test_path)
        rows, rep = recognize(
            store,
            train,
            test,
            features=features,
            cluster_model=cluster_model,
            baseline=baseline,
            seed=seed,
            glossary=glossary,
        )
        if out is not None:
            target = Path(out) / cell_name(entry["name"], p) if grid else Path(out)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_jsonl(target, rows)
        s = diner_f1([r["pred"] for r in rows], [r["gold"] for r in rows], glossary, [r.get("form") for r in rows])
        runs.append(
            {
                "split": entry["name"],
                "divergence": entry["divergence"],
                "p": p,
                **rep.to_dict(),
                "f1": s.micro.f1,
                "exact_match": s.exact_match,
                "by_type": {t: c.f1 for t, c in s.by_type.items()},
                "by_form": s.by_form,
            }
        )
    model = f"majority-{baseline}" if baseline else f"{features}/{cluster_model}"
    return {"model": model, "out": str(out) if out is not None else None, "runs": runs}
