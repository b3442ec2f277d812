"""`dishgraph pivots`: mine, show, compare and annotate the pivot actions of dish pairs (CRG §4.2)."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, open_graph, print_note, print_warning, progress, rows_table
from dishgraph.commands._options import AllActionsOpt, BaseArg, DbOpt, JsonOpt, TargetArg, UriOpt, pair_of
from dishgraph.errors import UsageError
from dishgraph.ingest.crg import SOURCE as RELEASE
from dishgraph.ingest.foods import name_key
from dishgraph.knowledge.compose import DEFAULT_INSERTS, INSERT_METHODS
from dishgraph.knowledge.pivots import edge_count, micro_totals, parse_pair

app = typer.Typer(
    help="Pivot actions of dish pairs: mine from frequencies, show, compare, annotate.",
    no_args_is_help=True,
    cls=DishgraphGroup,
)

AlphaOpt = typer.Option(
    None,
    "--alpha",
    help="Frequency ratio alpha (pivot if one frequency exceeds alpha x the other; default 5, composed 3).",
)
TauROpt = typer.Option(
    None, "--tau-r", help="Remove only if the target frequency is below tau_R (default 0.01, composed 0.1)."
)
TauIOpt = typer.Option(
    None, "--tau-i", help="Insert only if the target frequency is above tau_I (default 0.1, composed 0.2)."
)


def _pairs(base: str | None, target: str | None, all_pairs: bool) -> list[tuple[str, str]] | None:
    """The pairs a command names: None for --all, else BASE TARGET or 'BASE->TARGET'."""
    if all_pairs:
        if base is not None:
            raise UsageError("give BASE TARGET (or 'BASE->TARGET') or --all, not both")
        return None
    if base is None:
        raise UsageError("give BASE TARGET (or 'BASE->TARGET'), or --all")
    return [pair_of(base, target)]


InsertsOpt = typer.Option(
    None,
    "--inserts",
    help="With --knowledge composed, how insertions are chosen: 'rule' (the paper's rule on the composed "
    "shares), 'ranker' (a ranker fitted on the corpus's own pseudo-pairs; ~40 s on the demo graph) or "
    f"'rule+ranker' (both). Default: {DEFAULT_INSERTS}. `dishgraph ls insert-rankers` lists the ranker's models.",
)

KnowledgeOpt = typer.Option(
    "corpus",
    "--knowledge",
    help="'corpus': the target's own recipes (USES); 'composed': the target composed from "
    "the dishes sharing its name's components, the base dish with the ingredient "
    "swapped and the new ingredient's class (fair: reads no released pivot).",
)


@app.command()
def mine(
    base: str | None = BaseArg,
    target: str | None = TargetArg,
    all_pairs: bool = typer.Option(False, "--all", help="Mine every DishPair in the graph."),
    new_pair: bool = typer.Option(
        False,
        "--new-pair",
        help="Create the pair if the graph has none (both dishes need parsed recipes, e.g. two base dishes).",
    ),
    knowledge: str = KnowledgeOpt,
    alpha: float | None = AlphaOpt,
    tau_r: float | None = TauROpt,
    tau_i: float | None = TauIOpt,
    inserts: str | None = InsertsOpt,
    all_actions: bool = AllActionsOpt,
    typed_keys: bool = typer.Option(
        False,
        "--typed-keys",
        help="Mine the typed reading's keys instead of the CRG keys (a cook's cut onion, not a cut shape), "
        "stored as source 'typed'; corpus knowledge only.",
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Mine pivots (remove / insert / manual) of one pair or of all pairs and store them as PIVOT edges."""
    if knowledge not in ("corpus", "composed"):
        raise UsageError(f"--knowledge must be corpus or composed, got {knowledge}")
    if typed_keys and knowledge != "corpus":
        raise UsageError("--typed-keys mines the corpus's typed frequencies: give it without --knowledge composed")
    if inserts is not None and knowledge != "composed":
        raise UsageError("--inserts chooses how composed knowledge inserts: give it with --knowledge composed")
    if inserts is not None and inserts not in INSERT_METHODS:
        raise UsageError(f"--inserts must be one of {', '.join(INSERT_METHODS)}, got {inserts}")
    pairs = _pairs(base, target, all_pairs)
    with (
        open_graph(db, uri) as g,
        exit_on(KeyError, code=1),
        progress(disable=as_json or pairs is not None, transient=False) as bar,
    ):
        task = bar.add_task(
            "composing targets" if knowledge == "composed" else "mining pairs",
            total=len(g.pair_keys()) if pairs is None else None,
        )
        thr = {"alpha": alpha, "tau_r": tau_r, "tau_i": tau_i, "all_actions": all_actions}
        if knowledge == "composed":
            rep = g.compose_pivots(pairs, inserts=inserts, progress=lambda: bar.advance(task), **thr)
        else:
            rep = g.mine_pairs(pairs, create=new_pair, progress=lambda: bar.advance(task), typed_keys=typed_keys, **thr)
    if as_json:
        return emit_json(rep.to_dict() if knowledge == "composed" else [r.to_dict() for r in rep])
    if knowledge == "composed":
        return _print_composed(rep)
    console.print(
        rows_table(
            [
                {"pair": r.pair, "base recipes": r.base_recipes, "target recipes": r.target_recipes, **r.counts()}
                for r in rep
            ],
            "mined pivots",
        )
    )
    if any(r.target_recipes == 0 for r in rep):
        print_note(
            "targets without parsed recipes have f_t = 0 for every action: "
            "`--knowledge composed` estimates them from the dishes they are made of."
        )


def _print_composed(rep) -> None:
    rows = [
        {
            "target": t["target"],
            "sources": len(t["sources"]),
            "own recipes": sum(s["recipes"] for s in t["sources"] if s["kind"] == "own"),
            "actions": t["actions"],
        }
        for t in rep.targets
    ]
    console.print(rows_table(rows, "composed targets"))
    console.print(
        f"{rep.pivots.get('remove', 0)} remove and {rep.pivots.get('insert', 0)} insert pivots "
        f"(source composed), {rep.constraints} transferred order constraints, {rep.seconds:.1f} s"
    )
    if rep.ranker:
        console.print(
            f"insertions chosen with the {rep.ranker['model']} ranker, fitted on {rep.ranker['pseudo_pairs']} "
            "pseudo-pairs of corpus dishes"
        )


@app.command("validate-composed")
def validate_composed(
    min_recipes: int = typer.Option(10, help="Hide dishes with at least this many parsed recipes."),
    min_components: int = typer.Option(2, help="... whose name has at least this many DiNeR components."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Leave-one-dish-out check of composition without any released answer: hide a corpus dish, compose it
    from the other dishes, compare with its real frequencies (weighted Jaccard, top-20 overlap)."""
    with open_graph(db, uri) as g, progress(disable=as_json, transient=False) as bar:
        task = bar.add_task("leave one dish out", total=None)
        rep = g.validate_composition(min_recipes, min_components, progress=lambda: bar.advance(task))
    if as_json:
        return emit_json(rep.to_dict())
    rows = [
        {
            "dish": d.dish,
            "recipes": d.recipes,
            "sources": d.sources,
            "w-Jaccard": round(d.weighted_jaccard, 3),
            "top-20": round(d.top20, 3),
        }
        for d in rep.dishes
    ]
    console.print(rows_table(rows, "composed vs real (leave one dish out)"))
    m = rep.means()
    console.print(
        f"{m['dishes']} dishes: mean weighted Jaccard {m['weighted_jaccard'] or 0:.3f}, "
        f"mean top-20 overlap {m['top20'] or 0:.3f} ({rep.corpus_recipes} parsed recipes in the graph)"
    )


@app.command()
def show(
    base: str | None = BaseArg,
    target: str | None = TargetArg,
    limit: int = typer.Option(
        50, "--limit", min=0, help="Rows shown in the table, most telling first (0: all; --json: all)."
    ),
    all_actions: bool = AllActionsOpt,
    typed: bool = typer.Option(
        False,
        "--typed",
        help="The pair's composed pivots in the typed reading instead: foods by their own names (冰糖金桔 peels "
        "no 梨: its pools are the dishes handling 金桔 itself), computed now, nothing stored.",
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """A pair's pivots side by side: mined, annotated and released kind with base/target frequencies (released
    and annotated actions first, then mined remove / insert, then by the larger frequency). Keys are the CRG
    release's (classes); the pair's changed foods are named beside their class (切|秋葵 (class 洋葱)|)."""
    b, t = pair_of(base, target)
    if typed and all_actions:
        raise UsageError("--typed shows the typed reading's cooking steps; --all-actions speaks of CRG keys")
    with open_graph(db, uri, read_only=True) as g:
        if typed:
            return _print_typed(g.typed_pivots(b, t), b, t, as_json)
        rows, labels = g.pivots_side_by_side(b, t, all_actions), g.named_by_food(b, t)
    if as_json:
        return emit_json([{**r, "named": name_key(r["action"], labels)} for r in rows])
    shown = rows[:limit] if limit else rows
    more = [f"{len(rows) - len(shown)} more; --limit 0 for all"] if len(shown) < len(rows) else []
    edges = edge_count(rows)
    if edges != len(rows):
        more.append(f"{edges} pivot edges: one row per action here, one edge per source marking it in explore")
    if labels:
        more.append("keys name release classes; the changed foods are named beside theirs; --typed: own names")
    shown = [{**r, "action": name_key(r["action"], labels)} for r in shown]
    cols = ["action", "mined", "typed", "composed", "annotated", "release", "fb", "ft", "votes"]
    console.print(rows_table(shown, f"pivots {b} -> {t} ({len(rows)} actions)", cols, notes=more))


def _print_typed(rows: list[dict], b: str, t: str, as_json: bool) -> None:
    if as_json:
        return emit_json(rows)
    title = f"composed pivots {b} -> {t}, typed reading ({len(rows)} actions)"
    console.print(rows_table(rows, title, ["action", "kind", "fb", "ft"]))


@app.command()
def compare(
    base: str | None = BaseArg,
    target: str | None = TargetArg,
    all_pairs: bool = typer.Option(False, "--all", help="Compare every pair: the micro summary over all pairs."),
    per_pair: bool = typer.Option(False, "--per-pair", help="With --all: also a table per pair, after the summary."),
    reference: str = typer.Option(RELEASE, help="Source of the reference PIVOT edges."),
    source: str = typer.Option(
        "mined", "--source", help="Pivots to score: 'mined' (with annotation decisions) or 'composed'."
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Precision / recall / F1 (percent; --json gives 0-1) of mined (+annotated) or composed pivots against the
    released reference, per kind; with --all summed over every pair (micro), each pair's rows only with
    --per-pair."""
    pairs = _pairs(base, target, all_pairs)
    with open_graph(db, uri, read_only=True) as g:
        keys = [parse_pair(k) for k in g.pair_keys()] if pairs is None else pairs
        out = [g.compare_pivots(b, t, reference=reference, source=source) for b, t in keys]
    total = micro_totals(out, source)
    if as_json:
        return emit_json({"total": total, "pairs": out} if all_pairs else out)
    _print_comparison(out, total if all_pairs else None, per_pair or not all_pairs, f"{source} vs {reference}", source)


_SHARES = ("precision", "recall", "f1")


def _as_percent(row: dict) -> dict:
    """Precision / recall / F1 as percent with one decimal in tables, as the docs quote them (JSON keeps 0-1)."""
    return {
        (f"{k} %" if k in _SHARES else k): (round(100 * v, 1) if k in _SHARES and v is not None else v)
        for k, v in row.items()
    }


def _print_comparison(out: list[dict], total: dict | None, per_pair: bool, title: str, source: str) -> None:
    """The micro summary first (--all), then the per-pair rows (one pair, or --per-pair)."""
    why = f"— precision: no {source} pivot of that kind; recall: no reference pivot of that kind; F1: either"
    tables = []
    if total is not None:
        tables.append(([{"kind": k, **v} for k, v in total.items()], f"{title}: all {len(out)} pairs (micro)"))
    if per_pair:
        tables.append(([{"pair": o["pair"], "kind": k, **v} for o in out for k, v in o["kinds"].items()], title))
    for rows, name in tables:
        rows = [_as_percent(r) for r in rows]
        console.print(rows_table(rows, name, notes=[why] if any(None in r.values() for r in rows) else []))
    if total is not None and not per_pair:
        print_note("--per-pair adds a table of each pair's scores")


@app.command("export-annotation")
def export_annotation(
    base: str | None = BaseArg,
    target: str | None = TargetArg,
    out: Path = typer.Option(..., "--out", "-o", help="CSV file to write."),
    include_mined: bool = typer.Option(False, "--include-mined", help="Also ask about mined remove/insert actions."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
):
    """Write one question per manual-check action of a mined pair with three example phrases from real recipes."""
    b, t = pair_of(base, target)
    with open_graph(db, uri, read_only=True) as g:
        n = g.export_annotation(f"{b}->{t}", out, include_mined=include_mined)
    console.print(f"wrote {n} questions to {out}")


@app.command("import-annotation")
def import_annotation(
    files: list[Path] = typer.Argument(..., help="Answered CSV files (one per annotator, or several answer* columns)."),
    min_annotators: int = typer.Option(3, help="Questions with fewer answers are skipped."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Majority-vote the answers and add the decided actions to P_R / P_I (votes stored on the edge)."""
    with open_graph(db, uri) as g, exit_on(ValueError, code=1):
        rep = g.import_annotation(files, min_annotators=min_annotators)
    if as_json:
        return emit_json(rep.to_dict())
    console.print(
        rows_table(
            [
                {"pair": d.pair, "action": d.action, "side": d.side, "decision": d.kind, "answers": d.n, **d.votes}
                for d in rep.decisions
            ],
            "annotation decisions",
        )
    )
    if rep.skipped:
        print_warning(f"skipped {len(rep.skipped)} question(s) with fewer than {min_annotators} answers")
