"""Batched prefetching (parse_many, cut_many; in-process or in spawned workers) fills the scorer's memo tables
with exactly what parsing and segmenting each text alone gives: the speed-up must not move a score."""

from __future__ import annotations

from dishgraph.eval.l2 import CachedParse
from dishgraph.eval.outputs import load_instances
from dishgraph.eval.prefetch import prefetch
from dishgraph.eval.text_metrics import default_segmenter, memoize
from dishgraph.ingest.parser import RecipeParser


def _generated(crg_dir, n):
    """Release base recipes rewritten the way a generator would (old ingredient swapped for the new one, or
    the new one prepended), plus an empty output and a repeated one."""
    insts = load_instances(crg_dir)[:n]
    texts = [(i.base_recipe.replace(i.old, i.new) if i.old else i.new + i.base_recipe) for i in insts]
    return insts, [*texts, "", texts[0]]


def _alone(glossary, texts):
    parser, segment = RecipeParser(glossary), default_segmenter("auto", glossary)
    return {t: parser.parse(t) for t in texts}, {t: segment(t) for t in texts}


def test_in_process_batches_equal_one_text_at_a_time(glossary, crg_dir):
    insts, texts = _generated(crg_dir, 300)  # more than one batch of 250
    parse = CachedParse(RecipeParser(glossary).parse)
    segment = memoize(default_segmenter("auto", glossary))
    skip = {i.base_recipe for i in insts}  # a rewrite that did not change the recipe is left to the graph
    done = prefetch(texts, parse, segment, glossary, "auto", workers=1, skip=skip)
    want_parse, want_words = _alone(glossary, [t for t in texts if t not in skip])
    assert done == len(want_parse) > 250
    assert parse.memo == want_parse and segment.memo == want_words
    assert parse.parsed == 0  # everything came from the prefetch, nothing is parsed again while scoring
    assert prefetch(texts, parse, segment, glossary, "auto", workers=1, skip=skip) == 0  # already memoised


def test_worker_processes_equal_one_text_at_a_time(glossary, crg_dir):
    _, texts = _generated(crg_dir, 12)
    parse = CachedParse(RecipeParser(glossary).parse)
    segment = memoize(default_segmenter("auto", glossary))
    prefetch(texts, parse, segment, glossary, "auto", workers=2, min_texts=1)
    want_parse, want_words = _alone(glossary, texts)
    assert parse.memo == want_parse and segment.memo == want_words


def test_clause_memo_gives_the_same_parses(glossary, crg_dir, tmp_path, monkeypatch):
    """Base clauses' tokens from the disk table (`clause_cache`) and new clauses segmented: the parses of
    rewritten recipes equal fresh parses, in-process and in a worker; the table is built once, then read."""
    from dishgraph.eval.clause_cache import ClauseMemo, base_clause_tokens, with_clause_memo

    monkeypatch.setenv("DISHGRAPH_CACHE", str(tmp_path))
    insts, texts = _generated(crg_dir, 40)
    parser = RecipeParser(glossary)
    path = base_clause_tokens(parser, [i.base_recipe for i in insts])
    assert path is not None and path.exists() and path.parent.parent == tmp_path
    stamp = path.stat().st_mtime_ns
    assert base_clause_tokens(parser, [i.base_recipe for i in insts]) == path and path.stat().st_mtime_ns == stamp
    memo_parser = with_clause_memo(RecipeParser(glossary), path)
    assert isinstance(memo_parser.segmenter, ClauseMemo)
    want_parse, want_words = _alone(glossary, texts)
    assert [memo_parser.parse(t) for t in texts] == [want_parse[t] for t in texts]
    assert memo_parser.parse_many(texts) == [want_parse[t] for t in texts]
    assert memo_parser.segmenter.hits > 2 * memo_parser.segmenter.misses  # most clauses are the bases'
    for workers in (1, 2):
        parse = CachedParse(RecipeParser(glossary).parse)
        segment = memoize(default_segmenter("auto", glossary))
        prefetch(texts, parse, segment, glossary, "auto", workers=workers, min_texts=1, clause_tokens=path)
        assert parse.memo == want_parse and segment.memo == want_words


def test_a_script_without_main_guard_finishes(tmp_path, crg_dir):
    """A spawned worker re-runs the caller's script; without `if __name__ == "__main__":` it fails to
    start. The pool then reports itself broken and this process parses the rest: slower, never a hang."""
    import subprocess
    import sys

    script = tmp_path / "noguard.py"
    script.write_text(
        "from dishgraph.eval.l2 import CachedParse\n"
        "from dishgraph.eval.outputs import crg_dir, load_instances\n"
        "from dishgraph.eval.prefetch import prefetch\n"
        "from dishgraph.eval.text_metrics import default_segmenter, memoize\n"
        "from dishgraph.ingest.glossary import Glossary\n"
        "from dishgraph.ingest.parser import RecipeParser\n"
        f"d = crg_dir({str(crg_dir)!r})\n"
        "g = Glossary.load(d / 'glossary.json')\n"
        "texts = [i.new + i.base_recipe for i in load_instances(d)[:8]]\n"
        "parse, segment = CachedParse(RecipeParser(g).parse), memoize(default_segmenter('auto', g))\n"
        "print('done', prefetch(texts, parse, segment, g, 'auto', workers=2, min_texts=1), len(parse.memo))\n",
        encoding="utf-8",
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "done 8 8"


def test_a_damaged_clause_table_is_dropped_and_built_again(glossary, crg_dir, tmp_path, monkeypatch):
    """A table that is not what `base_clause_tokens` writes gives no memo (parses stay right) and is removed,
    so the next evaluation builds it again instead of staying slow."""
    from dishgraph.eval.clause_cache import base_clause_tokens, load_clause_tokens

    monkeypatch.setenv("DISHGRAPH_CACHE", str(tmp_path))
    bases = [i.base_recipe for i in load_instances(crg_dir)[:5]]
    parser = RecipeParser(glossary)
    path = base_clause_tokens(parser, bases)
    good = load_clause_tokens(path)
    for damage in ('{"x": [[1]]}', "[1, 2]", "{not json"):
        path.write_text(damage, encoding="utf-8")
        assert load_clause_tokens(path) == {} and not path.exists()
        assert base_clause_tokens(parser, bases) == path and load_clause_tokens(path) == good
