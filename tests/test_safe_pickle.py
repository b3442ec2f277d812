"""The restricted unpickler: the release pickles load, a code-running pickle is refused before it runs."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

from dishgraph.ingest.safe_pickle import UnsafePickleError, safe_load, safe_loads, to_plain


class _RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_os_system_pickle_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pkl"
    evil.write_bytes(pickle.dumps([1, {"x": _RunsCode(marker)}]))
    with pytest.raises(UnsafePickleError) as e:
        safe_load(evil)
    assert not marker.exists()
    assert e.value.path == str(evil) and e.value.name == "system"
    assert e.value.module in ("posix", "os", "nt")
    assert str(e.value).startswith(f"{evil}: refused to load global {e.value.module}.system")
    # the same bytes through plain pickle really would run code: the test is meaningful
    pickle.loads(evil.read_bytes())
    assert marker.exists()


@pytest.mark.parametrize(
    "module,name",
    [
        ("builtins", "eval"),
        ("builtins", "getattr"),
        ("builtins", "__import__"),
        ("subprocess", "Popen"),
        ("numpy", "load"),
        ("numpy.core.multiarray", "_reconstruct"),
    ],
)
def test_other_globals_refused(module, name):
    data = b"\x80\x03c" + f"{module}\n{name}\n".encode() + b")\x81."  # GLOBAL, EMPTY_TUPLE, NEWOBJ, STOP
    with pytest.raises(UnsafePickleError, match=f"refused to load global {module}.{name}"):
        safe_loads(data, "x.pkl")


def test_real_pickles_load_as_plain_python(crg_dir):
    pivots, constraints = safe_load(crg_dir / "original" / "pivot_actions.pkl")
    items = [it for v in pivots.values() for it in v]
    assert len(items) == 1121
    (verb, (ingr, tools)), kind = items[0]
    assert type(verb) is str and verb == "淋" and ingr == frozenset({"蔬菜"}) and tools == frozenset()
    assert kind in (0, 1) and type(kind) is int
    assert all(type(v[0][0]) is str for v in items)
    assert len(constraints) == 50
    glossary = safe_load(crg_dir / "original" / "glossary_dict.pkl")
    assert isinstance(glossary, list) and len(glossary) == 3 and glossary[1]["切"] == "切"


def test_numpy_scalars_and_sets_allowed_and_converted():
    obj = {
        "a": np.str_("切"),
        "b": np.int64(3),
        "c": {np.float32(1.5)},
        "d": frozenset({np.str_("x")}),
        "e": (np.bool_(True),),
    }
    for proto in (0, 2, 3, 4, 5):
        out = safe_loads(pickle.dumps(obj, protocol=proto))
        assert out == {"a": "切", "b": 3, "c": {1.5}, "d": frozenset({"x"}), "e": (True,)}
        assert type(out["a"]) is str and type(out["b"]) is int and type(out["e"][0]) is bool


def test_numpy_object_scalar_refused():
    data = pickle.dumps(np.dtype("O"))
    with pytest.raises(pickle.UnpicklingError, match="not allowed"):
        safe_loads(data, "o.pkl")


def test_corrupt_pickle_names_the_file(tmp_path):
    p = tmp_path / "broken.pkl"
    p.write_bytes(pickle.dumps({"a": [1, 2, 3]})[:-5])
    with pytest.raises(pickle.UnpicklingError, match=f"{p}: not a valid release pickle"):
        safe_load(p)


def test_to_plain_leaves_python_values_alone():
    assert to_plain([1, "a", (2.0, None)]) == [1, "a", (2.0, None)]
