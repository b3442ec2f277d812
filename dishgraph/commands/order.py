"""`dishgraph order`: estimate causal order constraints per dish, look them up, check a recipe (CRG §4.3)."""

from __future__ import annotations

import os

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, open_graph, print_note, progress, rows_table
from dishgraph.commands._options import AllActionsOpt, DbOpt, JsonOpt, UriOpt
from dishgraph.errors import EXIT_VIOLATIONS
from dishgraph.ingest.crg import SOURCE as RELEASE
from dishgraph.knowledge.pivots import COMPOSED

SOURCES = f"estimated, tested, {COMPOSED}, {RELEASE}"  # knowledge.order.SOURCES, without importing numpy at startup

app = typer.Typer(
    help="Action order constraints: estimate (propensity score matching), show, check.",
    no_args_is_help=True,
    cls=DishgraphGroup,
)


@app.command()
def estimate(
    dish: str | None = typer.Argument(None, help="Dish to estimate (or --all)."),
    all_dishes: bool = typer.Option(False, "--all", help="Every dish with parsed recipes."),
    estimator: str = typer.Option("fast", help="fast (exact re-implementation) or dowhy."),
    window: str = typer.Option(
        "paper", help="Confounder window: paper (up to the effect, as CRG) or pretreatment (before the cause)."
    ),
    tau_c: float = typer.Option(0.1, "--tau-c", help="Keep constraints with ATE above tau_c."),
    min_freq: float = typer.Option(0.1, help="Focus actions: dish frequency at least this."),
    min_support: int = typer.Option(2, help="Candidate pair: cause before effect in this many recipes."),
    workers: int = typer.Option(
        max(1, (os.cpu_count() or 1)), "--workers", "-w", min=1, help="Parallel processes (one dish each)."
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Estimate ψ(cause, effect) around each frequent action and store ψ > tau_c as MUST_PRECEDE edges."""
    from dishgraph.errors import UsageError
    from dishgraph.knowledge.order import OrderSettings

    settings = OrderSettings(estimator, window, tau_c, min_freq, min_support)
    if not all_dishes and not dish:
        raise UsageError("give DISH or --all")
    with (
        open_graph(db, uri) as g,
        exit_on(KeyError, ValueError, code=1),
        progress(disable=as_json, transient=False) as bar,
    ):
        task = bar.add_task("estimating dishes", total=None)
        rep = g.estimate_order(
            None if all_dishes else [dish], settings, workers=workers, on_dish=lambda r: bar.advance(task)
        )
    data = rep.to_dict()
    if as_json:
        return emit_json(data)
    console.print(rows_table([{k: v for k, v in d.items()} for d in data["dishes"]], "order estimation"))
    console.print(rows_table([data["totals"]], f"totals ({rep.seconds:.1f} s, {estimator}, window={window})"))


@app.command()
def test(
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Test which action comes before which in every dish, family of dishes and the corpus, and store the kept
    constraints (sign test, Benjamini–Hochberg, interval excluding zero, no cycle) as MUST_PRECEDE {source:
    tested}. `order check` then reads them, backing off dish → family → global."""
    with open_graph(db, uri) as g, progress(disable=as_json, transient=True) as bar:
        bar.add_task("testing order pairs", total=None)
        rep = g.estimate_tested_order()
    if as_json:
        return emit_json(rep.to_dict())
    rows = [{"level": lv, "tested": rep.tested[lv], "kept": rep.kept[lv], "cycle": rep.cycles[lv]} for lv in rep.kept]
    console.print(rows_table(rows, f"tested order constraints: {rep.dishes} dishes, {rep.recipes} recipes"))


@app.command()
def show(
    dish: str = typer.Argument(..., help="Dish name."),
    action: str = typer.Argument(..., help="Proto-action key of glossary classes (切|油菜|) or 切(油菜; 刀)."),
    source: str | None = typer.Option(None, help=f"Only this source: {SOURCES}."),
    all_actions: bool = AllActionsOpt,
    min_confidence: float | None = typer.Option(
        None, "--min-confidence", min=0.0, max=1.0, help="Only constraints at least this sure (tested: confidence)."
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """What must precede and what must follow an action in a dish. An unknown dish or action is an error
    naming the closest ones (an action written with surface forms, 切|菜心|, is told its class form); no
    constraint at all says why (none estimated yet, none from that source, none on this action) and what to run."""
    with open_graph(db, uri, read_only=True) as g:
        before, after = g.order_constraints(dish, action, source, all_actions, min_confidence)
        why = "" if before or after else g.why_no_order(dish, action, source, all_actions)
    if as_json:
        return emit_json({"must_precede": [c.to_dict() for c in before], "must_follow": [c.to_dict() for c in after]})
    if why:
        return console.print(
            f"no order constraint of {action} in {dish}" + (f" from {source}" if source else ""), why, sep="\n"
        )
    cols = ["cause", "effect", "ate", "source", "level", "confidence", "n_before", "n_after", "n_treated"]
    console.print(rows_table([c.to_dict() for c in before], "must precede", cols))
    console.print(rows_table([c.to_dict() for c in after], "must follow", cols))


@app.command()
def check(
    dish: str = typer.Argument(..., help="Dish whose constraints apply."),
    text: str = typer.Argument(..., help="Recipe text (parsed) to check; - reads it from standard input."),
    source: str | None = typer.Option(None, help=f"Only constraints of this source: {SOURCES}."),
    all_actions: bool = AllActionsOpt,
    min_confidence: float | None = typer.Option(
        None,
        "--min-confidence",
        min=0.0,
        max=1.0,
        help="Exit 4 from this confidence (whole-recipe score 0.995 with the text's sentence order, 0.9775 "
        "without; --source tested 0.9).",
    ),
    explain: bool = typer.Option(
        False,
        "--explain",
        help="Show the recipe lines of each violation, where each sentence reads as belonging and the lines of the "
        "likeliest swap.",
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Report violated order constraints in a recipe, with the offending action positions.

    With tested constraints (`order test`) the whole recipe is scored by how likely its order is under the
    corpus's pairwise order counts (dish → family → global → class keys → verbs; repeated actions aligned):
    exit 4 when it is out of order at --min-confidence (1 - the share of real recipes, held out, that read as
    low), when its sentences, read from their words, are further out of order than 2% of real recipes read, or
    when swapping back one pair of dependent steps (two actions on a food) would make it likelier than 2% of real
    recipes would become; 0 otherwise, 1 when the check could not run (an unknown dish, or no action read from
    the text).
    Each violation (a pair surely in the less likely order) comes with its level and counts. --source tested
    reads the kept tested constraints only; with another --source, every violated constraint of that source
    counts (exit 4 on any)."""
    import sys

    recipe = sys.stdin.read() if text == "-" else text
    with open_graph(db, uri, read_only=True) as g:
        rep = g.check_order_report(dish, recipe, source, all_actions, min_confidence)
    if as_json:
        emit_json(rep.to_dict())
    else:
        render_check(rep, explain)
    if rep.flagged:
        raise typer.Exit(EXIT_VIOLATIONS)  # like diff: found what it looks for, not a failure


def render_check(rep, explain: bool) -> None:
    """`order check`'s tables: the verdict, each violation with its evidence, and (--explain) its lines."""
    found = rep.violations
    if not found:
        if rep.score is None:
            console.print(
                f"no order constraint violated ({rep.actions} actions read, {rep.constraints} constraints checked)"
            )
        else:
            head = "out of order by its sentences or a swap, no pair" if rep.flagged else "no order constraint"
            console.print(
                f"{head} violated ({rep.actions} actions read, {rep.applicable} ordered pairs read; "
                f"confidence out of order {rep.confidence:.3f}, flag from {rep.min_confidence:.3f})"
            )
        if rep.note:
            print_note(rep.note)
        render_sentence_order(rep.sentence_order, explain)
        render_swap(rep, explain)
        return
    if rep.confidence is None:
        cols = ["cause", "cause_pos", "cause_phrase", "effect", "effect_pos", "effect_phrase", "ate", "sources"]
        title = f"{len(found)} violated constraint(s)"
    else:
        cols = ["cause_phrase", "effect_phrase", "level", "confidence", "n_before", "n_after", "cause", "effect"]
        verdict = "out of order" if rep.flagged else "not flagged"
        if rep.flagged and rep.confidence < rep.min_confidence:
            verdict = "out of order by its sentences or a swap"  # the pairs alone would not flag it
        title = (
            f"{verdict}: confidence {rep.confidence:.2f} (flag from {rep.min_confidence:.2f}); "
            f"{len(found)} of {rep.applicable} applicable constraints violated"
            if rep.score is None
            else f"{verdict}: confidence {rep.confidence:.3f} (flag from {rep.min_confidence:.3f}), score "
            f"{rep.score:.2f}; {len(found)} of {rep.applicable} ordered pairs in the less likely order"
        )
    console.print(rows_table([v.to_dict() for v in found], title, cols, keys=["cause", "effect"]))
    if explain and rep.lines:
        for v in found[:10] if rep.score is not None else found:  # scored: the ten surest
            ci, ei = rep.action_lines[v.cause_pos], rep.action_lines[v.effect_pos]
            console.print(f"{v.cause} must come before {v.effect}:", highlight=False)
            console.print(f"  line {ei + 1}: {rep.lines[ei]}", highlight=False)
            console.print(f"  line {ci + 1}: {rep.lines[ci]}", highlight=False)
    render_sentence_order(rep.sentence_order, explain)
    render_swap(rep, explain)


def render_sentence_order(so: dict | None, explain: bool) -> None:
    """The sentence-order reading's verdict (a text checked by the whole-recipe score) and, with --explain,
    where each sentence reads as belonging (0 first, 1 last)."""
    if not so:
        return
    if so["score"] is None:
        return console.print("sentence order: one sentence, nothing to read", highlight=False)
    verdict = "out of order" if so["flagged"] else "in a usual order"
    console.print(
        f"sentence order: {verdict} (text score {so['score']:.2f}, flag above {so['cut']:.2f})", highlight=False
    )
    if explain:
        for i, s in enumerate(so["sentences"]):
            console.print(
                f"  sentence {i + 1} reads at {round(s['reads_at'], 2) + 0.0:.2f}: {s['text']}",
                highlight=False,
                soft_wrap=True,
            )


def render_swap(rep, explain: bool) -> None:
    """The swap reading's verdict: the pair of dependent steps whose swap would make the recipe likeliest, and
    how much likelier (the log-likelihood gain against its flag line); with --explain, their lines."""
    sw = rep.swap
    if not sw:
        return
    if sw["gain"] is None:
        return console.print(
            "one swap: no two dependent steps (sharing a food) in different sentences", highlight=False
        )
    verdict = "two steps read swapped" if sw["flagged"] else "no swap stands out"
    a, b = sw.get("phrases") or ["", ""]
    console.print(
        f"one swap: {verdict} (gain {sw['gain']:.2f}, flag above {sw['cut']:.2f}); likeliest swap: {a!r} ↔ {b!r}",
        highlight=False,
        soft_wrap=True,
    )
    if explain and rep.lines and rep.action_lines:
        for pos in (sw["first"], sw["second"]):
            line = rep.action_lines[pos]
            console.print(f"  line {line + 1}: {rep.lines[line]}", highlight=False, soft_wrap=True)
