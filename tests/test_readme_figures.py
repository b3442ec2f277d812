"""The figures of the README's glance table and of docs/results.md come from the results files under
benchmarks/results/, so they cannot drift apart again (the fair editor's scored count was 2,484 in one
paragraph and 2,492 in another): each figure they state is read back here and compared with its file.

- demo.json: `make demo` (`benchmarks/demo_figures.py` over the demo's report): its time, the XiaChuFang
  sample as read and as loaded, the identity / replace / fair composed editor rows;
- compose.json: the composed editor's rows (all / even / odd pairs) from `benchmarks/bench_compose.py`;
- insert_method.json: the insertion method chosen nested inside the even pairs
  (`benchmarks/choose_insert_method.py`);
- generators_fair.json: the association (earlier fair) editor and the oracle editor;
- generators_gpu.json: the LM rows trained and generated on a GPU (`benchmarks/gpu_table3.sh score`);
- parity.json: even vs odd pairs of generators tuned on no pair (`benchmarks/bench_parity.py`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dishgraph.eval.crg import COLUMNS
from dishgraph.report import PAPER_TABLE3

ROOT = Path(__file__).resolve().parent.parent
FRONT = (ROOT / "README.md").read_text(encoding="utf-8")
README = FRONT + "\n" + (ROOT / "docs" / "results.md").read_text(encoding="utf-8")  # the figures' two homes
TEXT = " ".join(README.split())  # sentences wrap anywhere in the source
RESULTS = ROOT / "benchmarks" / "results"


def _load(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _row(model: str, rows: list[dict]) -> dict:
    return next(r for r in rows if r["model"] == model)


def _stated(pattern: str) -> tuple[float, ...]:
    m = re.search(pattern, TEXT)
    assert m, f"README no longer says {pattern!r}"
    return tuple(_num(g) for g in m.groups())


DEMO = _load("demo.json")
COMPOSED = _load("compose.json")["release_and_sample"]["table3"]
_RANKER = _load("compose.json")["release_and_sample"]["corpus_only"]["ranker"]
RANKER = _RANKER[str(_RANKER["chosen_on_even"])]  # the insertion ranker at its threshold chosen on even pairs
_BOTH = _load("compose.json")["release_and_sample"]["corpus_only"]["rule+ranker"]
BOTH = _BOTH[str(_BOTH["chosen_on_even"])]  # the rule's insertions and the ranker's, threshold chosen on even
FAIR = _load("generators_fair.json")["rows"]
GPU = {r["model"].split(",")[0]: r for r in _load("generators_gpu.json")["scores"]}
GPU_2 = {r["model"].split(",")[0]: r for r in _load("generators_gpu_2.json")["scores"]}  # the second lease
GPU_3 = {r["model"].split(",")[0]: r for r in _load("generators_gpu_3.json")["scores"]}  # the third lease
TABLE_COLUMNS = [
    "n",
    "coi_added",
    "coi_replaced",
    "bleu4",
    "hard_p",
    "hard_r",
    "hard_f1",
    "soft_f1",
    "insert_hard_f1",
    "remove_hard_f1",
    "order_accuracy",
]


def _table_row(label: str) -> dict:
    """A row of the README's results table by the start of its first cell: column -> value (None for —)."""
    for line in README.splitlines():
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith(label):
            return {k: None if c == "—" else _num(c) for k, c in zip(TABLE_COLUMNS, cells[1:])}
    raise AssertionError(f"no README table row starting {label!r}")


@pytest.mark.parametrize(
    "label,row",
    [
        ("identity", _row("identity", DEMO["rows"])),
        ("replace", _row("replace", DEMO["rows"])),
        ("graph editor, `--knowledge composed` (fair), all pairs", COMPOSED["all"]),
        ("… even pairs", COMPOSED["even"]),
        ("… odd pairs", COMPOSED["odd"]),
        ("… insertions by the pseudo-pair ranker, all pairs", RANKER["all"]),
        ("… ranker, even pairs", RANKER["even"]),
        ("… ranker, odd pairs", RANKER["odd"]),
        ("… the rule's insertions and the ranker's, all pairs", BOTH["all"]),
        ("… rule + ranker, even pairs", BOTH["even"]),
        ("… rule + ranker, odd pairs", BOTH["odd"]),
        ("graph editor, `--knowledge association`", _row("association", FAIR)),
        ("graph editor, `--knowledge pivots`", _row("graph", FAIR)),
        ("GPT-2 (D), 89.3M char GPT-2, 2 min on an H200", GPU["GPT-2 (D)"]),
        ("GPT-2 (D+R), same model", GPU["GPT-2 (D+R)"]),
        ("Delorean, same model", GPU["DeLorean"]),
        ("Delorean, second lease", GPU_2["DeLorean"]),
        ("EduCat, second lease", GPU_2["EduCat"]),
        ("EduCat, third lease", GPU_3["EduCat"]),
    ],
)
def test_results_table_rows_match_their_files(label, row):
    stated = _table_row(label)
    for key in TABLE_COLUMNS[1:]:
        want = row.get(key)
        assert stated[key] == (None if want is None else pytest.approx(want, abs=0.005)), (label, key)


def test_demo_row_of_the_composed_editor_matches_the_benchmark():
    """`make demo` composes the default way (culinary proto-actions of the typed reading), as bench_typed.py's
    default row; compose.json keeps the release-keyed composition (every proto-action)."""
    demo = _row("graph editor (composed, fair)", DEMO["rows"])
    default = _load("typed.json")["demo_graph"]["culinary actions (after, default)"]["table3"]["all"]
    for key, _ in COLUMNS:
        assert demo.get(key) == default.get(key), key


def test_scored_counts_are_one_figure_each():
    replace, comp = _row("replace", DEMO["rows"]), COMPOSED["all"]
    assoc, oracle = _row("association", FAIR), _row("graph", FAIR)
    assert _stated(r"replace is scored on ([\d,]+) of 2,500 \(F1 all ([\d.]+)\)") == (
        replace["n_scored"],
        replace["hard_f1_all"],
    )
    assert _stated(r"the fair composed editor on ([\d,]+) \(F1 all ([\d.]+)\)") == (
        comp["n_scored"],
        comp["hard_f1_all"],
    )
    assert _stated(r"the association editor on ([\d,]+) \(([\d.]+)\)") == (assoc["n_scored"], assoc["hard_f1_all"])
    assert _stated(r"the oracle editor on ([\d,]+) \(([\d.]+)\)") == (oracle["n_scored"], oracle["hard_f1_all"])
    assert _stated(r"Scored on ([\d,]+) of 2,500 instances \(F1 with undefined counted as 0: ([\d.]+)") == (
        comp["n_scored"],
        comp["hard_f1_all"],
    )
    for wrong in re.findall(r"on ([\d,]+)(?: of 2,500)? \(F1 all", TEXT):  # no other scored count beside an "F1 all"
        assert _num(wrong) in {replace["n_scored"], comp["n_scored"], assoc["n_scored"], 1502}, wrong


def test_sample_is_stated_as_read_and_as_loaded():
    s = DEMO["sample"]
    assert _stated(r"([\d,]+) records of ([\d,]+) dishes read, ([\d,]+) recipes of ([\d,]+) dishes loaded") == (
        s["read"]["records"],
        s["read"]["dishes"],
        s["loaded"]["recipes"],
        s["loaded"]["dishes"],
    )


def test_demo_time_is_the_recorded_one():
    (minutes,) = _stated(r"`make demo` \([^)]*\) took ([\d.]+) minutes")
    assert minutes == round(DEMO["seconds"] / 60, 1)


def test_paper_rows_are_the_ones_the_report_shows():
    cited = ", ".join(f"{p['model'].removeprefix('paper: ')} {p['hard_f1']}" for p in PAPER_TABLE3)
    assert f"{cited} Hard F1" in TEXT


def test_even_odd_baseline_is_the_measured_one():
    par = _load("parity.json")
    rep, d, dr = par["replace"], par["gpt2-d-h200"], par["gpt2-dr-h200"]
    assert _stated(r"scores ([\d.]+) on the even pairs against ([\d.]+) on the odd ones") == (
        rep["even"]["hard_f1"],
        rep["odd"]["hard_f1"],
    )
    assert _stated(r"drop from ([\d.]+) to ([\d.]+) \(D\) and ([\d.]+) to ([\d.]+) \(D\+R\)") == (
        d["even"]["hard_f1"],
        d["odd"]["hard_f1"],
        dr["even"]["hard_f1"],
        dr["odd"]["hard_f1"],
    )
    gain_even = round(COMPOSED["even"]["hard_f1"] - rep["even"]["hard_f1"], 2)
    gain_odd = round(COMPOSED["odd"]["hard_f1"] - rep["odd"]["hard_f1"], 2)
    assert _stated(r"\(\+([\d.]+)\) than on the even ones it was tuned on \(\+([\d.]+)\)") == (gain_odd, gain_even)


def test_second_lease_run_to_run_figures():
    """The ⁶ footnote's gpt2-d on the same 500 instances, first model against the retrained one."""
    both = _load("generators_gpu_2.json")["run_to_run"]
    first, retrained = _stated(r"gpt2-d scored (\d+\.\d+) with the first model and (\d+\.\d+) with the retrained")
    assert first == pytest.approx(both["first_model"]["hard_f1"], abs=0.005)
    assert retrained == pytest.approx(both["retrained"]["hard_f1"], abs=0.005)


def test_insert_method_choice_is_the_nested_one():
    """The README's nested choice between the insertion methods (`benchmarks/choose_insert_method.py`)."""
    choice = _load("insert_method.json")
    means = {m: choice["nested"][m]["mean_held_out_hard_f1"] for m in ("rule", "ranker", "rule+ranker")}
    assert _stated(r"Mean held-out Hard F1: rule (\d+\.\d+), ranker (\d+\.\d+), rule \+ ranker (\d+\.\d+)") == tuple(
        means.values()
    )
    assert choice["chosen"] == max(means, key=means.get) == "rule"
    final = choice["final"]["rule"]
    assert _stated(r"the rule scores (\d+\.\d+) on all pairs and (\d+\.\d+) odd") == (
        final["all"]["hard_f1"],
        final["odd"]["hard_f1"],
    )
    both = choice["final"]["rule+ranker"]
    assert _stated(r"would pass it \((\d+\.\d+) on all pairs, (\d+\.\d+) odd\)") == (
        both["all"]["hard_f1"],
        both["odd"]["hard_f1"],
    )
    assert _stated(r"on all of them (\d+\.\d+) against (\d+\.\d+)\)") == (final["hard_f1"], both["hard_f1"])


def test_corpus_curve_table_and_trend_are_the_benchmarks():
    """The README's corpus-size curve (`bench_compose.py --corpus-curve`): each row's means, the slope per
    doubling, the spread between draws of half the sample, and the sizes the trend would need."""
    curve = _load("compose.json")["corpus_curve"]
    summary = curve["summary"]
    by_fraction = list(summary["by_fraction"].values())
    sizes = _stated(r"\| sample recipes \| " + r" \| ".join([r"([\d,]+)"] * len(by_fraction)) + r" \|")
    assert sizes == tuple(r["sample_recipes"] for r in by_fraction)
    for label, split in (("Hard F1, all pairs", "all"), ("even pairs \\(tuned on\\)", "even")):
        cells = _stated(rf"\| {label} \| " + r" \| ".join([r"(\d+\.\d+)"] * len(by_fraction)) + r" \|")
        assert cells == tuple(r[split]["mean"] for r in by_fraction)
    odd = _stated(r"\| \*\*odd pairs \(held out\)\*\* \| " + r" \| ".join([r"(\d+\.\d+)"] * len(by_fraction)) + r" \|")
    assert odd == tuple(r["odd"]["mean"] for r in by_fraction)
    assert all(a < b for a, b in zip(odd, odd[1:]))  # "rise at every step"
    slope_odd, slope_all = _stated(r"by (\d+\.\d+) points per doubling of the sample \(.*?all pairs (\d+\.\d+)\)")
    assert (slope_odd, slope_all) == (summary["per_doubling"]["odd"], summary["per_doubling"]["all"])
    half = summary["by_fraction"]["0.5"]["all"]
    assert _stated(r"\(half the sample: (\d+\.\d+) to (\d+\.\d+)\)") == (half["min"], half["max"])
    full = summary["by_fraction"]["1.0"]
    need_all = full["sample_recipes"] * 2 ** ((17.5 - full["all"]["mean"]) / slope_all)
    need_odd = full["sample_recipes"] * 2 ** ((15.0 - full["odd"]["mean"]) / slope_odd)
    stated_all, stated_odd = _stated(r"would need about (\d+)k recipes .*? and about (\d+)k")
    assert stated_all == round(need_all / 1000) and stated_odd == round(need_odd / 1000)


def _glance(system: str) -> list[str]:
    """The cells of the README's glance-table row whose system cell starts with ``system``."""
    for line in FRONT.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 5 and cells[1].startswith(system):
            return cells
    raise AssertionError(f"no glance-table row for {system!r}")


def test_glance_table_reads_the_results_files():
    typed = _load("typed.json")
    demo = typed["demo_graph"]
    default, every = demo["culinary actions (after, default)"]["table3"], demo["all actions (before)"]["table3"]
    assert _glance("fair composed graph editor")[3] == f"{default['all']['hard_f1']:.2f}"
    assert _glance("the same, held-out odd pairs")[3] == f"{default['odd']['hard_f1']:.2f}"
    assert (
        _glance("the same on every proto-action")[3] == f"{every['all']['hard_f1']:.2f} / {every['odd']['hard_f1']:.2f}"
    )
    assert every["all"]["hard_f1"] == COMPOSED["all"]["hard_f1"]  # the release-keyed editor is the measured one
    assert _glance("replace the ingredient")[3] == f"{_row('replace', DEMO['rows'])['hard_f1']:.2f}"
    paper = {p["model"].removeprefix("paper: "): p["hard_f1"] for p in PAPER_TABLE3}
    assert _glance("fair composed graph editor")[4] == f"GPT-2 (D) {paper['GPT-2 (D)']}, DeLorean {paper['Delorean']}"
    dev = typed["devset"]["after (typed reading)"]
    explicit = dev["attachment"]["explicit"]
    assert _glance("typed reading, 240-recipe")[3] == (
        f"{dev['verb_precision']} / {dev['verb_recall']}, {explicit['precision']} / {explicit['recall']}"
    )
    cells = [c.strip() for c in _load("pcs.json")["headline"].strip("|").split("|")]
    assert _glance("comestible tracker")[3] == f"{cells[3]} / {cells[6]}"  # input EMA / output ROUGE-L
    diner = (ROOT / "docs" / "diner.md").read_text(encoding="utf-8")
    nb = re.search(r"\| diner-tmcd-0\.98 \|[^|]*\|[^|]*\| \*\*(\d+\.\d+) /", diner)
    assert nb and _glance("graph recognizer, TMCD split at 0.98")[3] == nb.group(1)
