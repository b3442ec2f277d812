"""Graph-guided counterfactual editor: edit the base recipe with what the graph knows about the dish pair.

The target dish's recipes are unseen, but the graph knows which actions set the two dishes apart (PIVOT edges,
released or mined; or, in the fair *association* mode, a pivot-style contrast of the base dish's recipes with
other dishes' recipes that handle the new ingredient class), how the new ingredient is handled elsewhere (real
example phrases), where actions usually go, and which must precede which (MUST_PRECEDE). The editor (a) swaps
the changed ingredient's mentions like the *replace* baseline, (b) drops clauses whose actions belong to the
replaced ingredient, (c) inserts clauses for the new ingredient's actions at positions that keep the order
constraints, (d) leaves everything else verbatim. Every edit is checked by
re-parsing the text with the project parser: an edit is kept only if its parsed effect is the intended one
(a pivot removed or inserted, nothing else changed, order kept) as judged against the pair's graph pivots.
``abstain=True`` (association mode only) leaves a recipe at the swap when the swap alone changes no action beyond
simple replacements. It is a probe of the L2 metric, not a recipe-quality rule: L2 averages F1 over the recipes
with changes only, so abstaining where guesses would be scored 0 raises L2 F1 (reported separately, never as a win).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from dishgraph.actions import Action, ProtoAction, crg_actions
from dishgraph.eval.l2 import INSERT, REMOVE, score_instance
from dishgraph.eval.outputs import REPLACE, Instance
from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.parser import Clause, RecipeParser
from dishgraph.models.baselines import ReplaceGenerator
from dishgraph.models.graph_editor_knowledge import (
    ASSOC_INSERTS,
    COMPOSED,
    PIVOT_SOURCES,
    PairKnowledge,
    PositionTable,
    association_pivots,
    load_pair_knowledge,
)
from dishgraph.models.registry import register

SEP = "，"
_CLAUSE_PUNCT = "，,、"
_SENT_PUNCT = "。！？!?；;"
KNOWLEDGE_MODES = ("pivots", "association", "composed")
# Shape/part suffixes: 豆腐丝, 鸡胸肉, 年糕片 name the replaced ingredient itself, unlike 鸡精 or 鸡蛋.
HEAD_SUFFIXES = (
    "丁",
    "片",
    "块",
    "丝",
    "条",
    "段",
    "末",
    "粒",
    "泥",
    "梗",
    "皮",
    "根",
    "头",
    "胸肉",
    "腿",
    "腿肉",
    "翅",
    "肉",
    "心",
    "叶",
)


class HeadReplacer(ReplaceGenerator):
    """*replace* with synonyms="form", plus glossary forms naming the replaced ingredient under another class:
    a modifier before it (北豆腐, 酱牛肉) or a shape/part after it (豆腐丝, 鸡胸肉); 鸡精, 蛋糕 stay."""

    def forms_to_replace(self, old: str) -> list[str]:
        forms = set(super().forms_to_replace(old))
        forms |= {
            f
            for f in self.glossary.ingredient
            if f != old and (f.endswith(old) or (f.startswith(old) and f[len(old) :] in HEAD_SUFFIXES))
        }
        return sorted(forms, key=lambda f: (-len(f), f))


class CachedSegmenter:
    """Memoises clause segmentation: an edit re-parses a recipe whose clauses are almost all unchanged."""

    def __init__(self, inner, max_size: int = 200_000):
        self.inner, self.max_size, self.memo = inner, max_size, {}

    def cut(self, text: str):
        got = self.memo.get(text)
        if got is None:
            if len(self.memo) >= self.max_size:
                self.memo.clear()
            got = self.memo[text] = self.inner.cut(text)
        return got


@dataclass
class EditStats:
    removed: int = 0
    inserted: int = 0
    coverage_inserts: int = 0
    parses: int = 0


@dataclass(frozen=True)
class _EditJob:
    """What one edit works from: the instance, the pair's graph knowledge, the base parse and the pivots."""

    inst: Instance
    pk: PairKnowledge
    base_actions: list[Action]
    pivots: list[tuple[ProtoAction, str]]


@dataclass
class _Draft:
    """The edit so far: its text, that text's objective score and its parse."""

    text: str
    score: float
    gen: list[Action]


@register("graph")
class GraphEditor:
    """Graph-guided editor: replace the ingredient, drop its specific clauses, insert the new one's (pivots)."""

    def __init__(
        self,
        glossary: Glossary | None = None,
        data_dir: str | Path | None = None,
        db: str | None = None,
        uri: str | None = None,
        store=None,
        synonyms: str = "heads",
        knowledge: str = "pivots",
        pivot_sources: tuple[str, ...] = PIVOT_SOURCES,
        segmenter: str = "auto",
        max_phrases: int = 3,
        max_positions: int = 4,
        max_inserts: int | None = None,
        max_insert_ratio: float | None = 0.5,
        assoc_inserts: int = ASSOC_INSERTS,
        assoc_removals: bool = True,
        abstain: bool = False,
        ensure_change: bool = True,
    ):
        from dishgraph.eval.outputs import crg_dir
        from dishgraph.ingest.segment import make_segmenter

        if knowledge not in KNOWLEDGE_MODES:
            raise ValueError(f"knowledge must be one of {KNOWLEDGE_MODES}, got {knowledge!r}")
        self.glossary = glossary or Glossary.load(crg_dir(data_dir) / "glossary.json")
        self.replacer = (
            HeadReplacer(self.glossary, synonyms="form")
            if synonyms == "heads"
            else ReplaceGenerator(self.glossary, synonyms=synonyms)
        )
        self._class_swapper = ReplaceGenerator(self.glossary, synonyms="class")
        self.parser = RecipeParser(self.glossary, CachedSegmenter(make_segmenter(segmenter, self.glossary)))
        self._own_store = store is None
        if store is None:
            from dishgraph.graph.factory import open_store

            store = open_store(uri, db, read_only=True)
        self.store = store
        if knowledge == "composed":  # never edit from composed knowledge older than the recipes it came from
            from dishgraph.knowledge.compose import ensure_fresh

            try:
                ensure_fresh(store)
            except Exception:
                self.close()
                raise
        self.knowledge = knowledge
        self.pivot_sources = tuple(pivot_sources)
        self.max_phrases, self.max_positions, self.max_inserts = max_phrases, max_positions, max_inserts
        self.max_insert_ratio = max_insert_ratio
        self.assoc_inserts, self.assoc_removals, self.abstain = assoc_inserts, assoc_removals, abstain
        self.ensure_change = ensure_change
        self._pairs: dict[tuple[str, str], PairKnowledge] = {}
        self._positions = PositionTable(store)
        self._phrases: dict[tuple, list[str]] = {}
        self.stats = EditStats()

    def close(self) -> None:
        if self._own_store:
            self.store.close()

    # ---------------------------------------------------------------------------------------- knowledge
    def cls(self, form: str) -> str | None:
        return self.glossary.ingredient.get(form) if form else None

    def pair(self, inst: Instance) -> PairKnowledge:
        key = (inst.base, inst.target)
        if key not in self._pairs:
            sources = {"association": (), "composed": (COMPOSED,)}.get(self.knowledge, self.pivot_sources)
            self._pairs[key] = load_pair_knowledge(
                self.store,
                inst.base,
                inst.target,
                self.cls(inst.old),
                self.cls(inst.new),
                sources,
                self._positions,
            )
        return self._pairs[key]

    def _pivots_for(self, pk: PairKnowledge, base_actions: list[Action]) -> list[tuple[ProtoAction, str]]:
        if pk.pivot_source != "association":
            return pk.pivots
        protos = {a.proto for a in base_actions if a.proto is not None}
        return association_pivots(pk.association, pk.new_cls, protos, self.assoc_inserts, self.assoc_removals)

    # ---------------------------------------------------------------------------------------- parsing
    def parse(self, text: str) -> list[Action]:
        self.stats.parses += 1
        return crg_actions(self.parser.parse(text))

    def _objective(self, inst, base_actions, text, pivots, pk) -> tuple[float, list[Action]]:
        """Hard L2 F1 of `text` against the pair's graph pivots (NaN, i.e. no change, counts as 0)."""
        gen = self.parse(text)
        res = score_instance(
            inst, base_actions, gen, pivots, pk.constraints, None, lambda s: self.glossary.ingredient.get(s, s)
        )
        f1 = res.all[2]
        return (0.0 if math.isnan(f1) else f1), gen

    def _exposed(self, inst: Instance, base_actions: list[Action], gen: list[Action]) -> int:
        """How many actions the text changed beyond simple replacements of the swapped ingredient: the changes
        L2 counts whatever the pivots are. Association guesses are right only about one time in five, and L2
        averages F1 over the instances with changes only, so guessing where the swap reads as no change
        mostly adds instances scored 0; where changes are counted anyway, a right guess can only help."""
        res = score_instance(inst, base_actions, gen, [], [], None, lambda s: self.glossary.ingredient.get(s, s))
        return res.removed + res.inserted

    # ---------------------------------------------------------------------------------------- phrasing
    def realizations(self, proto: ProtoAction, pk: PairKnowledge, new: str, old: str = "") -> list[str]:
        """Clauses that parse (alone) into exactly `proto`: real example phrases from the graph with the
        new ingredient's class forms swapped for the new ingredient, then the examples as they are, then a
        phrase built from glossary surface forms."""
        key = (proto, new, old)
        if key in self._phrases:
            return self._phrases[key]
        new_cls = self.cls(new)
        candidates: list[str] = []
        examples = pk.examples.get(proto.key, [])
        if new and new_cls in proto.ingredients:
            if new in self.glossary.ingredient:  # every form of the new ingredient's class → the new ingredient
                candidates += [self._class_swapper.replace(e, new, new) for e in examples]
            candidates += [_swap_class_forms(e, self.glossary.synonyms("ingredient", new_cls), new) for e in examples]
        candidates += examples
        candidates += self._synthesized(proto, new, new_cls)
        out: list[str] = []
        for c in dict.fromkeys(c.strip(" ，,。") for c in candidates):
            if not c or len(c) > 20 or c in out or (old and old in c):  # never re-introduce the replaced one
                continue
            acts = self.parse(c)
            if len(acts) == 1 and acts[0].proto == proto and not acts[0].inherited:
                out.append(c)
            if len(out) >= self.max_phrases:
                break
        self._phrases[key] = out
        return out

    def _synthesized(self, proto: ProtoAction, new: str, new_cls: str | None) -> list[str]:
        verbs = [proto.verb] if proto.verb in self.glossary.verb else []
        verbs += [f for f in self.glossary.synonyms("verb", proto.verb) if f not in verbs][:2]
        ingr = []
        for c in sorted(proto.ingredients):
            if new and c == new_cls:
                ingr.append(new)
            elif c in self.glossary.ingredient:
                ingr.append(c)
            else:
                forms = self.glossary.synonyms("ingredient", c)
                if forms:
                    ingr.append(forms[-1])
        tools = [
            t if t in self.glossary.tool else (self.glossary.synonyms("tool", t) or [t])[-1]
            for t in sorted(proto.tools)
        ]
        obj = "和".join(ingr)
        out = []
        for v in verbs:
            if tools:
                out.append(f"用{'和'.join(tools)}{v}{obj}")
                out.append(f"在{'和'.join(tools)}中{v}{obj}")
            out += [f"{v}{obj}", f"将{obj}{v}", f"把{obj}{v}好", f"{obj}{v}好", f"再{v}{obj}"]
        return out

    # ---------------------------------------------------------------------------------------- text edits
    def _clauses(self, text: str) -> list[Clause]:
        return self.parser.clauses(text)

    @staticmethod
    def remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
        """Delete clause spans with one adjacent clause separator, so punctuation stays well formed."""
        for a, b in sorted(set(spans), reverse=True):
            if b < len(text) and text[b] in _CLAUSE_PUNCT:
                b += 1
            elif a > 0 and text[a - 1] in _CLAUSE_PUNCT:
                a -= 1
            elif b < len(text) and text[b] in _SENT_PUNCT and (a == 0 or text[a - 1] in _SENT_PUNCT + "\n "):
                b += 1
            text = text[:a] + text[b:]
        return text

    @staticmethod
    def insert_clause(text: str, clauses: list[Clause], k: int, phrase: str) -> str:
        """Insert `phrase` as a clause before clause k (k == len: after the last clause)."""
        if not clauses:
            return phrase + "。" + text if text else phrase + "。"
        if k < len(clauses):
            at = clauses[k].start
            return text[:at] + phrase + SEP + text[at:]
        at = clauses[-1].end
        return text[:at] + SEP + phrase + text[at:]

    def positions(self, proto: ProtoAction, pk: PairKnowledge, text: str, gen: list[Action]) -> list[int]:
        """Insertion points (before clause k) allowed by the MUST_PRECEDE constraints of the target dish,
        nearest to where the action usually sits first; clauses starting with an inherited-object action
        come last (the new clause would hand its ingredients down)."""
        clauses = self._clauses(text)
        n = len(clauses)
        last_clause: dict[ProtoAction, int] = {}
        first_of_clause: dict[int, Action] = {}
        for a in gen:
            if a.proto is not None:
                last_clause[a.proto] = a.clause
            first_of_clause.setdefault(a.clause, a)
        lo, hi = 0, n
        for c in pk.constraints:
            for cause, effect in c.pairs:
                if effect == proto and cause in last_clause:
                    lo = max(lo, last_clause[cause] + 1)
                if cause == proto and effect in last_clause:
                    hi = min(hi, last_clause[effect])
        if lo > hi:
            lo, hi = 0, n
        want = pk.position(proto) * n

        def rank(k: int) -> tuple:
            nxt = first_of_clause.get(clauses[k].index) if k < n else None
            return (bool(nxt and nxt.inherited), abs(k - want), k)

        return sorted(range(lo, hi + 1), key=rank)[: self.max_positions]

    @staticmethod
    def _heirs(gen: list[Action], hits: list[Action], clauses: dict[int, Clause]) -> list[tuple[int, int]]:
        """Clauses right after a removed one whose actions only inherit its ingredients (烧开, 炒一下): once
        their antecedent is gone they would silently change meaning, so they may go with it."""
        by_clause: dict[int, list[Action]] = {}
        for a in gen:
            by_clause.setdefault(a.clause, []).append(a)
        spans = []
        for h in hits:
            k = h.clause + 1
            while k in clauses and by_clause.get(k) and all(a.inherited for a in by_clause[k]):
                spans.append((clauses[k].start, clauses[k].end))
                k += 1
        return spans

    # ---------------------------------------------------------------------------------------- editing
    def edit(self, inst: Instance) -> str:
        pk = self.pair(inst)
        base = inst.base_recipe
        text = self.replacer.replace(base, inst.old, inst.new) if inst.change_kind == REPLACE and inst.old else base
        base_actions = self.parse(base)
        pivots = self._pivots_for(pk, base_actions)
        job = _EditJob(inst, pk, base_actions, pivots)
        draft = _Draft(text, *self._objective(inst, base_actions, text, pivots, pk))
        if (
            self.abstain
            and pk.pivot_source == "association"
            and inst.new in text
            and not self._exposed(inst, base_actions, draft.gen)
        ):
            return text  # the swap alone reads as no change to L2: abstain (see _exposed and the module doc)
        self._remove_pivots(job, draft)
        self._insert_pivots(job, draft)
        if inst.new and inst.new not in draft.text:
            return self._cover_new(inst, pk, draft.text, draft.gen, base_actions, pivots)
        if self.ensure_change and pk.fallback and not self._exposed(inst, base_actions, draft.gen):
            return self._guess(inst, pk, draft.text, draft.gen, base_actions)
        return draft.text

    def _improves(self, job: _EditJob, draft: _Draft, cand: str) -> bool:
        """Adopt `cand` into the draft if it scores better against the pair's graph pivots."""
        score, cand_gen = self._objective(job.inst, job.base_actions, cand, job.pivots, job.pk)
        if score <= draft.score:
            return False
        draft.text, draft.score, draft.gen = cand, score, cand_gen
        return True

    def _remove_pivots(self, job: _EditJob, draft: _Draft) -> None:
        """(b) removals: every clause still holding a remove-pivot of the base; whole clauses first."""
        base_protos = {a.proto for a in job.base_actions}
        for proto in [p for p, k in job.pivots if k == REMOVE and p in base_protos]:
            hits = [a for a in draft.gen if a.proto == proto]
            if not hits:
                continue
            clauses = {c.index: c for c in self._clauses(draft.text)}
            whole = [(clauses[a.clause].start, clauses[a.clause].end) for a in hits if a.clause in clauses]
            variants = [whole, [(a.start, a.end) for a in hits], whole + self._heirs(draft.gen, hits, clauses)]
            for spans in variants:
                if self._improves(job, draft, self.remove_spans(draft.text, spans)):
                    self.stats.removed += 1
                    break

    def _insert_pivots(self, job: _EditJob, draft: _Draft) -> None:
        """(c) insertions: the new ingredient's actions, phrased from real examples, placed in order."""
        base_protos = {a.proto for a in job.base_actions}
        inserts = [p for p, k in job.pivots if k == INSERT and p not in base_protos]
        new_cls = self.cls(job.inst.new)
        inserts.sort(key=lambda p: (new_cls not in p.ingredients, job.pk.position(p), p.key))
        added = inserted_chars = 0
        for proto in inserts:
            if self.max_inserts is not None and added >= self.max_inserts:
                break  # every inserted clause costs preservation (BLEU): keep the most telling ones
            if any(a.proto == proto for a in draft.gen):
                continue
            budget = (
                None
                if self.max_insert_ratio is None
                else self.max_insert_ratio * len(job.inst.base_recipe) - inserted_chars
            )
            phrase = self._insert_one(job, draft, proto, budget)
            if phrase is not None:
                self.stats.inserted += 1
                added += 1
                inserted_chars += len(phrase) + 1

    def _insert_one(self, job: _EditJob, draft: _Draft, proto: ProtoAction, budget: float | None) -> str | None:
        """The first phrase and position of `proto` (within the character budget) that improve the draft."""
        for phrase in self.realizations(proto, job.pk, job.inst.new, job.inst.old):
            if budget is not None and len(phrase) + 1 > budget:
                continue
            for k in self.positions(proto, job.pk, draft.text, draft.gen):
                if self._improves(job, draft, self.insert_clause(draft.text, self._clauses(draft.text), k, phrase)):
                    return phrase
        return None

    def _guess(self, inst, pk, text, gen, base_actions) -> str:
        """No change L2 would count: insert the target's likeliest action the recipe lacks (composed mode), so
        the recipe is an answer rather than an abstention (see ``_exposed``)."""
        have = {a.proto for a in gen}
        for proto in [p for p in pk.fallback if p not in have]:
            for phrase in self.realizations(proto, pk, inst.new, inst.old)[:1]:
                k = self.positions(proto, pk, text, gen)[0]
                cand = self.insert_clause(text, self._clauses(text), k, phrase)
                if self._exposed(inst, base_actions, self.parse(cand)):
                    self.stats.coverage_inserts += 1
                    return cand
        return text

    def _cover_new(self, inst, pk, text, gen, base_actions, pivots) -> str:
        """The new ingredient must appear: insert its most typical action (a pivot if one mentions its class,
        else the verb most associated with its class across all dishes), keeping the best-scoring placement."""
        new_cls = self.cls(inst.new)
        protos = [p for p, k in pivots if k == INSERT and new_cls in p.ingredients]
        verbs = sorted(pk.association.uses.get(new_cls, {}).items(), key=lambda kv: (-kv[1], kv[0]))
        protos += [ProtoAction(v, frozenset({new_cls})) for v, _ in verbs[:3]] if new_cls else []
        best_cand, best_score = None, -1.0
        for proto in protos:
            for phrase in [p for p in self.realizations(proto, pk, inst.new, inst.old) if inst.new in p][:2]:
                for k in self.positions(proto, pk, text, gen)[:2]:
                    cand = self.insert_clause(text, self._clauses(text), k, phrase)
                    score, _ = self._objective(inst, base_actions, cand, pivots, pk)
                    if score > best_score:
                        best_cand, best_score = cand, score
            if best_cand is not None and best_score > 0:
                break
        if best_cand is None:  # no phrase parses cleanly: still name the ingredient
            best_cand = self.insert_clause(text, self._clauses(text), 0, f"准备{inst.new}")
        self.stats.coverage_inserts += 1
        return best_cand

    def generate(self, batch: list[Instance]) -> list[str]:
        return [self.edit(inst) for inst in batch]


def _swap_class_forms(phrase: str, forms: list[str], new: str) -> str:
    """Replace the first glossary form of a class (longest first) in an example phrase by the new ingredient."""
    for f in forms:
        if f in phrase:
            return phrase.replace(f, new, 1)
    return phrase
