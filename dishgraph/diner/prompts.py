"""LLM prompts with selective demonstrations (DiNeR's in-context baseline), and reading the answers back.

Each test recipe gets a prompt with two exemplars (instructions -> dish name) from the training side:

- *by dish name*: given the components a cheaper model predicts for the test recipe (a ``--guide``
  predictions file: the graph recognizer, CP-FT's component models, anything ``eval diner`` reads), the
  first exemplar is the training name with the highest component F1 against them, the second the one
  with the highest F1 against the components the first missed (so the pair covers the prediction);
  ties, and recipes without a guide, are broken by instruction similarity;
- *by instructions*: Okapi BM25 between the test instructions and every training recipe, with
  ``rank-bm25``'s parameters and IDF (``BM25Okapi``) but scored as one sparse matrix product (``SparseBM25``):
  rank-bm25's ``get_scores`` loops in Python over every document for every query token (about 0.3 s a
  query here); the scores are the same (a test checks it). Chinese is tokenised as character unigrams plus
  bigrams, not with the project's segmenter:
  recipe text is full of glossary-unknown words and numbers that a segmenter splits inconsistently,
  character n-grams need no model load, and bigrams keep most two-character words (炒锅, 鸡蛋) whole.

The exemplars are distinct dish names and never the test dish (TMCD puts every recipe of a dish on one
side). The JSONL written carries ``id``, ``prompt``, ``gold``, ``form`` and the exemplars' ids and names,
for any LLM API; the answers come back as JSONL ``{"id", "answer"}`` and are turned into the predictions
file ``eval diner`` reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dishgraph.diner.dataset import PROMPT_SUFFIX
from dishgraph.diner.names import DinerGlossary, parse_name

HEADER = "根据菜谱的做法说出菜名。\n\n"
MAX_INSTRUCTION_CHARS = 400
SHOTS = 2


def bm25_tokens(text: str) -> list[str]:
    """Character unigrams and bigrams of the non-space characters."""
    chars = [c for c in text if not c.isspace()]
    return chars + [a + b for a, b in zip(chars, chars[1:])]


def _f1(pred: frozenset, gold: frozenset) -> float:
    tp = len(pred & gold)
    return 2 * tp / (len(pred) + len(gold)) if tp else 0.0


def _atoms(example: dict) -> frozenset[str]:
    return frozenset(f"{c['type']}:{c['cluster']}" for c in example["components"])


def _clip(text: str, limit: int = MAX_INSTRUCTION_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "……"


class SparseBM25:
    """rank-bm25's Okapi BM25 (k1 1.5, b 0.75, its IDF with the epsilon floor), scored as W @ idf(query)."""

    def __init__(self, docs: Sequence[list[str]]):
        import numpy as np
        from rank_bm25 import BM25Okapi
        from scipy.sparse import csr_matrix

        ref = BM25Okapi(docs)
        self.vocab: dict[str, int] = {}
        rows, cols, vals = [], [], []
        for d, freqs in enumerate(ref.doc_freqs):
            for tok, tf in freqs.items():
                rows.append(d)
                cols.append(self.vocab.setdefault(tok, len(self.vocab)))
                vals.append(tf)
        tf = np.asarray(vals, dtype=float)
        dl = np.asarray(ref.doc_len, dtype=float)[rows]
        w = tf * (ref.k1 + 1) / (tf + ref.k1 * (1 - ref.b + ref.b * dl / ref.avgdl))
        self.weights = csr_matrix((w, (rows, cols)), shape=(len(docs), len(self.vocab)))
        self.idf = np.zeros(len(self.vocab))
        for tok, i in self.vocab.items():
            self.idf[i] = ref.idf.get(tok, 0.0)

    def get_scores(self, query: Sequence[str]):
        import numpy as np

        q = np.zeros(len(self.vocab))
        for tok in query:
            i = self.vocab.get(tok)
            if i is not None:
                q[i] += self.idf[i]
        return self.weights @ q


@dataclass
class DemoSelector:
    """BM25 over the training instructions plus the component-F1 choice of exemplars."""

    train: Sequence[dict]

    def __post_init__(self):
        self.bm25 = SparseBM25([bm25_tokens(e["instructions"]) for e in self.train])
        self.atoms = [_atoms(e) for e in self.train]
        self.by_atom: dict[str, list[int]] = {}
        for i, a in enumerate(self.atoms):
            for x in a:
                self.by_atom.setdefault(x, []).append(i)

    def _candidates(self, target: frozenset, sim) -> Iterable[int]:
        """Training examples sharing an atom with the target (all of them when none does or no target)."""
        if target:
            hits = {i for a in target for i in self.by_atom.get(a, ())}
            if hits:
                return sorted(hits)
        return range(len(self.train))

    def select(
        self, instructions: str, guide: frozenset[str] | None = None, exclude: str | None = None, k: int = SHOTS
    ) -> list[int]:
        """Indices of ``k`` training exemplars with distinct dish names (see the module docstring)."""
        sim = self.bm25.get_scores(list(dict.fromkeys(bm25_tokens(instructions))))
        chosen: list[int] = []
        names: set[str] = {exclude} if exclude else set()
        target = set(guide or ())
        for _ in range(k):
            best, best_key = None, None
            tgt = frozenset(target)
            for i in self._candidates(tgt, sim):
                if self.train[i]["name"] in names:
                    continue
                key = (_f1(self.atoms[i], tgt) if tgt else 0.0, sim[i])
                if best_key is None or key > best_key:
                    best, best_key = i, key
            if best is None:
                break
            chosen.append(best)
            names.add(self.train[best]["name"])
            if target:
                left = target - self.atoms[best]
                target = left or set(guide or ())  # all covered: the next one matches the whole guide again
        return chosen


def render_prompt(test_instructions: str, exemplars: Iterable[dict]) -> str:
    parts = [HEADER]
    for e in exemplars:
        parts.append(f"菜谱：{_clip(e['instructions'])}\n{PROMPT_SUFFIX}\n菜名：{e['name']}\n\n")
    parts.append(f"菜谱：{_clip(test_instructions)}\n{PROMPT_SUFFIX}\n菜名：")
    return "".join(parts)


def build_prompts(
    train: Sequence[dict],
    test: Sequence[dict],
    guide: dict[str, str] | None = None,
    glossary: DinerGlossary | None = None,
    progress=None,
) -> list[dict]:
    """One prompt per test example; ``guide`` maps a recipe id to a predicted name (parsed into atoms)."""
    if not train:
        raise ValueError("no training examples to choose demonstrations from")
    selector = DemoSelector(train)
    rows = []
    for n, e in enumerate(test, 1):
        atoms = None
        if guide and e["id"] in guide and glossary is not None:
            p = parse_name(guide[e["id"]], glossary)
            atoms = p.atoms if p.ok else None
        idx = selector.select(e["instructions"], atoms, exclude=e["name"])
        demos = [train[i] for i in idx]
        rows.append(
            {
                "id": e["id"],
                "prompt": render_prompt(e["instructions"], demos),
                "gold": e["name"],
                **({"form": e["form"]} if e.get("form") else {}),
                "exemplars": [{"id": d["id"], "name": d["name"]} for d in demos],
                "guide": guide.get(e["id"]) if guide else None,
            }
        )
        if progress:
            progress(n, len(test))
    return rows


_PREFIX = re.compile(r"^\s*(菜名|答案|答)\s*[:：]\s*")
_TRAIL = re.compile(r"[。.!！?？,，;；\"'“”‘’「」《》]+")


def clean_answer(answer: str) -> str:
    """The dish name in an LLM answer: first non-empty line, no '菜名：' prefix, no quotes or punctuation."""
    line = next((ln for ln in answer.splitlines() if ln.strip()), "")
    return _TRAIL.sub("", _PREFIX.sub("", line)).strip()


def answers_to_predictions(prompts: Sequence[dict], answers: Sequence[dict], source: str = "answers") -> list[dict]:
    """Join answers ``{"id", "answer"}`` to the prompts by id; a prompt without an answer predicts ""."""
    by_id: dict[str, str] = {}
    for n, a in enumerate(answers, 1):
        if not isinstance(a.get("id"), str) or not isinstance(a.get("answer"), str):
            raise ValueError(f"{source}: record {n} needs string fields 'id' and 'answer'")
        by_id[a["id"]] = a["answer"]
    return [
        {
            "id": p["id"],
            "pred": clean_answer(by_id.get(p["id"], "")),
            "gold": p["gold"],
            **({"form": p["form"]} if p.get("form") else {}),
        }
        for p in prompts
    ]
