"""Download the public releases at pinned commits, verified by SHA-256, written atomically.

Sources (found in the public repositories; the hashes are those of the released files):

* CRG (Counterfactual Recipe Generation, EMNLP 2022): github.com/xxxiaol/counterfactual-recipe-generation,
  ``data/`` at commit 4757de1a — the three text files and the two original pickles.
* DiNeR (EMNLP 2023): github.com/Jumpy-pku/DiNeR, ``data/glossary.json`` at commit 8d0180d1.
* PizzaCommonSense: github.com/adiallo07/PizzaCommonsense, every file of ``train/``, ``val/`` and ``test/``
  at commit ad73e3ee (997 files, each pinned in ``dishgraph/data/pizzacommonsense_files.json``); its MIT
  licence text is written beside them from the package.

The CRG repository ships glossary and pivots only as pickles; ``glossary.json``, ``pivot_actions.json``
and ``order_constraints.json`` are derived from them here (through the safe unpickler) and are
byte-identical to the JSON copies the project uses, so they are pinned by hash too.

Layout written under the destination (what `dishgraph.config.data_dir` looks for)::

    counterfactual/{base_recipes.txt, dish_pairs.txt, changing_ingres.txt, glossary.json,
                    pivot_actions.json, order_constraints.json, original/{glossary_dict,pivot_actions}.pkl}
    diner/glossary.json
    pizzacommonsense/{train,val,test}/*.txt, pizzacommonsense/LICENSE
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
DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
# What each data set's public source says of its use (shown by `data fetch` and `data locate`).
LICENCES = {
    "counterfactual": "no licence file in xxxiaol/counterfactual-recipe-generation: research release, cite the paper",
    "diner": "no licence file in Jumpy-pku/DiNeR: research release, cite the paper",
    "pizzacommonsense": "MIT (adiallo07/PizzaCommonsense; LICENSE written beside the files)",
}
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
)
ALL_FILES = DOWNLOADED + DERIVED


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
        for spec in DERIVED:
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
        return DataLocation(None, str(e), [FileStatus(s.dest, False, None, None, s.origin) for s in ALL_FILES])
    files = []
    for s in ALL_FILES:
        p = root / s.dest
        ok = (sha256_file(p) == s.sha256) if (p.exists() and verify) else None
        files.append(FileStatus(s.dest, p.exists(), p.stat().st_size if p.exists() else None, ok, s.origin))
    return DataLocation(str(root), None, files)
