"""Build a CRG-style glossary from a recipe corpus (CRG §4.1): candidates → embeddings → K-means → overrides.

1. Candidates: segment + POS-tag the corpus; verbs are frequent ``v`` tokens, nouns frequent ``n``-like
   tokens; a noun is a *tool* when it mostly appears as a container/instrument (before a locative 中/里/内/
   上, or after 用/在/往), else an *ingredient*.
2. Embeddings: PPMI of word × context co-occurrence within a clause window, reduced by truncated SVD.
3. K-means into K classes per kind (92 verbs, 476 ingredients, 20 tools in the release); a class is named
   by its most frequent member.
4. Expert overrides (JSON, applied in this order)::

       {"verb": {"drop": ["做好"], "assign": {"焯水": "过"}, "merge": [["过", "烫"]],
                 "rename": {"捞": "捞出"}}, "ingredient": {...}, "tool": {...}}

   ``drop`` removes surface forms, ``assign`` moves a form to a class (a split is an assign to a new
   class), ``merge`` folds the later classes into the first, ``rename`` renames a class.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dishgraph.ingest.glossary import KINDS, Glossary

DEFAULT_K = {"verb": 92, "ingredient": 476, "tool": 20}
_VERB_POS = {"v", "vd", "vn"}
_NOUN_POS = {"n", "nz", "nw", "ng", "PER", "LOC"}
_LOCATIVE_AFTER = {"中", "里", "内", "上", "里面", "中间", "底"}
_INSTRUMENT_BEFORE = {"用", "在", "往", "拿", "以", "入", "进"}
_CLAUSE_PUNCT = set("，。！？；：,.!?;:、\n")


@dataclass
class BuildReport:
    recipes: int = 0
    candidates: dict[str, int] = field(default_factory=dict)
    classes: dict[str, int] = field(default_factory=dict)
    verb_ari: float | None = None  # vs the released glossary on shared verbs
    verb_shared: int = 0
    ingredient_ari: float | None = None
    ingredient_shared: int = 0
    overrides_applied: int = 0

    def to_dict(self) -> dict:
        return self.__dict__.copy()


def read_corpus(path: str | Path) -> list[str]:
    """Recipes from a text file: one per line, or CRG base_recipes.txt (3rd tab column)."""
    path = Path(path)
    out = []
    with open(path, encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            parts = line.split("\t")
            text = parts[2] if len(parts) >= 3 else parts[-1]
            if not text.strip():
                raise ValueError(f"{path}:{n}: empty recipe text")
            out.append(text.strip())
    if not out:
        raise ValueError(f"{path}: no recipes found")
    return out


def _clauses(tokens) -> list[list]:
    cur, out = [], []
    for t in tokens:
        if t.word in _CLAUSE_PUNCT or t.pos == "w":
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        out.append(cur)
    return out


def collect_candidates(clauses: list[list], min_count: int = 3) -> tuple[dict[str, Counter], Counter]:
    """kind -> Counter of candidate words, plus overall word frequencies."""
    freq: Counter = Counter()
    verb_n, noun_n, tool_hits = Counter(), Counter(), Counter()
    for cl in clauses:
        for i, t in enumerate(cl):
            w = t.word
            freq[w] += 1
            if len(w) > 4 or not any("\u4e00" <= ch <= "\u9fff" for ch in w):
                continue
            if t.pos in _VERB_POS:
                verb_n[w] += 1
            elif t.pos in _NOUN_POS:
                noun_n[w] += 1
                nxt = cl[i + 1].word if i + 1 < len(cl) else ""
                prv = cl[i - 1].word if i else ""
                if nxt in _LOCATIVE_AFTER or prv in _INSTRUMENT_BEFORE:
                    tool_hits[w] += 1
    kinds = {"verb": Counter(), "ingredient": Counter(), "tool": Counter()}
    for w, c in verb_n.items():
        if c >= min_count:
            kinds["verb"][w] = c
    for w, c in noun_n.items():
        if c >= min_count:
            kinds["tool" if tool_hits[w] / c >= 0.3 else "ingredient"][w] = c
    return kinds, freq


def ppmi_svd(
    clauses: list[list], vocab: list[str], dim: int = 64, window: int = 3, n_context: int = 5000, seed: int = 0
):
    """Row-normalised PPMI-SVD vectors for ``vocab`` from clause-window co-occurrence counts."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from sklearn.decomposition import TruncatedSVD

    ctx_freq = Counter(t.word for cl in clauses for t in cl)
    contexts = [w for w, _ in ctx_freq.most_common(n_context)]
    ci = {w: i for i, w in enumerate(contexts)}
    vi = {w: i for i, w in enumerate(vocab)}
    rows, cols = [], []
    for cl in clauses:
        words = [t.word for t in cl]
        for i, w in enumerate(words):
            r = vi.get(w)
            if r is None:
                continue
            for j in range(max(0, i - window), min(len(words), i + window + 1)):
                c = ci.get(words[j]) if j != i else None
                if c is not None:
                    rows.append(r)
                    cols.append(c)
    m = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(vocab), len(contexts))).tocsr()
    m.sum_duplicates()
    total = m.sum() or 1.0
    row = np.asarray(m.sum(axis=1)).ravel() + 1e-9
    col = np.asarray(m.sum(axis=0)).ravel() ** 0.75
    col = col / (col.sum() or 1.0)
    m = m.tocoo()
    pmi = np.log((m.data / total) / ((row[m.row] / total) * col[m.col]))
    keep = pmi > 0
    ppmi = coo_matrix((pmi[keep], (m.row[keep], m.col[keep])), shape=m.shape).tocsr()
    k = max(1, min(dim, min(ppmi.shape) - 1))
    vecs = TruncatedSVD(n_components=k, random_state=seed).fit_transform(ppmi) if k > 1 else ppmi.toarray()
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs / np.where(norms == 0, 1, norms)


def cluster(words: list[str], vecs, k: int, freq: Counter, seed: int = 0) -> dict[str, str]:
    """K-means classes named by their most frequent member: surface form -> class."""
    from sklearn.cluster import KMeans

    if not words:
        return {}
    k = max(1, min(k, len(words)))
    labels = KMeans(n_clusters=k, random_state=seed, n_init=4).fit_predict(vecs) if k > 1 else [0] * len(words)
    members: dict[int, list[str]] = {}
    for w, lab in zip(words, labels):
        members.setdefault(int(lab), []).append(w)
    out = {}
    for ms in members.values():
        name = max(ms, key=lambda w: (freq[w], -len(w), w))
        for w in ms:
            out[w] = name
    return out


def apply_overrides(tables: dict[str, dict[str, str]], overrides: dict, source: str = "<overrides>") -> int:
    """Apply drop/assign/merge/rename per kind in place; returns the number of edits."""
    n = 0
    for kind, ops in overrides.items():
        if kind not in KINDS:
            raise ValueError(f"{source}: unknown kind {kind!r}; expected one of {KINDS}")
        t = tables[kind]
        unknown = set(ops) - {"drop", "assign", "merge", "rename"}
        if unknown:
            raise ValueError(f"{source}: {kind}: unknown operations {sorted(unknown)}")
        for form in ops.get("drop", []):
            n += t.pop(form, None) is not None
        for form, cls in ops.get("assign", {}).items():
            t[form] = cls
            n += 1
        for group in ops.get("merge", []):
            if len(group) < 2:
                raise ValueError(f"{source}: {kind}: merge needs ≥2 classes, got {group}")
            into = group[0]
            for form, cls in list(t.items()):
                if cls in group[1:]:
                    t[form] = into
                    n += 1
        for old, new in ops.get("rename", {}).items():
            for form, cls in list(t.items()):
                if cls == old:
                    t[form] = new
                    n += 1
    return n


def agreement(built: dict[str, str], released: dict[str, str]) -> tuple[float | None, int]:
    """Adjusted Rand index of two class assignments on their shared surface forms."""
    from sklearn.metrics import adjusted_rand_score

    shared = sorted(set(built) & set(released))
    if len(shared) < 2:
        return None, len(shared)
    return float(adjusted_rand_score([released[w] for w in shared], [built[w] for w in shared])), len(shared)


def build_glossary(
    recipes: Iterable[str],
    *,
    k: dict[str, int] | None = None,
    segmenter="auto",
    overrides: dict | None = None,
    reference: Glossary | None = None,
    min_count: int = 3,
    dim: int = 64,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> tuple[Glossary, BuildReport]:
    """Corpus → Glossary (release schema) and a report (with ARI against ``reference`` if given)."""
    from dishgraph.ingest.segment import make_segmenter

    seg = make_segmenter(segmenter) if isinstance(segmenter, str) else segmenter
    ks = {**DEFAULT_K, **(k or {})}
    clauses, rep = [], BuildReport()
    for text in recipes:
        clauses.extend(_clauses(seg.cut(text)))
        rep.recipes += 1
        if progress:
            progress(1)
    kinds, freq = collect_candidates(clauses, min_count=min_count)
    vocab = sorted({w for c in kinds.values() for w in c})
    vecs = ppmi_svd(clauses, vocab, dim=dim, seed=seed) if vocab else None
    row = {w: i for i, w in enumerate(vocab)}
    tables: dict[str, dict[str, str]] = {}
    for kind in KINDS:
        words = sorted(kinds[kind])
        rep.candidates[kind] = len(words)
        tables[kind] = cluster(words, vecs[[row[w] for w in words]] if words else None, ks[kind], freq, seed)
    if overrides:
        rep.overrides_applied = apply_overrides(tables, overrides)
    for kind in KINDS:
        rep.classes[kind] = len(set(tables[kind].values()))
    if reference is not None:
        rep.verb_ari, rep.verb_shared = agreement(tables["verb"], reference.verb)
        rep.ingredient_ari, rep.ingredient_shared = agreement(tables["ingredient"], reference.ingredient)
    return Glossary(**tables), rep


def load_overrides(path: str | Path) -> dict:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}:1: overrides must be a JSON object keyed by kind")
    return data
