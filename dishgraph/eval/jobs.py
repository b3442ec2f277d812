"""The evaluations behind `dishgraph eval l1|l2|crg`, one call each: read the outputs and the release, build
the L2 reference and the base-recipe parses (from the graph, opened only as long as needed), score.

Inputs that cannot be used (an output file of the wrong length, a missing release file, no mined pivots,
a BERTScore model named but not loadable) are `UsageError`s raised before any scoring starts; what goes
wrong while scoring propagates as it is. Notes ("graph not used, parsing instead") go to ``note``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from dishgraph.errors import InputError, UsageError, nearest_path
from dishgraph.graph.lock import DatabaseInUse
from dishgraph.ingest.crg import SOURCE as RELEASE

Note = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


@contextmanager
def unusable_input() -> Iterator[None]:
    """A value that cannot be used before scoring is a usage error (exit 2), its message unchanged; a missing
    file is an `InputError` (exit 1, as in every command), naming the path."""
    try:
        yield
    except FileNotFoundError as e:
        raise InputError(
            f"{e.filename}: no such file{nearest_path(str(e.filename))}" if e.filename else str(e)
        ) from None
    except ValueError as e:
        raise UsageError(str(e)) from None


def bertscore_config(model: str | None, layers: int | None, device: str | None, skip: bool, warn: Note = _quiet):
    """A loadable BERTScore config for the model the user named (``--bertscore-model`` or
    ``$DISHGRAPH_BERTSCORE_MODEL``), or None. Nothing named: skipped, said in one line before any scoring, and
    no hub request is made (the network is used only for a hub name given on purpose)."""
    from dishgraph.eval.text_metrics import (
        BERTSCORE_MODEL_ENV,
        BertScoreConfig,
        bertscore_model_from_env,
        load_bertscore,
    )

    if skip:
        return None
    model = model or bertscore_model_from_env()
    if not model:
        warn(f"BERTScore skipped: no model named (--bertscore-model DIR, or ${BERTSCORE_MODEL_ENV}).")
        return None
    cfg = BertScoreConfig(model=model, num_layers=layers, device=device)
    try:
        load_bertscore(cfg)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot load BERTScore model {model!r}: {e}") from None
    return cfg


def open_graph(db: str | None, uri: str | None, needed: bool, note: Note = _quiet):
    """The ingested graph (read-only), or None when there is none or it cannot be opened and is not needed."""
    from dishgraph import config
    from dishgraph.graph.factory import open_store

    if not uri and not config.server_uri() and not config.db_path(db).exists():
        if needed:
            raise UsageError(f"no graph database at {config.db_path(db)} (run `dishgraph ingest counterfactual`)")
        return None
    try:
        return open_store(uri=uri, db=db, read_only=True, wait=None if needed else 0)
    except Exception as e:  # in use by a writer, unreachable server: parse instead unless the graph is needed
        if needed and isinstance(e, DatabaseInUse):
            raise  # its own exit code (5), after waiting
        if needed:
            raise UsageError(str(e)) from None
        note(f"graph not used ({e}); parsing base recipes instead.")
        return None


def base_cache(store, glossary, note: Note = _quiet) -> dict | None:
    """Base-recipe parses from the graph (None, with a note, if the graph has none)."""
    from dishgraph.eval.graph_cache import base_parses

    if store is None:
        return None
    cache = base_parses(store, glossary.ingredient, note=note)
    if not cache:
        note("no parsed base recipes in the graph; parsing them instead.")
        return None
    return cache


def reference(data: str | None, pivots: str, constraints: str | None, store=None):
    """The L2 reference: pivots from the release (`RELEASE`), the graph ('mined') or a JSON file, and order
    constraints from ``constraints`` or the release."""
    from dishgraph.eval.l2 import L2Reference, _read_json
    from dishgraph.eval.outputs import crg_dir

    d = crg_dir(data)
    if pivots == "mined":
        from dishgraph.eval.graph_cache import graph_pivots

        piv = graph_pivots(store)
        if not any(piv.values()):
            raise UsageError("no mined pivots in the graph (run `dishgraph pivots mine --all` first)")
        cons_path = Path(constraints) if constraints else d / "order_constraints.json"
        return L2Reference.from_data(piv, _read_json(cons_path) if cons_path.exists() else {})
    if pivots == RELEASE and not constraints:
        return L2Reference.from_release(d)
    piv_path = d / "pivot_actions.json" if pivots == RELEASE else Path(pivots)
    cons_path = Path(constraints) if constraints else d / "order_constraints.json"
    return L2Reference.from_data(_read_json(piv_path), _read_json(cons_path) if cons_path.exists() else {})


def graph_knowledge(data, pivots: str, constraints, glossary, db, uri, no_graph: bool, note: Note = _quiet):
    """(L2 reference, base-recipe parses) with the graph opened only as long as needed."""
    store = None if no_graph and pivots != "mined" else open_graph(db, uri, needed=pivots == "mined", note=note)
    try:
        with unusable_input():
            ref = reference(data, pivots, constraints, store)
            return ref, (None if no_graph else base_cache(store, glossary, note))
    finally:
        if store is not None:
            store.close()


def read_run(out: Path, data: str | None, limit: int | None):
    """(instances, outputs, glossary) of one output file, both cut to ``limit``."""
    from dishgraph.eval.outputs import crg_dir, load_instances, read_outputs
    from dishgraph.ingest.glossary import Glossary

    with unusable_input():
        instances = load_instances(data)
        outputs = read_outputs(out, instances)[:limit]
        return instances[:limit], outputs, Glossary.load(crg_dir(data) / "glossary.json")


def score_l1(
    out: Path,
    data: str | None = None,
    segmenter: str = "auto",
    limit: int | None = None,
    bertscore: dict | None = None,
    warn: Note = _quiet,
) -> dict:
    """CRG L1 of one output file; ``bertscore``: the arguments of `bertscore_config` (None: skip BERTScore)."""
    from dishgraph.eval.l1 import evaluate_l1
    from dishgraph.eval.text_metrics import default_segmenter, memoize

    instances, outputs, _ = read_run(out, data, limit)
    cfg = bertscore_config(**bertscore, warn=warn) if bertscore is not None else None
    return evaluate_l1(outputs, instances, memoize(default_segmenter(segmenter)), cfg, with_bertscore=cfg is not None)


def score_l2(
    out: Path,
    data: str | None = None,
    *,
    vectors: str = "ppmi",
    pivots: str = RELEASE,
    constraints: str | None = None,
    segmenter: str = "auto",
    limit: int | None = None,
    db: str | None = None,
    uri: str | None = None,
    no_graph: bool = False,
    progress: Callable[[int, int], None] | None = None,
    note: Note = _quiet,
) -> dict:
    """CRG L2 of one output file against ``pivots`` (see `reference`); ``progress(k, total)`` after k instances."""
    from dishgraph.eval.crg import corpus_vectors
    from dishgraph.eval.embeddings import PhraseEmbedder
    from dishgraph.eval.l2 import evaluate_l2
    from dishgraph.eval.prefetch import prefetch_parses
    from dishgraph.eval.text_metrics import default_segmenter, memoize, warm_from_disk

    instances, outputs, glossary = read_run(out, data, limit)
    ref, cache = graph_knowledge(data, pivots, constraints, glossary, db, uri, no_graph, note)
    seg = memoize(default_segmenter(segmenter, glossary))
    warm_from_disk(seg, [i.base_recipe for i in instances], segmenter)  # base tokens persist between runs
    with unusable_input():
        wv = corpus_vectors(instances, seg, vectors)
    table = glossary.ingredient
    if progress:
        progress(0, len(instances))
    embedder = PhraseEmbedder(wv, seg)
    return evaluate_l2(
        outputs,
        instances,
        prefetch_parses(outputs, instances, glossary, segmenter, cache),
        ref,
        embedder.similarity,
        lambda s: table.get(s, s),
        parse_cache=cache,
        progress=(lambda k: progress(k, len(instances))) if progress else None,
        prepare_texts=embedder.warm,
    )


def score_crg(
    outs: Sequence[Path],
    data: str | None = None,
    *,
    pivots: str = RELEASE,
    constraints: str | None = None,
    limit: int | None = None,
    db: str | None = None,
    uri: str | None = None,
    no_graph: bool = False,
    bertscore: dict | None = None,
    note: Note = _quiet,
    warn: Note = _quiet,
    progress: Callable[[int, int], None] | None = None,
    phase: Callable[[str], None] = _quiet,
    **scorer_options,
) -> dict:
    """The CRG table (paper Table 3): {"rows": one table row per file, "results": file -> full scores}.

    A JSONL file may hold a subset run; its row is labelled with its size. ``progress(k, total)`` after k
    instances, ``phase(text)`` as each stage starts (most of a run happens before the first instance is
    scored); ``bertscore``: the arguments of `bertscore_config` (None: skip BERTScore), its warning
    to ``warn``; ``scorer_options`` (segmenter, vectors, workers) go to `CrgScorer`."""
    from dishgraph.eval.crg import CrgScorer, table_row
    from dishgraph.eval.outputs import crg_dir, load_instances, read_present
    from dishgraph.ingest.glossary import Glossary

    with unusable_input():
        everything = load_instances(data)
        files = {p: read_present(p, everything) for p in outs}
        files = {p: (inst[:limit], txt[:limit]) for p, (inst, txt) in files.items()}
        instances = everything[:limit]
        glossary = Glossary.load(crg_dir(data) / "glossary.json")
    phase("reading the reference and the base recipes' parses")
    ref, cache = graph_knowledge(data, pivots, constraints, glossary, db, uri, no_graph, note)
    cfg = bertscore_config(**bertscore, warn=warn) if bertscore is not None else None
    phase("segmenting base recipes, word vectors")
    with unusable_input():
        scorer = CrgScorer(
            instances, glossary, ref, base_parses=cache, bertscore_config=cfg, data_dir=data, **scorer_options
        )
    total = sum(len(i) for i, _ in files.values())
    if progress:
        progress(0, total)
    results, rows = {}, []
    for p, (inst, outputs) in files.items():
        res = scorer.score(
            outputs,
            inst,
            progress=(lambda k: progress(k, total)) if progress else None,
            phase=(lambda text, name=p.name: phase(f"{name}: {text}")) if len(files) > 1 else phase,
        )
        res["n"] = len(inst)
        results[str(p)] = res
        rows.append(table_row(res, p.stem if len(inst) == len(instances) else f"{p.stem} (n={len(inst)})"))
    return {"rows": rows, "results": results}
