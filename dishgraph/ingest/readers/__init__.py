"""Readers for the released data: typed records out, no database in.

Every reader streams (constant memory on multi-GB dumps, `.gz` read transparently) and treats bad input
the same way: a malformed record is *skipped with a message naming file and line* and counted in a
`ReadReport`; with ``strict=True`` the first one raises `ReadError` instead. A bad record never costs a
good one. Decisions worth knowing:

* Text without any CJK character is **kept** and flagged (`no-cjk` warning): the parser simply finds no
  actions in it, and dropping it silently would hide a corpus problem rather than surface it.
* Dish names are data, never query text, so quotes or Cypher-looking names are kept verbatim; control /
  format characters are stripped and names are capped at ``max_name_chars`` (a warning each time).
* Lines that are not UTF-8 are skipped (replacement characters would corrupt the text we key on); a BOM
  and CRLF line ends are accepted silently; blank lines are counted (`blank`) without a message.
* ``strict=True`` turns every message into a `ReadError`, flags included (for curated inputs).
* Lines longer than ``max_line_bytes`` (default 1 MiB) are skipped without ever being held in memory, and
  recipe texts longer than ``MAX_RECIPE_CHARS`` (20,000 characters; the longest real recipe has 5,724) are
  skipped (``long-recipe``): parsing costs memory in proportion to the text.
* In a top-level JSON array, each element is delimited by its structure (brackets and strings followed, not
  parsed) before it is parsed, so an element over the limit (1,048,576 characters, ``max_line_bytes``) is
  read past without being held and skipped, a malformed one is skipped, and the elements after both are
  read. Only a file that ends inside the array ends the read (what came before is kept).

One module per job: `report` (counting and raising), `lines` (bytes to lines, names cleaned), `crg` (the release's
text files and the release as a whole), `pivots` (pivot actions and order constraints), `corpus` (any recipe
corpus). Import from here; the names below are the public surface.
"""

from dishgraph.ingest.readers.corpus import CORPUS_FORMATS, CorpusRecipe, estimate_records, join_steps, read_corpus
from dishgraph.ingest.readers.crg import (
    BaseRecipe,
    Change,
    CrgRelease,
    DishPair,
    read_base_recipes,
    read_changing_ingredients,
    read_crg_release,
    read_dish_pairs,
)
from dishgraph.ingest.readers.lines import (
    CHUNK_BYTES,
    MAX_LINE_BYTES,
    MAX_NAME_CHARS,
    MAX_RECIPE_CHARS,
    check_encoding,
    clean_name,
    detect_encoding,
    has_cjk,
)
from dishgraph.ingest.readers.pivots import PIVOT_KINDS, Constraints, Pivots, read_pivots
from dishgraph.ingest.readers.report import ReadError, ReadReport

__all__ = [
    "CHUNK_BYTES",
    "CORPUS_FORMATS",
    "MAX_LINE_BYTES",
    "MAX_NAME_CHARS",
    "MAX_RECIPE_CHARS",
    "PIVOT_KINDS",
    "BaseRecipe",
    "Change",
    "Constraints",
    "CorpusRecipe",
    "CrgRelease",
    "DishPair",
    "Pivots",
    "ReadError",
    "ReadReport",
    "check_encoding",
    "clean_name",
    "detect_encoding",
    "estimate_records",
    "has_cjk",
    "join_steps",
    "read_base_recipes",
    "read_changing_ingredients",
    "read_corpus",
    "read_crg_release",
    "read_dish_pairs",
    "read_pivots",
]
