"""Download the public releases at pinned commits, verified by SHA-256, written atomically.

Sources (found in the public repositories; the hashes are those of the released files):

* CRG (Counterfactual Recipe Generation, EMNLP 2022): github.com/xxxiaol/counterfactual-recipe-generation,
  ``data/`` at commit 4757de1a — the three text files and the two original pickles.
* DiNeR (EMNLP 2023): github.com/Jumpy-pku/DiNeR, ``data/glossary.json`` at commit 8d0180d1.
* PizzaCommonSense: github.com/adiallo07/PizzaCommonsense, every file of ``train/``, ``val/`` and ``test/``
  at commit ad73e3ee (997 files, each pinned in ``dishgraph/data/pizzacommonsense_files.json``); its MIT
  licence text is written beside them from the package.
* The XiaChuFang sample and the classic cookbook corpus: 13 files of github.com/SmartFlowAI/TheGodOfCookery
  at pinned commits (kept under ``.sources/``), from which `dishgraph.ingest.corpus_build` rebuilds both
  ``recipes.jsonl`` byte for byte (pinned by hash like every other file).

The CRG repository ships glossary and pivots only as pickles; ``glossary.json``, ``pivot_actions.json``
and ``order_constraints.json`` are derived from them here (through the safe unpickler) and are
byte-identical to the JSON copies the project uses, so they are pinned by hash too.

Layout written under the destination (what `dishgraph.config.data_dir` looks for)::

    counterfactual/{base_recipes.txt, dish_pairs.txt, changing_ingres.txt, glossary.json,
                    pivot_actions.json, order_constraints.json, original/{glossary_dict,pivot_actions}.pkl}
    diner/glossary.json
    pizzacommonsense/{train,val,test}/*.txt, pizzacommonsense/LICENSE
    xiachufang/recipes.jsonl, classic/recipes.jsonl (and their sources under .sources/TheGodOfCookery/)
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

CRG_REPO = "xxxiaol/counterfactual-recipe-generation"
CRG_COMMIT = "4757de1a63be13f57e15b4dc35fed15fd813d98f"
DINER_REPO = "Jumpy-pku/DiNeR"
DINER_COMMIT = "8d0180d19fd54b810dc42986ded02336380470bc"
PCS_MANIFEST = Path(__file__).resolve().parents[1] / "data" / "pizzacommonsense_files.json"
PCS_LICENSE = Path(__file__).resolve().parents[1] / "data" / "pizzacommonsense_LICENSE"
DEFAULT_BASE_URL = os.environ.get("DISHGRAPH_DATA_URL") or "https://raw.githubusercontent.com"  # or a mirror
# What each data set's public source says of its use (shown by `data fetch` and `data locate`).
LICENCES = {
    "counterfactual": "no licence file in xxxiaol/counterfactual-recipe-generation: research release, cite the paper",
    "diner": "no licence file in Jumpy-pku/DiNeR: research release, cite the paper",
    "pizzacommonsense": "MIT (adiallo07/PizzaCommonsense; LICENSE written beside the files)",
    "xiachufang": "Apache-2.0 repository (SmartFlowAI/TheGodOfCookery); recipes written by XiaChuFang users",
    "classic": "Apache-2.0 repository (SmartFlowAI/TheGodOfCookery); the compilation's own provenance not stated",
    ".sources": "the files the two corpora are rebuilt from (kept so a re-run need not download them again)",
}
SOURCES_DIR = ".sources/TheGodOfCookery"
CHUNK = 1 << 16


@dataclass(frozen=True)
class ReleaseFile:
    dest: str  # path under the data directory
    sha256: str
    size: int
    repo: str | None = None  # None: derived locally from downloaded files
    commit: str | None = None
    path: str | None = None  # path inside the repository

    def url(self, base_url: str = DEFAULT_BASE_URL) -> str:
        return f"{base_url.rstrip('/')}/{self.repo}/{self.commit}/{self.path}"

    @property
    def origin(self) -> str:
        return f"{self.repo}@{self.commit[:8]}:{self.path}" if self.repo else "derived"


def _crg(dest: str, path: str, sha: str, size: int) -> ReleaseFile:
    return ReleaseFile(f"counterfactual/{dest}", sha, size, CRG_REPO, CRG_COMMIT, f"data/{path}")


def _pcs_files() -> tuple[ReleaseFile, ...]:
    manifest = json.loads(PCS_MANIFEST.read_text(encoding="utf-8"))
    repo, commit = manifest["repo"], manifest["commit"]
    return tuple(
        ReleaseFile(f"pizzacommonsense/{path}", sha, size, repo, commit, path) for path, sha, size in manifest["files"]
    )


def _corpus_sources() -> tuple[ReleaseFile, ...]:
    from dishgraph.ingest.corpus_build import SOURCES

    return tuple(
        ReleaseFile(f"{SOURCES_DIR}/{x['path']}", x["sha256"], x["size"], x["repo"], x["commit"], x["path"])
        for x in SOURCES
    )


def _corpora() -> tuple[ReleaseFile, ...]:
    from dishgraph.ingest.corpus_build import TARGETS

    return tuple(ReleaseFile(f"{name}/recipes.jsonl", sha, size) for name, (sha, size) in TARGETS.items())


DOWNLOADED = (
    _crg(
        "base_recipes.txt",
        "base_recipes.txt",
        "5df6401109713bdf82e09693a4dd39720011bc213060abbb2bc3824dbb5b1eec",
        1250457,
    ),
    _crg("dish_pairs.txt", "dish_pairs.txt", "99a3fb38a15c84ddbf9f94e7f2b4cb4fcb4c32b3466434e7ccd45e17f62fd542", 1365),
    _crg(
        "changing_ingres.txt",
        "changing_ingres.txt",
        "71798d67fa95bf4006b0d17077c52b3dddb7e93e9bc7222ed0aecd7a170e6d2f",
        711,
    ),
    _crg(
        "original/glossary_dict.pkl",
        "glossary_dict.pkl",
        "7e1ed01610c00b370a0044626fe23f70f0f104af223c11f858dd95b4bc86e122",
        148223,
    ),
    _crg(
        "original/pivot_actions.pkl",
        "pivot_actions.pkl",
        "936ec9964176efd71f631a5eaaae5278f563985309ce5f82a15f40f08a40305c",
        174527,
    ),
    ReleaseFile(
        "diner/glossary.json",
        "16748cee8ba7f3d1dc63dda1e4b6a186d46aa1f50b7e343e7edb04eeb3d53069",
        16976,
        DINER_REPO,
        DINER_COMMIT,
        "data/glossary.json",
    ),
    *_pcs_files(),
    *_corpus_sources(),
)
DERIVED = (
    ReleaseFile(
        "counterfactual/glossary.json", "94aab4ff4eb780d40a2cafa2b08cbb74882cab3cda9706dfcda47edd0d630c75", 153858
    ),
    ReleaseFile(
        "counterfactual/pivot_actions.json", "b1f9326d7fb95bd27ec37bff8fd54ce3cf49e90c131ef9723ee6ce2f59aaf327", 118616
    ),
    ReleaseFile(
        "counterfactual/order_constraints.json",
        "d8ea8adec3cca19114cf0661858cef3041a27da476b0e02c1e8d20665878150d",
        141786,
    ),
    ReleaseFile("pizzacommonsense/LICENSE", "87c00b3e8203859edb285cf4faa3cb259673fba9f1e4865afad112ce2c09b7a7", 1066),
    *_corpora(),
)
ALL_FILES = DOWNLOADED + DERIVED
# what the project reads (the corpora's source files are only kept for a re-run): `data locate` checks these
READ_FILES = tuple(s for s in ALL_FILES if not s.dest.startswith(SOURCES_DIR))
DATASETS = ("counterfactual", "diner", "pizzacommonsense", "xiachufang", "classic")


def dataset_of(spec: ReleaseFile) -> str:
    """The data set a file belongs to (a corpus's source file: the corpus it is rebuilt into)."""
    if spec.dest.startswith(SOURCES_DIR):
        from dishgraph.ingest.corpus_build import SOURCES

        return next(x["dataset"] for x in SOURCES if x["path"] == spec.path)
    return spec.dest.split("/", 1)[0]


def select(datasets: Iterable[str]) -> tuple[tuple[ReleaseFile, ...], tuple[ReleaseFile, ...]]:
    """(files to download, files to derive) for some data sets; a corpus also needs the CRG release's base
    recipes (its near-duplicate filter)."""
    want = set(datasets)
    unknown = want - set(DATASETS)
    if unknown:
        raise ValueError(f"unknown data set {sorted(unknown)[0]!r}; one of: {', '.join(DATASETS)}")
    needs_base = bool(want & {"xiachufang", "classic"})
    files = tuple(
        s for s in DOWNLOADED if dataset_of(s) in want or (needs_base and s.dest == "counterfactual/base_recipes.txt")
    )
    return files, tuple(s for s in DERIVED if dataset_of(s) in want)


class FetchError(OSError):
    """A download failed (network, HTTP status); nothing was written for that file."""


class HashMismatchError(ValueError):
    """Content does not match the pinned SHA-256; nothing was written for that file."""


@dataclass
class FetchResult:
    dest: str
    status: str  # present | downloaded | replaced | derived
    sha256: str
    bytes: int
    url: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def default_dest() -> Path:
    """``$DISHGRAPH_DATA``, else ``./shared/data`` (which `config.data_dir` finds from this directory)."""
    env = os.environ.get("DISHGRAPH_DATA")
    return Path(env).expanduser() if env else Path.cwd() / "shared" / "data"


def _atomic_write(target: Path, chunks: Iterable[bytes], spec: ReleaseFile, origin: str) -> tuple[str, int]:
    """Write chunks to a temp file beside ``target``, check size and hash, then rename into place.
    On any failure the temp file is removed and ``target`` is untouched."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    h, n = hashlib.sha256(), 0
    try:
        with os.fdopen(fd, "wb") as out:
            for block in chunks:
                h.update(block)
                n += len(block)
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        digest = h.hexdigest()
        if digest != spec.sha256:
            raise HashMismatchError(
                f"{origin}: SHA-256 mismatch for {spec.dest}: expected {spec.sha256}, got "
                f"{digest} ({n} bytes, expected {spec.size}); nothing written to {target}"
            )
        os.replace(tmp, target)
        return digest, n
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _download_chunks(url: str, timeout: float, on_bytes: Callable[[int], None] | None) -> Iterable[bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - pinned https/http URL
            for block in iter(lambda: resp.read(CHUNK), b""):
                if on_bytes:
                    on_bytes(len(block))
                yield block
    except urllib.error.HTTPError as e:
        raise FetchError(f"{url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
        raise FetchError(f"{url}: download failed ({getattr(e, 'reason', e)})") from None


def _derived_bytes(dest: Path, spec: ReleaseFile) -> bytes:
    """The JSON form of a release pickle, formatted exactly as the published JSON copies."""
    from dishgraph.ingest.readers import read_pivots
    from dishgraph.ingest.safe_pickle import safe_load

    if spec.dest == "pizzacommonsense/LICENSE":
        return PCS_LICENSE.read_bytes()
    if spec.dest.endswith("/recipes.jsonl"):  # a corpus rebuilt from its sources and the release's base recipes
        from dishgraph.ingest import corpus_build

        name = spec.dest.split("/", 1)[0]
        files = {
            x["path"]: (dest / SOURCES_DIR / x["path"]).read_bytes()
            for x in corpus_build.SOURCES
            if x["dataset"] == name
        }
        return corpus_build.build(name, files, (dest / "counterfactual" / "base_recipes.txt").read_bytes())
    crg = dest / "counterfactual"
    name = Path(spec.dest).name
    if name == "glossary.json":
        tables = safe_load(crg / "original" / "glossary_dict.pkl")
        obj = dict(zip(("ingredient", "verb", "tool"), tables))
    else:
        pivots, constraints = read_pivots(crg / "original" / "pivot_actions.pkl", strict=True)
        if name == "pivot_actions.json":
            obj = {t: [{**p.to_release(), "kind": k} for p, k in items] for t, items in pivots.items()}
        else:
            obj = {
                t: [
                    {
                        "action": it["action"].to_release(),
                        "pairs": [[c.to_release(), e.to_release()] for c, e in it["pairs"]],
                    }
                    for it in items
                ]
                for t, items in constraints.items()
            }
    return json.dumps(obj, ensure_ascii=False, indent=1).encode("utf-8")


def fetch_release(
    dest: str | Path | None = None,
    *,
    base_url: str = DEFAULT_BASE_URL,
    timeout: float = 60.0,
    derive: bool = True,
    files: Iterable[ReleaseFile] = DOWNLOADED,
    derived: Iterable[ReleaseFile] = DERIVED,
    on_progress: Callable[[ReleaseFile, int], None] | None = None,
) -> list[FetchResult]:
    """Download every release file not already present with the right hash, then derive the JSON files.

    ``on_progress(spec, nbytes)`` is called as bytes arrive. Stops at the first failure (`FetchError`,
    `HashMismatchError`); files completed before it stay, so a rerun only fetches what is missing.
    """
    dest = Path(dest) if dest is not None else default_dest()
    results: list[FetchResult] = []
    for spec in files:
        target = dest / spec.dest
        url = spec.url(base_url)
        existed = target.exists()
        if existed and target.stat().st_size == spec.size and sha256_file(target) == spec.sha256:
            results.append(FetchResult(spec.dest, "present", spec.sha256, spec.size, url))
            continue
        cb = (lambda n, s=spec: on_progress(s, n)) if on_progress else None
        digest, n = _atomic_write(target, _download_chunks(url, timeout, cb), spec, url)
        results.append(FetchResult(spec.dest, "replaced" if existed else "downloaded", digest, n, url))
    if derive:
        for spec in derived:
            target = dest / spec.dest
            if target.exists() and sha256_file(target) == spec.sha256:
                results.append(FetchResult(spec.dest, "present", spec.sha256, spec.size))
                continue
            data = _derived_bytes(dest, spec)
            digest, n = _atomic_write(target, [data], spec, f"derived from {dest / 'counterfactual/original'}")
            results.append(FetchResult(spec.dest, "derived", digest, n))
    return results


@dataclass
class FileStatus:
    dest: str
    exists: bool
    bytes: int | None
    verified: bool | None  # sha256 matches the pinned release hash (None: file missing)
    source: str  # owner/repo@commit:path, or "derived"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class DataLocation:
    root: str | None
    error: str | None
    files: list[FileStatus]

    def to_dict(self) -> dict:
        return {"root": self.root, "error": self.error, "files": [f.to_dict() for f in self.files]}


def locate(explicit: str | Path | None = None, *, verify: bool = True) -> DataLocation:
    """Where `config.data_dir` finds the data, and which release files are there (hash-checked)."""
    from dishgraph import config

    try:
        root = config.data_dir(explicit)
    except FileNotFoundError as e:
        return DataLocation(None, str(e), [FileStatus(s.dest, False, None, None, s.origin) for s in READ_FILES])
    files = []
    for s in READ_FILES:
        p = root / s.dest
        ok = (sha256_file(p) == s.sha256) if (p.exists() and verify) else None
        files.append(FileStatus(s.dest, p.exists(), p.stat().st_size if p.exists() else None, ok, s.origin))
    return DataLocation(str(root), None, files)


def ensure(
    datasets: Iterable[str],
    root: str | Path | None = None,
    *,
    base_url: str = DEFAULT_BASE_URL,
    say: Callable[[str], None] = print,
    timeout: float = 60.0,
) -> Path:
    """The data root holding ``datasets``, fetching what is missing (and saying so): what `make demo` runs on
    a fresh machine. ``root``: that directory (created); else the one `config.data_dir` finds, else
    `default_dest`. Files present with the right hash are kept; nothing is fetched when all are there."""
    from dishgraph import config

    if root is None:
        try:
            root = config.data_dir()
        except FileNotFoundError:
            root = default_dest()
    root = Path(root)
    wanted = set(datasets)
    select(wanted)  # an unknown name is refused before anything is read
    # a data set is missing when a file the project reads is (a corpus's sources are not read)
    missing = sorted({dataset_of(s) for s in READ_FILES if dataset_of(s) in wanted and not (root / s.dest).exists()})
    if not missing:
        return root.resolve()
    say(f"fetching {', '.join(missing)} into {root} from their public sources (`dishgraph data fetch`)")
    files, derived = select(missing)
    fetch_release(root, base_url=base_url, timeout=timeout, files=files, derived=derived)
    for name in missing:
        say(f"  {name}: {LICENCES.get(name, 'see its README')}")
    return root.resolve()
