"""Naming a step's output the way the PCS annotators do, learned from the train tables.

The annotators' wording is regular: ``heat | olive oil → heated olive oil``, ``top | (crust; sauce) → crust
topped with sauce``, ``mix | (flour; yeast) → flour mixture``, ``bake | unbaked pizza → baked <dish name>``;
moving and resting keep the name (``place | dough → dough``). Each train row's output is turned into a
**template** over its own inputs: the comestible worked on becomes ``{X}``, the other inputs ``{R}``, the
dish named in the recipe title ``{T}`` and the action's participle ``{V}`` (``rise`` → ``risen`` as annotators
spell it), so that one template serves every recipe: ``{V} {X}``, ``{X} topped with {R}``, ``{X} mixture``.

Templates are counted per action and input shape (one item or several), with the whole train set as the
back-off for rare actions. A step's output is then chosen among the filled templates of its action by
**minimum Bayes risk** under ROUGE-L: the candidate with the highest expected ROUGE-L against the others,
weighted by how often each was written, mixed with the templates of the train rows whose instruction is most
like the step's (`Namer.near`). Because our own chained name of the comestible worked on is often not the
annotator's, the templates are also filled with its bare and core names (`Namer.hedge`), and a participle
template drops the name's own leading participles (`Namer.bare`). The mode (most frequent template) is kept
as an alternative (``method="mode"``) because the choice between them was made on val.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

X, R, T, V = "{X}", "{R}", "{T}", "{V}"
SLOTS = (X, R, T, V)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_RUN_OF_R = re.compile(r"\{R\}(?:(?: ,)? (?:and )?\{R\})+")
# The participles annotators write that no suffix rule gives (the rest are learned or regular).
IRREGULAR = {
    "rise": "risen",
    "let": "risen",
    "set": "cooled",
    "cut": "cut",
    "spread": "spread",
    "put": "put",
    "shake": "shaken",
    "freeze": "frozen",
    "grind": "ground",
    "make": "made",
    "beat": "beaten",
    "break": "broken",
    "spin": "spun",
    "split": "split",
    "shred": "shredded",
    "tear": "torn",
    "lay": "laid",
    "stick": "stuck",
    "hold": "held",
    "keep": "kept",
    "bring": "brought",
    "leave": "left",
}
# Words that follow a participle as part of the verb (``punched down dough``): stripped with it (`Namer.bare`).
PARTICLES = frozenset({"down", "out", "up", "off", "over", "back", "together", "apart"})
DISH_NOISE = frozenset({"recipe", "recipes", "easy", "best", "my", "the", "homemade", "quick", "simple", "s"})


def toks(text: str | None) -> list[str]:
    """The scorer's tokens (lower case, any non-alphanumeric a separator): ``Pizza_Crust`` = ``pizza crust``."""
    return list(_toks(text or ""))


@lru_cache(maxsize=1 << 16)
def _toks(text: str) -> tuple[str, ...]:  # the same few thousand names are split over and over
    return tuple(w for w in _NON_ALNUM.sub(" ", text.lower()).split() if w)


def regular_participle(verb: str) -> str:
    """The participle annotators write: an irregular one (``rise`` → ``risen``), else by the suffix rules."""
    return IRREGULAR.get(verb) or participle(verb)


def participle(verb: str) -> str:
    """``bake`` → ``baked``, ``fry`` → ``fried``, ``top`` → ``topped``, ``heat`` → ``heated``."""
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if len(verb) <= 4 and re.fullmatch(r".*[^aeiou][aeiou][bdgklmnprt]", verb):
        return verb + verb[-1] + "ed"
    return verb + "ed"


def dish_name(title: str) -> list[str]:
    """The dish a title names, as tokens (``easy_chipotle_pizza_recipe_2`` → chipotle pizza)."""
    words = toks(title)
    if words and words[-1].isdigit():
        words = words[:-1]
    return [w for w in words if w not in DISH_NOISE]


def _find(seq: list[str], sub: list[str], start: int = 0) -> int:
    for i in range(start, len(seq) - len(sub) + 1):
        if seq[i : i + len(sub)] == sub:
            return i
    return -1


def _replace(seq: list[str], sub: list[str], slot: str) -> tuple[list[str], bool]:
    at = _find(seq, sub) if sub else -1
    if at < 0:
        return seq, False
    return [*seq[:at], slot, *seq[at + len(sub) :]], True


def heads(inputs: Sequence[str]) -> set[str]:
    """The head word (last word, singular) of each input: what a comestible is (``sliced brie`` → brie)."""
    out = set()
    for x in inputs:
        words = toks(x)
        if words:
            w = words[-1]
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def lcs(a: Sequence[str], b: Sequence[str]) -> int:
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l_f(a: Sequence[str], b: Sequence[str]) -> float:
    """ROUGE-L F1 on token lists (rouge-score's ``rougeL`` F-measure; symmetric)."""
    n = lcs(a, b)
    return 0.0 if n == 0 else 2 * n / (len(a) + len(b))


@dataclass
class Namer:
    """Output templates per (action, input shape), learned from train rows (see module doc)."""

    templates: dict = field(default_factory=lambda: defaultdict(Counter))  # (action, several) -> Counter
    participles: dict[str, str] = field(default_factory=dict)  # action -> participle as annotators write it
    keep: Counter = field(default_factory=Counter)  # action -> rows whose output is an input verbatim
    rows: Counter = field(default_factory=Counter)  # action -> rows with an output
    method: str = "mbr"  # mbr | mode (val, chained: output ROUGE-L 42.6 against 41.1)
    backoff: float = 1.0  # weight of the pooled (all actions) templates beside the action's own (val)
    min_rows: int = 5  # below this many rows of its own, an action leans on the pool
    top: int = 25  # candidates (most frequent templates) considered per step
    evidence: int = 40  # the likeliest this many candidates are `mbr`'s evidence (0: all; 40: -0.1 on val, 40% faster)
    mbr_top: int = 25  # of which the likeliest this many are tried by `mbr` (all are its evidence)
    by_head: dict = field(default_factory=lambda: defaultdict(Counter))  # (action, several, head word) -> Counter
    head_rows: float = 10.0  # rows of an input's head word that count as much as the action's own (0: off)
    neighbours: int = 10  # train rows with the most similar instruction whose templates join the evidence (0: off; val)
    nn_share: float = 0.6  # their share of the weight (val)
    nn_vectorizer: object = None
    nn_matrix: object = None
    nn_templates: list = field(default_factory=list)  # (several, template) per row of `nn_matrix`
    _nearest: dict = field(default_factory=dict)  # step text -> [(row of `nn_matrix`, cosine)], best first
    hedge_share: float = 0.5  # weight of the main input's other names (`hedge`; 0: off; val)
    strip: bool = True  # a participle template replaces the main input's leading participles (see `bare`)
    particles: bool = True  # `bare` also drops the particle after a stripped participle (``punched down``; val)
    min_titles: int = 0  # a literal template word in fewer train dishes' templates is `rare` (0: off)
    rare: frozenset = frozenset()  # those words: a candidate with one the step does not name is not chosen by MBR
    listing: str = ""  # three or more other inputs joined `a<listing>b and c` ("": `a and b and c`)
    where_cut: tuple = ("in", "into")  # `bare` also ends the name before the first of these (where it sits; val)

    # ------------------------------------------------------------------------------------------ learning
    @classmethod
    def learn(cls, rows: Sequence[tuple[str, Sequence[str], str | None, str, str]], **knobs) -> Namer:
        """``rows``: (action key, inputs, output, main input, title) for every train row that has inputs.
        The participle of each action is the word its outputs most often start with when that word begins
        like the verb (``rise`` → ``risen``, ``cut`` → ``cut``), else the regular form."""
        namer = cls(**knobs)
        starts: dict[str, Counter] = defaultdict(Counter)
        for action, inputs, output, _main, _title, *_ in rows:
            out = toks(output)
            in_words = {w for x in inputs for w in toks(x)}
            for w in out:
                begins_like = bool(action) and w[:3] == action[:3] and w != action
                if w not in in_words and (begins_like or w == IRREGULAR.get(action)):
                    starts[action][w] += 1
        for action, found in starts.items():
            word, n = found.most_common(1)[0]
            namer.participles[action] = word if n >= 2 else regular_participle(action)
        texts, found = [], []
        if namer.min_titles:
            dishes: dict[str, set[str]] = defaultdict(set)  # literal template word -> train titles using it
            for action, inputs, output, main, title, *_ in rows:
                if inputs:
                    for w in namer.template_of(action, inputs, output, main, title).split():
                        if w not in SLOTS:
                            dishes[w].add(title)
            namer.rare = frozenset(w for w, t in dishes.items() if len(t) < namer.min_titles)
        for action, inputs, output, main, title, *instruction in rows:
            if not inputs:
                continue
            namer.rows[action] += 1
            tpl = namer.template_of(action, inputs, output, main, title)
            namer.keep[action] += tpl == X
            several = len(inputs) > 1
            namer.templates[(action, several)][tpl] += 1
            namer.templates[("", several)][tpl] += 1
            for h in sorted(heads(inputs)):
                namer.by_head[(action, several, h)][tpl] += 1
            if instruction:
                texts.append(f"__{action} {instruction[0]}")
                found.append((several, tpl))
        if texts and namer.neighbours:
            from sklearn.feature_extraction.text import TfidfVectorizer

            namer.nn_vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True, token_pattern=r"\S+")
            namer.nn_matrix = namer.nn_vectorizer.fit_transform([" ".join(toks(x)) for x in texts])
            namer.nn_templates = found
        return namer

    def participle(self, action: str) -> str:
        return self.participles.get(action) or regular_participle(action)

    def template_of(self, action: str, inputs: Sequence[str], output: str | None, main: str, title: str) -> str:
        """The output with its inputs, dish name and participle as slots (``NA`` stays ``NA``)."""
        out = toks(output)
        if not out:
            return "NA"
        out, _ = _replace(out, toks(main), X)
        for other in sorted((x for x in inputs if x != main), key=lambda x: -len(toks(x))):
            out, _ = _replace(out, toks(other), R)
        dish = dish_name(title)
        if len(dish) >= 2 or (dish and dish[-1] != "pizza"):
            out, _ = _replace(out, dish, T)
        participle = self.participle(action)
        out = [V if w == participle else w for w in out]
        return _RUN_OF_R.sub(R, " ".join(out))

    # ------------------------------------------------------------------------------------------ naming
    def candidates(self, action: str, several: bool) -> Counter:
        """Template probabilities for a step: the action's own, mixed with the pool's (all actions) in
        proportion ``min_rows`` to the action's row count (a rare action leans on the pool)."""
        own = self.templates.get((action, several)) or Counter()
        pool = self.templates.get(("", several)) or Counter()
        n, total = sum(own.values()), sum(pool.values()) or 1
        share = n / (n + self.min_rows * self.backoff) if n else 0.0
        out: Counter = Counter()
        for tpl, c in own.most_common(self.top):
            out[tpl] += share * c / n
        for tpl, c in pool.most_common(self.top):
            out[tpl] += (1 - share) * c / total
        return out

    def weights(self, action: str, inputs: Sequence[str]) -> Counter:
        """`candidates`, sharpened by what this action's outputs were when an input had the same head word
        (``mix`` with ``flour`` → ``dough``; ``knead`` with ``dough`` → ``kneaded dough``)."""
        several = len(inputs) > 1
        base = self.candidates(action, several)
        if not self.head_rows:
            return base
        found: Counter = Counter()
        for h in sorted(heads(inputs)):
            found.update(self.by_head.get((action, several, h)) or Counter())
        n = sum(found.values())
        if not n:
            return base
        share = n / (n + self.head_rows)
        out: Counter = Counter({tpl: (1 - share) * w for tpl, w in base.items()})
        for tpl, c in found.most_common(self.top):
            out[tpl] += share * c / n
        return out

    def bare(self, name: str) -> str:
        """The name without its leading participles (``kneaded dough`` → ``dough``): annotators replace the
        previous participle more often than they stack a new one on it (374 against 227 train rows). With
        `particles`, a particle goes with its participle (``punched down dough`` → ``dough``, not ``down
        dough``); with `where_cut`, the name ends before ``in``/``into`` (``kneaded dough in bowl`` → ``dough``)."""
        words = toks(name)
        done = set(self.participles.values()) | set(IRREGULAR.values())
        k = 0
        while k < len(words) - 1 and words[k] in done:
            k += 1
            if self.particles and k < len(words) - 1 and words[k] in PARTICLES:
                k += 1
        words = words[k:]
        if self.where_cut:  # `dough in bowl` → `dough`: where a comestible sits is not its name
            at = next((i for i, w in enumerate(words) if i and w in self.where_cut), len(words))
            words = words[:at]
        return " ".join(words)

    def fill(self, template: str, action: str, main: str, rest: Sequence[str], title: str) -> str:
        names = [" ".join(toks(x)) for x in rest]
        if self.listing and len(names) > 2:  # `a, b and c` as annotators list (commas are not tokens)
            others = self.listing.join(names[:-1]) + " and " + names[-1]
        else:
            others = " and ".join(names)
        dish = " ".join(dish_name(title)) or "pizza"
        if self.strip and V + " " + X in template:
            template = template.replace(V + " " + X, V + " " + self.bare(main))
        text = template.replace(X, " ".join(toks(main)) or main).replace(R, others)
        text = text.replace(T, dish).replace(V, self.participle(action))
        return re.sub(r"\s+", " ", text).strip()

    def name(
        self,
        action: str,
        inputs: Sequence[str],
        main: str,
        rest: Sequence[str],
        title: str,
        method: str = "",
        also: Sequence[str] = (),
        instruction: str = "",
    ) -> str | None:
        """The output of a step that works on ``main`` (with ``rest``) — None (``NA``) only when the
        annotators of this action wrote NA more often than anything. ``method`` overrides `method`."""
        weights = self.weights(action, inputs)
        if instruction and self.neighbours and self.nn_vectorizer is not None:
            weights = self.near(weights, action, len(inputs) > 1, instruction)
        if not weights:
            return main
        filled: Counter = Counter()
        leaky: set[str] = set()  # candidates with a rare literal word of another dish's template, not named here
        context = {w for x in (*inputs, main, *rest, *also, instruction) for w in toks(x)} if self.rare else ()
        mains = self.hedge(main, also) if also else [(main, 1.0)]
        for variant, share in mains:
            for tpl, w in weights.items():
                text = self.fill(tpl, action, variant, rest, title) if tpl != "NA" else "NA"
                filled[text] += share * w
                if self.rare and any(x in self.rare and x not in context for x in tpl.split()):
                    leaky.add(text)
        if (method or self.method) == "mode" or len(filled) == 1:
            best = next((t for t, _ in filled.most_common() if t not in leaky), filled.most_common(1)[0][0])
        else:
            best = mbr(filled, self.mbr_top, self.evidence, leaky)
        return None if best == "NA" else best

    def prime(self, steps: Sequence[tuple[str, str]]) -> None:
        """The nearest train rows of many (action, instruction) steps at once (one sparse product for a whole
        table instead of one per step: the benchmark's time), kept for `near`."""
        if not self.neighbours or self.nn_vectorizer is None:
            return
        texts = list(dict.fromkeys(t for a, i in steps if (t := " ".join(toks(f"__{a} {i}"))) not in self._nearest))
        if not texts:
            return
        sims = (self.nn_matrix @ self.nn_vectorizer.transform(texts).T).toarray()  # type: ignore[attr-defined]
        # The same on every CPU: the idf's logarithm differs in its last bit between numpy's AVX-512 and AVX2
        # code, and numpy's default sort orders equal values by the CPU's SIMD sort. So similarities are
        # rounded to 1e-9 and equal ones taken in train-row order (a stable sort of the negated values).
        sims = np.round(sims, 9)
        for col, text in enumerate(texts):
            column = sims[:, col]
            order = np.argsort(-column, kind="stable")[: 4 * self.neighbours]
            self._nearest[text] = [(int(k), float(column[k])) for k in order if column[k] > 0]

    def near(self, weights: Counter, action: str, several: bool, instruction: str) -> Counter:
        """``weights`` mixed (`nn_share`) with the templates of the `neighbours` train rows of the same input
        shape whose action and instruction are most like this one's (TF-IDF cosine, words and word pairs):
        ``bake until the crust is golden`` is worded like the bake rows that said so, not like bake at large."""
        text = " ".join(toks(f"__{action} {instruction}"))
        if text not in self._nearest:
            self.prime([(action, instruction)])
        found: Counter = Counter()
        used = 0
        for k, sim in self._nearest[text]:
            if used >= self.neighbours:
                break
            several_k, tpl = self.nn_templates[k]
            if several_k == several:
                found[tpl] += sim
                used += 1
        total = sum(found.values())
        if not total:
            return weights
        out: Counter = Counter({tpl: (1 - self.nn_share) * w for tpl, w in weights.items()})
        for tpl, w in found.items():
            out[tpl] += self.nn_share * w / total
        return out

    def hedge(self, main: str, also: Sequence[str]) -> list[tuple[str, float]]:
        """The names the main comestible may go by, with their weights: ``main`` and each of ``also`` (its
        bare and core names, distinct), ``hedge_share`` of the weight spread over the others. Our own chained
        name of a comestible is often not the annotator's; MBR over the templates filled with every name
        picks the wording that is least wrong whichever it is."""
        others = [
            x for x in dict.fromkeys(toks(a) and " ".join(toks(a)) for a in also) if x and x != " ".join(toks(main))
        ]
        if not others:
            return [(main, 1.0)]
        return [(main, 1 - self.hedge_share), *((x, self.hedge_share / len(others)) for x in others)]


def mbr(weighted: Counter, hypotheses: int = 0, evidence_top: int = 0, barred: Collection[str] = ()) -> str:
    """The candidate with the highest weighted ROUGE-L against all candidates (itself included); only the
    ``hypotheses`` likeliest are tried (0: all), the ``evidence_top`` likeliest counting as evidence (0: all);
    ``barred`` candidates count as evidence but are not chosen (unless all are barred)."""
    items = [(text, toks(text), w) for text, w in weighted.most_common()]
    evidence = [(_masks(tt), len(tt), w) for _, tt, w in items[: evidence_top or len(items)]]
    tried = hypotheses or len(items)
    known: dict[tuple[int, int], int] = {}  # LCS is symmetric: a pair of tried candidates is computed once

    def common(i: int, tt: list[str], j: int, masks: dict[str, int], n: int) -> int:
        if j >= tried:
            return _lcs_bits(tt, masks, n)
        key = (i, j) if i < j else (j, i)
        if key not in known:
            known[key] = _lcs_bits(tt, masks, n)
        return known[key]

    best, best_gain = items[0][0], -1.0
    for i, (text, tt, _) in enumerate(items[:tried]):
        if text in barred:
            continue
        gain = sum(
            w * 2 * common(i, tt, j, masks, n) / (len(tt) + n) for j, (masks, n, w) in enumerate(evidence) if n and tt
        )
        if gain > best_gain:
            best, best_gain = text, gain
    return best


def _masks(b: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, y in enumerate(b):
        out[y] = out.get(y, 0) | (1 << i)
    return out


def _lcs_bits(a: Sequence[str], masks: dict[str, int], n: int) -> int:
    """LCS length of ``a`` and the sequence ``masks`` describes (its length ``n``), bit-parallel (Hyyrö
    2004): one addition per token of ``a`` instead of a row of the table (MBR compares many pairs)."""
    full = (1 << n) - 1
    v = full
    for x in a:
        u = v & masks.get(x, 0)
        v = ((v + u) | (v - u)) & full
    return n - bin(v).count("1")
