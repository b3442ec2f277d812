"""Named recipe generators, so `dishgraph generate NAME` and evaluation can find any model by name.

A generator is a class with ``generate(batch: list[Instance]) -> list[str]`` (one recipe per instance, same
order; ``dishgraph.task.Generator``), registered with ``@register("name")``. Its constructor takes keyword
options only (``glossary``, ``device``, …) and ignores none silently: `create` passes just the options its
signature accepts. The modules holding generators are listed in ``GENERATOR_MODULES`` and imported on first
use; one that fails to import raises with its name (a broken model never vanishes silently from the list).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from dishgraph.registry import Registry
from dishgraph.task import Generator, Instance

GENERATOR_MODULES = (
    "dishgraph.models.baselines",
    "dishgraph.models.gpt2",
    "dishgraph.models.delorean",
    "dishgraph.models.educat",
    "dishgraph.models.graph_editor",
)

GENERATORS: Registry[type] = Registry(
    "generator", modules=GENERATOR_MODULES, doc="counterfactual recipe generators (dishgraph generate NAME)"
)
T = TypeVar("T", bound=type)


def register(name: str) -> Callable[[T], T]:
    """Class decorator: make the generator available as `name`."""

    def deco(cls: T) -> T:
        if not callable(getattr(cls, "generate", None)):
            raise TypeError(f"generator {name!r}: {cls.__name__} has no generate(batch) method")
        GENERATORS.add(name, cls)
        cls.registry_name = name  # type: ignore[attr-defined]
        return cls

    return deco


def names() -> list[str]:
    return sorted(GENERATORS.names())


def get(name: str) -> type:
    return GENERATORS.get(name)


def create(name: str, **options: Any) -> Generator:
    """Instantiate `name`, passing only the options its constructor accepts (None values dropped)."""
    generator: Generator = GENERATORS.make_accepting(name, **options)
    return generator


def describe(name: str) -> str:
    return GENERATORS.describe(name)


def generate_all(
    generator: Generator,
    instances: Sequence[Instance],
    batch_size: int = 32,
    progress: Callable[[int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> list[str]:
    """Run a generator over all instances in batches, checking it returns one text per instance.

    `stop` is asked before each batch after the first; when it says so the texts of the batches done so far
    are returned (a time-boxed GPU run keeps what it finished).
    """
    out: list[str] = []
    for start in range(0, len(instances), batch_size):
        if start and stop is not None and stop():
            break
        batch = list(instances[start : start + batch_size])
        texts = generator.generate(batch)
        if len(texts) != len(batch):
            raise RuntimeError(
                f"{type(generator).__name__}.generate returned {len(texts)} texts for "
                f"{len(batch)} instances (batch starting at {start})"
            )
        out.extend(str(t) for t in texts)
        if progress:
            progress(len(batch))
    return out
