"""PizzaCommonSense (PCS) view of recipes: per atomic step, the comestibles going in and the one coming out.

- ``tables``: the PCS table model and its file formats (release JSON, JSON/JSONL lists, CSV/TSV);
- ``graph``: tables → ``Recipe/Step/Comestible`` nodes whose INPUT/OUTPUT edges form a DAG per recipe;
- ``serialize``: text-to-text linearisation (``<s>`` cells, ``<n>`` rows, masked cells) and its inverse;
- ``baseline``: PCS-style tables derived from our parsed Chinese recipes;
- ``t5``: fine-tuning and generation with ``T5ForConditionalGeneration``.
"""

from dishgraph.pcs.tables import PCSFormatError, PCSRow, PCSTable, read_pcs, write_pcs

__all__ = ["PCSFormatError", "PCSRow", "PCSTable", "read_pcs", "write_pcs"]
