"""Load the CRG release pickles without letting them run code.

`pickle.load` calls whatever global a file names, so a tampered `pivot_actions.pkl` could run
`os.system`. The released pickles only need numpy scalar reconstruction (their verbs are `numpy.str_`),
`numpy.dtype`, `frozenset`/`set` and plain containers (plus latin-1 bytes literals of old protocols), so
`find_class` allows exactly those and refuses
everything else *before* calling it. numpy scalars in the result become plain Python values, so callers
(and JSON dumps) never see numpy types.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

# Plain builtins a pickle may legitimately name (sets have no opcode below protocol 4).
_BUILTINS = {
    "frozenset",
    "set",
    "list",
    "dict",
    "tuple",
    "str",
    "bytes",
    "bytearray",
    "int",
    "float",
    "complex",
    "bool",
}
_NUMPY_SCALAR = {("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar")}
# numpy dtype kinds with no object references: bool, ints, floats, complex, str, bytes.
_SAFE_DTYPE_KINDS = set("biufcUS")


class UnsafePickleError(pickle.UnpicklingError):
    """The pickle names a global outside the allow-list; nothing it names was called."""

    def __init__(self, path: str, module: str, name: str):
        self.path, self.module, self.name = path, module, name
        super().__init__(
            f"{path}: refused to load global {module}.{name} "
            "(only numpy scalars/dtypes, sets and plain containers are allowed)"
        )


def _numpy_dtype(obj, align=False, copy=False):
    import numpy as np

    if not isinstance(obj, str):
        raise pickle.UnpicklingError(f"numpy.dtype from a {type(obj).__name__} is not allowed")
    dt = np.dtype(obj, align=bool(align), copy=bool(copy))
    if dt.kind not in _SAFE_DTYPE_KINDS or dt.fields is not None:
        raise pickle.UnpicklingError(f"numpy dtype {obj!r} (kind {dt.kind!r}) is not allowed")
    return dt


def _numpy_scalar(dtype, data=None):
    import numpy as np

    if not isinstance(dtype, np.dtype) or dtype.kind not in _SAFE_DTYPE_KINDS:
        raise pickle.UnpicklingError(f"numpy scalar of dtype {dtype!r} is not allowed")
    from numpy._core.multiarray import scalar  # numpy>=2; numpy.core is a deprecated alias

    return scalar(dtype, data) if data is not None else scalar(dtype)


def _latin1_bytes(text, encoding="latin1"):
    """How protocols 0-2 spell a bytes literal (``_codecs.encode(text, "latin1")``); nothing else."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"_codecs.encode with {encoding!r} is not allowed")
    return text.encode("latin1")


class _RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, fh, source: str):
        super().__init__(fh)
        self._source = source

    def find_class(self, module: str, name: str):
        if module in ("builtins", "__builtin__") and name in _BUILTINS:  # __builtin__: protocols 0-2
            import builtins

            return getattr(builtins, name)
        if (module, name) in _NUMPY_SCALAR:
            return _numpy_scalar
        if (module, name) == ("numpy", "dtype"):
            return _numpy_dtype
        if (module, name) == ("_codecs", "encode"):
            return _latin1_bytes
        raise UnsafePickleError(self._source, module, name)


def to_plain(obj: Any) -> Any:
    """numpy scalars → str/int/float/bool, recursively through lists, tuples, dicts and sets."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a dependency
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, list):
        return [to_plain(x) for x in obj]
    if isinstance(obj, tuple):
        return tuple(to_plain(x) for x in obj)
    if isinstance(obj, dict):
        return {to_plain(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, frozenset):
        return frozenset(to_plain(x) for x in obj)
    if isinstance(obj, set):
        return {to_plain(x) for x in obj}
    return obj


def safe_loads(data: bytes, source: str = "<bytes>") -> Any:
    """Unpickle ``data`` through the allow-list; errors name ``source``."""
    try:
        return to_plain(_RestrictedUnpickler(io.BytesIO(data), source).load())
    except UnsafePickleError:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError) as e:
        raise pickle.UnpicklingError(f"{source}: not a valid release pickle ({type(e).__name__}: {e})") from None


def safe_load(path: str | Path) -> Any:
    """Load a release pickle from ``path``; raises `UnsafePickleError` naming the file and the global."""
    path = Path(path)
    return safe_loads(path.read_bytes(), str(path))
