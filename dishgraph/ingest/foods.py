"""Foods and tools by their own names: the reviewed food lexicon (``food_lexicon.tsv``).

The release glossary's classes are the CRG reference key, and they are coarse: 娃娃菜, 菠菜 and 秋葵 sit in
class 洋葱, 金桔 shares class 梨 with 雪梨, 冰箱 is in tool class 锅. A key a cook reads has to name the food
itself, so the typed reading names every food and tool by its **canonical name** (synonyms merged: 西红柿 and 番茄
are 番茄) with a **category path** modelled on the China Food Composition Table's food groups (蔬菜›叶菜类),
and keeps the release class as a separate field. The CRG reading never looks here. Guideline and review:
``docs/food-lexicon.md``.
"""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LEXICON_FILE = Path(__file__).with_name("food_lexicon.tsv")
NOT_FOOD = "-"  # canonical and category of a form that is no food and no tool
CATEGORY_SEP = "›"
COLUMNS = ("form", "canonical", "category", "glossary_class", "source", "note")

# The category tree of the guideline (docs/food-lexicon.md): group -> subgroups. A third level is free.
CATEGORY_TREE: dict[str, tuple[str, ...]] = {
    "谷类": ("米", "面粉", "面制品", "米制品", "杂粮"),
    "薯类淀粉": ("薯类", "淀粉及制品"),
    "豆类": ("大豆", "豆制品", "杂豆"),
    "蔬菜": (
        "根茎类",
        "鲜豆类",
        "茄果类",
        "瓜类",
        "葱蒜类",
        "叶菜类",
        "花菜类",
        "嫩茎类",
        "水生蔬菜",
        "芽菜类",
        "野菜",
    ),
    "菌藻": ("菌菇", "藻类"),
    "水果": ("仁果", "核果", "浆果", "柑橘", "热带水果", "瓜果", "干果蜜饯"),
    "坚果种子": ("坚果", "种子"),
    "畜肉": ("猪肉", "牛肉", "羊肉", "其他畜肉", "内脏", "肉制品"),
    "禽肉": ("鸡", "鸭", "鹅", "其他禽", "禽制品"),
    "乳类": ("奶", "奶制品"),
    "蛋类": ("鸡蛋", "其他蛋"),
    "水产": ("鱼", "虾", "蟹", "贝", "软体", "其他水产", "水产制品"),
    "油脂": ("植物油", "动物油"),
    "调味品": ("盐", "糖", "酱油", "醋", "酒", "酱", "香辛料", "鲜味剂", "复合调料", "其他调味"),
    "糕点小吃": ("糕点", "面团馅料", "速食"),
    "饮料": ("茶", "咖啡", "饮品", "酒类"),
    "药食两用": ("药材",),
    "其他食物": ("水", "添加剂", "其他"),
    "器具": ("锅具", "刀具砧板", "容器", "电器", "烘焙工具", "小工具", "其他器具"),
}


def valid_category(category: str) -> bool:
    """A path of the tree: group and subgroup from the guideline's table, an optional free third level."""
    if category == NOT_FOOD:
        return True
    parts = category.split(CATEGORY_SEP)
    return 2 <= len(parts) <= 3 and parts[0] in CATEGORY_TREE and parts[1] in CATEGORY_TREE[parts[0]] and all(parts)


@dataclass(frozen=True)
class Entry:
    form: str
    canonical: str
    category: str
    glossary_class: str
    source: str
    note: str = ""

    @property
    def is_food(self) -> bool:
        return self.canonical != NOT_FOOD and not self.category.startswith("器具")

    @property
    def is_tool(self) -> bool:
        return self.category.startswith("器具")


class FoodLexicon:
    """Surface form -> canonical name, category and release class. A form the file lacks keeps its own name
    (a lexicon is never a reason to lose an object)."""

    def __init__(self, entries: dict[str, Entry]):
        self.entries = entries
        cats: dict[str, Counter] = defaultdict(Counter)
        for e in entries.values():
            if e.canonical != NOT_FOOD:
                cats[e.canonical][e.category] += 1
        # a canonical name's category: the one most of its forms have (ties: the first in sort order)
        self._category = {c: sorted(n.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for c, n in cats.items()}
        forms: dict[str, list[str]] = defaultdict(list)
        for e in entries.values():
            if e.canonical != NOT_FOOD:
                forms[e.canonical].append(e.form)
        self._forms = {c: sorted(f, key=lambda x: (len(x), x)) for c, f in forms.items()}

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, form: str) -> bool:
        return form in self.entries

    def canonical(self, form: str) -> str | None:
        """The canonical name of a form; ``None`` when the lexicon says it is no food and no tool; the form
        itself when the lexicon does not list it."""
        e = self.entries.get(form)
        if e is None:
            return form
        return None if e.canonical == NOT_FOOD else e.canonical

    def category(self, name: str) -> str:
        """The category path of a canonical name (or of a form); ``""`` when unknown."""
        if name in self._category:
            return self._category[name]
        e = self.entries.get(name)
        return e.category if e is not None and e.category != NOT_FOOD else ""

    def group(self, name: str, level: int = 2) -> str:
        """The category path cut to ``level`` levels (``蔬菜›叶菜类`` for 娃娃菜 at 2, ``蔬菜`` at 1); the name
        itself when its category is unknown (a rollup never drops a food)."""
        cat = self.category(name)
        return CATEGORY_SEP.join(cat.split(CATEGORY_SEP)[:level]) if cat else name

    def forms(self, canonical: str) -> list[str]:
        """Every surface form of a canonical name, shortest first."""
        return list(self._forms.get(canonical, ()))

    def glossary_class(self, form: str) -> str:
        e = self.entries.get(form)
        return e.glossary_class if e is not None else ""


def read_lexicon(path: Path) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        lines = (line for line in fh if not line.startswith("#"))  # the file's header comment
        for row in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE):
            form = (row.get("form") or "").strip()
            if form and form not in entries and row.get("canonical"):
                entries[form] = Entry(
                    form,
                    row["canonical"].strip(),
                    (row.get("category") or NOT_FOOD).strip() or NOT_FOOD,
                    (row.get("glossary_class") or "").strip(),
                    (row.get("source") or "").strip(),
                    (row.get("note") or "").strip(),
                )
    return entries


@lru_cache(maxsize=4)
def food_lexicon(path: Path = LEXICON_FILE) -> FoodLexicon:
    """The package's reviewed lexicon (empty when the file is absent: every form keeps its own name)."""
    return FoodLexicon(read_lexicon(path) if path.exists() else {})


ROLLUPS = ("food", "category", "group")  # what typed keys are shown by: own names, group›subgroup, group


def rollup_key(key: str, by: str, lexicon: FoodLexicon | None = None) -> str:
    """A typed key with its foods and tools named by their category (``切|蔬菜›叶菜类|`` for 切|娃娃菜|, by
    ``category``; ``切|蔬菜|`` by ``group``); ``food`` leaves it as it is."""
    if by == "food":
        return key
    if by not in ROLLUPS:
        raise ValueError(f"unknown rollup {by!r}; expected one of {ROLLUPS}")
    lex = lexicon or food_lexicon()
    level = 2 if by == "category" else 1
    verb, foods, tools = key.split("|")

    def names(part: str) -> str:
        return "+".join(sorted({lex.group(x, level) for x in part.split("+") if x}))

    return "|".join((verb, names(foods), names(tools)))


def rollup_recipes(rows, by: str) -> dict[str, dict[str, int]]:
    """Per dish, recipes per rolled-up key, from rows {dish, recipe, actions} (``typed_actions_per_recipe``):
    a recipe counts once for a key however many of its foods fall in the same category."""
    lex = food_lexicon()
    out: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        out[r["dish"]].update({rollup_key(k, by, lex) for k in r["actions"] or ()})
    return {d: dict(c) for d, c in out.items()}


def class_labels(*forms: str | None) -> dict[str, str]:
    """Release class -> how a reference-keyed answer names it for these foods: ``秋葵 (class 洋葱)`` where the
    food's own name differs from its class, ``雪梨/金桔 (class 梨)`` where two of them share one; a class that is
    the food's own name is left out (菜心 … class 油菜 is shown, 土豆 in class 土豆 is not)."""
    lex = food_lexicon()
    foods: dict[str, list[str]] = defaultdict(list)
    for form in forms:
        if not form:
            continue
        cls = lex.glossary_class(form)
        name = lex.canonical(form) or form
        if cls and name not in foods[cls]:
            foods[cls].append(name)
    return {c: f"{'/'.join(names)} (class {c})" for c, names in foods.items() if names != [c]}


def name_key(key: str, labels: dict[str, str]) -> str:
    """A CRG key with the classes of ``labels`` named by their foods (切|洋葱| → 切|秋葵 (class 洋葱)|)."""
    if not labels:
        return key
    verb, ingr, tools = key.split("|")
    return "|".join((verb, "+".join(labels.get(c, c) for c in ingr.split("+")) if ingr else "", tools))
