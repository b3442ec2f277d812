"""The XiaChuFang sample and the classic cookbook corpus, rebuilt byte for byte from their public sources.

Both were gathered from files of the public repository SmartFlowAI/TheGodOfCookery (Apache-2.0): the
XiaChuFang sample from its data-cleaning traces and a chat data set, the classic corpus from an evaluation
file. `dishgraph data fetch` downloads those files at pinned commits (each checked by SHA-256, `SOURCES`)
and calls `build_xiachufang` / `build_classic`, whose output must hash to `TARGETS` (the files `make demo`
and the tests read). The only other input is the CRG release's ``base_recipes.txt``: a corpus text that
near-duplicates an evaluation input is left out. Pure functions, bytes in and bytes out, standard library
only; `benchmarks/check_corpus_sources.py` runs them on a mirror of the repository.
"""

from __future__ import annotations

import ast
import collections
import json
import re

REPO = "SmartFlowAI/TheGodOfCookery"

# ---------------------------------------------------------------------------------------------
# Inputs.  None of the commits below is an ancestor of the repository's main head 9d032a5 except
# the last one: the data-cleaning traces live on branch `llama-index`, the classic source on
# branch `text2image` (main's own eval/eval_dataset.json is a later, different blob 65a0289).
# Each file exists with exactly one content in the whole history, so (path, sha256) pins it.
# ---------------------------------------------------------------------------------------------
_C2 = "c97a30c438c0f7f8fd460f6af4138cf4b721de96"  # "第二次数据集去重实验" (exp1-3 traces)
_C4 = "27347810feafec5175e3f9d6917219e89657be33"  # "第二次数据集去重实验" (exp4 traces)
_C5 = "981d897e39624e1ae202b3f3db3d56130bc663cc"  # "第三次数据集去重实验" (exp5 traces)
_T = "data_cleaning/exp{}/trace/duplicate-document_{}.jsonl"

SOURCES = [
    # dataset, commit, path, git blob, sha256 of the file, size in bytes
    dict(
        dataset="classic",
        repo=REPO,
        commit="09971024bf0f1e8648e22ac7c474f412c83eaee7",
        path="eval/eval_dataset.json",
        blob="143e785f0f97ebf1b6bf7758c2f39ee4c87276ce",
        sha256="d74fe87361c03ad888894bc491b722c5e232b0666571aafc210fe6ef91ef5d01",
        size=3939340,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C2,
        path=_T.format(1, "minhash_deduplicator"),
        blob="cd112544c77f0a5ea85e736e85218eb69852d982",
        sha256="52503dc08a4473a7ae03d35d1650ac48b41b27dae55327942b6d7124283bbb47",
        size=2052343,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C2,
        path=_T.format(1, "simhash_deduplicator"),
        blob="a40fffd3f67b5be01a32335b2f6cc319d4d0c546",
        sha256="cac0c43c5746ae0e9e7c053672d7b7bfec38aa43c1d7bda94ceacf96b56b852a",
        size=2389277,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C2,
        path=_T.format(2, "deduplicator"),
        blob="9adfa31197c503b3f1bf3b90de0f89437585f0d0",
        sha256="e7804f794ac23561ea34f35c33219f56fc91eb81df7d8dfd47075181b3087c4d",
        size=2185826,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C2,
        path=_T.format(2, "minhash_deduplicator"),
        blob="9fefcc553d06c0f897f72f6a3d586074af1c9f3c",
        sha256="14ea4f19ebc25b750c0573e0b75be911964df1a5fb1d58c34f257df05b2a8aef",
        size=2540742,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C2,
        path=_T.format(2, "simhash_deduplicator"),
        blob="cd3d3112cb1b2400c7443831a2cee1673e81ee66",
        sha256="8670c74dbbc44daf6aa2ef9932119355b40f802038b079b6f75be0ca57b288d3",
        size=185726,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C2,
        path=_T.format(3, "minhash_deduplicator"),
        blob="4891b782c5df62a87d5673a18d53d25de8d1a19d",
        sha256="cb01f9ff42d07671cd3f17c994798dd902a525647956752473769fb9da6cca3e",
        size=11668,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C4,
        path=_T.format(4, "minhash_deduplicator"),
        blob="db10779f8b4ee233142b1a387158b7ba2affdd58",
        sha256="7f18c9d10f760f34f0eb8db71777eac76ee9ea6a06ecf8484bbc59ca76871454",
        size=43191,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C4,
        path=_T.format(4, "simhash_deduplicator"),
        blob="4411214d528fe26b3bd70c417c254be28e66dffa",
        sha256="2e5f81f19567c1654b84fad321cb19bc16390bcd16d1d70f62752744c7c26776",
        size=2454,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C5,
        path=_T.format(5, "minhash_deduplicator"),
        blob="a641414ffefed3ba364815c9c37207613dfa3739",
        sha256="4e8d0806131439ae4f359b5c44d5f212cc113c68c99cc8edc8f62cb5560becf2",
        size=2855924,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit=_C5,
        path=_T.format(5, "simhash_deduplicator"),
        blob="1615b6a805ae6307bbe8128c2b8547668d925862",
        sha256="26b771e468b3c257208b415a73af8110bcf8431d49eb69b30226ad9dae67d806",
        size=131465,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit="3e65ccb59cccc02a72038cae9a522213836dc77e",
        path="data_cleaning/exp7/test.json",
        blob="0e1d434f1952ecca2cfca444c1aea44a9b29a1eb",
        sha256="6b1b0be4e7e5e88ed0c93c4a64d1dae31f05dd759d35dd929a0e466d3279d785",
        size=94242,
    ),
    dict(
        dataset="xiachufang",
        repo=REPO,
        commit="9d032a5af3899da1220ab27cc321a8166266a516",
        path="rag_langchain/data/tran_dataset_1000.json",
        blob="5b5fcb81d90837143f1d2f46021f56d04899b791",
        sha256="bdf96cedbcf27172d5b79d6a27adbdc26a8170dea3426edd37535212cf526fed",
        size=1122752,
    ),
]

# The project's own file (not upstream): dish<TAB>target dish<TAB>recipe text, 2,500 lines.
BASE_RECIPES_SHA256 = "5df6401109713bdf82e09693a4dd39720011bc213060abbb2bc3824dbb5b1eec"

# what each build must hash to (the files `make demo` and the tests read): (sha256, bytes)
TARGETS = {
    "xiachufang": ("310ef275a551c07909bf37a6c2a729ddc6b6786770486ab9a88816860b4922da", 8018142),
    "classic": ("6f8ae48b8f30e53614d859f7750c02cc88a4cfbe6f2671f09b01315e1159a3b5", 3404440),
}


# ---------------------------------------------------------------------------------------------
# Shared pieces
# ---------------------------------------------------------------------------------------------
def _grams(text, n=5):
    """Set of character n-grams (empty for texts shorter than n)."""
    return {text[i : i + n] for i in range(len(text) - n + 1)}


class _NearDuplicateFilter:
    """Leaves out texts whose character 5-gram Jaccard with some base recipe exceeds 0.5.

    Why: base_recipes.txt holds the CRG evaluation inputs; a corpus recipe that repeats one of
    them (XiaChuFang is where CRG took them from) would leak an evaluation input into the graph.
    The threshold has a wide margin: every text left out scores >= 0.73, every text kept <= 0.18.
    An inverted index over the base 5-grams keeps this to a couple of seconds.
    """

    def __init__(self, base_recipes: bytes):
        self.sets = []
        for line in base_recipes.decode("utf-8").split("\n"):
            if line:
                self.sets.append(_grams(line.split("\t")[2]))  # the recipe text column
        self.index = collections.defaultdict(list)
        for j, grams in enumerate(self.sets):
            for g in grams:
                self.index[g].append(j)

    def is_near_duplicate(self, text, threshold=0.5):
        grams = _grams(text)
        shared = collections.Counter(j for g in grams for j in self.index.get(g, ()))
        return any(c / (len(grams) + len(self.sets[j]) - c) > threshold for j, c in shared.items())


def _dump(records):
    """One JSON object a line, UTF-8 (ensure_ascii=False), json.dumps' default separators
    (", " and ": "), keys in insertion order, "\\n" after every line including the last."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# XiaChuFang sample
# ---------------------------------------------------------------------------------------------
XIACHUFANG_PATHS = sorted(s["path"] for s in SOURCES if s["dataset"] == "xiachufang")

# A step that already ends like a sentence keeps its ending; any other step gets "。" so that the
# joined text still reads as separate sentences.  (A comma is not an ending: "拌匀，" -> "拌匀，。".)
_SENTENCE_END = set("。！？!?；;~～…)）】」』")
# Authors number their steps ("1.", "2、", "步骤3：", "步骤\n1."); the list order already carries
# that, so a number at the very start of a step is dropped.  Numbers inside a step are kept.
_STEP_NUMBER = re.compile(r"^(?:步骤\s*)?\d+\s*[.、．:：)）]\s*")
_HOW_TO = re.compile(r"的做法$")  # XiaChuFang page titles end "X的做法" ("how to make X")


def _join_steps(steps):
    parts = []
    for step in steps:
        step = " ".join(step.split())  # any run of whitespace (\n, \r\n, \u3000, ...) -> one space
        step = _STEP_NUMBER.sub("", step)
        if not step:  # blank steps, or steps that were only a number ("6：")
            continue
        if step[-1] not in _SENTENCE_END:
            step += "。"
        parts.append(step)
    return "".join(parts)


def _xiachufang_items(path, data):
    """Yield (title, curated dish label or None, list of steps) in file order."""
    if path.endswith(".jsonl"):
        # data-juicer dedup traces: each line is {"dup1": recipe, "dup2": recipe, ...}.  The lines
        # are split with str.splitlines(), which also breaks at U+2028 (LINE SEPARATOR).  Two
        # lines contain raw U+2028 inside strings (exp1 minhash line 119: 海鲜炒饭 x2; exp2 minhash
        # line 698: 圣诞花环曲奇 x2); their fragments are not JSON and are skipped, so those four
        # recipes are not in the published corpus.  Kept as is so the bytes match that release.
        for line in data.decode("utf-8").splitlines():
            if not line.strip():
                continue
            try:
                pair = json.loads(line)
            except ValueError:
                continue
            for recipe in pair.values():  # dup1, dup2 in file order
                label = recipe["dish"]
                yield recipe["name"], (None if label == "Unknown" else label), recipe["recipeInstructions"]
    elif path == "data_cleaning/exp7/test.json":
        for recipe in json.loads(data):  # a JSON array of the same recipe objects
            label = recipe["dish"]
            yield recipe["name"], (None if label == "Unknown" else label), recipe["recipeInstructions"]
    elif path == "rag_langchain/data/tran_dataset_1000.json":
        # XTuner chat samples: input "X的做法"; output "您需要准备以下食材:\n[...]\n按以下方法制作:\n[...]"
        # where the lists are Python reprs.  No curated label here.
        for sample in json.loads(data):
            for turn in sample["conversation"]:
                steps = ast.literal_eval(turn["output"].split("\n按以下方法制作:\n", 1)[1])
                yield _HOW_TO.sub("", turn["input"]), None, steps
    else:
        raise ValueError("unknown XiaChuFang source: " + path)


def build_xiachufang(files: dict[str, bytes], base_recipes: bytes) -> bytes:
    """The XiaChuFang sample (10,879 records) from its source files, keyed by repository path."""
    near = _NearDuplicateFilter(base_recipes)
    seen = set()
    records = []
    for path in XIACHUFANG_PATHS:  # files in sorted path order, records in file order
        for title, label, steps in _xiachufang_items(path, files[path]):
            text = _join_steps(steps)
            if not text:  # recipes with no usable step text
                continue
            # De-duplication keeps the first occurrence of a (title, text) pair: the traces list the
            # same recipe many times over (every experiment re-reads the same crawl).  Equal texts
            # under different titles (e.g. the placeholder "1。2。3。") are separate records.
            key = (title, text)
            if key in seen:
                continue
            seen.add(key)
            if near.is_near_duplicate(text):  # 18 records
                continue
            records.append(
                {
                    # curated label when XiaChuFang has one, otherwise the title minus a "的做法" suffix
                    "dish": label if label is not None else _HOW_TO.sub("", title),
                    "title": title,
                    "text": text,
                    "dish_is_label": label is not None,
                    "origin": path,
                }
            )
    return _dump(records)


# ---------------------------------------------------------------------------------------------
# Classic cookbook corpus
# ---------------------------------------------------------------------------------------------
CLASSIC_PATH = "eval/eval_dataset.json"
CLASSIC_ORIGIN = REPO + ":" + CLASSIC_PATH + "@143e785"
# gt = "原料:<ingredients>制作方法:<method>[关键:...|特点:...|【附注】...]".  The method starts after
# the first "制作方法:" or "做法:" (whichever comes first); a leading "做法:" right after
# "制作方法:" is a repeated heading.  Where neither marker exists the whole gt is kept.
_CLASSIC_HEAD = re.compile(r"^原料:.*?(?:制作方法:|做法:)", re.S)
# Notes after the method (tips, characteristics, annotations) are not steps.
_CLASSIC_TAIL = re.compile(r"关键:|特点:|【附注】")


def _classic_method(gt):
    text = _CLASSIC_HEAD.sub("", gt, count=1)
    if text.startswith("做法:"):
        text = text[len("做法:") :]
    return _CLASSIC_TAIL.split(text, maxsplit=1)[0]


def build_classic(files: dict[str, bytes], base_recipes: bytes) -> bytes:
    """The classic cookbook corpus (5,233 records) from its source file, keyed by repository path."""
    near = _NearDuplicateFilter(base_recipes)
    records = []
    for item in json.loads(files[CLASSIC_PATH]):  # [{"query": "X怎么做", "gt": ...}], kept in order
        dish = re.sub(r"怎么做$", "", item["query"])
        text = _classic_method(item["gt"])
        # Empty or stub methods ("水煎，饭前热服。", "【制作】") are not recipes: 154 records.  The
        # cut is exact: the shortest text kept has 10 characters, the longest dropped has 9.
        if len(text) < 10:
            continue
        if near.is_near_duplicate(text):  # 1 record (肉末四季豆)
            continue
        records.append({"dish": dish, "title": dish, "text": text, "origin": CLASSIC_ORIGIN})
    return _dump(records)


def build(dataset: str, files: dict[str, bytes], base_recipes: bytes) -> bytes:
    """``dataset``'s ``recipes.jsonl`` ("xiachufang" or "classic")."""
    return {"xiachufang": build_xiachufang, "classic": build_classic}[dataset](files, base_recipes)
