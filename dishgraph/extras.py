"""Which optional install brings which module: the core install (`pip install dishgraph`) ingests, mines,
estimates order and evaluates; language models and dependency parsers are extras. A command that needs a
module the install lacks stops with the one line `missing_message` writes (mapped at the CLI edge)."""

from __future__ import annotations

# top-level module -> the extra that installs it
EXTRA_OF = {
    "torch": "models",
    "transformers": "models",
    "tokenizers": "models",
    "bert_score": "models",
    "safetensors": "models",
    "hanlp": "parsers",
    "ltp": "parsers",
    "stanza": "parsers",
}


def missing_message(e: ModuleNotFoundError) -> str | None:
    """The install hint for a module an extra provides, or None for any other missing module."""
    top = (e.name or "").split(".")[0]
    extra = EXTRA_OF.get(top)
    if extra is None:
        return None
    return f"this needs {top}, which the core install leaves out: pip install 'dishgraph[{extra}]'"
