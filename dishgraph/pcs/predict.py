"""Predicting PCS input/output cells from instructions: floors and the comestible tracker (docs/pcs.md §3).

Every predictor fills, for each row of each table, the input set and the output of a step from the table's
instructions, actions and the recipe's ingredient list. Two settings:

- ``chained``: a row sees only its own instruction/action, the earlier instructions and the predictor's
  *own* earlier outputs (as the paper's models did);
- ``oracle``: the gold earlier outputs replace the predictor's own (gold inputs of earlier rows too): an
  upper bound for the chaining, never a headline number.

Floors: ``prev-output`` (input = the previous step's output, output = input unchanged), ``mentions`` (input
= the food words the instruction names, output = input unchanged). The tracker (`Tracker`) keeps a kitchen
state (which comestible each food word now lives in) and learns from the train tables whether a step takes
no food (`NoFood`) and which of its candidates (named foods, their live comestibles, recent outputs) are its
inputs (`Selector`); the output is worded by `Namer`
(`dishgraph.pcs.namer`), the annotators' templates learned from train, and the next steps take that wording
as their input, as the annotators reused their own earlier outputs.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from dishgraph.pcs.namer import Namer, T, dish_name, participle
from dishgraph.pcs.tables import PCSRow, PCSTable, format_input_cell, read_pcs, table_rows
from dishgraph.pcs.words import STOP, content_words, singular

SETTINGS = ("chained", "oracle")
MODELS = ("tracker", "prev-output", "mentions")
ANAPHORA = frozenset("it them mixture everything all remaining rest this these".split())
_TOKEN = re.compile(r"[A-Za-z][A-Za-z_\-']*")
_TOKEN_OR_PUNCT = re.compile(r"[A-Za-z][A-Za-z_\-']*|[,;:.()]")
X, R = "{X}", "{R}"
FOOD_SHARE = 0.5  # a word is food when rows naming it list it in their input at least this often
NONFOOD_SHARE = 0.15  # ... and never food (even in an ingredient line: oven, degrees) below this
NONFOOD_ROWS = 5  # ... among at least this many rows naming it (3 and shares up to 0.45: the same on val)
MAX_REST = 3  # other inputs written out in an output  # template slots: the main comestible, the other inputs joined


@lru_cache(maxsize=1 << 16)
def _key(text: str) -> str:  # cached: the selector's examples ask for the same names many times
    return " ".join(w for w in re.split(r"[^a-z0-9]+", text.lower()) if w)


def action_key(action: str) -> str:
    words = _key(action).split()
    return words[0] if words else ""


# ---------------------------------------------------------------------------------------------- mentions
def mentions(
    instruction: str,
    foods: AbstractSet[str],
    modifiers: AbstractSet[str] = frozenset(),
    merge: bool = True,
    punct: bool = False,
) -> list[str]:
    """The food phrases an instruction names, in order: ``_``-joined ingredient words as written (the
    release joins an ingredient's words with ``_``) and runs of words ending in a food word (``foods``,
    singular) with the ``modifiers`` before it (``whole wheat flour``, ``brown sugar``); without ``merge``
    every food word is an item of its own. With ``punct`` a run also ends at punctuation (``salt , pepper``
    are two items, ``lowfat milk`` one); without it punctuation is skipped (the `mentions` floor's reading)."""
    out: list[str] = []
    run: list[str] = []

    def close() -> None:
        while run and singular(run[-1]) not in foods:  # a run must end in a food word
            run.pop()
        if run and " ".join(run) not in out:
            out.append(" ".join(run))
        run.clear()

    for tok in (_TOKEN_OR_PUNCT if punct else _TOKEN).findall(instruction):
        if not tok[0].isalpha():  # punctuation (only found with ``punct``)
            close()
            continue
        tok = tok.strip("_-'")
        if "_" in tok:
            close()
            if tok not in out:
                out.append(tok)
            continue
        w = tok.lower()
        if w and singular(w) not in STOP and (singular(w) in foods or singular(w) in modifiers):
            run.append(w)
            if not merge:
                close()
        else:
            close()
    close()
    return out


# ---------------------------------------------------------------------------------------------- learning
@dataclass
class Learned:
    """What the tracker learns from the train tables (counts, turned into rates when used)."""

    na: Counter = field(default_factory=Counter)  # action -> rows with no input
    rows: Counter = field(default_factory=Counter)  # action -> rows
    carry: Counter = field(default_factory=Counter)  # (action, named) -> rows whose inputs hold an earlier output
    carry_rows: Counter = field(default_factory=Counter)
    templates: dict = field(default_factory=lambda: defaultdict(Counter))  # (action, multi) -> template counts
    foods: set[str] = field(default_factory=set)  # single words annotators use as input items
    nonfood: set[str] = field(default_factory=set)  # words instructions use that are rarely in an input
    namer: Namer = field(default_factory=Namer)  # the annotators' output wording (`dishgraph.pcs.namer`)
    selector: Selector | None = None  # which candidates are a step's inputs
    no_food: NoFood | None = None  # whether a step takes no comestible at all (``NA``)
    renamed: dict[str, str] = field(default_factory=dict)  # action -> the input annotators name afresh
    merge: bool = True  # named foods read as phrases (`mentions` with ``merge`` and ``punct``; val), selector too

    def rate(self, num: Counter, den: Counter, key, prior: float, weight: float = 2.0) -> float:
        """A smoothed rate: ``prior`` counts as ``weight`` pseudo-rows (rare actions lean on it)."""
        return (num[key] + prior * weight) / (den[key] + weight)

    def template(self, action: str, multi: bool, min_count: int = 2) -> str:
        """The action's most frequent output template for this input shape; an action seen too rarely gets
        its past participle before the main input (``baste`` → ``basted {X}``)."""
        found = self.templates.get((action, multi))
        if found and found.most_common(1)[0][1] >= min_count:
            return found.most_common(1)[0][0]
        if action and not multi:
            return f"{participle(action)} {X}"
        found = self.templates.get(("", multi))
        return found.most_common(1)[0][0] if found else X


def template_of(output: str, main: str, rest: str) -> str | None:
    """The output as a template over the main input ``{X}`` and the others ``{R}`` (token level), or None
    when the main input's words do not appear in it contiguously."""
    out, m = _key(output).split(), _key(main).split()
    if not out or not m:
        return None
    at = next((i for i in range(len(out) - len(m) + 1) if out[i : i + len(m)] == m), None)
    if at is None:
        return None
    toks = [*out[:at], X, *out[at + len(m) :]]
    r = _key(rest).split()
    if r:
        for i in range(len(toks) - len(r) + 1):
            if toks[i : i + len(r)] == r:
                toks = [*toks[:i], R, *toks[i + len(r) :]]
                break
    return " ".join(toks)


@contextmanager
def _namer_method(namer: Namer, method: str) -> Iterator[None]:
    """The namer wording by ``method`` for a while: a selector learned on the tracker's own chained outputs
    needs many of them, and the mode words alike and is 10 times faster than MBR."""
    saved, namer.method = namer.method, method
    try:
        yield
    finally:
        namer.method = saved


def learn(tables: Sequence[PCSTable], selector: bool | str = True, merge: bool = True, **namer_knobs) -> Learned:
    """Everything the tracker learns from ``tables``; ``merge``: named foods read as phrases (the selector
    learns from the candidates the tracker will meet, so the reading is fixed here)."""
    lr = Learned(merge=merge)
    named_rows = []  # (action, inputs, output, main, title) for the namer, main picked as the tracker does
    item_words: Counter = Counter()  # instruction word -> rows where it is also a word of an input item
    seen_words: Counter = Counter()  # instruction word -> rows
    for t in tables:
        produced: set[str] = set()
        kitchen = Kitchen()
        for k, row in enumerate(t.rows):
            a = action_key(row.action)
            if row.inputs:
                named_rows.append((a, row.inputs, row.output, kitchen.main(row.inputs), t.title, row.instruction))
            kitchen.update(row.inputs, row.output)
            lr.rows[a] += 1
            lr.rows[""] += 1
            if not row.inputs:
                lr.na[a] += 1
                lr.na[""] += 1
            in_items = {w for item in row.inputs for w in content_words(item)}
            for w in set(content_words(row.instruction)):
                seen_words[w] += 1
                item_words[w] += w in in_items
            named = bool(mentions(row.instruction, set()))
            carried = any(_key(x) in produced for x in row.inputs)
            for key in ((a, named), ("", named)):
                lr.carry_rows[key] += bool(row.inputs) and k > 0
                lr.carry[key] += carried
            if row.output and row.inputs:
                main = _main(row.inputs, produced)
                tpl = template_of(row.output, main, " and ".join(x for x in row.inputs if x != main))
                if tpl:
                    multi = len(row.inputs) > 1
                    lr.templates[(a, multi)][tpl] += 1
                    lr.templates[("", multi)][tpl] += 1
            if row.output:
                produced.add(_key(row.output))
    lr.foods = {w for w, n in seen_words.items() if n >= 3 and item_words[w] / n >= FOOD_SHARE}
    lr.nonfood = {w for w, n in seen_words.items() if n >= NONFOOD_ROWS and item_words[w] / n < NONFOOD_SHARE}
    lr.namer = Namer.learn(named_rows, **namer_knobs)
    lr.no_food = NoFood.learn(tables, lr)
    lr.renamed = renames(tables)
    if selector == "chained":  # learned on our own chained history (the rules tracker's), not the gold one
        with _namer_method(lr.namer, "mode"):
            lr.selector = Selector.learn(selector_examples(tables, lr, merge=merge, tracker=Tracker(lr)))
    elif selector == "dagger":  # the gold history's examples plus those of the gold-trained selector's own
        gold = selector_examples(tables, lr, merge=merge)
        lr.selector = Selector.learn(gold)
        with _namer_method(lr.namer, "mode"):
            own = selector_examples(tables, lr, merge=merge, tracker=Tracker(lr, inputs="selector"))
        lr.selector = Selector.learn(gold + own)
    elif selector:
        lr.selector = Selector.learn(selector_examples(tables, lr, merge=merge))
    return lr


def _main(inputs: Sequence[str], produced: set[str]) -> str:
    """The comestible a step works on: an earlier output if one is among the inputs, else the first."""
    return next((x for x in inputs if _key(x) in produced), inputs[0])


def fill(template: str, main: str, rest: Sequence[str]) -> str:
    """The template with the main comestible's and the others' (at most `MAX_REST`) short names."""
    others = " and ".join(_key(x) for x in rest[:MAX_REST])
    text = template.replace(X, _key(main) or main)
    text = text.replace(R, others) if R in text else text
    return re.sub(r"\s+", " ", text).strip()


RENAME_SHARE = 0.1  # an action's one-input rows this often name the dish afresh: we do too (bake)
RENAME_ROWS = 20


def renames(tables: Sequence[PCSTable]) -> dict[str, str]:
    """Actions whose one input annotators often write afresh from the dish name rather than as the previous
    output (``bake`` → ``uncooked <dish>`` on 15% of bake rows, while our own wording of the previous output
    rarely matches theirs): action -> that input's template over the dish name ``{T}``."""
    found: dict[str, Counter] = defaultdict(Counter)
    rows: Counter = Counter()
    for t in tables:
        dish = " ".join(dish_name(t.title))
        for row in t.rows:
            a = action_key(row.action)
            rows[a] += bool(row.inputs)
            if len(row.inputs) == 1 and dish:
                text = _key(row.inputs[0])
                if dish in text:
                    found[a][text.replace(dish, T)] += 1
    out = {}
    for a, c in found.items():
        tpl, n = c.most_common(1)[0]
        if n >= RENAME_ROWS and n >= RENAME_SHARE * rows[a]:
            out[a] = tpl
    return out


def fill_dish(template: str, title: str) -> str:
    return template.replace(T, " ".join(dish_name(title)) or "pizza")


# ---------------------------------------------------------------------------------------------- predicting
@dataclass
class Kitchen:
    """The live state while reading one recipe: the previous output and, per food word, its comestible."""

    prev: str | None = None
    where: dict[str, str] = field(default_factory=dict)
    produced: set[str] = field(default_factory=set)
    core: dict[str, str] = field(default_factory=dict)  # comestible -> the short name its outputs build on
    depth: dict[str, int] = field(default_factory=dict)  # comestible -> steps behind it
    history: list[str] = field(default_factory=list)  # outputs so far, oldest first
    used: set[str] = field(default_factory=set)  # comestibles some later step consumed
    step_no: int = 0  # rows read so far
    next_name: str | None = None  # what the step just predicted is called from now on, if not its output cell

    def main(self, inputs: Sequence[str]) -> str:
        """The comestible a step works on: the one with the longest history (the crust being topped)."""
        return max(inputs, key=lambda x: (self.depth.get(x, 0), -inputs.index(x)))

    def short(self, name: str) -> str:
        return self.core.get(name, name)

    def resolve(self, name: str) -> str:
        words = content_words(name)
        head = words[-1] if words else ""
        return self.where.get(head, name)

    def update(self, inputs: Sequence[str], output: str | None) -> None:
        output, self.next_name = (self.next_name or output) if output else output, None
        self.step_no += 1
        self.used.update(inputs)
        if not output:
            return
        self.history.append(output)
        for item in [*inputs, output]:
            for w in content_words(item):
                self.where[w] = output
        if inputs and output not in self.core:
            self.core[output] = self.short(self.main(inputs))
        self.depth[output] = max(self.depth.get(output, 0), 1 + max((self.depth.get(x, 0) for x in inputs), default=0))
        self.produced.add(_key(output))
        self.prev = output


# ---------------------------------------------------------------------------------------------- input selection
PREPOSITIONS = ("with", "into", "over", "on", "onto", "to", "in", "top", "together", "add", "remaining")
EARLIER = 3  # outputs before the previous one offered as candidates


def candidates(row: PCSRow, kitchen: Kitchen, named: Sequence[str], na_rate: float) -> list[tuple[str, str, dict]]:
    """Every comestible a step may take, with what is known about it: each named food as written and as
    the live comestible it resolves to, the previous output and a few earlier ones (`Selector` decides)."""
    a = action_key(row.action)
    words = set(_key(row.instruction).split())
    instr = set(content_words(row.instruction))
    shared = {
        "action=" + a: 1,
        "named": min(len(named), 4),
        "anaphora": bool(words & ANAPHORA),
        "first": kitchen.step_no == 0,
        "na_rate": na_rate,
        **{"prep=" + w: 1 for w in PREPOSITIONS if w in words},
    }
    out: list[tuple[str, str, dict]] = []  # (item, group: alternatives of which one is taken, features)
    seen: set[str] = set()

    def add(item: str, kind: str, group: str, **extra) -> None:
        if _key(item) in seen or not _key(item):
            return
        seen.add(_key(item))
        f = {**shared, "kind=" + kind: 1, "kind*action=" + kind + "|" + a: 1, **extra}
        f.update({f"kind*{k}={kind}": 1 for k in shared if k.startswith("prep=")})
        f[f"kind*named={kind}|{min(len(named), 3)}"] = 1
        f[f"kind*anaphora={kind}|{shared['anaphora']}"] = 1
        f["used"] = item in kitchen.used
        f["produced"] = _key(item) in kitchen.produced
        f["length"] = min(len(_key(item).split()), 6)
        mine = content_words(item)
        if mine:  # how much of the candidate the instruction names (``sauce`` in ``spread the sauce``)
            share = sum(w in instr for w in mine) / len(mine)
            f["overlap"] = share
            f[f"kind*overlap={kind}|{round(2 * share)}"] = 1
            f["head_named"] = mine[-1] in instr
        f["last_output"] = item == kitchen.prev
        f["step"] = min(kitchen.step_no, 12) / 12
        out.append((item, group, f))

    for i, m in enumerate(named):
        r = kitchen.resolve(m)
        add(m, "named", f"m{i}", order=min(i, 3), joined="_" in m, changed=r != m)
        if r != m:
            add(r, "resolved", f"m{i}", order=min(i, 3), is_prev=r == kitchen.prev)
    if kitchen.prev:
        add(kitchen.prev, "prev", "prev")
    for back, item in enumerate(reversed(kitchen.history[:-1][-EARLIER:]), start=1):
        add(item, f"earlier{back}", item)
    return out


@dataclass
class Selector:
    """Which candidates (`candidates`) are a step's inputs: a logistic regression learned on the train
    tables, read with the gold earlier outputs (what a candidate is, not how the predictor worded it)."""

    vectorizer: object = None
    model: object = None
    threshold: float = 0.5  # a candidate this likely is an input (val-tuned)
    floor: float = 0.1  # when none is that likely, the likeliest is taken if at least this likely (else NA)

    @classmethod
    def learn(cls, examples: Sequence[tuple[dict, bool]], c: float = 1.0, **knobs) -> Selector:
        from sklearn.feature_extraction import DictVectorizer

        vec = DictVectorizer()
        x = vec.fit_transform([f for f, _ in examples])
        y = [label for _, label in examples]
        return cls(vectorizer=vec, model=fit_logistic(x, y, c), **knobs)

    def choose(self, cands: Sequence[tuple[str, str, dict]]) -> list[str]:
        """The likely candidates, one per group (a named food or the comestible it resolves to)."""
        if not cands:
            return []
        probs = _positive(self.model, self.vectorizer.transform([f for _, _, f in cands]))  # type: ignore[attr-defined]
        best: dict[str, tuple[float, int]] = {}
        for k, ((_, group, _), p) in enumerate(zip(cands, probs)):
            if p >= self.threshold and p > best.get(group, (-1.0, 0))[0]:
                best[group] = (float(p), k)
        top = int(probs.argmax())
        if not best and probs[top] >= self.floor:  # nothing likely enough, but the step is not a no-food one
            best[""] = (float(probs[top]), top)
        chosen = {k for _, k in best.values()}
        out: list[str] = []
        for k, (item, _, _) in enumerate(cands):
            if k in chosen and item not in out:
                out.append(item)
        return out


COEF_DECIMALS = 6  # fitted weights kept to this many decimals: what every CPU and solver version agrees on
NEWTON_MAX_FEATURES = 3000  # widest design solved by Newton's method (its Hessian is features x features)


def fit_logistic(x, y, c: float):
    """An L2 logistic regression whose weights are the same on every CPU and scipy version. Its loss is
    strictly convex, so a fit to a tight gradient tolerance lands on the one optimum to ~1e-9 whatever the
    solver's path (BLAS kernel, SIMD dispatch, L-BFGS rewrite); weights rounded to `COEF_DECIMALS` then
    agree bit for bit. sklearn's default tolerance (1e-4) stopped wherever the path got to: the PCS
    figures moved by 0.3 points between an Intel and an AMD machine with identical packages."""
    from sklearn.linear_model import LogisticRegression

    if x.shape[1] <= NEWTON_MAX_FEATURES:  # Newton's steps: converges to the optimum in ~10 steps
        model = LogisticRegression(C=c, solver="newton-cholesky", tol=1e-10, max_iter=200).fit(x, y)
    else:  # a dense Hessian of this width costs minutes: L-BFGS, which gets this well-conditioned loss there
        model = LogisticRegression(C=c, tol=1e-10, max_iter=20000).fit(x, y)
    model.coef_ = np.round(model.coef_, COEF_DECIMALS)
    model.intercept_ = np.round(model.intercept_, COEF_DECIMALS)
    return model


def _positive(model, x):
    """``model.predict_proba(x)[:, 1]`` of a binary logistic regression, computed as sklearn does (the
    logistic of ``x @ coef.T + intercept``) without its per-call input checks: called once per step, those
    checks were a sixth of the benchmark's time."""
    from scipy.special import expit

    return expit(np.asarray(x @ model.coef_.T).ravel() + model.intercept_[0])


def selector_examples(
    tables: Sequence[PCSTable], learned: Learned, merge: bool = False, tracker: Tracker | None = None
) -> list[tuple[dict, bool]]:
    """Candidates of every train row, labelled by the gold input set. Read with the gold earlier outputs,
    or, given a ``tracker``, with that tracker's own chained outputs (the history the selector meets at
    prediction time): a candidate that is our output of step j is then an input when the annotator's input
    holds *their* output of step j (which comestible it is, not how we worded it)."""
    out = []
    for t in tables:
        kitchen = Kitchen()
        ingredient_words = {w for line in t.ingredients for w in content_words(line)}
        foods = learned.foods | (ingredient_words - learned.nonfood)
        source: dict[str, int] = {}  # an output in the kitchen -> the step that made it
        for k, row in enumerate(t.rows):
            gold = {_key(x) for x in row.inputs}
            named = mentions(row.instruction, foods, merge=merge, punct=True)
            na = learned.rate(learned.na, learned.rows, action_key(row.action), 0.1)
            for item, _, f in candidates(row, kitchen, named, na):
                j = source.get(item)
                made = j is not None and bool(t.rows[j].output) and _key(t.rows[j].output or "") in gold
                out.append((f, _key(item) in gold or made))
            if tracker is None:
                inputs, output = row.inputs, row.output
            else:
                inputs, output = tracker.step(row, kitchen, ingredient_words, t.title)
            kitchen.update(inputs, output)
            if kitchen.history and output:
                source[kitchen.history[-1]] = k
    return out


@dataclass
class NoFood:
    """Whether a step has no comestible (``preheat the oven``, ``line a pan``, ``set the oven to 400``): a
    logistic regression on the instruction's words and word pairs, the action, and whether a food is named
    or it is the first step, learned from the train rows whose input is ``NA``. The per-action rate alone
    cannot tell ``set aside to cool`` from ``set the oven``, nor ``heat the oil`` from ``heat the oven``."""

    vectorizer: object = None
    model: object = None
    _known: dict = field(default_factory=dict)  # step text -> probability

    @staticmethod
    def text(row: PCSRow, step_no: int, named: bool) -> str:
        flags = ("__first__ " if step_no == 0 else "") + ("__named__ " if named else "")
        return f"{flags}__act_{action_key(row.action)} {_key(row.instruction)}"

    @classmethod
    def learn(cls, tables: Sequence[PCSTable], learned: Learned) -> NoFood:
        from sklearn.feature_extraction.text import CountVectorizer

        texts, labels = [], []
        for t in tables:
            foods = learned.foods | ({w for line in t.ingredients for w in content_words(line)} - learned.nonfood)
            for k, row in enumerate(t.rows):
                texts.append(cls.text(row, k, bool(mentions(row.instruction, foods))))
                labels.append(not row.inputs)
        vec = CountVectorizer(binary=True, ngram_range=(1, 2), min_df=2, token_pattern=r"\S+")
        return cls(vectorizer=vec, model=fit_logistic(vec.fit_transform(texts), labels, 1.0))

    def prime(self, texts: Sequence[str]) -> None:
        """Probabilities of many steps (`text`) at once, kept for `probability` (one call per table)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._known]
        if todo:
            probs = self.model.predict_proba(self.vectorizer.transform(todo))[:, 1]  # type: ignore[attr-defined]
            self._known.update(zip(todo, map(float, probs)))

    def probability(self, row: PCSRow, step_no: int, named: bool) -> float:
        text = self.text(row, step_no, named)
        if text not in self._known:
            self.prime([text])
        return self._known[text]


@dataclass
class Tracker:
    learned: Learned
    na_threshold: float = 0.3  # nothing named and an action this often without food: no input (val-tuned)
    carry_threshold: float = 1.01  # carry the previous output beside named foods at this rate (> 1: never; val)
    na_strong: float = 0.5  # an action this often without food (preheat) takes none even when words match
    full_name: int = 5  # a main input this short is named in full in the output (else its core name; val)
    merge: bool | None = None  # adjacent food words up to punctuation as one item (None: as learned, `learn`; val)
    inputs: str = "selector"  # selector (learned: `Selector`; val) | rules (named foods, else the previous output)
    rename: bool = False  # (lost on val) name a step's input afresh where annotators mostly did (`renames`)
    na_p: float = 0.15  # no input when the no-food classifier says this likely (1: the per-action rates instead)
    chain_by: str = ""  # the name later steps take: "" the output cell's | mode (likeliest exact wording)
    wording: str = "namer"  # namer (`dishgraph.pcs.namer`) | template (the action's most frequent template)

    @property
    def _merge(self) -> bool:
        return self.learned.merge if self.merge is None else self.merge

    def prime(self, table: PCSTable) -> None:
        """What a table's steps need that does not depend on the chain (the no-food probabilities, the
        namer's nearest train rows), computed for all its steps at once: per-step model calls were most of
        the benchmark's time."""
        ingredient_words = {w for line in table.ingredients for w in content_words(line)}
        foods = self.learned.foods | (ingredient_words - self.learned.nonfood)
        if self.learned.no_food is not None and self.na_p < 1:
            self.learned.no_food.prime(
                [
                    NoFood.text(row, k, bool(mentions(row.instruction, foods, merge=self._merge, punct=True)))
                    for k, row in enumerate(table.rows)
                ]
            )
        self.learned.namer.prime([(action_key(row.action), row.instruction) for row in table.rows])

    def step(
        self, row: PCSRow, kitchen: Kitchen, ingredient_words: set[str], title: str = ""
    ) -> tuple[list[str], str | None]:
        a = action_key(row.action)
        na = self.learned.rate(self.learned.na, self.learned.rows, a, 0.1)
        named = mentions(
            row.instruction,
            self.learned.foods | (ingredient_words - self.learned.nonfood),
            merge=self._merge,
            punct=True,
        )
        words = set(_key(row.instruction).split())
        if self.na_p < 1 and self.learned.no_food is not None:
            if self.learned.no_food.probability(row, kitchen.step_no, bool(named)) >= self.na_p:
                return [], None
            if not named and a in self.learned.renamed and self.rename:  # ``bake`` → ``uncooked <dish>``
                return self._name(row, kitchen, [fill_dish(self.learned.renamed[a], title)], title)
            if not named and not (words & ANAPHORA):  # a step with food but none named: the previous output
                return ([], None) if kitchen.prev is None else self._name(row, kitchen, [kitchen.prev], title)
        elif na >= self.na_strong:
            return [], None
        if self.inputs == "selector" and self.learned.selector is not None:
            inputs = self.learned.selector.choose(candidates(row, kitchen, named, na))
            if not inputs:
                return [], None
            return self._name(row, kitchen, inputs, title)
        if not named and not (words & ANAPHORA):
            if kitchen.prev is None or na >= self.na_threshold:
                return [], None
        inputs: list[str] = []
        for m in named:
            r = kitchen.resolve(m)
            if r not in inputs:
                inputs.append(r)
        carry = self.learned.rate(self.learned.carry, self.learned.carry_rows, (a, bool(named)), 0.5)
        if kitchen.prev and kitchen.prev not in inputs and (not named or carry >= self.carry_threshold):
            inputs.append(kitchen.prev)
        if not inputs:
            return [], None
        return self._name(row, kitchen, inputs, title)

    def _name(self, row: PCSRow, kitchen: Kitchen, inputs: list[str], title: str) -> tuple[list[str], str | None]:
        a = action_key(row.action)
        main = kitchen.main(inputs)
        if self.wording == "namer":
            name = main if len(_key(main).split()) <= self.full_name else kitchen.short(main)
            rest = [x if len(_key(x).split()) <= self.full_name else kitchen.short(x) for x in inputs if x != main]
            also = (kitchen.short(main), self.learned.namer.bare(main)) if self.learned.namer.hedge_share else ()
            output = self.learned.namer.name(a, inputs, name, rest, title, also=also, instruction=row.instruction)
            if self.chain_by and output:  # later steps take the step's likeliest exact name as their input
                kitchen.next_name = self.learned.namer.name(a, inputs, name, rest, title, self.chain_by)
            return inputs, output
        template = self.learned.template(a, len(inputs) > 1)
        if template == X:  # input = output (moving, resting): the name is kept as it is
            return inputs, main
        rest = [kitchen.short(x) for x in inputs if x != main]
        name = main if len(_key(main).split()) <= self.full_name else kitchen.short(main)
        return inputs, fill(template, name, rest)


def predict_table(table: PCSTable, model: str, setting: str, tracker: Tracker | None = None) -> list[PCSRow]:
    """Predicted rows of one table (instruction and action kept; inputs and output filled)."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; expected one of {SETTINGS}")
    kitchen = Kitchen()
    ingredient_words = {w for line in table.ingredients for w in content_words(line)}
    foods = (tracker.learned.foods if tracker else set()) | ingredient_words  # the floor knows no train words
    if tracker is not None and model == "tracker":
        tracker.prime(table)
    out = []
    for row in table.rows:
        if model == "prev-output":
            inputs = [kitchen.prev] if kitchen.prev else []
            output = format_input_cell(inputs) if inputs else None
        elif model == "mentions":
            inputs = mentions(row.instruction, foods)
            output = format_input_cell(inputs) if inputs else None
        elif model == "tracker" and tracker is not None:
            inputs, output = tracker.step(row, kitchen, ingredient_words, table.title)
        else:
            raise ValueError(f"unknown model {model!r}; expected one of {MODELS} (the tracker needs train tables)")
        out.append(PCSRow(instruction=row.instruction, action=row.action, inputs=inputs, output=output))
        if setting == "oracle":
            kitchen.next_name = None
            kitchen.update(row.inputs, row.output)
        else:
            kitchen.update(inputs, output)
    return out


def predict(
    tables: Sequence[PCSTable], model: str = "tracker", setting: str = "chained", train=None, learned=None, **knobs
):
    """Prediction rows (recipe, annotator, row, instruction, action, input, output) for every gold row;
    ``learned`` (`learn` on the train tables) spares learning again for each setting."""
    if model.startswith("t5:"):
        predicted = _t5_tables(tables, model[3:], setting)
    else:
        if model == "tracker" and not train and learned is None:
            raise ValueError("the tracker learns from train tables: give --train")
        if model == "tracker" and learned is None:
            merge = knobs.get("merge")
            learned = learn(train, selector=knobs.get("inputs", "selector") == "selector", merge=merge is not False)
        tracker = Tracker(learned, **knobs) if model == "tracker" and learned else None
        predicted = [
            PCSTable(id=t.id, title=t.title, rows=predict_table(t, model, setting, tracker), annotator=t.annotator)
            for t in tables
        ]
    # keyed by the gold table (a T5 table may not carry the annotator), rows as predicted
    return table_rows(
        PCSTable(id=t.id, title=t.title, rows=p.rows, annotator=t.annotator) for t, p in zip(tables, predicted)
    )


def _t5_tables(tables: Sequence[PCSTable], path: str, setting: str) -> list[PCSTable]:
    """A fine-tuned T5 (`dishgraph train pcs -o DIR`) fills whole tables: chained by construction."""
    if setting != "chained":
        raise ValueError("t5 fills whole tables from the instructions alone: only --setting chained applies")
    from dishgraph.pcs.t5 import T5Config, load_model, predict_tables
    from dishgraph.torch_device import resolve_device

    cfg = T5Config(model=path)
    model, tokenizer = load_model(path, cfg.mask, resolve_device(None))
    return predict_tables(model, tokenizer, tables, cfg)


def predict_files(
    split: str | Path, train: str | Path | None, out: str | Path, model: str = "tracker", setting: str = "chained"
) -> dict:
    """`dishgraph pcs predict`: read the split (and train) tables, write one JSONL row per gold row."""
    started = time.perf_counter()
    tables = read_pcs(split)
    train_tables = read_pcs(train) if train else None
    rows = predict(tables, model, setting, train_tables)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    from dishgraph.outputs import write_text

    write_text(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return {
        "out": str(out),
        "model": model,
        "setting": setting,
        "tables": len(tables),
        "rows": len(rows),
        "seconds": round(time.perf_counter() - started, 2),
    }
