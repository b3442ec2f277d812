"""Text-overlap metrics shared by the CRG (L1 preservation) and PCS evaluations.

BLEU follows CRG's L1_eval.py: nltk's ``corpus_bleu`` (uniform 4-gram weights, no smoothing; computed by
``dishgraph.eval.bleu`` with the same arithmetic, faster) over word-segmented texts, reported ×100.
BERTScore wraps ``bert_score.BERTScorer`` with an explicit model (hub name or local path) and an explicit
layer, because CRG's ``lang='zh'`` default silently depends on the bert_score version.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

Segment = Callable[[str], list[str]]

# The model the CRG paper scores with. It is never loaded unless named: a hub name given on purpose may reach
# the network, an unset one never does (`bertscore_model_from_env`).
PAPER_BERTSCORE_MODEL = "bert-base-chinese"
BERTSCORE_MODEL_ENV = "DISHGRAPH_BERTSCORE_MODEL"
MAX_CHARS = 510  # CRG truncates both sides to 510 characters (BERT's 512 positions minus [CLS]/[SEP])

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


_SEGMENTERS: dict[str, Segment] = {}


def default_segmenter(name: str = "auto", glossary=None) -> Segment:
    """Words of a text via the project segmenter (``dishgraph.ingest.segment``: LAC, else jieba with the
    cooking dictionary). Cached per name and glossary."""
    key = f"{name}:{id(glossary) if glossary is not None else ''}"
    if key not in _SEGMENTERS:
        _SEGMENTERS[key] = _build_segmenter(name, glossary)
    return _SEGMENTERS[key]


def _build_segmenter(name: str, glossary) -> Segment:
    from dishgraph.ingest.segment import make_segmenter

    seg = make_segmenter(name, glossary)
    cut = seg.cut

    def words(text: str) -> list[str]:
        return [t.word for t in cut(text) if t.word.strip()]

    def words_many(texts: list[str]) -> list[list[str]]:
        """``words`` of many texts in one segmenter call (LAC batches them; same words as one at a time)."""
        return [[t.word for t in toks if t.word.strip()] for toks in seg.cut_many(texts)]

    words.backend = type(seg).__name__  # type: ignore[attr-defined]  # e.g. LacSegmenter (cache key)
    words.many = words_many  # type: ignore[attr-defined]
    return words


def memoize(segment: Segment, max_items: int = 200_000) -> Segment:
    """Segment each distinct text once (base recipes are segmented for BLEU, vectors and every output file)."""
    memo: dict[str, list[str]] = {}

    def cached(text: str) -> list[str]:
        got = memo.get(text)
        if got is None:
            got = segment(text)
            if len(memo) < max_items:
                memo[text] = got
        return got

    def many(texts: Sequence[str]) -> list[list[str]]:
        """Words of many texts; those not memoized yet are segmented in one batched call when the
        segmenter batches (LAC groups equal lengths into one ONNX run: same words, much less time)."""
        batch = getattr(segment, "many", None)
        todo = [t for t in dict.fromkeys(texts) if t not in memo]
        if todo and batch is not None:
            for text, words in zip(todo, batch(todo)):
                if len(memo) < max_items:
                    memo[text] = words
        return [cached(t) for t in texts]

    cached.memo = memo  # type: ignore[attr-defined]
    cached.many = many  # type: ignore[attr-defined]
    cached.backend = getattr(segment, "backend", "")  # type: ignore[attr-defined]
    return cached


def token_cache_dir() -> Path:
    """Where segmentations of base recipes persist between runs ($XDG_CACHE_HOME/dishgraph/tokens)."""
    import os

    from dishgraph.config import cache_home

    return Path(os.environ.get("DISHGRAPH_CACHE") or cache_home()) / "tokens"


def warm_from_disk(segment: Segment, texts: Sequence[str], name: str) -> str:
    """Fill a memoized segmenter with the tokens of ``texts`` (the base recipes) from a disk cache, or
    segment them once and write the cache. Every evaluation needs them (BLEU, vectors) and segmenting
    2,500 recipes is most of an evaluation's time. Returns "hit" or "built"."""
    import hashlib
    import json

    memo = getattr(segment, "memo", None)
    if memo is None:
        return "off"
    name = f"{name}-{getattr(segment, 'backend', '')}".strip("-")
    digest = hashlib.sha256("\x1e".join([name, *texts]).encode("utf-8")).hexdigest()[:16]
    path = token_cache_dir() / f"{name}-{digest}.json"
    if path.exists():
        try:
            tokens = json.loads(path.read_text(encoding="utf-8"))
            if len(tokens) == len(texts):
                memo.update(zip(texts, tokens))
                return "hit"
        except (OSError, ValueError):
            pass  # a damaged cache is rebuilt below
    many = getattr(segment, "many", None)  # one batched call where the segmenter batches (same words)
    tokens = many(list(texts)) if many is not None else [segment(t) for t in texts]
    write_json_cache(path, tokens)  # False on a read-only home: evaluation still works, only slower next time
    return "built"


def write_cache_file(path: Path, write: Callable[[Path], None]) -> bool:
    """Write a cache file whole or not at all: ``write`` fills this process's own temporary file (two runs
    at once never write one file), then an atomic rename. False when it cannot be written (a read-only
    home): a cache only saves time."""
    import os

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        write(tmp)
        tmp.replace(path)
    except OSError:
        return False
    return True


def write_json_cache(path: Path, data) -> bool:
    """`write_cache_file` of ``data`` as JSON."""
    import json

    return write_cache_file(path, lambda tmp: tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8"))


def dist_versions(*dists: str) -> str:
    """``name=version`` of installed distributions, for cache keys: a cache made by other library versions
    (another model, another SVD) is not reused."""
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for dist in dists:
        try:
            out.append(f"{dist}={version(dist)}")
        except PackageNotFoundError:
            out.append(f"{dist}=?")
    return ",".join(out)


def english_tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]", text.lower())


def auto_tokenizer(segment: Segment | None = None) -> Segment:
    """Segment Chinese text with `segment` (or the default), tokenize anything else as lower-cased English."""
    state: dict[str, Segment] = {}

    def tok(text: str) -> list[str]:
        if _CJK.search(text):
            if "seg" not in state:
                state["seg"] = segment or default_segmenter()
            return state["seg"](text)
        return english_tokens(text)

    return tok


def corpus_bleu4(hypotheses: Sequence[str], references: Sequence[str | Sequence[str]], tokenize: Segment) -> float:
    """Corpus BLEU-4 ×100 (nltk's ``corpus_bleu`` arithmetic, as CRG; ``dishgraph.eval.bleu``); each
    reference entry may be one text or a list of texts."""
    from dishgraph.eval.bleu import corpus_bleu

    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    memo: dict[str, list[str]] = {}  # identical texts (e.g. copied base recipes) are segmented once

    def tok(text: str) -> list[str]:
        if text not in memo:
            memo[text] = tokenize(text)
        return memo[text]

    refs = [[tok(r)] if isinstance(r, str) else [tok(x) for x in r] for r in references]
    hyps = [tok(h) for h in hypotheses]
    if not any(hyps):
        return 0.0
    return 100.0 * corpus_bleu(refs, hyps)


@dataclass
class BertScoreConfig:
    model: str = PAPER_BERTSCORE_MODEL  # hub name or local directory
    num_layers: int | None = None  # None: bert_score's table for known models, else the last layer
    batch_size: int = 32
    device: str | None = None
    max_chars: int = MAX_CHARS


class BertScore:
    """A loaded BERTScorer, reusable across calls (loading dominates on small inputs)."""

    def __init__(self, config: BertScoreConfig | None = None):
        from bert_score import BERTScorer
        from bert_score.utils import model2layers

        self.config = cfg = config or BertScoreConfig()
        layers = cfg.num_layers or model2layers.get(cfg.model) or _config_layers(cfg.model)
        self.num_layers = layers
        self.scorer = BERTScorer(
            model_type=cfg.model, num_layers=layers, batch_size=cfg.batch_size, device=cfg.device, lang="zh"
        )
        tok = self.scorer._tokenizer
        max_pos = getattr(self.scorer._model.config, "max_position_embeddings", 512)
        if not tok.model_max_length or tok.model_max_length > max_pos:  # local dirs often lack it
            tok.model_max_length = max_pos

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-pair (P, R, F1) arrays; empty candidates get 0."""
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        n = self.config.max_chars
        cands = [c[:n] for c in candidates]
        refs = [r[:n] for r in references]
        out = [np.zeros(len(cands)) for _ in range(3)]
        keep = [i for i, (c, r) in enumerate(zip(cands, refs)) if c.strip() and r.strip()]
        if keep:
            p, r, f = self.scorer.score([cands[i] for i in keep], [refs[i] for i in keep])
            for arr, vals in zip(out, (p, r, f)):
                arr[keep] = vals.detach().cpu().numpy()
        return out[0], out[1], out[2]


def _config_layers(model: str) -> int:
    from transformers import AutoConfig

    return int(AutoConfig.from_pretrained(model).num_hidden_layers)


_SCORERS: dict[tuple, BertScore] = {}


def _key(cfg: BertScoreConfig) -> tuple:
    return (cfg.model, cfg.num_layers, cfg.batch_size, cfg.device)


def bertscore_model_from_env() -> str | None:
    """The BERTScore model the user named in ``$DISHGRAPH_BERTSCORE_MODEL`` (a local directory or a hub name), or
    None. There is no built-in default: a default hub name made `eval crg` spend two minutes retrying the hub on
    a machine without network before it skipped BERTScore."""
    return os.environ.get(BERTSCORE_MODEL_ENV) or None


def load_bertscore(config: BertScoreConfig | None = None) -> BertScore:
    """Load (once) the scorer for `config`; raises OSError when the model cannot be found or downloaded."""
    cfg = config or BertScoreConfig()
    if _key(cfg) not in _SCORERS:
        _SCORERS[_key(cfg)] = BertScore(cfg)
    return _SCORERS[_key(cfg)]


def bertscore(
    candidates: Sequence[str], references: Sequence[str], config: BertScoreConfig | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-pair BERTScore (P, R, F1), keeping one loaded model per configuration."""
    return load_bertscore(config).score(candidates, references)
