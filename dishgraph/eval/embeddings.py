"""Word vectors for the soft L2 match: phrase similarity = cosine of averaged word vectors (as CRG's L2_eval).

Two sources: a word-vector file in the usual text format (CRG used Tencent AI Lab's 200-d Chinese vectors;
any ``word v1 … vd`` file works, with or without the ``count dim`` header), or vectors trained here on
segmented recipes with PPMI + truncated SVD (Levy & Goldberg 2014), which needs nothing downloaded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

Segment = Callable[[str], list[str]]


class WordVectors:
    def __init__(self, words: Sequence[str], matrix: np.ndarray):
        if len(words) != matrix.shape[0]:
            raise ValueError(f"{len(words)} words but {matrix.shape[0]} vectors")
        self.index = {w: i for i, w in enumerate(words)}
        self.words = list(words)
        self.matrix = np.asarray(matrix, dtype=np.float32)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def __getitem__(self, word: str) -> np.ndarray:
        return self.matrix[self.index[word]]

    def __len__(self) -> int:
        return len(self.words)

    @classmethod
    def load_text(cls, path: str | Path, limit: int | None = None, vocab: set[str] | None = None) -> WordVectors:
        """Read ``word v1 … vd`` lines (optional ``count dim`` header); `vocab` keeps only needed words."""
        path = Path(path)
        words: list[str] = []
        rows: list[np.ndarray] = []
        dim = None
        with open(path, encoding="utf-8", errors="strict") as fh:
            for n, line in enumerate(fh, start=1):
                parts = line.rstrip("\n").rstrip().split(" ")
                if n == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    dim = int(parts[1])
                    continue
                if len(parts) < 2:
                    if not line.strip():
                        continue
                    raise ValueError(f"{path}:{n}: expected 'word v1 ... vd'")
                if dim is None:
                    dim = len(parts) - 1
                if len(parts) - 1 != dim:
                    raise ValueError(f"{path}:{n}: {len(parts) - 1} values, expected {dim}")
                if vocab is not None and parts[0] not in vocab:
                    continue
                try:
                    rows.append(np.asarray(parts[1:], dtype=np.float32))
                except ValueError:
                    raise ValueError(f"{path}:{n}: non-numeric vector value") from None
                words.append(parts[0])
                if limit is not None and len(words) >= limit:
                    break
        if not words:
            raise ValueError(f"{path}: no word vectors read")
        return cls(words, np.vstack(rows))

    def save_text(self, path: str | Path) -> Path:
        path = Path(path)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(f"{len(self)} {self.dim}\n")
            for w, v in zip(self.words, self.matrix):
                fh.write(w + " " + " ".join(f"{x:.6g}" for x in v) + "\n")
        return path


def train_ppmi_svd(
    texts: Iterable[str],
    segment: Segment,
    dim: int = 100,
    window: int = 3,
    min_count: int = 2,
    alpha: float = 0.75,
    seed: int = 0,
) -> WordVectors:
    """PPMI-SVD word vectors from `texts` (context smoothing `alpha`, symmetric `window`)."""
    from scipy.sparse import coo_matrix
    from sklearn.decomposition import TruncatedSVD

    texts = list(texts)
    many = getattr(segment, "many", None)  # a memoized segmenter cuts them in batches: same words, a third the time
    sentences = many(texts) if many is not None else [segment(t) for t in texts]
    counts = Counter(w for s in sentences for w in s)
    vocab = sorted(w for w, c in counts.items() if c >= min_count)
    if len(vocab) < 3:
        raise ValueError(f"only {len(vocab)} words occur {min_count}+ times; need more text to train vectors")
    index = {w: i for i, w in enumerate(vocab)}
    # One id stream with `window` sentinels between sentences, so windows never cross a recipe boundary.
    stream: list[int] = []
    for s in sentences:
        stream.extend(index.get(w, -1) for w in s)
        stream.extend([-1] * window)
    ids = np.asarray(stream, dtype=np.int64)
    rows_l, cols_l = [], []
    for d in range(1, window + 1):
        a, b = ids[:-d], ids[d:]
        ok = (a >= 0) & (b >= 0)
        rows_l += [a[ok], b[ok]]
        cols_l += [b[ok], a[ok]]
    counts_m = coo_matrix(
        (np.ones(sum(len(r) for r in rows_l)), (np.concatenate(rows_l), np.concatenate(cols_l))),
        shape=(len(vocab), len(vocab)),
    ).tocsr()
    counts_m.sum_duplicates()
    coo = counts_m.tocoo()
    rows, cols, vals = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(np.float64)
    n = len(vocab)
    row_sum = np.bincount(rows, weights=vals, minlength=n)
    ctx = np.bincount(cols, weights=vals, minlength=n) ** alpha
    pmi = np.log(vals * ctx.sum() / (row_sum[rows] * ctx[cols]))
    keep = pmi > 0
    ppmi = coo_matrix((pmi[keep], (rows[keep], cols[keep])), shape=(n, n)).tocsr()
    k = max(1, min(dim, n - 1))
    svd = TruncatedSVD(n_components=k, random_state=seed, algorithm="randomized", n_iter=5)
    u = svd.fit_transform(ppmi)  # = U·Σ
    vectors = u / np.sqrt(np.maximum(svd.singular_values_, 1e-12))  # U·Σ^½, the usual symmetric weighting
    return WordVectors(vocab, vectors)


class PhraseEmbedder:
    """Averaged word vectors of phrases, cached; a phrase with no known word is the zero vector (as CRG)."""

    def __init__(self, vectors: WordVectors, segment: Segment):
        self.vectors = vectors
        self.segment = segment
        self._cache: dict[str, np.ndarray] = {}

    def embed(self, text: str) -> np.ndarray:
        v = self._cache.get(text)
        if v is None:
            idx = [self.vectors.index[w] for w in self.segment(text) if w in self.vectors.index]
            v = self.vectors.matrix[idx].mean(axis=0) if idx else np.zeros(self.vectors.dim, dtype=np.float32)
            norm = float(np.linalg.norm(v))
            v = (v / norm if norm > 0 else v).astype(np.float64)  # unit rows: cosine = dot product
            self._cache[text] = v
        return v

    def warm(self, texts: Sequence[str]) -> None:
        """Embed ``texts`` now, segmenting the new ones in one batch when the segmenter can (an L2 run asks
        for a few thousand short phrases; one LAC call each was a third of an identity evaluation)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        many = getattr(self.segment, "many", None)
        if todo and many is not None:
            many(todo)
        for t in todo:
            self.embed(t)

    def similarity(self, texts1: Sequence[str], texts2: Sequence[str]) -> np.ndarray:
        """Cosine matrix (len(texts1) × len(texts2)); zero vectors give 0, like sklearn's cosine_similarity."""
        if not texts1 or not texts2:
            return np.zeros((len(texts1), len(texts2)))
        a = np.vstack([self.embed(t) for t in texts1])
        b = np.vstack([self.embed(t) for t in texts2])
        return a @ b.T


def cached_ppmi_svd(
    texts: Sequence[str], segment: Segment, dim: int = 100, cache_dir: Path | None = None
) -> WordVectors:
    """`train_ppmi_svd` of `texts`, kept on disk between runs (every `eval crg` trains the same vectors on
    the same 2,500 base recipes: 3-4 s of CPU with scikit-learn's import). The file name is a digest of the
    texts, the segmenter backend, the dimension and the numpy/scipy/scikit-learn versions; the file is a
    plain ``.npz`` (a unicode word array and a float32 matrix) read with ``allow_pickle=False``. A damaged
    or unwritable cache only costs the training."""
    import hashlib

    from dishgraph.eval.text_metrics import dist_versions, token_cache_dir, write_cache_file

    texts = list(texts)
    versions = dist_versions("numpy", "scipy", "scikit-learn")
    key = "\x1e".join([f"ppmi-svd:{dim}", getattr(segment, "backend", "") or "", versions, *texts])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    path = (cache_dir or token_cache_dir().parent / "vectors") / f"ppmi-{dim}-{digest}.npz"
    if path.exists():
        try:
            with np.load(path, allow_pickle=False) as z:
                words = [str(w) for w in z["words"]]
                if len(set(words)) == len(words):  # a word numpy cannot hold as written is retrained
                    return WordVectors(words, z["matrix"])
        except Exception:  # noqa: BLE001 - any damage (a torn zip, a missing array) only costs the training
            pass  # rebuilt below
    wv = train_ppmi_svd(texts, segment, dim=dim)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:  # a file object: np.savez would add ".npz" to a path
            np.savez(fh, words=np.array(wv.words, dtype=str), matrix=wv.matrix)

    write_cache_file(path, write)  # False on a read-only home: only slower next time
    return wv


def load_vectors(
    source: str, texts: Iterable[str] | None = None, segment: Segment | None = None, dim: int = 100
) -> WordVectors:
    """`source` is a word-vector file, or "ppmi" to train PPMI-SVD vectors on `texts` (cached on disk)."""
    if source == "ppmi":
        if texts is None or segment is None:
            raise ValueError("training ppmi vectors needs texts and a segmenter")
        return cached_ppmi_svd(list(texts), segment, dim=dim)
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"word-vector file {path} not found (or pass 'ppmi' to train on the corpus)")
    return WordVectors.load_text(path)
