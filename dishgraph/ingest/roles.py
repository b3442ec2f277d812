"""Object roles: what a noun a recipe attaches to an action *is* (food, tool, heat, duration, quantity, shape,
state or other), so that the typed reading can keep foods as objects and turn heat, time and cut shape into
properties of the step.

Roles belong to surface forms, not glossary classes: the release's class 水 holds both 水 (a food) and 火 (heat),
its class 片 holds both 片 (a cut) and 大火 (heat). ``object_roles.tsv`` (reviewed, one row per glossary ingredient
and tool form) gives the role of every form the glossary knows; nouns it does not know (the segmenter's
``5分钟``, ``180度``, ``金黄色``) get one by the rules below. The design is in ``docs/typed-reading.md``.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path

ROLE_NAMES = ("food", "tool", "heat", "duration", "quantity", "shape", "state", "other")
ROLES_FILE = Path(__file__).with_name("object_roles.tsv")

# Rules for nouns the roles file does not list. Written as patterns over the whole word: they are asked of
# segmenter tokens, which are short, and a pattern reads as the rule it is.
_NUM = r"[0-9０-９.．/~～\-一二三四五六七八九十百千万两半几数每多个]+"
_DURATION = re.compile(
    rf"^(?:{_NUM}(?:分钟|分|小时|个小时|钟头|秒钟|秒|天|晚|夜|周|个月|月|h|min|mins|s)"
    r"|分钟|小时|钟头|秒钟|时候|时间|时|此时|这时|同时|片刻|一会|一会儿|会儿|半天|过夜|隔夜|一夜|一晚|整夜|瞬间|之后|以后|稍后)$"
)
_HEAT = re.compile(rf"^(?:.{{0,3}}火|{_NUM}(?:度|℃|°C|°|摄氏度|成热|成油温)|高温|中温|低温|油温|温度|火候)$")
_SHAPE_SIZE = "小大细薄厚长短粗碎方圆宽窄滚刀菱形均匀等同一"
_SHAPE = re.compile(
    rf"^(?:[{_SHAPE_SIZE}]{{0,3}}(?:丝|片|段|丁|块|条|末|粒|茸|蓉|泥|圈|球|瓣|花刀|薄片|长条|方块|小块|碎|粗丝|细丝))$"
    r"|^(?:圆形|方形|菱形|三角形|长方形|正方形|椭圆形|条状|片状|块状|丝状|球状|圆饼|饼状|心形)$"
)
_STATE = re.compile(
    r"^(?:.{0,4}色|.{0,3}味|.{0,4}状|表面|两面|一面|正面|反面|背面|底面|切面|侧面|状态|程度|口感|香气|气泡|泡沫"
    r"|粘稠|浓稠|光滑|细腻|尖角|纹路|焦黄|金黄|酥脆|软烂|熟透|透明|七成熟|八成熟|全熟|半熟)$"
)
_QUANTITY = re.compile(
    rf"^(?:{_NUM}(?:克|g|G|kg|斤|两|毫升|ml|ML|升|L|勺|小勺|大勺|汤匙|茶匙|杯|碗|个|只|根|片|块|颗|粒|瓣|把|次|遍|份|滴|袋|包|盒|罐|cm|厘米|寸|倍|下|圈|点)?"
    r"|适量|少许|少量|一点|一点点|一些|一半|全部|大量|若干|剩下|剩余)$"
)
_OTHER = frozenset(
    "个人 心情 厨房 手 双手 大家 我们 自己 宝宝 孩子 家人 朋友 方法 步骤 过程 情况 问题 东西 事情 地方 位置 话 人"
    " 底部 边缘 中间 中心 周围 旁边 上面 下面 里面 外面 顶部 一边 两边 桌面 中层 下层 上层".split()
)


@lru_cache(maxsize=1)
def object_roles(path: Path = ROLES_FILE) -> dict[str, str]:
    """The reviewed roles of glossary surface forms (``form<TAB>role``), or none when the file is absent."""
    if not path.exists():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        rows = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        return {r["form"].strip(): r["role"].strip() for r in rows if r.get("form") and r.get("role") in ROLE_NAMES}


@lru_cache(maxsize=65536)
def rule_role(word: str) -> str | None:
    """The role of a noun no file lists, by its form; ``None`` when no rule speaks (not a typed object)."""
    if _DURATION.match(word):
        return "duration"
    if _HEAT.match(word):
        return "heat"
    if word in _OTHER:
        return "other"
    if _SHAPE.match(word):
        return "shape"
    if _QUANTITY.match(word):
        return "quantity"
    if _STATE.match(word):
        return "state"
    return None


def role_of(form: str, kind: str, table: dict[str, str]) -> str:
    """A glossary noun's role: the file's, else the rules', else what the glossary calls it (an ingredient
    form is a food, a tool form a tool)."""
    role = table.get(form)
    if role is None:
        role = rule_role(form) or ("tool" if kind == "tool" else "food")
    return role
