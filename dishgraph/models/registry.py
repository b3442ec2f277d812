"""Named recipe generators, so `dishgraph generate NAME` and evaluation can find any model by name.

A generator is a class with ``generate(batch: list[Instance]) -> list[str]`` (one recipe per instance, same
order), registered with ``@register("name")``. Its constructor takes keyword options only (``glossary``,
``device``, …) and ignores none silently: `create` passes just the options its signature accepts.
Generators living in other modules of ``dishgraph.models`` are found by `discover`, which imports them.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any, Callable, Protocol, Sequence, TypeVar

from dishgraph.eval.outputs import Instance


class Generator(Protocol):
    def generate(self, batch: list[Instance]) -> list[str]: ...


_REGISTRY: dict[str, type] = {}
_DISCOVERY_ERRORS: dict[str, str] = {}
T = TypeVar("T", bound=type)


def register(name: str) -> Callable[[T], T]:
    """Class decorator: make the generator available as `name`."""
    def deco(cls: T) -> T:
        if not callable(getattr(cls, "generate", None)):
            raise TypeError(f"generator {name!r}: {cls.__name__} has no generate(batch) method")
        existing = _REGISTRY.get(name)
        if existing is not None and existing.__qualname__ != cls.__qualname__:
            raise ValueError(f"generator name {name!r} already registered by {existing.__module__}.{existing.__qualname__}")
        _REGISTRY[name] = cls
        cls.registry_name = name
        return cls
    return deco


def discover() -> dict[str, str]:
    """Import every module of ``dishgraph.models`` so their registrations run; returns import errors."""
    import dishgraph.models as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        full = f"{pkg.__name__}.{mod.name}"
        if full in _DISCOVERY_ERRORS:
            continue
        try:
            importlib.import_module(full)
        except Exception as e:  # a broken optional model must not hide the others
            _DISCOVERY_ERRORS[full] = f"{type(e).__name__}: {e}"
    return dict(_DISCOVERY_ERRORS)


def names() -> list[str]:
    discover()
    return sorted(_REGISTRY)


def get(name: str) -> type:
    if name not in _REGISTRY:
        discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown generator {name!r}; known: {', '.join(sorted(_REGISTRY)) or 'none'}") from None


def create(name: str, **options: Any) -> Generator:
    """Instantiate `name`, passing only the options its constructor accepts (None values dropped)."""
    cls = get(name)
    params = inspect.signature(cls).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in options.items() if v is not None and (takes_any or k in params)}
    return cls(**kwargs)


def describe(name: str) -> str:
    doc = inspect.getdoc(get(name)) or ""
    return doc.splitlines()[0] if doc else ""


def generate_all(generator: Generator, instances: Sequence[Instance], batch_size: int = 32,
                 progress: Callable[[int], None] | None = None,
                 stop: Callable[[], bool] | None = None) -> list[str]:
    """Run a generator over all instances in batches, checking it returns one text per instance.

    `stop` is asked before each batch after the first; when it says so the texts of the batches done so far
    are returned (a time-boxed GPU run keeps what it finished).
    """
    out: list[str] = []
    for start in range(0, len(instances), batch_size):
        if start and stop is not None and stop():
            break
        batch = list(instances[start:start + batch_size])
        texts = generator.generate(batch)
        if len(texts) != len(batch):
            raise RuntimeError(f"{type(generator).__name__}.generate returned {len(texts)} texts for "
                               f"{len(batch)} instances (batch starting at {start})")
        out.extend(str(t) for t in texts)
        if progress:
            progress(len(batch))
    return out
