"""The ingest jobs behind `dishgraph ingest` and `dishgraph glossary build`, one call each: check the
options (bad ones are `UsageError`s, raised before any database opens), load, then re-derive what the new
recipes change (USES of the dishes that gained recipes, stale composed knowledge).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dishgraph.errors import InputError, UsageError, nearest_path
from dishgraph.graph.base import GraphStore

SEGMENTER_NAMES = ("auto", "lac", "jieba")


def check_parsing(parser: str, segmenter: str = "auto") -> None:
    """Refuse a bad --parser / --segmenter (or $DISHGRAPH_SEGMENTER, which "auto" reads) before the database
    opens (usage errors, exit 2)."""
    import os

    from dishgraph.ingest.parser import check_parser
    from dishgraph.ingest.segment import ENV_VAR

    env = (os.environ.get(ENV_VAR) or "").strip().lower() if segmenter == "auto" else ""
    for value, where in ((segmenter, "--segmenter"), (env or "auto", f"${ENV_VAR}")):
        if value not in SEGMENTER_NAMES:
            raise UsageError(f"unknown {where} {value!r}; expected one of {', '.join(SEGMENTER_NAMES)}")
    try:
        check_parser(parser)
    except (ValueError, RuntimeError) as e:
        raise UsageError(str(e)) from None


def ingest_release(
    open_store: Callable[[], GraphStore],
    directory: Path | None = None,
    *,
    parser: str = "rules",
    segmenter: str = "auto",
    refresh: bool = True,
    progress: Callable[[str], None] | None = None,
    **options,
):
    """Check, then load the CRG release (default: the located data/counterfactual) into the store
    ``open_store()`` opens and refresh the derived knowledge it touched (``refresh``; ``progress`` hears what
    is refreshed); returns (IngestReport, DerivedRefresh). ``options`` go to `ingest_counterfactual`."""
    from dishgraph import config
    from dishgraph.ingest.crg import ingest_counterfactual

    directory = directory or config.data_dir() / "counterfactual"
    check_parsing(parser, segmenter)
    with open_store() as store:
        before = _recipes_now(store)
        rep = ingest_counterfactual(store, directory, parser=parser, segmenter=segmenter, **options)
        parsed = rep.parsed.get("recipes", 0) - rep.parsed.get("skipped_already_parsed", 0)
        return rep, _refresh(store, _touched(store, rep.touched_dishes, parsed), before, refresh, progress)


def corpus_glossary(path: Path | None):
    """The glossary a corpus ingest parses with (default: the release's); unusable is an `InputError`."""
    from dishgraph import config
    from dishgraph.ingest.glossary import Glossary

    gpath = path or config.data_dir() / "counterfactual" / "glossary.json"
    try:
        return Glossary.load(gpath)
    except (OSError, ValueError) as e:
        raise InputError(f"--glossary {gpath}: cannot be used ({e})") from None


def check_corpus(file: Path, fmt: str, encoding: str, parser: str, segmenter: str) -> None:
    """Everything about a corpus ingest's options and file that can be refused before a database opens."""
    from dishgraph.ingest.readers import CORPUS_FORMATS, check_encoding

    if fmt not in CORPUS_FORMATS:
        raise UsageError(f"unknown --format {fmt!r}; expected one of {', '.join(CORPUS_FORMATS)}")
    try:
        check_encoding(encoding)
    except ValueError as e:
        raise UsageError(str(e)) from None
    check_parsing(parser, segmenter)
    _check_kind(file)
    if not file.exists() or file.is_dir():
        raise InputError(
            f"{file}: "
            + (
                "is a directory; give a corpus file"
                if file.is_dir()
                else "dangling symbolic link"
                if file.is_symlink()
                else "no such file" + nearest_path(str(file))
            )
        )


def _check_kind(file: Path) -> None:
    """A link loop or a device is an InputError naming the path (a loop was called "dangling")."""
    from dishgraph.ingest.readers.lines import check_input

    if file.is_symlink() or file.exists():
        try:
            check_input(file)
        except OSError as e:
            raise InputError(f"{file}: {e.strerror}") from None


def ingest_corpus_file(
    open_store: Callable[[], GraphStore],
    file: Path,
    glossary_path: Path | None = None,
    *,
    fmt: str = "auto",
    encoding: str = "auto",
    parser: str = "rules",
    segmenter: str = "auto",
    refresh: bool = True,
    progress: Callable[[str], None] | None = None,
    **options,
):
    """Check, then stream a corpus file into the store ``open_store()`` opens and refresh the derived knowledge
    it touched (``refresh``; ``progress`` hears what is refreshed); returns (CorpusReport, DerivedRefresh).
    ``options`` go to `ingest_corpus` (fields, workers, chunking)."""
    from dishgraph.ingest.corpus import ingest_corpus

    check_corpus(file, fmt, encoding, parser, segmenter)
    glossary = corpus_glossary(glossary_path)
    with open_store() as store:
        _reserve(store, file)
        before = _recipes_now(store)
        rep = ingest_corpus(
            store, file, glossary, fmt=fmt, encoding=encoding, parser=parser, segmenter=segmenter, **options
        )
        parsed = rep.recipes - rep.skipped_already_parsed
        return rep, _refresh(store, _touched(store, rep.touched_dishes, parsed), before, refresh, progress)


def _reserve(store, file: Path) -> None:
    """Room for the whole ingest on the embedded database's disk before anything is written (`diskspace.reserve`):
    a ``.gz`` counts at the 3x text compresses by; a stream (a pipe) has no size and is checked per batch."""
    import stat

    from dishgraph.graph import diskspace
    from dishgraph.graph.ladybug_store import LadybugStore

    if not isinstance(store, LadybugStore):
        return
    try:
        st = Path(file).stat()
    except OSError:
        return
    if stat.S_ISREG(st.st_mode):
        size = st.st_size * (3 if str(file).endswith(".gz") else 1)
        diskspace.reserve(store.path, size, doing="ingest into")


def _touched(store, dishes: list[str], parsed: int) -> list[str]:
    """The dishes whose derived data an ingest must refresh: those it read, when it parsed anything; else only
    those of them still stale (a re-run after a run killed while refreshing parses nothing, yet must finish
    that refresh)."""
    if parsed:
        return dishes
    from dishgraph.knowledge.frequencies import stale_uses_dishes

    return sorted(set(stale_uses_dishes(store)).intersection(dishes))


def _recipes_now(store) -> int:
    from dishgraph.knowledge.compose import corpus_recipes

    return corpus_recipes(store)


def _refresh(store, touched: list[str], before: int, refresh: bool, progress):
    """The derived data an ingest of ``touched`` dishes made stale, refreshed (or, ``refresh=False``, not)."""
    from dishgraph.knowledge.derived import DerivedRefresh, refresh_derived

    if not refresh:
        return DerivedRefresh(skipped=True)
    return refresh_derived(store, touched=touched, recipes_before=before, progress=progress)


def build_glossary_files(
    corpus: Path, k: dict[str, int], overrides: Path | None = None, reference: Path | None = None, **options
):
    """`build_glossary` on a corpus file, with an overrides file and a reference glossary to compare with
    (default: the release's, when found). Returns (Glossary, report); unreadable inputs raise."""
    from dishgraph import config
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.glossary_build import build_glossary, load_overrides, read_corpus

    recipes = read_corpus(corpus)
    ov = load_overrides(overrides) if overrides else None
    if reference:
        ref = Glossary.load(reference)
    else:
        try:
            ref = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
        except FileNotFoundError:
            ref = None
    progress = options.pop("progress", None)
    if progress:
        progress(0, len(recipes))
    return build_glossary(
        recipes,
        k=k,
        overrides=ov,
        reference=ref,
        progress=(lambda n: progress(n, len(recipes))) if progress else None,
        **options,
    )


def recipe_parser(
    glossary_path: Path | None = None, parser: str = "rules", segmenter: str = "auto", data: Path | None = None
):
    """The parser `dishgraph parse` and `eval parse-recall` use: ``parser`` over the glossary at
    ``glossary_path`` (default: the release's under ``data``). A glossary or parser that cannot be had is a
    `UsageError` naming it."""
    from dishgraph import config
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import make_parser

    try:
        glossary = Glossary.load(glossary_path or config.data_dir(data) / "counterfactual" / "glossary.json")
        return make_parser(glossary, parser, segmenter)
    except (FileNotFoundError, ValueError, RuntimeError) as e:
        raise UsageError(str(e)) from None


def recipe_text(arg: str) -> str:
    """A recipe given on the command line: the text itself, or ``@FILE`` to read it from a UTF-8 file."""
    if not arg.startswith("@"):
        return arg
    path = Path(arg[1:])
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 (byte {e.start}); convert it, e.g. iconv -f gb18030 -t utf-8") from None
    if not text.strip():
        raise InputError(f"{path}: empty; nothing to parse")
    return text
