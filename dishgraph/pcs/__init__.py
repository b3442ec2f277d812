"""PizzaCommonSense (PCS) view of recipes: per atomic step, the comestibles going in and the one coming out.

- ``tables``: the PCS table model and its file formats (release JSON, JSON/JSONL lists, CSV/TSV);
- ``graph``: tables → ``Recipe/Step/Comestible`` nodes whose INPUT/OUTPUT edges form a DAG per recipe;
- ``serialize``: text-to-text linearisation (``<s>`` cells, ``<n>`` rows, masked cells) and its inverse;
- ``baseline``: PCS-style tables derived from our parsed Chinese recipes;
- ``t5``: fine-tuning and generation with ``T5ForConditionalGeneration``;
- ``words``: the word normalisation shared by the loader (ingredient lines) and the predictors;
- ``predict``: floors and the comestible tracker filling input/output cells (chained or oracle);
- ``benchmark``: the README's PCS table (test split, a random split, people, the paper's rows).
"""

from dishgraph.pcs.tables import PCSFormatError, PCSRow, PCSTable, read_pcs, write_pcs

__all__ = ["PCSFormatError", "PCSRow", "PCSTable", "read_pcs", "write_pcs"]
