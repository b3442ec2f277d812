"""Generate realistic Chinese dish names from the DiNeR glossary (seeded), for TMCD benchmarks and tests.

Names follow the common shapes of real dish names, e.g. flavour+action+food (辣炒年糕), food+action+food
(白菜炖豆腐), action+food (炒牛肉), flavour+food (麻辣豆腐), food+food (冰糖雪梨). Surface forms are drawn
with Zipf-like weights (a few foods such as 肉 or 豆腐 are common, most are rare, as in DiNeR's 3,811 names).
A candidate is kept only if DiNeR's maximal matching reads it back as exactly the clusters it was built
from, no cluster repeats, and the name is new, so every generated name parses and means what it says.

    python benchmarks/gen_dish_names.py --n 4000 --seed 0 --out names.txt
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dishgraph.diner.names import DinerGlossary, parse_name  # noqa: E402

# (shape, weight): shares loosely follow the CRG / DiNeR dish names.
SHAPES: tuple[tuple[tuple[str, ...], float], ...] = (
    (("action", "food"), 0.24),
    (("food", "action", "food"), 0.20),
    (("flavour", "food"), 0.14),
    (("flavour", "action", "food"), 0.12),
    (("food", "food"), 0.10),
    (("action", "food", "food"), 0.08),
    (("flavour", "food", "food"), 0.05),
    (("food", "food", "action", "food"), 0.04),
    (("flavour", "food", "action", "food"), 0.03),
)
ZIPF = {"food": 1.0, "action": 0.8, "flavour": 0.8}


def generate_dish_names(
    glossary: DinerGlossary, n: int = 4000, seed: int = 0, max_tries: int | None = None
) -> list[str]:
    """``n`` distinct, fully parsable names; deterministic for a glossary and seed."""
    rng = random.Random(seed)
    pools = {}
    for t, table in glossary.tables.items():
        forms = sorted(table)
        rng.shuffle(forms)  # which forms are common is itself seeded
        pools[t] = (forms, [1.0 / (r + 1) ** ZIPF[t] for r in range(len(forms))])
    shapes, weights = zip(*SHAPES)
    names: dict[str, None] = {}
    tries = 0
    limit = max_tries or 200 * n
    while len(names) < n:
        tries += 1
        if tries > limit:
            raise RuntimeError(f"only {len(names)} distinct names after {limit} tries; ask for fewer")
        shape = rng.choices(shapes, weights)[0]
        parts = [rng.choices(*pools[t])[0] for t in shape]
        clusters = [(t, glossary.tables[t][s]) for t, s in zip(shape, parts)]
        if len(set(clusters)) < len(clusters):
            continue
        name = "".join(parts)
        if name in names:
            continue
        p = parse_name(name, glossary)
        if p.ok and [(c.type, c.cluster) for c in p.components] == clusters:
            names[name] = None
    return list(names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4000, help="how many distinct names")
    ap.add_argument("--seed", type=int, default=0, help="random seed")
    ap.add_argument("--glossary", default=None, help="DiNeR glossary JSON (default: shared data copy)")
    ap.add_argument("--out", default=None, help="write one name per line here (default: stdout)")
    args = ap.parse_args(argv)
    names = generate_dish_names(DinerGlossary.load(args.glossary), args.n, args.seed)
    text = "\n".join(names) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
