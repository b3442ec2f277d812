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
