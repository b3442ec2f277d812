"""Optional dependency-parse backend: CoNLL-like parses → the same Actions as the rule parser.

This is the released CRG code's own method (it parsed with LTP): every glossary verb that heads a subtree
is an action; its words are its subtree minus the subtrees of verbs below it; ingredients and tools are
the words of that set found in the glossary. A backend (HanLP, LTP, stanza) is used only when its model
files are already on local disk: nothing here downloads, and the libraries are imported lazily.

The converter (:func:`actions_from_parse`) is backend-independent and is what the tests exercise, on
hand-recorded HanLP-style parses in ``tests/fixtures/parse/``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dishgraph.actions import Action, ProtoAction
from dishgraph.ingest.clauses import split_clauses
from dishgraph.ingest.glossary import Glossary
from dishgraph.registry import Registry


@dataclass(frozen=True)
class DepToken:
    id: int  # 1-based position in the sentence
    form: str
    pos: str
    head: int  # 0 = root
    deprel: str
    start: int = 0  # character offset in the recipe text


def read_conll(lines: Iterable[str], offset: int = 0, source: str = "<conll>") -> list[DepToken]:
    """Parse CoNLL-U/CoNLL-X rows (ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL …); ``#`` lines ignored.

    Character offsets are the running sum of forms (Chinese text has no spaces between words)."""
    toks, pos = [], offset
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 8 or not cols[0].isdigit():
            raise ValueError(f"{source}:{n}: expected ≥8 tab-separated CoNLL columns, got {line!r}")
        toks.append(DepToken(int(cols[0]), cols[1], cols[3], int(cols[6]), cols[7], pos))
        pos += len(cols[1])
    return toks


def load_fixture(path: str | Path) -> list[dict]:
    """A recorded parse file: JSON list of ``{"text", "conll": [rows…], "expected": [...]}``."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None


class DepConverter:
    """Dependency trees → Actions under the CRG conventions (glossary verbs head actions)."""

    def __init__(self, glossary: Glossary):
        self.glossary = glossary
        self._verbs = glossary.verb
        self._ingr = glossary.ingredient
        self._tools = glossary.tool
        self._max_verb = max((len(v) for v in self._verbs), default=1)

    def verb_of(self, word: str) -> str | None:
        for k in range(min(len(word), self._max_verb), 0, -1):
            if word[:k] in self._verbs:
                return word[:k]
        return None

    def sentence_actions(self, toks: list[DepToken], text: str = "", step: int = 0, clause: int = 0) -> list[Action]:
        """One parsed phrase → actions sorted by position; omission is resolved within the phrase."""
        if not toks:
            return []
        children: dict[int, list[int]] = {}
        root = None
        for t in toks:
            if t.head == 0:
                root = t.id
            else:
                children.setdefault(t.head, []).append(t.id)
        if root is None:
            raise ValueError(f"parse of {''.join(t.form for t in toks)!r} has no root")
        by_id = {t.id: t for t in toks}

        def is_action(i: int) -> bool:
            return self.verb_of(by_id[i].form) is not None and (i == root or i in children)

        groups: list[tuple[int, list[int]]] = []

        def collect(node: int, owner_words: list[int]):
            owner_words.append(node)
            for c in children.get(node, []):
                if is_action(c):
                    words: list[int] = []
                    groups.append((c, words))
                    collect(c, words)
                else:
                    collect(c, owner_words)

        root_words: list[int] = []
        if is_action(root):
            groups.append((root, root_words))
        collect(root, root_words)

        out = []
        for head, words in sorted(groups, key=lambda g: min(g[1])):
            forms = [by_id[w] for w in sorted(words)]
            t0, t1 = forms[0], forms[-1]
            a, b = t0.start, t1.start + len(t1.form)
            out.append(
                Action(
                    verb=self.verb_of(by_id[head].form) or by_id[head].form,
                    ingredients=_unique(t.form for t in forms if t.form in self._ingr),
                    tools=_unique(t.form for t in forms if t.form in self._tools),
                    start=a,
                    end=b,
                    phrase=text[a:b] if text else "".join(t.form for t in forms),
                    step=step,
                    clause=clause,
                )
            )
        return out

    def recipe_actions(self, sentences: Iterable[list[DepToken]], text: str = "") -> list[Action]:
        """Phrases in order → actions with omission resolved across phrases and protos set."""
        actions: list[Action] = []
        for k, toks in enumerate(sentences):
            actions.extend(self.sentence_actions(toks, text, step=k, clause=k))
        prev = None
        for a in actions:
            if not a.ingredients and not a.tools and prev:
                a.ingredients, a.inherited = list(prev), True
            prev = a.ingredients
            a.proto = ProtoAction(
                self._verbs.get(a.verb, a.verb),
                frozenset(self._ingr[i] for i in a.ingredients),
                frozenset(self._tools[t] for t in a.tools),
            )
        return actions


def _unique(xs) -> list[str]:
    return list(dict.fromkeys(xs))


# ------------------------------------------------------------------ live backends (optional)
Rows = Sequence[tuple]  # a parsed phrase: rows (id, form, pos, head, deprel)


class LtpBackend:
    """LTP, the parser the CRG authors used; its model directory in $DISHGRAPH_LTP_MODEL."""

    module = "ltp"

    @staticmethod
    def model_on_disk() -> bool:
        model = os.environ.get("DISHGRAPH_LTP_MODEL")
        return bool(model) and Path(model).exists()

    @staticmethod
    def load() -> Any:
        from ltp import LTP

        return LTP(os.environ["DISHGRAPH_LTP_MODEL"])

    @staticmethod
    def rows(nlp: Any, phrase: str) -> Rows:
        out = nlp.pipeline([phrase], tasks=["cws", "pos", "dep"])
        dep = out.dep[0]
        return [
            (i + 1, w, p, h, r) for i, (w, p, h, r) in enumerate(zip(out.cws[0], out.pos[0], dep["head"], dep["label"]))
        ]


class HanlpBackend:
    """HanLP's multi-task model, unpacked under $DISHGRAPH_HANLP_MODEL or $HANLP_HOME."""

    module = "hanlp"

    @staticmethod
    def model_on_disk() -> bool:
        return _hanlp_model_dir() is not None

    @staticmethod
    def load() -> Any:
        import hanlp

        return hanlp.load(str(_hanlp_model_dir()))

    @staticmethod
    def rows(nlp: Any, phrase: str) -> Rows:
        doc = nlp(phrase, tasks="dep")
        return [(i + 1, w, "", h, r) for i, (w, (h, r)) in enumerate(zip(doc["tok/fine"], doc["dep"]))]


class StanzaBackend:
    """Stanford stanza's zh-hans pipeline, from $STANZA_RESOURCES_DIR (default ~/stanza_resources)."""

    module = "stanza"

    @staticmethod
    def model_on_disk() -> bool:
        home = Path(os.environ.get("STANZA_RESOURCES_DIR", Path.home() / "stanza_resources"))
        return (home / "zh-hans").exists()

    @staticmethod
    def load() -> Any:
        import stanza

        return stanza.Pipeline("zh-hans", processors="tokenize,pos,lemma,depparse", download_method=None, verbose=False)

    @staticmethod
    def rows(nlp: Any, phrase: str) -> Rows:
        doc = nlp(phrase)
        return [(w.id, w.text, w.upos, w.head, w.deprel) for s in doc.sentences for w in s.words]


Backend = type[LtpBackend] | type[HanlpBackend] | type[StanzaBackend]
BACKENDS: Registry[Backend] = Registry(
    "dependency backend", doc="dependency parsers used only with their model on local disk (never downloaded)"
)
BACKENDS.add("ltp", LtpBackend)
BACKENDS.add("hanlp", HanlpBackend)
BACKENDS.add("stanza", StanzaBackend)


def available_backend() -> str | None:
    """Name of a dependency parser whose model is already on disk, else None. Never downloads."""
    found = available_backends()
    return found[0] if found else None


def available_backends() -> list[str]:
    """Every dependency parser (in ``BACKENDS`` order) whose model is on local disk and library installed."""
    return [e.name for e in BACKENDS.entries() if e.target.model_on_disk() and _importable(e.target.module)]


_HANLP_MTL = "close_tok_pos_ner_srl_dep_sdp_con_electra_small"


def _hanlp_model_dir() -> Path | None:
    """HanLP's multi-task model (it has the dependency head) as a local directory: $DISHGRAPH_HANLP_MODEL,
    else an unpacked copy under $HANLP_HOME. Loading by directory, never by identifier, cannot download."""
    given = os.environ.get("DISHGRAPH_HANLP_MODEL")
    if given:
        return Path(given) if Path(given).is_dir() else None
    home = Path(os.environ.get("HANLP_HOME", Path.home() / ".hanlp"))
    found = sorted(p for p in home.glob(f"mtl/{_HANLP_MTL}*") if p.is_dir()) if home.is_dir() else []
    return found[-1] if found else None


def resolve_backend(backend: str | None = None) -> str:
    """The backend to run: ``backend`` if its model is on local disk, else (None) the first one found;
    raises with what to install or set otherwise."""
    if backend is not None:
        backend = BACKENDS.lookup(backend).name  # an unknown name: UnknownName (a ValueError) listing them
    found = available_backends()
    if backend is not None and backend not in found:
        raise RuntimeError(f"{backend}: no local model found; {_MODEL_HINT}")
    if not found:
        raise RuntimeError(f"no dependency parser with a local model: {_MODEL_HINT}")
    return backend or found[0]


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


PhraseParse = Callable[[str], Sequence[tuple]]  # phrase -> rows (id, form, pos, head, deprel)


class DependencyParser:
    """Recipe parser on a live dependency backend; same ``parse`` / ``parse_many`` contract as RecipeParser.

    ``backend`` names one of ``BACKENDS`` (default: the first with a local model); ``parse_phrase`` plugs in
    any other parser (a function from a phrase to CoNLL-like rows), e.g. recorded parses in tests."""

    def __init__(self, glossary: Glossary, backend: str | None = None, parse_phrase: PhraseParse | None = None):
        self.backend = (backend or "custom") if parse_phrase is not None else resolve_backend(backend)
        self.name = self.backend
        self.converter = DepConverter(glossary)
        self._parse_rows = parse_phrase
        self._nlp: Any = None

    def _load(self) -> Any:
        if self._nlp is None:
            self._nlp = BACKENDS.get(self.backend).load()
        return self._nlp

    def _parse_phrase(self, phrase: str, offset: int) -> list[DepToken]:
        if self._parse_rows is not None:
            rows = self._parse_rows(phrase)
        else:
            rows = BACKENDS.get(self.backend).rows(self._load(), phrase)
        toks, cursor = [], 0
        for i, w, p, h, r in rows:  # backends drop spaces: find each word rather than add up lengths
            found = phrase.find(w, cursor)
            cursor = found if found >= 0 else cursor
            toks.append(DepToken(int(i), w, p, int(h), r, offset + cursor))
            cursor += len(w)
        return toks

    def parse(self, text: str) -> list[Action]:
        """CRG's phrases are its clauses, and it skips a phrase holding a bracket (``parse_functions.py``)."""
        sentences = [
            self._parse_phrase(c.text, c.start)
            for c in split_clauses(text)
            if not any(ch in c.text for ch in _BRACKET_CHARS)
        ]
        return self.converter.recipe_actions(sentences, text)

    def parse_many(self, texts: list[str]) -> list[list[Action]]:
        return [self.parse(t) for t in texts]

    def __getstate__(self) -> dict:
        """Pickles (to ingest workers) leave a loaded model behind: each process loads its own."""
        return {**self.__dict__, "_nlp": None}


_BRACKET_CHARS = "()（）"
_MODEL_HINT = (
    "install LTP, HanLP or stanza and put its model on disk (DISHGRAPH_LTP_MODEL, "
    "DISHGRAPH_HANLP_MODEL or HANLP_HOME, STANZA_RESOURCES_DIR); dishgraph never downloads models"
)
