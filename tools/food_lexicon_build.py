"""Assemble ``dishgraph/ingest/food_lexicon.tsv`` from the annotators' files (docs/food-lexicon.md).

Inputs: the release glossary (every ingredient and tool form), ``object_roles.tsv`` (forms whose reviewed role
is neither food nor tool get ``-`` without annotation: 火, 时候, 丝), and annotation files with columns
``form, canonical, category, note`` (glossary forms; corpus nouns). Corpus nouns annotated ``-`` are left out
(the file is a lexicon of foods and tools; the count is reported). Checks every category against the tree.

    python tools/food_lexicon_build.py --glossary ../shared/data/counterfactual/glossary.json \
        --glossary-annotations out_glossary_*.tsv --corpus-annotations out_corpus_*.tsv
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from dishgraph.ingest.foods import COLUMNS, LEXICON_FILE, NOT_FOOD, valid_category  # noqa: E402
from dishgraph.ingest.roles import object_roles  # noqa: E402

HEADER = (
    "# The food lexicon: surface form -> canonical name, category path (group›subgroup), release class.\n"
    "# Guideline, sources and review: docs/food-lexicon.md. Rebuilt by tools/food_lexicon_build.py.\n"
)


def read_annotations(paths: list[Path]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for p in paths:
        with open(p, encoding="utf-8", newline="") as fh:
            for i, row in enumerate(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE), 2):
                form = (row.get("form") or "").strip()
                canon = (row.get("canonical") or "").strip() or NOT_FOOD
                cat = (row.get("category") or "").strip().replace(">", "›") or NOT_FOOD
                if canon == NOT_FOOD or cat == NOT_FOOD:
                    canon = cat = NOT_FOOD
                if not valid_category(cat):
                    raise SystemExit(f"{p}:{i}: category {cat!r} is not in the tree (form {form!r})")
                if form:
                    out.setdefault(form, {"canonical": canon, "category": cat, "note": (row.get("note") or "").strip()})
    return out


def build(glossary: Path, gloss_ann: list[Path], corpus_ann: list[Path], out: Path) -> dict:
    g = json.loads(glossary.read_text(encoding="utf-8"))
    roles = object_roles()
    ann = read_annotations(gloss_ann)
    corpus = read_annotations(corpus_ann)
    rows: dict[str, dict] = {}
    missing = []
    for kind in ("ingredient", "tool"):
        for raw, cls in g[kind].items():
            form = raw.strip()
            if not form or form in rows:
                continue
            role = roles.get(form)
            a = ann.get(form)
            if a is None and role in ("food", "tool"):
                missing.append(form)
                continue
            if a is None:  # heat, time, shape, state, quantity or other by the reviewed roles file
                a = {"canonical": NOT_FOOD, "category": NOT_FOOD, "note": f"role {role}"}
            rows[form] = {"form": form, **a, "glossary_class": cls.strip(), "source": f"glossary-{kind}"}
    if missing:
        raise SystemExit(f"{len(missing)} glossary forms without an annotation, e.g. {missing[:10]}")
    left_out = 0
    for form, a in corpus.items():
        if form in rows:
            continue
        if a["canonical"] == NOT_FOOD:
            left_out += 1
            continue
        rows[form] = {"form": form, **a, "glossary_class": "", "source": "corpus"}
    # one category per canonical name: the one most of its forms were given (annotators split some: 黄油)
    votes: dict[str, dict[str, int]] = {}
    for r in rows.values():
        if r["canonical"] != NOT_FOOD:
            v = votes.setdefault(r["canonical"], {})
            v[r["category"]] = v.get(r["category"], 0) + 1
    major = {c: sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for c, v in votes.items()}
    for r in rows.values():
        if r["canonical"] != NOT_FOOD:
            r["category"] = major[r["canonical"]]
    with open(out, "w", encoding="utf-8", newline="") as fh:
        fh.write(HEADER)
        fh.write("\t".join(COLUMNS) + "\n")
        for r in sorted(rows.values(), key=lambda r: (r["source"], r["glossary_class"], r["form"])):
            fh.write("\t".join(" ".join(str(r[c]).split()) for c in COLUMNS) + "\n")
    stats = {
        "rows": len(rows),
        "glossary": sum(r["source"] != "corpus" for r in rows.values()),
        "corpus_foods_and_tools": sum(r["source"] == "corpus" for r in rows.values()),
        "corpus_nouns_not_food": left_out,
        "canonical_names": len({r["canonical"] for r in rows.values() if r["canonical"] != NOT_FOOD}),
    }
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--glossary", type=Path, required=True)
    ap.add_argument("--glossary-annotations", type=Path, nargs="+", required=True)
    ap.add_argument("--corpus-annotations", type=Path, nargs="*", default=[])
    ap.add_argument("--out", type=Path, default=LEXICON_FILE)
    a = ap.parse_args()
    print(json.dumps(build(a.glossary, a.glossary_annotations, a.corpus_annotations, a.out), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
