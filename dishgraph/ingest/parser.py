"""Offline recipe parser: recipe text → actions (verb + ingredients + tools, with spans) → proto-actions.

Pipeline: split the recipe into steps and clauses (keeping offsets into the original text), segment each
clause, tag glossary verbs / ingredients / tools, attach objects to verbs, then resolve omitted objects by
inheriting the previous action's ingredients (CRG §4.1 counts 3.3 omissions per recipe).

The same tagging is read twice (``docs/typed-reading.md``): the CRG reading attaches glossary nouns to glossary
verbs exactly as the released conventions do (its proto-actions key reference pivots and the CRG metrics); the
typed reading also reads compound actions the glossary lacks, lets light verbs (用, 准备, 备用…) and complements
(出, 出来, 开…) serve the action they belong to, gives every object a role (``ingest.roles``), and inherits
*foods* where a step names none (切丝 after 洋葱洗净 cuts the onion, shape 丝).
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from operator import itemgetter

from dishgraph.actions import Action, ProtoAction, TypedObject
from dishgraph.ingest.clauses import Clause, split_clauses
from dishgraph.ingest.culinary import MEDIUM_VERB_CLASSES
from dishgraph.ingest.depparse import BACKENDS as depparse_backends
from dishgraph.ingest.depparse import DependencyParser, resolve_backend
from dishgraph.ingest.foods import NOT_FOOD, food_lexicon
from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.roles import object_roles, role_of, rule_role
from dishgraph.ingest.segment import Segmenter, Token, make_segmenter
from dishgraph.ingest.simplified import to_simplified
from dishgraph.registry import Registry


class RecipeParser:
    """Glossary-driven action extractor; cheap to pickle (segmenter models reload lazily per process)."""

    def __init__(self, glossary: Glossary, segmenter: str | Segmenter = "auto"):
        self.glossary = glossary
        self.segmenter = make_segmenter(segmenter, glossary) if isinstance(segmenter, str) else segmenter
        self._verbs = dict(glossary.verb)
        self._ingr = dict(glossary.ingredient)
        self._tools = dict(glossary.tool)
        self._max_noun = max((len(f) for t in (self._ingr, self._tools) for f in t), default=1)
        self._max_verb = max((len(f) for f in self._verbs), default=1)
        self._any_verb = {**dict.fromkeys(EXTRA_VERBS, ""), **self._verbs}  # what makes a clause worth cutting
        self._max_any_verb = max((len(f) for f in self._any_verb), default=1)
        self._any_verb_heads = frozenset(f[0] for f in self._any_verb if f)
        self._roles = object_roles()
        self._role_memo: dict[tuple[str, str], str] = {}  # (form, kind) -> role
        self._words: dict[str, tuple] = {}  # word -> its glossary facts (``_word_facts``)
        self._protos: dict[tuple, ProtoAction] = {}  # surface triple -> proto-action (``proto``)
        # typed surface triple -> its two keys (``_typed_key``). Only the keys are kept: a memo of proto-actions,
        # each with two frozensets and a dict, held as many objects again as the CRG one for the collector to walk.
        self._typed_keys: dict[tuple, tuple[str, str]] = {}
        self._load_lexicon()

    def _load_lexicon(self) -> None:
        """The food lexicon (read once per process) and the corpus foods and tools the glossary lacks (鸭块, 鸡蛋清,
        砂煲): typed objects, never CRG nouns. Not pickled to parse workers: each loads its own."""
        self._lexicon = food_lexicon()
        self._lexicon_nouns = _lexicon_nouns(self._lexicon)

    @property
    def name(self) -> str:
        return self.segmenter.name

    def __getstate__(self) -> dict:
        """Pickles (to parse workers) leave the memo tables behind: they refill in a few recipes."""
        state = {**self.__dict__, "_words": {}, "_protos": {}, "_typed_keys": {}, "_role_memo": {}}
        del state["_lexicon"], state["_lexicon_nouns"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._load_lexicon()

    # ------------------------------------------------------------ splitting
    def clauses(self, text: str) -> list[Clause]:
        """Steps and clauses with spans into ``text`` (step markers and punctuation are not part of a clause)."""
        return split_clauses(text)

    # ------------------------------------------------------------ tagging
    def _verb_of(self, word: str) -> str | None:
        """Glossary verb for a segmented word: the exact form, else its longest glossary-verb prefix.

        The prefix rule is the released CRG code's (``verb_match``): ``切成块`` → ``切成``, ``捞起来`` → ``捞起``.
        """
        for k in range(min(len(word), self._max_verb), 0, -1):
            if word[:k] in self._verbs:
                return word[:k]
        return None

    def _has_verb_form(self, text: str) -> bool:
        """Whether some verb form (glossary or ``EXTRA_VERBS``) occurs in ``text`` (else it has no action)."""
        verbs, longest, heads = self._any_verb, self._max_any_verb, self._any_verb_heads
        for i, ch in enumerate(text):
            if ch not in heads:  # no verb form starts here: most characters
                continue
            for k in range(1, min(longest, len(text) - i) + 1):
                if text[i : i + k] in verbs:
                    return True
        return False

    def _incorporated_object(self, word: str) -> str | None:
        """The object inside a verb-object compound (``削皮``, ``切丝``, ``泡水``): the remainder after the
        shortest glossary-verb prefix, when it is an ingredient form. LTP splits these, so CRG sees it."""
        for k in range(1, len(word)):
            if word[:k] in self._verbs:
                rest = word[k:]
                return rest if rest in self._ingr else None
        return None

    def _word_facts(self, word: str) -> tuple:
        """What the glossary says of a segmented word, whatever its POS: (verb form or None, its noun kind
        or None, the object inside a verb-object compound or None, whether the word itself is a glossary
        verb, glossary nouns covering it as ``(form, kind, offset)``, the compound action it starts with when
        it is no glossary verb, its role by rule). Memoised: words repeat a lot."""
        facts = self._words.get(word)
        if facts is None:
            if len(self._words) >= _WORD_MEMO:
                self._words.clear()
            verb = self._verb_of(word)
            facts = (
                verb,
                self._noun_kind(word),
                self._incorporated_object(word) if verb else None,
                word in self._verbs,
                tuple(self._split_nouns(word, 0)),
                None if verb else _extra_verb(word),
                rule_role(word),
            )
            self._words[word] = facts
        return facts

    def _noun_kind(self, form: str) -> str | None:
        if form in self._ingr:
            return "ingredient"
        if form in self._tools:
            return "tool"
        return None

    def _split_nouns(self, word: str, offset: int) -> list[tuple[str, str, int]]:
        """A token that is not a glossary form but is fully covered by glossary forms (``姜丝`` → 姜 + 丝,
        ``锅中`` → 锅 + locative) yields those forms; partial covers yield nothing (precision)."""
        core = word.rstrip(_LOCATIVES) or word
        i, out = 0, []
        while i < len(core):
            for k in range(min(len(core) - i, self._max_noun), 0, -1):
                kind = self._noun_kind(core[i : i + k])
                if kind:
                    out.append((core[i : i + k], kind, offset + i))
                    i += k
                    break
            else:
                return []
        return out

    def _tag(self, tokens: list[Token], hidden: set[int], base: int = 0) -> list[tuple[str, str, int, int]]:
        """Tokens (offsets relative to ``base``) → items ``(kind, form, start, end)`` with kind
        verb/ingredient/tool/prep/rel/other and offsets into the recipe text.

        ``rel`` is a 的 that closes a relative clause: it follows a glossary verb directly or through
        monosyllabic complements only (切好的, 炒过的, 泡发的), not a noun or a quantity (10克的, 适量的).

        Two kinds only the typed reading uses (the CRG reading sees them as ``other``): ``xverb``, a compound
        action that is no glossary verb (勾芡, 起锅), and ``obj``, a noun no glossary lists that a rule types
        as heat, duration, shape or state (5分钟, 180度, 金黄色).
        """
        items = []
        words, facts_of = self._words, self._word_facts  # the memo asked first: most words are met before
        rel = False  # only a verb and its one-character complements (好/熟/过/了/出) since the last item
        for w, pos, start in _merge_adverbial_verbs(tokens):
            start += base
            if start in hidden or pos == "w" or not w.strip():
                continue
            if rel and w == "的":
                items.append(("rel", w, start, start + 1))
                rel = False
                continue
            first = len(items)
            end = start + len(w)
            verb, exact_noun, obj, is_verb, parts, xverb, role = words.get(w) or facts_of(w)
            if verb and not (pos in _NOUN_POS and (exact_noun or not is_verb)):
                items.append(("verb", verb, start, end))
                if obj:  # verb-object compounds: 去皮 → 去皮(皮), 切丝 → 切(丝)
                    items.append(("ingredient", obj, end - len(obj), end))
            elif exact_noun:
                items.append((exact_noun, w, start, end))
            elif w in _FORWARD_PREPS and not is_verb:
                items.append(("prep", w, start, end))
            elif pos in _DURATION_POS and (unit := self._unit_noun(w)):
                items.append((unit[1], unit[0], end - len(unit[0]), end))
            elif parts and not pos.startswith("v"):
                items.extend((kind, form, start + s, start + s + len(form)) for form, kind, s in parts)
            elif xverb:
                items.append(("xverb", xverb, start, end))
            elif role in _OBJ_ROLES or (w in self._lexicon_nouns and not pos.startswith("v")):
                items.append(("obj", w, start, end))  # typed only: a rule's heat, time…; a food the glossary lacks
            else:
                items.append(("other", w, start, end))
            kind = items[first][0]
            kind = "other" if kind in ("xverb", "obj") else kind  # the CRG reading's view
            rel = kind == "verb" or (rel and kind == "other" and len(w) == 1 and pos[:1] in "auv")
        return items

    def _unit_noun(self, word: str) -> tuple[str, str] | None:
        """The glossary noun a duration ends in (``一天`` → 天), with its kind. LTP splits ``一/m 天/q`` and
        CRG counts every glossary word in an action's subtree whatever its POS, so ``冷藏一天`` is 冷藏(天)."""
        m = _NUMERAL_PREFIX.match(word)
        if not m or m.end() == len(word):
            return None
        rest = word[m.end() :]
        kind = self._noun_kind(rest)
        return (rest, kind) if kind else None

    # ------------------------------------------------------------ attachment
    def _clause_actions(self, items, text: str, cl: Clause) -> list[Action]:
        """Both readings of one clause: the CRG reading's actions (glossary verbs and nouns, attached by
        ``_owners``) and, beside them on the same verb occurrences, the typed reading's (``_typed_kinds``);
        an action only the typed reading has comes with ``proto`` None and is marked for ``_actions``."""
        crg_kinds = _crg_kinds(items)
        typed_kinds, fused = self._typed_kinds(items, text)
        if "verb" not in crg_kinds and "verb" not in typed_kinds:
            return []
        crg_verbs, crg_owner = _owners(crg_kinds)
        if typed_kinds == crg_kinds:  # the common clause: both readings attach alike
            typed_verbs, typed_owner = crg_verbs, crg_owner
        else:
            typed_verbs, typed_owner = _owners(typed_kinds)
        crg = _kept(crg_verbs, crg_owner, crg_kinds)
        typed = {v: sorted(typed_owner[v]) for v in typed_verbs}
        self._serve_complements(items, typed)
        out = []
        for v in sorted(crg.keys() | typed.keys()):
            in_crg = v in crg
            _, form, s, e = items[v] if in_crg else fused.get(v, items[v])
            a, b, ingredients, tools = _crg_objects(items, crg[v] if in_crg else typed[v], s, e)
            if v in typed:
                objects, foods, heat, duration, shape = self._typed_objects(items, fused, typed[v])
                culinary = self._culinary(items, v, text) and not _in_relative(typed_kinds, v)
                verb_class = self._verbs.get(form, form)
                if foods and verb_class in _MEDIUM_VERBS:
                    blending = verb_class in _BLENDING_VERBS
                    foods = [f for f in foods if not self._is_medium(f, blending)]
                if text[s : s + 2] in _DOUGH_WORDS:  # 和面, 揉面: the dough, whatever was named before
                    foods = ["面团"]
                if foods and text[max(0, s - 2) : s] in _COLD_START and all(map(self._is_medium, self._named(foods))):
                    foods = [f for f in foods if not self._is_medium(f)]  # 冷水下锅: the food goes in, not the water
                if foods and _FINISHING & {text[s:e], text[s : e + 1]} and all(map(self._is_seasoning, foods)):
                    foods = []  # 撒盐出锅: the dish comes out of the pot, not the salt (the food is inherited)
            else:
                objects, foods, heat, duration, shape, culinary = [], [], "", "", "", False
            ve = fused[v][3] if in_crg and v in fused and fused[v][0] == "verb" else e
            switch = text[s:ve] + ("火" if heat.endswith("火") and text[s:ve] in ("开", "关", "熄") else "")
            removal = self._removal(items, v, text) if self._verbs.get(form) in _REMOVALS else ""
            out.append(
                Action(
                    verb=form,
                    ingredients=ingredients,
                    tools=tools,
                    proto=None if in_crg else _TYPED_ONLY,
                    start=a,
                    end=b,
                    phrase=text[a:b],
                    step=cl.step,
                    clause=cl.index,
                    culinary=culinary,
                    foods=foods,
                    objects=objects,
                    heat=heat,
                    duration=duration,
                    shape=shape,
                    verb_start=s,
                    verb_end=ve,
                    typed_verb=removal
                    or _COOLING.get(text[s : e + 1], "")
                    or ("" if foods else _SWITCH_WORDS.get(switch, "")),
                )
            )
        return out

    def _typed_kinds(self, items, text: str) -> tuple[list[str], dict[int, tuple]]:
        """The typed reading's view of the items, and the items it reads as one word.

        Glossary and compound verbs are verbs, except 用-like light verbs, which open a phrase for the verb they
        serve (用刀切: 刀 is 切's tool), and words the glossary takes for verbs that are units (分钟: 分);
        every noun is a noun, except a part a verb-object compound removes (去皮, 焯水). Read as one word: a
        compound action the segmenter split (起/锅 → 起锅), a number and its unit (5/分钟, 180/度)."""
        out: list[str] = []
        fused: dict[int, tuple] = {}
        prev: tuple | None = None
        inside = -1  # the end of a food read whole: the items before it are its pieces
        for i, item in enumerate(items):
            kind, form, s, e = item
            joined = prev is not None and prev[3] == s
            if e <= inside:
                out.append("other")
            elif joined and prev[1] in _EXTRA_HEADS and out[-1] == "other" and prev[1] + text[s:e] in EXTRA_VERBS:
                fused[i - 1] = ("xverb", prev[1] + text[s:e], prev[2], e)
                out[-1] = "verb"
                out.append("other")
            elif kind == "other" or kind == "prep" or kind == "rel":
                out.append("other" if kind == "other" else kind)
            elif e - s <= 2 and kind != "tool" and kind != "xverb" and text[s:e] in _UNITS:
                if joined and prev[0] == "other" and _NUMERAL_PREFIX.fullmatch(prev[1]):
                    fused[i] = ("obj", prev[1] + text[s:e], prev[2], e)
                else:
                    fused[i] = ("obj", text[s:e], s, e)
                out.append("noun")
            elif kind == "verb" and text[s:e] == "抽" and s and text[s - 1] in _SPLIT_SAUCES:
                fused[i] = ("ingredient", text[s - 1 : e], s - 1, e)  # 淋上生抽: the sauce, not 抽
                if joined and prev[3] == s and prev[2] == s - 1:
                    out[-1] = "other"
                out.append("noun")
            elif kind == "verb" and _not_action(text, s, e):
                out.append("other")
            elif kind == "verb" and text[s:e] == "开" and (lid := self._lid(items, i, text)):
                fused[i] = ("verb", form, s, lid)  # 开/盖 cut apart: 开盖, one step (盖 is no 盖上 there)
                out.append("verb")
                inside = lid
            elif kind == "verb" and (tool := self._whole_tool(items, i, text)):
                fused[i] = tool  # 打/蛋头: a whisk's name the segmenter cut into a verb and a noun is the tool
                out.append("noun")
                inside = tool[3]
            elif kind == "verb":
                out.append("prep" if form in _LIGHT_PREPS else "verb")
            elif kind == "xverb":
                out.append("verb")
            elif prev is not None and prev[0] == "verb" and prev[3] == s and prev[1] + text[s:e] in _FUSED_PARTS:
                out.append("other")  # 翻/面 cut apart: the side flipped, no 面条
            elif (
                prev is not None
                and prev[0] == "verb"
                and prev[3] == e
                and (
                    form in _PARTS
                    or prev[1] + form in _FUSED_PARTS
                    or (kind == "ingredient" and self._fused_food(prev, form, text))
                )
            ):
                out.append("other")  # a part fused into its verb
            elif kind == "ingredient" and form == "油" and s and text[s - 1] in _OYSTER_TYPOS:
                fused[i] = ("ingredient", text[s - 1 : e], s - 1, e)  # 加耗油: 蚝油 misspelled, not 加 + 油
                out.append("noun")
            elif kind == "ingredient" and (whole := self._whole_food(items, i, text)):
                fused[i] = whole  # 奶/黄馅: a glossary food the segmenter cut in pieces is read whole
                out.append("noun")
                inside = whole[3]
            else:
                out.append("noun")
            prev = item
        if "noun" in out:
            self._unattached(items, out, fused, text)
        return out, fused

    def _unattached(self, items, out: list[str], fused: dict[int, tuple], text: str) -> None:
        """Nouns of the typed view that are no object of the verb before them (``out`` is changed in place):
        what 没过 measures (加入没过牛腩的水量 adds water: 水量 is read as 水), the subject of a relative clause
        (倒进苦瓜蒸出来的汁 pours the juice), and an ingredient list written after a step (切开 鸡蛋2个 菠菜…).
        A verb with 好 right after 把/将 describes the 把-object (把调味好肉放进苦瓜里: the seasoned meat goes in),
        as 调味好的 would: no step of its own. A noun written right before a word for a mixture (粉类混合物) only
        says what the mixture is made of: the mixture is the object. In 将X倒入Y中 whose 把-object X is such a
        word naming no food (将煮好的液体倒入粉中), Y is where it goes, no object (the key would name it alone)."""
        n = len(items)
        cover = head = listed = False
        for i in range(n):
            kind, form, s, e = items[i]
            k = out[i]
            if text.startswith(_COVERS, s):
                cover, head = True, False
                continue
            if k == "noun" and i + 1 < n and out[i + 1] == "noun" and items[i + 1][2] == e:
                if items[i + 1][1] in _MIXTURES:
                    out[i] = "other"  # 粉类混合物: the powders' mixture is poured
                    continue
            if k == "verb":
                cover = head = listed = False
                if text[s:e] in _INTO and self._generic_handled(items, out, fused, i):
                    self._destination(items, out, i)
                if i and out[i - 1] == "prep" and items[i - 1][1] in _HANDLING:
                    d = i + 1
                    if d < n and items[d][3] == e:  # the object inside the verb (调/味)
                        d += 1
                    if d + 1 < n and items[d][1] in _DONE and out[d] == "other" and out[d + 1] == "noun":
                        for c in range(i, d):  # 把调味好肉放进: 调味好 (seasoned) describes the meat handed on
                            out[c] = "other"
                continue
            if cover:
                if form == "的":
                    cover, head = False, True
                elif k == "noun":
                    out[i] = "other"  # 没过牛腩: the beef only measures the water
                continue
            if form == "的" and k == "other" and out[i - 1] == "noun" and self._clause_object(items, out, i):
                out[i] = "rel"  # 放入滴了柠檬汁的牛排: the steak is put in, the lemon juice was dripped on it
                continue
            if k == "rel":
                self._relative_subject(items, out, i)
                continue
            if k != "noun":
                continue
            if head:
                head = False
                if form in _WATER_AMOUNTS:
                    fused[i] = ("ingredient", "水", s, e)  # 没过X的水量: the water itself
                continue
            if listed:
                j = i + 1
                while j < n and items[j][2] == items[j - 1][3] and out[j] in ("noun", "other"):
                    j += 1
                if j < n and out[j] == "verb" and items[j][2] == items[j - 1][3]:
                    for c in range(i, j):  # …生菜无限量 潮香村牛排切小块: the list ends, 牛排 is what 切 cuts
                        if out[c] == "noun":
                            out[c] = "topic"
                    listed = False
                else:
                    out[i] = "other"
                continue
            nxt = items[i + 1] if i + 1 < n else None
            if (
                i
                and text[items[i - 1][3] : s].isspace()
                and nxt is not None
                and nxt[2] == e
                and _COUNT.fullmatch(nxt[1])
            ):
                after = items[i + 2] if i + 2 < n else None
                if (
                    after is not None
                    and after[2] > nxt[3]
                    and out[i + 2] != "verb"
                    and text[nxt[3] : after[2]].isspace()
                ):
                    out[i] = "other"  # 切开 鸡蛋2个 菠菜…: a list of ingredients, no object of the step before
                    listed = True

    def _generic_handled(self, items, out: list[str], fused: dict[int, tuple], v: int) -> bool:
        """The verb at ``v`` follows a 把/将 phrase whose nouns are all words naming no food (将煮好的液体倒入)."""
        nouns = 0
        described = False  # a 的 before the nouns: the verbs before it describe them (将煮好的液体)
        for j in range(v - 1, -1, -1):
            if out[j] == "noun":
                if described or self._lexicon.canonical(fused.get(j, items[j])[1]):
                    return False
                nouns += 1
            elif items[j][1] == "的":
                described = True
            elif out[j] == "verb" and described:
                continue
            elif out[j] in ("verb", "prep", "topic"):
                return bool(nouns) and out[j] == "prep" and items[j][1] in _HANDLING
        return False

    @staticmethod
    def _destination(items, out: list[str], v: int) -> None:
        """The foods between the verb at ``v`` and a locative (倒入粉中) name where the 把-object goes."""
        for m in range(v + 1, min(v + 5, len(items))):
            if out[m] == "other" and items[m][1] in _LOCATIVES:
                for c in range(v + 1, m):
                    if out[c] == "noun" and items[c][0] != "tool":  # a tool stays the key's place (倒入盘子中)
                        out[c] = "other"
                return
            if out[m] not in ("noun", "other") or items[m][2] != items[m - 1][3]:
                return

    @staticmethod
    def _clause_object(items, out: list[str], r: int) -> bool:
        """The 的 at ``r`` closes a relative clause with an object, written right after another verb: verb,
        verb (了/过), noun(s), 的 (加入煮牛腩的汤, 放入滴了柠檬汁的牛排)."""
        j = r - 1
        while j >= 0 and out[j] == "noun":
            j -= 1
        while j >= 0 and out[j] == "other" and len(items[j][1]) == 1 and items[j][1] != "的":
            j -= 1
        if j < 1 or out[j] != "verb" or j == r - 1:
            return False
        return out[j - 1] == "verb" and items[j - 1][3] == items[j][2]

    @staticmethod
    def _relative_subject(items, out: list[str], r: int) -> None:
        """At the 的 ``r`` closing a relative clause: the clause's complements (蒸'出来'的) are no verbs of their
        own, and a noun written right before the clause's verb after another verb (倒进'苦瓜'蒸出来的汁) is the
        clause's subject, not that verb's object: the head noun after 的 is."""
        j = r - 1
        first = -1
        while j >= 0 and (out[j] == "verb" or (out[j] == "other" and len(items[j][1]) == 1)):
            if out[j] == "verb":
                first = j
            j -= 1
        if first < 0:
            return
        for c in range(first + 1, r):
            if out[c] == "verb" and items[c][1] in _COMPLEMENTS:
                out[c] = "other"
        noun = first - 1
        if noun < 1 or out[noun] != "noun" or items[noun][3] != items[first][2]:
            return
        for k in range(noun - 1, -1, -1):
            if out[k] == "verb":
                out[noun] = "other"
                return
            if out[k] in ("prep", "rel"):
                return

    @staticmethod
    def _lid(items, i: int, text: str) -> int:
        """The end of 盖 / 锅 / 盖子 written right after 开 at item ``i`` (开盖, 开锅), else 0."""
        if i + 1 < len(items) and items[i + 1][2] == items[i][3] and text[items[i + 1][2] : items[i + 1][3]] in _LIDS:
            return items[i + 1][3]
        return 0

    def _whole_food(self, items, i: int, text: str) -> tuple | None:
        """The longest glossary food that starts at ingredient item ``i`` and ends where a later item of the
        same run of adjacent words ends (奶 + 黄馅 = 奶黄馅), as an item; ``None`` when there is none. A lexicon
        food is read whole where its first piece is no food (果味/粉) or its last is a wrapper (月饼/皮)."""
        _, form, s, e = items[i]
        best = None
        for j in range(i + 1, min(i + 4, len(items))):
            if items[j][2] != items[j - 1][3] or items[j][0] == "verb" and items[j][1] != "抽":
                break
            end = items[j][3]
            if end - s > self._max_noun:
                break
            if text[s:end] in self._ingr:
                best = ("ingredient", text[s:end], s, end)
            elif self._lexicon_nouns.get(text[s:end]) == "food" and (
                role_of(form, "ingredient", self._roles) != "food" or items[j][1] in _WRAPPERS
            ):  # 果味/粉: a food of the lexicon whose first piece is none; 月饼/皮: a wrapper the lexicon names
                best = ("obj", text[s:end], s, end)
        return best

    def _whole_tool(self, items, i: int, text: str) -> tuple | None:
        """A tool the segmenter cut into a verb and the noun after it (打/蛋头: 打蛋头, a whisk), as an item
        reaching the end of the noun; ``None`` when the verb starts no tool name. Corpus tools only: the
        glossary's tool forms include verb-object words the release reads as steps (出锅, 装盘)."""
        s = items[i][2]
        for j in range(i + 1, min(i + 3, len(items))):
            if items[j][2] != items[j - 1][3] or items[j][0] == "verb":
                return None
            word = text[s : items[j][3]]
            if self._lexicon_nouns.get(word) == "tool" and word not in self._tools:
                return ("obj", word, s, items[j][3])
        return None

    def _fused_food(self, verb_item: tuple, form: str, text: str) -> bool:
        """A food fused into a verb the glossary lists whole (发酵: 酵, 收汁: 汁) names no object; one in a
        word the glossary does not list (烧开水: 水) is the object, and so is what an adding verb adds (加水)."""
        word = text[verb_item[2] : verb_item[3]]
        if word not in self._verbs or self._verbs[word] in _ADDING:
            return False
        return role_of(form, "ingredient", self._roles) == "food"

    def _serve_complements(self, items, typed: dict[int, list[int]]) -> None:
        """A complement written right after a verb (炒'出'香味, 切'开', 拿'出来') is part of that action: its
        objects go to the verb it completes, and it is no action of its own."""
        for v in sorted(v for v in typed if v and items[v][1] in _COMPLEMENTS):
            kind, form, s, _ = items[v]
            p = v - 1
            if items[p][0] in ("verb", "xverb") and items[p][3] == s and p in typed and items[p][1] not in _LIGHT_PREPS:
                typed[p].extend(typed.pop(v))

    def _typed_objects(self, items, fused: dict[int, tuple], objs: list[int]) -> tuple:
        """The typed reading of one action's objects (item indices; ``fused`` items read as one word): the
        objects with their roles, its foods, and its heat, duration and shape (the first of each), in one walk,
        so that the Action is built whole, with no list made only to be replaced."""
        memo = self._role_memo
        objects: list[TypedObject] = []
        foods: list[str] = []
        heat = duration = shape = ""
        for o in objs:
            kind, form, s, e = fused.get(o) or items[o]
            role = memo.get((form, kind))
            if role is None:
                if kind == "obj":
                    role = rule_role(form) or self._lexicon_nouns.get(form) or "other"
                else:
                    role = role_of(form, kind, self._roles)
                memo[(form, kind)] = role
            objects.append(TypedObject(form, role, s, e))
            if role == "food":
                if form not in foods:
                    foods.append(form)
            elif role == "heat":
                heat = heat or form
            elif role == "duration":
                duration = duration or form
            elif role == "shape":
                shape = shape or form
        return objects, foods, heat, duration, shape

    def _is_medium(self, form: str, blending: bool = False) -> bool:
        """Water, a broth or a cooking oil (by the lexicon): what 蒸, 炖, 煎, 炸, 煲 and 捞出 work in. With
        ``blending`` (打) a solid fat is no medium: 黄油打发 whips the butter."""
        cat = self._lexicon.category(self._lexicon.canonical(form) or form)
        if blending and cat.startswith(_SOLID_FATS):
            return False
        return self._is_water(form) or cat.startswith("油脂") or form == "油"

    def _is_water(self, form: str) -> bool:
        """Water or a broth: a medium that is no oil."""
        name = self._lexicon.canonical(form) or form
        return self._lexicon.category(name).startswith("其他食物›水") or name in _BROTHS or form in ("水", "清水")

    def _named(self, foods: list[str]) -> list[str]:
        """The foods the lexicon names (材料, 食材 and other words for "the ingredients" are not)."""
        return [f for f in foods if self._lexicon.canonical(f)]

    def _is_seasoning(self, form: str) -> bool:
        return self._lexicon.category(self._lexicon.canonical(form) or form).startswith("调味品")

    def _culinary(self, items, v: int, text: str) -> bool:
        """Not a cooking step: a light verb (准备, 备用, 做 as "make"; asked of the word as written, since the
        glossary reads 开始 as 开 and 分别 as 分), a state reached (煮至'沸腾', 水'开'后, 入味), or a verb inside a
        noun phrase naming an earlier step (切好的洋葱)."""
        _, form, s, e = items[v]
        word = text[s:e]
        if form in _LIGHT_VERBS or word in _LIGHT_VERBS or word in _STATE_WORDS:
            return False
        if s and any(text[max(0, s - len(n)) : s] == n for n in _NEGATIONS) and text[s - 2 : s] not in _NOT_NEGATIONS:
            return False
        if _CHEER.match(text, s) or (word == "加" and _CHEER.match(text, max(0, s - 2))):  # 加油！ cheers the reader on
            return False
        prev = items[v - 1] if v else None
        if prev is not None and prev[0] == "other" and prev[1] in _UNTIL:
            return False
        if word in _BOILS and prev is not None and prev[0] == "ingredient" and prev[3] == s:
            return False
        if v + 1 < len(items) and items[v + 1][1] in _PICTURES:
            return False
        for k in range(v + 1, len(items)):
            kind, w = items[k][0], items[k][1]
            if kind == "rel":
                return False
            if kind != "other" or len(w) != 1:
                break
        return True

    # ------------------------------------------------------------ parsing
    def parse(self, text: str) -> list[Action]:
        """All actions in ``text`` in reading order; ``proto`` is set for every action (glossary classes)."""
        _check_text(text)
        simple = to_simplified(text)
        with _collector_paused():
            clauses = self.clauses(simple)
            return _as_written(
                self._actions(simple, clauses, [self.segmenter.cut(cl.text) for cl in clauses]), text, simple
            )

    def parse_many(self, texts: list[str]) -> list[list[Action]]:
        """``parse`` for many recipes, segmenting all their clauses in one call (LAC batches them: the
        ingest workers' fast path). Same result as ``[parse(t) for t in texts]``."""
        for text in texts:
            _check_text(text)
        cut_many = getattr(self.segmenter, "cut_many", None)
        if cut_many is None:
            return [self.parse(t) for t in texts]
        with _collector_paused():
            return self._parse_batch(texts, cut_many)

    def _parse_batch(self, texts: list[str], cut_many: Callable) -> list[list[Action]]:
        """``parse_many`` with a segmenter that cuts many clauses in one call."""
        written = texts
        texts = [to_simplified(t) for t in texts]
        per_text = [self.clauses(t) for t in texts]
        flat = [cl.text for cls in per_text for cl in cls]
        # Segment each distinct clause once, and only clauses that can hold an action: a verb is always a
        # glossary verb form (or has one as prefix), so a clause without one as a substring yields no
        # action whatever its segmentation (21% of the release's clauses, 14% of its characters).
        todo = [t for t in dict.fromkeys(flat) if self._has_verb_form(t)]
        cut = dict(zip(todo, cut_many(todo)))
        tokens = [cut.get(t, []) for t in flat]
        out, k = [], 0
        for text, original, clauses in zip(texts, written, per_text):
            out.append(_as_written(self._actions(text, clauses, tokens[k : k + len(clauses)]), original, text))
            k += len(clauses)
        return out

    def _actions(self, text: str, clauses: list[Clause], clause_tokens: list[list[Token]]) -> list[Action]:
        hidden = _parenthesised(text)
        actions: list[Action] = []
        for cl, toks in zip(clauses, clause_tokens):
            actions.extend(self._clause_actions(self._tag(toks, hidden, cl.start), text, cl))
        prev: list[str] | None = None
        foods: list[str] = []
        solid: list[str] = []  # the last foods named that are not only water or oil (what a medium verb works on)
        main: list[str] = []  # the last foods named that are not only seasonings (what comes out of the pot)
        for a in actions:
            if a.proto is _TYPED_ONLY:  # no CRG action: keeps ``proto`` None, out of the CRG omission chain
                a.proto = None
            else:  # omission: no ingredient and no tool → the previous action's ingredients (CRG)
                if not a.ingredients and not a.tools and prev:
                    a.ingredients, a.inherited = list(prev), True
                prev = a.ingredients
                a.proto = self.proto(a)
            if not a.culinary:
                light = (
                    a.verb in _LIGHT_PREPS or a.verb in _LIGHT_VERBS or text[a.verb_start : a.verb_end] in _LIGHT_VERBS
                )
                if a.foods and light:
                    foods = (
                        a.foods
                    )  # 将X分别切成丁, 准备X: foods a light verb names are the last named for what follows
                self._typed_key(a)
                continue
            if a.foods:  # the typed omission: a cooking step that names no food works on the last one named
                if not (foods and text.startswith(_WRAP_IN, a.verb_start)):  # 包入馅料，收口: the wrapper is closed
                    foods = a.foods
            elif foods and a.verb not in _NO_FOOD_VERBS:
                inherited = list(foods)
                verb_class = self._verbs.get(a.verb, a.verb)
                if verb_class in _MEDIUM_VERBS:  # steamed in the water boiled before: the food boiled in it
                    blending = verb_class in _BLENDING_VERBS
                    inherited = [f for f in inherited if not self._is_medium(f, blending)] or list(solid)
                elif verb_class in _DRY_VERBS and all(map(self._is_water, inherited)):
                    inherited = list(solid)  # 放水烧开，炒一下: the vegetable is stir-fried, not the water
                finishing = _FINISHING & {text[a.verb_start : a.verb_end], text[a.verb_start : a.verb_end + 1]}
                if finishing and all(map(self._is_seasoning, inherited)):
                    inherited = list(main)  # 撒盐出锅: what comes out is the food, not the salt
                if inherited:
                    a.foods, a.foods_inherited = inherited, True
            if a.foods and not all(map(self._is_medium, a.foods)):
                solid = a.foods
                if not all(map(self._is_seasoning, a.foods)):
                    main = a.foods
            self._typed_key(a)
        return actions

    def _typed_key(self, a: Action) -> str:
        """Set the typed reading's two keys and return the first. ``typed_key`` names the foods and tools by their
        own canonical names (``ingest.foods``: 娃娃菜切成段 is ``切|娃娃菜|``, where the release class would say
        ``切|洋葱|``); ``typed_class_key`` lifts the same objects to glossary classes, what the culinary flag of
        a CRG proto-action is judged against (``ingest.culinary``)."""
        tools = tuple([o.form for o in a.objects if o.role == "tool"])
        triple = (a.verb, tuple(a.foods), tools, a.typed_verb)
        keys = self._typed_keys.get(triple)
        if keys is None:
            if len(self._typed_keys) >= _WORD_MEMO:
                self._typed_keys.clear()
            canonical = self._canonical(a.typed_verb or self._verbs.get(a.verb, a.verb), a.foods, tools)
            keys = self._typed_keys[triple] = (canonical, self._lifted(a.verb, a.foods, tools).key)
        a.typed_key, a.typed_class_key = keys
        if a.culinary and not self._names_food(keys[0]):
            a.typed_key = ""  # 切||: a cooking step that names no food has nothing to show (typed_classes keeps it)
        return a.typed_key

    @staticmethod
    def _removal(items, v: int, text: str) -> str:
        """The part a 去-verb removes, as written (去蒂, 去虾线, 去籽), when it is no skin: the glossary's class 去皮
        holds them all, and a cook reads 去皮|口蘑| for 口蘑去蒂 as wrong. Peeling keeps its class."""
        _, _, s, e = items[v]
        word = text[s:e]
        if word in ("去皮", "削皮", "去掉皮") or not word.startswith("去"):
            return ""
        if len(word) > 1 and word not in ("去掉", "去除"):
            return word
        if v + 1 < len(items) and items[v + 1][2] == e:
            part = text[items[v + 1][2] : items[v + 1][3]]
            if part in _REMOVED_PARTS:
                return "去" + part
        return ""

    @staticmethod
    def _names_food(key: str) -> bool:
        """The typed key names a food, or is a step that works on none (预热||烤箱, 关火||)."""
        verb, foods, _ = key.split("|")
        return bool(foods) or verb in _NO_FOOD_STEPS

    def _canonical(self, verb: str, foods: Iterable[str], tools: Iterable[str]) -> str:
        """The typed key on canonical names: the verb's class (or the switch word: 关火), the foods' and tools'
        own names (a form the lexicon calls no food or tool drops out, a form it lacks keeps its own name)."""
        name = self._lexicon.canonical
        return ProtoAction(
            verb,
            frozenset(filter(None, map(name, foods))),
            frozenset(filter(None, map(name, tools))),
        ).key

    def _lifted(self, verb: str, ingredients: Iterable[str], tools: Iterable[str]) -> ProtoAction:
        """Surface forms lifted to their glossary classes (forms outside the glossary drop out), for both
        readings' keys; the callers memoise it per surface triple."""
        return ProtoAction(
            self._verbs.get(verb, verb),
            frozenset(self._ingr[i] for i in ingredients if i in self._ingr),
            frozenset(self._tools[t] for t in tools if t in self._tools),
        )

    def proto(self, a: Action) -> ProtoAction:
        """Lift surface forms to glossary classes (memoised: the same surface triples recur)."""
        triple = (a.verb, tuple(a.ingredients), tuple(a.tools))
        proto = self._protos.get(triple)
        if proto is None:
            if len(self._protos) >= _WORD_MEMO:
                self._protos.clear()
            proto = self._lifted(a.verb, a.ingredients, a.tools)
            self._protos[triple] = proto
        return proto


# Corpus forms the annotators flagged as a fragment of another word, a dish name, a locative or a mixture are
# not read as objects (荷兰 of 荷兰芹, 锅内); misspellings, Traditional and regional names are.
_UNSURE_NOTE = re.compile("片段|菜名|方位|混合|泛|部位|存疑|疑")


@lru_cache(maxsize=2)
def _lexicon_nouns(lexicon) -> dict[str, str]:
    return {
        e.form: ("tool" if e.is_tool else "food")
        for e in lexicon.entries.values()
        if e.source == "corpus" and e.canonical != NOT_FOOD and not _UNSURE_NOTE.search(e.note)
    }


def _in_relative(kinds: list[str], v: int) -> bool:
    """The verb at ``v`` is inside a relative clause the typed reading closed (蒸出来的汁, 滴了柠檬汁的牛排): a 的 read
    as one, with the noun it describes after it, follows before any other verb (火腿想切片的 ends a sentence)."""
    for k in range(v + 1, len(kinds)):
        kind = kinds[k]
        if kind == "rel":
            return k + 1 < len(kinds) and kinds[k + 1] == "noun"
        if kind == "verb" or kind == "prep":
            return False
    return False


def _not_action(text: str, s: int, e: int) -> bool:
    """The verb at ``text[s:e]`` is part of a word that is no action (下午, 放弃, 吃不下; 下午1点 as one token)."""
    word = text[s:e]
    if word[:2] in ("下午", "上午"):
        return True
    for w, at in _NOT_ACTION_AT.get(word, ()):
        if s >= at and text[s - at : s - at + len(w)] == w:
            return True
    return False


def _as_written(actions: list[Action], text: str, simple: str) -> list[Action]:
    """Phrases as written when the text was read in Simplified characters (the spans are the same)."""
    if simple is not text and simple != text:
        for a in actions:
            a.phrase = text[a.start : a.end]
    return actions


def _crg_kinds(items) -> list[str]:
    """The CRG reading's view of the items: glossary verbs, glossary nouns, prepositions and 的 only."""
    return [_CRG_KIND.get(it[0], "other") for it in items]


def _owners(kinds: list[str]) -> tuple[list[int], dict[int, list[int]]]:
    """Attach nouns to verbs: objects follow their verb; words before the first verb (topic, subject,
    adverbials) and prepositional phrases (把/将/在/用… + noun) belong to the *next* verb.

    Relative clauses: in ``倒入炸好的地瓜`` the noun after 的 heads the object of the verb *before* the
    clause (倒入), or, when the clause opens the sentence or sits in a 把/将 phrase (``把炸好的地瓜倒入``,
    ``切好的土豆丝冲洗``), of the verb after it. It is also the clause verb's own object (炸 地瓜) unless
    that verb already has one inside the clause (``切片的黄瓜``: 切(片)).
    """
    verbs = [i for i, k in enumerate(kinds) if k == "verb"]
    if not verbs:
        return verbs, {}
    owner: dict[int, list[int]] = {v: [] for v in verbs}
    forward = False  # inside a prepositional phrase waiting for its verb
    in_pp: set[int] = set()  # verbs met inside a prepositional phrase
    for i, kind in enumerate(kinds):
        if kind == "verb":
            if forward:
                in_pp.add(i)
            forward = False
            continue
        if kind == "prep":
            forward = True
            continue
        if kind == "topic":  # typed only: a noun written right before its verb after a list (no CRG kind)
            j = bisect_left(verbs, i)
            if j < len(verbs):
                owner[verbs[j]].append(i)
            continue
        if kind != "noun":
            continue
        j = bisect_left(verbs, i)  # the verbs before and after this noun
        prev = verbs[j - 1] if j else None
        nxt = verbs[j] if j < len(verbs) else None
        target = nxt if (prev is None or forward) and nxt is not None else prev
        if target == prev and prev is not None:
            rel = next((k for k in range(prev + 1, i) if kinds[k] == "rel"), None)
            if rel is not None:
                outer = verbs[j - 2] if j > 1 else None
                head = outer if outer is not None and prev not in in_pp else nxt
                if head is not None:
                    owner[head].append(i)
                    if any(kinds[k] == "noun" for k in range(prev + 1, rel)):
                        continue  # the clause verb has its own object
        if target is not None:
            owner[target].append(i)
    return verbs, owner


def _crg_objects(items, objs: list[int], start: int, end: int) -> tuple[int, int, list[str], list[str]]:
    """The CRG reading of one action's objects (item indices): the span of the verb at ``start``-``end`` and
    its objects, and its ingredient and tool forms, each once, in the order written (one walk over them)."""
    ingredients: list[str] = []
    tools: list[str] = []
    for o in objs:
        kind, form, s, e = items[o]
        if s < start:
            start = s
        if e > end:
            end = e
        if kind == "ingredient":
            if form not in ingredients:
                ingredients.append(form)
        elif kind == "tool" and form not in tools:
            tools.append(form)
    return start, end, ingredients, tools


def _kept(verbs: list[int], owner: dict[int, list[int]], kinds: list[str]) -> dict[int, list[int]]:
    """The verbs that make an action, with their objects: a bare complement right after a verb (焯'过',
    捞起'沥干') is none."""
    out = {}
    for j, v in enumerate(verbs):
        objs = sorted(owner[v])
        nxt = verbs[j + 1] if j + 1 < len(verbs) else len(kinds)
        if j > 0 and not objs and nxt == v + 1 and kinds[v - 1] == "verb":
            continue
        out[v] = objs
    return out


def _extra_verb(word: str) -> str | None:
    """The compound action a word is or starts with (醒发好 → 醒发), for words that are no glossary verb."""
    for k in range(min(len(word), _MAX_EXTRA), 1, -1):
        if word[:k] in EXTRA_VERBS:
            return word[:k]
    return word if word in EXTRA_VERBS else None


Parser = RecipeParser | DependencyParser

PARSERS: Registry[Callable[..., Parser]] = Registry(
    "parser", doc="recipe text → actions (--parser): glossary rules, or a dependency parser with a local model"
)


@PARSERS.named("rules")
def rule_parser(glossary: Glossary, segmenter: str | Segmenter = "auto") -> Parser:
    """Glossary rules over a word segmentation (LAC or jieba): offline, fast, the default."""
    return RecipeParser(glossary, segmenter)


@PARSERS.named("dep")
def first_dependency_parser(glossary: Glossary, segmenter: str | Segmenter = "auto") -> Parser:
    """The released CRG code's method on the first dependency backend with a local model (LTP, HanLP, stanza)."""
    return DependencyParser(glossary, None)


def _dependency_parser(backend: str) -> Callable[..., Parser]:
    """The factory of one backend's parser (every parser factory takes ``segmenter``; a dependency parser
    segments with its own model and ignores it)."""

    def build(glossary: Glossary, segmenter: str | Segmenter = "auto") -> Parser:
        return DependencyParser(glossary, backend)

    build.__qualname__ = f"DependencyParser[{backend}]"
    return build


for _backend in depparse_backends.entries():
    PARSERS.add(
        _backend.name,
        _dependency_parser(_backend.name),
        doc=f"The released CRG code's method on {_backend.name}: {_backend.description}",
    )


def make_parser(glossary: Glossary, parser="rules", segmenter: str | Segmenter = "auto"):
    """A recipe parser by name (``PARSERS``): ``rules`` (this module, on LAC or jieba) or a dependency backend
    with its model on local disk, the released CRG code's own method (``dep``: the first of LTP, HanLP,
    stanza found; or one by name). Both return ``Action`` lists with proto-actions set. A parser object is
    returned as it is."""
    if not isinstance(parser, str):
        return parser
    check_parser(parser)
    return PARSERS.make(parser, glossary=glossary, segmenter=segmenter)


def check_parser(parser) -> None:
    """Raise (ValueError / RuntimeError, with what to do) unless ``make_parser`` can build ``parser`` here;
    cheap: no model is loaded."""
    if not isinstance(parser, str):
        return
    name = PARSERS.lookup(parser).name  # an unknown name: UnknownName (a ValueError) listing the parsers
    if name != "rules":
        resolve_backend(None if name == "dep" else name)


# The typed reading's word lists (``docs/typed-reading.md``).
EXTRA_VERBS = frozenset(
    "起锅 出锅 勾芡 醒发 静置 拍 铺 晾凉 放凉 摊凉 炝锅 挂糊 上浆 摊 烙 焗 酿 倒扣 脱模 筛 筛入 稀释 沥水 沥油 控油"
    " 盛起 剔 拆 码 码放 撇去 滗 浸没 翻拌 抖散 拨散 滑散 划散 揪 撒匀 淋入 调入 拌入 卤 烩 烫熟 汆烫 擀开"
    " 投入 注入 置 置于 上笼 上锅 上火 片成 移至 移入 摊开 松弛 剖 剖开 撕成 飞水 排放 排入 晾 垫底 配上 按扁 爆香"
    " 醒 换水 上桌 摆盘".split()
)
_MAX_EXTRA = max(map(len, EXTRA_VERBS))
_EXTRA_HEADS = {v[:k] for v in EXTRA_VERBS for k in range(1, len(v))}  # what a split compound starts with
_LIGHT_PREPS = {"用", "使用", "利用", "拿"}  # 用 X 切: X serves the verb after it
_LIGHT_VERBS = {"准备", "备", "备用", "待用", "留用", "做", "制作", "制", "进行", "开始", "等待", "待", "分别", "取"}
_STATE_WORDS = {"入味", "上色", "烫手", "沸腾", "变色", "变软", "成型", "凝固", "融化了", "出水", "起泡"}
_BOILS = {"开", "沸", "滚", "沸腾", "开了"}  # 水开后: the water boils, nobody does it
_ADDING = {"加入", "加水", "放水"}  # verb classes whose fused noun is what they add (加水: 水)
# 和面, 揉面 work on the dough, whatever was named before or after (和面程序 kneads it too: the dev set's annotators
# read a machine's program as its step); 面 alone reads as noodles
_DOUGH_WORDS = {"和面", "揉面", "醒面", "发面"}
_WRAPPERS = {"皮"}  # 月饼皮, 饺子皮: a wrapper is its own food (a peel the lexicon names as its fruit: 苹果皮 → 苹果)
_WRAP_IN = ("包入", "包进", "裹入")  # 包入馅料: what follows works on the wrapper closed round the filling
_BLENDING_VERBS = {"打"}  # it blends in water or oil, but whips a solid fat (黄油打发)
_DRY_VERBS = {"炒", "煸", "爆"}  # stir-frying never works on water alone (放水烧开炒一下: the vegetable)
_SOLID_FATS = "油脂›动物油"  # butter, lard, ghee
_COVERS = ("没过", "漫过", "淹过", "盖过", "浸过", "淹没")  # 加入没过牛腩的水: what the water covers is no object
_WATER_AMOUNTS = {"水量", "水位"}  # 没过X的水量: the water
_HANDLING = {"把", "将"}
_DONE = {"好", "完", "过", "熟"}  # 把调味好肉: a verb's result that describes the 把-object
_MIXTURES = {"混合物", "混合液"}  # 粉类混合物: the noun before only says what the mixture is made of
_INTO = {"倒入", "加入", "放入", "倒进", "加进", "放进", "淋入", "拌入"}  # 将X倒入Y中: Y is where X goes
_LOCATIVES = {"中", "里", "内"}
_COUNT_UNITS = "个|只|根|颗|片|克|g|斤|两|勺|匙|块|条|把|瓣|朵|张|杯|碗|盒|袋|包|ml|毫升"
_COUNT = re.compile(r"[0-9０-９.一二两三四五六七八九十半几]+(?:" + _COUNT_UNITS + ")")  # 鸡蛋2个: a list item's count
_COMPLEMENTS = {"出", "出来", "开", "下", "好", "起", "起来", "上", "入", "进", "进去", "过", "去", "掉"}
_UNTIL = {"至", "到", "直到", "直至", "至到"}  # 煮至沸腾: a state reached, not a step
_NO_FOOD_VERBS = {"预热", "关", "开", "开火", "关火", "停"}  # steps on the heat or an appliance only
_PARTS = {"皮", "籽", "子", "核", "蒂", "骨", "根", "壳", "鳞", "筋", "膜", "内脏", "头", "尾", "叶"}
_FUSED_PARTS = {"焯水", "过水", "泡水", "过油", "翻面"}  # the 水/油 of a fused compound; 翻面 flips (放水, 加水 add it)
# Written right before a verb, these say it is not done (不放盐, 没加蛋清, 不停搅拌): no step.
_NEGATIONS = (
    "没有人帮",
    "没人帮",
    "不要",
    "不用",
    "不必",
    "无需",
    "不需",
    "没有",
    "暂不",
    "不",
    "没",
    "别",
    "勿",
    "未",
)
# Verbs whose typed key may name no food: steps on the heat, the lid or an appliance (预热||烤箱, 关火||). Any other
# cooking step that names no food and inherits none (切||, 加入||, 捞出||) has no typed key: it says nothing a
# cook can use about a food, and the default views (stats, dish, TYPED_USES) show cooking steps on foods.
_OYSTER_TYPOS = {"耗", "毫"}  # 耗油 / 毫油 written for 蚝油; the CRG reading keeps its 油 (the release's texts have it)
_CHEER = re.compile("加油(?:[！!~～]|加油)")
_COLD_START = {"冷水", "凉水", "清水"}  # 冷水下锅 / 凉水入锅: the food, not the water, goes into the pot
_BROTHS = {"高汤", "汤", "汤料", "汤底", "清汤", "骨头汤", "鸡汤"}  # the liquid a food is cooked in, like water
_FINISHING = {"出锅", "起锅", "装盘", "盛出", "盛盘", "出炉"}  # what comes out is the dish, never a seasoning
_NOT_NEGATIONS = {"分别", "特别", "区别", "个别", "类别", "级别", "差不", "要不", "不不"}  # 分别切成: respectively
_NO_FOOD_STEPS = {"预热", "加热", "关火", "开火", "开盖", "开锅", "停"}
# Removing a part is one glossary class, 去皮; the typed key keeps the part removed as written (去蒂, 去虾线).
_REMOVALS = {"去皮"}
_REMOVED_PARTS = set("蒂线籽子核芯心瓤头尾鳞筋膜根骨刺壳腥鳃")
_REMOVED_PARTS |= {"虾线", "内脏", "虾头", "鱼鳞", "鱼鳃", "根部", "老根", "筋膜", "血水", "浮沫"}
# Switching the heat or opening the lid is a step (the annotation guideline's <关火>), but its glossary verb class
# (开, 关) names nothing: with no food, the typed key keeps the word as written (关火||, not 关||).
_LIDS = {"盖", "锅", "盖子", "锅盖"}
_COOLING = {
    "放凉": "放凉",
    "晾凉": "放凉",
    "放冷": "放凉",
    "凉凉": "放凉",
    "放至温热": "放凉",
    "倒掉": "倒掉",
    "倒出": "倒出",
}  # letting a food cool, pouring it off: no 加入 (the class of 放 and 倒)
_SWITCH_WORDS = {
    "开火": "开火",
    "关火": "关火",
    "熄火": "关火",
    "关掉火": "关火",
    "开盖": "开盖",
    "揭盖": "开盖",
    "开盖子": "开盖",
    "开锅盖": "开盖",
    "开锅": "开锅",
}
# Verb classes that work *in* water or oil: a medium named with them (隔水炖, 上锅蒸 after 水开, 橄榄油煎, 捞出沥干水)
# is what they cook or drain in, not their food; the food is the one worked on before.
_MEDIUM_VERBS = MEDIUM_VERB_CLASSES  # shared with the culinary flag (ingest.culinary)
# Words a glossary verb starts or ends that are no action (下午, 放弃, 吃不下): the typed reading reads them as words.
_NOT_ACTIONS = {
    "下午",
    "上午",
    "放弃",
    "放心",
    "放假",
    "放学",
    "放松",
    "下班",
    "下次",
    "下面",
    "下方",
    "以下",
    "吃不下",
    "放不下",
    "开心",
    "开玩笑",
    "开吃",
    "开动",
    "下载",
    "上传",
    "打开冰箱",
    "切记",
    "切勿",
    "切忌",
    "关注",
    "关于",
    "没过",
    "漫过",
    "开口",
    "开嘴",
    "看下",
    "等下",
    "泡下",
    "下一张",
    "下一步",
    "下一个",
}
# a verb as written -> (word, offset) of each word above holding it
_NOT_ACTION_AT: dict[str, list[tuple[str, int]]] = {}
for _w in _NOT_ACTIONS:
    for _i in range(len(_w)):
        for _j in range(_i + 1, len(_w) + 1):
            _NOT_ACTION_AT.setdefault(_w[_i:_j], []).append((_w, _i))
_PICTURES = {"照片", "图片", "图", "视频", "截图"}  # 放照片: a picture is put up, nothing is cooked
# 生抽 / 老抽 (light and dark soy sauce) cut as 生 / 抽 make 抽 a verb: the typed reading joins them back.
_SPLIT_SAUCES = {"生", "老"}
_OBJ_ROLES = {"heat", "duration", "shape", "state"}  # nouns no glossary lists that still become typed objects
_UNITS = {"分钟", "分", "小时", "秒", "秒钟", "度", "℃", "天", "晚"}  # jieba's 5/m 分钟/q
_CRG_KIND = {"verb": "verb", "prep": "prep", "rel": "rel", "ingredient": "noun", "tool": "noun"}
_TYPED_ONLY = ProtoAction("")  # marks, between the two passes, an action only the typed reading has
_DURATION_POS = {"TIME", "t"}  # LAC / jieba time words
_NUMERAL_PREFIX = re.compile(r"[0-9０-９.．~～\-一二三四五六七八九十百千万两半几数每]+")
_WORD_MEMO = 200_000  # memo entries kept per parser (words, surface triples) before starting afresh
_NOUN_POS = {"n", "nz", "nr", "ns", "nt", "nw", "PER", "LOC", "ORG", "ng", "nrt", "nrfg", "s", "f", "an"}
_LOCATIVES = "中里内上下边底"
_FORWARD_PREPS = {"把", "将", "在", "往", "向", "于", "从", "给", "用", "拿", "以", "按", "根据", "对", "让", "被"}
_BRACKETS = {"(": ")", "（": "）", "【": "】", "[": "]"}
_POS = itemgetter(1)  # a token's part of speech


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a parse runs. A parse makes many small containers (tokens, items,
    actions and their lists) and no reference cycles, so every one of them is freed by reference counting;
    the collector, triggered by the count of containers made, would instead walk every live object again and
    again (the glossary, the memos, the batch's actions so far), 10-15% of a parse, collecting nothing.
    Where the caller already turned it off, it stays off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _check_text(text) -> None:
    if not isinstance(text, str):
        raise TypeError(f"recipe text must be str, got {type(text).__name__}")


def _merge_adverbial_verbs(tokens: list[Token]) -> list[Token]:
    """LAC splits 翻炒 into 翻/vd + 炒/v; LTP (which CRG used) keeps one word, i.e. one action 翻.

    Most clauses have no adverbial verb: they are returned as they are (the test runs in C)."""
    if "vd" not in map(_POS, tokens):
        return tokens
    out: list[Token] = []
    for t in tokens:
        if out and out[-1].pos == "vd" and t.pos == "v" and out[-1].end == t.start:
            out[-1] = Token(out[-1].word + t.word, "v", out[-1].start)
        else:
            out.append(t)
    return out


def _unique(xs) -> list[str]:
    seen: dict[str, None] = {}
    for x in xs:
        seen.setdefault(x, None)
    return list(seen)


def _parenthesised(text: str) -> set[int]:
    """Character positions inside brackets: asides (``(我个人很喜欢蒜)``) hold no actions (CRG skips them)."""
    hidden: set[int] = set()
    if not any(ch in text for ch in _BRACKETS):  # most recipes have no aside: no walk over their characters
        return hidden
    depth = 0
    closers = set(_BRACKETS.values())
    for i, ch in enumerate(text):
        if ch in "。！？!?\n":  # an unclosed bracket hides at most the rest of its sentence
            depth = 0
        if ch in _BRACKETS:
            depth += 1
        elif ch in closers and depth:
            depth -= 1
            hidden.add(i)
            continue
        if depth:
            hidden.add(i)
    return hidden
