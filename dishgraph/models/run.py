"""Run a registered generator over the CRG instances and write its outputs: the library behind `dishgraph
generate` (the commands only parse options and print the summary this returns).

    from dishgraph.models.run import run_generator
    summary = run_generator("replace", "out.jsonl", instances="first-per-pair")
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


def select_instances(instances: Sequence, spec: str = "all", limit: int | None = None) -> list:
    """The instances named by `spec` (see --instances), then the first `limit` of them, in file order."""
    spec = (spec or "all").strip()
    if spec == "all":
        chosen = list(instances)
    elif spec == "first-per-pair":
        seen: set = set()
        chosen = []
        for i in instances:
            if (i.base, i.target) not in seen:
                seen.add((i.base, i.target))
                chosen.append(i)
    elif spec == "spread" or spec.startswith("spread:"):  # every pair's k-th instance before any (k+1)-th
        # 'spread:N' starts at the N-th of that order: a later GPU lease continues where an earlier one stopped
        start = spec.partition(":")[2].strip()
        if start and not _is_number(start):
            raise ValueError(f"--instances: cannot read {spec!r} (want 'spread' or 'spread:N', N a number)")
        seen_in_pair: dict = {}
        keyed = []
        for n, i in enumerate(instances):
            k = seen_in_pair.get((i.base, i.target), 0)
            seen_in_pair[(i.base, i.target)] = k + 1
            keyed.append((k, n))
        chosen = [instances[n] for _, n in sorted(keyed)][int(start or 0) :]
    elif spec.startswith("every:"):
        chosen = list(instances[:: max(1, int(spec.split(":", 1)[1]))])
    else:
        chosen = [instances[i] for i in sorted(_indices(spec, len(instances)))]
    return chosen[:limit] if limit is not None else chosen


def _is_number(text: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts '²', which int() refuses."""
    return text.isascii() and text.isdigit()


def _indices(spec: str, n: int) -> set[int]:
    """Indices and ranges like ``0,50,100-119``, each checked against ``n`` instances."""
    wanted: set[int] = set()
    for part in filter(None, (p.strip() for p in spec.split(","))):
        lo, _, hi = part.partition("-")
        if not _is_number(lo) or (hi and not _is_number(hi)):
            raise ValueError(
                f"--instances: cannot read {part!r} (want 'all', 'first-per-pair', 'every:K' "
                "or indices/ranges like 0,5-9)"
            )
        wanted.update(range(int(lo), int(hi or lo) + 1))
    bad = sorted(i for i in wanted if i >= n)
    if bad:
        raise ValueError(f"--instances: index {bad[0]} out of range 0..{n - 1}")
    return wanted


def run_generator(
    name: str,
    out: Path,
    data: str | None = None,
    batch_size: int = 32,
    instances: str = "all",
    limit: int | None = None,
    max_minutes: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    **options,
) -> dict:
    """Generate with generator `name` for the selected instances and write `out`; returns a summary
    including the generation time and throughput (model loading excluded).

    With `max_minutes` no batch starts after that much generation time, and the instances done are written
    (`instances` in the summary; `selected` is how many were asked for). ``progress(done, total)`` is called
    once with 0 before the first batch and after every batch with the instances it finished."""
    from dishgraph.eval.outputs import crg_dir, load_instances, write_outputs
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.models import registry

    everything = load_instances(data)
    chosen = select_instances(everything, instances, limit)
    if not chosen:
        raise ValueError("no instances selected")
    if (len(chosen) < len(everything) or max_minutes is not None) and Path(out).suffix.lower() not in JSONL_SUFFIXES:
        raise ValueError(
            f"a subset of {len(chosen)} instances must be written as JSONL (records carry their "
            f"index, so `dishgraph eval` can align them); got --out {out}"
        )
    glossary = Glossary.load(crg_dir(data) / "glossary.json")
    gen = registry.create(name, glossary=glossary, data_dir=data, **options)
    advance = (lambda k: progress(k, len(chosen))) if progress else None
    if progress:
        progress(0, len(chosen))
    t0 = time.perf_counter()
    texts = registry.generate_all(gen, chosen, batch_size, advance, stop=time_box(t0, max_minutes))
    seconds = time.perf_counter() - t0
    done = sorted(zip(chosen, texts), key=lambda it: it[0].index)  # file order ('spread' is not)
    write_outputs(out, [t for _, t in done], [i for i, _ in done])
    changed = sum(t != i.base_recipe for i, t in done)
    return {
        "generator": name,
        "out": str(out),
        "instances": len(done),
        "selected": len(chosen),
        "max_minutes": max_minutes,
        "changed": changed,
        "seconds": round(seconds, 2),
        "recipes_per_s": round(len(done) / seconds, 4) if seconds else None,
        "options": {k: v for k, v in options.items() if isinstance(v, (str, int, float, bool))},
    }


def time_box(
    t0: float, max_minutes: float | None, clock: Callable[[], float] = time.perf_counter
) -> Callable[[], bool] | None:
    """A `generate_all` stop test: no batch starts that would, at the pace so far, end past the box.

    Predicting the next batch keeps a time-boxed GPU command inside its limit (a batch of DeLorean or
    EduCat can take minutes), where checking only the elapsed time would overrun by up to one batch.
    The first batch carries the warm-up (CUDA context, kernel selection, cold caches): on the H200 gpt2-d's
    first batch of 500 took 24 s in one process, where the next process did five in 28 s, and a box of 0.4
    minutes stopped at 500 of 2,500. So once a later batch has finished, the pace is the mean of the
    batches after the first.
    """
    if max_minutes is None:
        return None
    marks = [t0]

    def stop() -> bool:
        marks.append(clock())  # called before every batch after the first: a batch has just finished
        laps = [b - a for a, b in zip(marks, marks[1:])]
        pace = sum(laps[1:]) / len(laps[1:]) if len(laps) > 1 else laps[0]
        return marks[-1] - t0 + pace > max_minutes * 60

    return stop
