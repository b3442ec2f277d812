"""The PCS tracker's four rounds of development, each as it was chosen on val (docs/pcs.md), so that a
test and `benchmarks/pcs_val_rounds.py` measure the same thing: each round's choice must beat the one
before it, chained on val.

- ``first``: rules inputs, the namer without strip, hedge and neighbours, foods one word each;
- ``second``: the learned selector and those three namer parts;
- ``third``: the second's, with named foods read as phrases up to punctuation;
- ``default``: the third's, its bare names without a stripped participle's particle and cut before in/into.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

from dishgraph.pcs.predict import learn, predict
from dishgraph.pcs.tables import PCSTable

_BEFORE_CUT = {"particles": False, "where_cut": ()}  # the namer's names before the fourth round


def _first(train: Sequence[PCSTable], val: Sequence[PCSTable]) -> list:
    first = learn(train, selector=False, merge=False, neighbours=0)
    first.namer.strip, first.namer.hedge_share, first.namer.evidence = False, 0.0, 0
    return predict(val, "tracker", "chained", train, first, inputs="rules")


def _second(train: Sequence[PCSTable], val: Sequence[PCSTable]) -> list:
    learned = learn(train, merge=False, **_BEFORE_CUT)
    return predict(val, "tracker", "chained", train, learned, merge=False)


def _third(train: Sequence[PCSTable], val: Sequence[PCSTable]) -> list:
    return predict(val, "tracker", "chained", train, learn(train, **_BEFORE_CUT))


def _default(train: Sequence[PCSTable], val: Sequence[PCSTable]) -> list:
    return predict(val, "tracker", "chained", train)


ROUNDS: dict[str, Callable[[Sequence[PCSTable], Sequence[PCSTable]], list]] = {
    "first": _first,
    "second": _second,
    "third": _third,
    "default": _default,
}


def fingerprint(rows: list) -> str:
    """SHA-256 of prediction rows (what `predict` returns), to show two runs predicted the same."""
    text = json.dumps(rows, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
