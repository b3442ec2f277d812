"""One registry mechanism for every name → implementation switch of the package (pykeen style).

Generators, recipe parsers, segmenters, dependency backends, causal estimators and graph-store backends are
each a :class:`Registry`: a name (plus synonyms) maps to an :class:`Entry` holding the implementation, a
class or a function. Registries sit in the module that owns their kind (``graph.factory.BACKENDS``,
``ingest.segment.SEGMENTERS``, …); ``dishgraph ls KIND`` lists any of them (``dishgraph.catalog``).

Built on class-resolver's ``BaseResolver`` (registration with name and synonym conflict checks, the
``options`` set, iteration) with two of its conventions replaced because the names here are public:
class-resolver derives an element's name from ``__name__`` and normalises away ``-`` and ``_``, so
``gpt2-dr`` would be listed and matched as ``gpt2dr`` and a function ``psm_fast`` could not be named
``fast``. Here every entry is registered under an explicit name, shown and matched as written (case and
surrounding blanks aside).

Registries whose entries live in modules with heavy imports (generators) name those modules explicitly;
they are imported on first use, and one that fails to import fails loudly with its name: a broken model
must not silently vanish from the list.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from class_resolver.base import BaseResolver

T = TypeVar("T")
F = TypeVar("F")


class UnknownName(KeyError, ValueError):
    """A name no registry entry answers to; a KeyError for lookups and a ValueError for option checks."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class RegistryImportError(ImportError):
    """A module named by a registry could not be imported (its name and the cause in one line)."""


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered implementation: its public name, synonyms and a one-line description."""

    name: str
    target: T
    synonyms: tuple[str, ...] = ()
    doc: str = ""

    @property
    def description(self) -> str:
        """The given one-liner, else the first line of the implementation's docstring."""
        if self.doc:
            return self.doc
        own = getattr(self.target, "__doc__", None)  # not inspect.getdoc: a base class's doc describes the base
        text = inspect.cleandoc(own) if isinstance(own, str) else ""
        return text.splitlines()[0] if text else ""

    @property
    def where(self) -> str:
        """``module.qualname`` of the implementation (what ``ls`` prints as its origin)."""
        module = getattr(self.target, "__module__", None) or "?"
        qualname = getattr(self.target, "__qualname__", None) or type(self.target).__qualname__
        return f"{module}.{qualname}"


class Registry(BaseResolver[Entry[T], Any], Generic[T]):
    """Named implementations of one kind (``kind`` is singular: ``generator``, ``segmenter``, …)."""

    def __init__(self, kind: str, *, modules: Sequence[str] = (), doc: str = "") -> None:
        super().__init__()
        self.kind = kind
        self.doc = doc
        self.modules = tuple(modules)
        self._loaded = not self.modules
        self._loading = False

    # --- class-resolver's hooks -------------------------------------------------------------------
    def extract_name(self, element: Entry[T]) -> str:
        return element.name

    def extract_synonyms(self, element: Entry[T]) -> tuple[str, ...]:
        return element.synonyms

    def normalize(self, s: str) -> str:
        """Names match as written, ignoring case and surrounding blanks (``-`` and ``_`` are significant)."""
        return s.strip().lower()

    def lookup(self, query: Entry[T] | str | None, default: Entry[T] | None = None) -> Entry[T]:
        """The entry registered as (or with the synonym) ``query``; :class:`UnknownName` lists the known ones."""
        if isinstance(query, Entry):
            return query
        if query is None:
            if default is not None:
                return default
            raise UnknownName(f"no {self.kind} given; known: {self._known()}")
        self.load()
        key = self.normalize(query)
        found = self.lookup_dict.get(key) or self.synonyms.get(key)
        if found is None:
            raise UnknownName(f"unknown {self.kind} {query!r}; known: {self._known()}")
        return found

    def make(self, query: Entry[T] | str | None, pos_kwargs: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Call the implementation (a class: construct it) with exactly the given keyword arguments."""
        target: Any = self.lookup(query).target
        return target(**(pos_kwargs or {}), **kwargs)

    # --- the registry's own calls -----------------------------------------------------------------
    def add(self, name: str, target: T, *, synonyms: Iterable[str] = (), doc: str = "") -> T:
        """Register ``target`` as ``name``. Registering the same implementation again (a module imported
        twice) replaces it; another implementation under a taken name is a ``ValueError``."""
        entry = Entry(name, target, tuple(synonyms), doc)
        key = self.normalize(name)
        old = self.lookup_dict.get(key)
        if old is not None:
            if old.where != entry.where:
                raise ValueError(f"{self.kind} name {name!r} already registered by {old.where}")
            del self.lookup_dict[key]
            for syn in [s for s, e in self.synonyms.items() if e is old]:
                del self.synonyms[syn]
        self.register(entry)
        return target

    def named(self, name: str, *, synonyms: Iterable[str] = (), doc: str = "") -> Callable[[F], F]:
        """Decorator form of :meth:`add`."""

        def deco(target: F) -> F:
            self.add(name, target, synonyms=synonyms, doc=doc)  # type: ignore[arg-type]
            return target

        return deco

    def get(self, name: str) -> T:
        """The implementation registered as ``name``."""
        return self.lookup(name).target

    def entries(self) -> list[Entry[T]]:
        """Every entry, in registration order."""
        self.load()
        return list(self.lookup_dict.values())

    def names(self) -> list[str]:
        """Every entry's name, in registration order (synonyms not included)."""
        return [e.name for e in self.entries()]

    def describe(self, name: str) -> str:
        return self.lookup(name).description

    def make_accepting(self, name: str, **options: Any) -> Any:
        """Call ``name`` with just the options its signature accepts (None values dropped): generators take
        a common set of options (``glossary``, ``device``, …), each as many of them as it needs."""
        target: Any = self.get(name)
        params = inspect.signature(target).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        return target(**{k: v for k, v in options.items() if v is not None and (takes_any or k in params)})

    def load(self) -> None:
        """Import the modules whose import registers this registry's entries (once; a failure raises)."""
        if self._loaded or self._loading:
            return
        self._loading = True
        try:
            for module in self.modules:
                try:
                    importlib.import_module(module)
                except Exception as e:
                    raise RegistryImportError(
                        f"{self.kind} module {module} failed to import: {type(e).__name__}: {e}"
                    ) from e
            self._loaded = True
        finally:
            self._loading = False

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        self.load()
        key = self.normalize(name)
        return key in self.lookup_dict or key in self.synonyms

    def __iter__(self) -> Iterator[Entry[T]]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self.entries())

    def __str__(self) -> str:
        return self._known()

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {self._known()})"

    def _known(self) -> str:
        return ", ".join(self.names()) or "none"
