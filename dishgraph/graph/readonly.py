"""What a read-only open may run: statements made only of read clauses, checked against an allow-list.

Ladybug's read-only mode still runs CHECKPOINT (which then fails half-way and leaves ``.shadow``/``.wal``
files that block every later read-only open), ``INSTALL`` (a download), ``LOAD FROM`` and ``COPY ... TO`` a
file and configuration calls (``CALL threads=1``). A read-only store refuses those *before* they reach the
database: anything that could write, or touch files or the network, needs an explicit read-write open
(``db shell --write``).

The check is an allow-list, not a list of bad words, because a block-list loses to every spelling it did not
foresee (the old one stripped strings before comments, so a quote inside a comment hid a whole COPY). One
lexer pass reads string literals, comments and backtick names together, exactly where the engine does
(Ladybug's grammar: a ``/* **/`` comment does not end at ``**/``, a lone CR breaks a ``//`` comment, a
backslash starts an escape); every place where the engine might read the text differently from this lexer is
refused. Then each ``;``-separated statement must start with a read clause, and every bare word in it must
be a read keyword, an allow-listed function, an allow-listed procedure after CALL, or a variable the
statement itself binds; words that start a write or a file, network, extension or configuration statement
are refused wherever they stand, even as variable names. Outside string literals, comments and backtick
names only plain ASCII is accepted, so full-width letters, lookalikes and zero-width characters are refused.
A false refusal only costs a ``--write``; a false acceptance is the hole this module exists to close.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from dishgraph.errors import ReadOnlyViolation, StatementTooComplex

# Words that may start a statement on a read-only open.
STARTS = frozenset({"MATCH", "OPTIONAL", "UNWIND", "WITH", "RETURN", "CALL", "EXPLAIN", "PROFILE"})

# Every keyword a read statement needs (clauses, operators, literals, path-pattern words).
READ_KEYWORDS = STARTS | frozenset(
    {
        *("WHERE", "AS", "DISTINCT", "ORDER", "BY", "ASC", "ASCENDING", "DESC", "DESCENDING", "SKIP", "LIMIT"),
        *("UNION", "ALL", "AND", "OR", "XOR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"),
        *("CASE", "WHEN", "THEN", "ELSE", "END", "STARTS", "ENDS", "CONTAINS", "EXISTS", "COUNT", "YIELD"),
        *("ANY", "NONE", "SINGLE", "SHORTEST", "TRAIL", "ACYCLIC", "CAST"),
    }
)

# Words that run a write, a file, network, extension, configuration, transaction or admin statement, on
# Ladybug or Neo4j. A statement must start with a read clause (STARTS), so these matter where a clause may
# follow another one; they are refused wherever they stand, also where a statement binds one as a variable
# (``MATCH (create) ... CREATE (...)`` must not pass because ``create`` is "a variable").
REFUSED_WORDS = frozenset(
    {
        *("CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "FOREACH", "INSERT"),
        *("COPY", "LOAD", "EXPORT", "IMPORT", "INSTALL", "UNINSTALL", "ATTACH", "USE", "CHECKPOINT"),
        *("BEGIN", "COMMIT", "ROLLBACK", "TRANSACTION", "TRANSACTIONS", "GRANT", "DENY", "REVOKE", "TERMINATE"),
    }
)

# Pure functions (no side effect, no file or network): Cypher's usual ones and Ladybug's spellings.
# Deliberately absent: nextval (advances a sequence), anything reading files or settings.
FUNCTIONS = frozenset(
    {
        *("count", "collect", "sum", "avg", "min", "max", "stdev", "stdevp", "percentilecont", "percentiledisc"),
        *("size", "length", "len", "labels", "label", "type", "id", "elementid", "offset", "keys", "properties"),
        *("nodes", "rels", "relationships", "startnode", "endnode", "coalesce", "nullif", "head", "last", "tail"),
        *("range", "reverse", "abs", "ceil", "ceiling", "floor", "round", "sign", "sqrt", "exp", "log", "log10"),
        *("ln", "log2", "pow", "power", "e", "pi", "sin", "cos", "tan", "asin", "acos", "atan", "atan2"),
        *("degrees", "radians", "greatest", "least", "tolower", "toupper", "lower", "upper", "lcase", "ucase"),
        *("trim", "ltrim", "rtrim", "substring", "substr", "left", "right", "replace", "split", "string_split"),
        *("split_part", "concat", "lpad", "rpad", "repeat", "initcap", "starts_with", "ends_with", "prefix"),
        *("suffix", "regexp_matches", "regexp_replace", "regexp_extract", "regexp_extract_all", "tostring"),
        *("to_string", "tointeger", "tofloat", "toboolean", "tointegerornull", "tofloatornull", "to_int64"),
        *("to_int32", "to_double", "to_float", "to_bool", "cast", "list_contains", "list_has", "list_extract"),
        *("list_element", "list_concat", "list_cat", "list_append", "list_prepend", "list_position"),
        *("list_slice", "list_sort", "list_reverse_sort", "list_sum", "list_product", "list_distinct"),
        *("list_unique", "list_reverse", "list_transform", "list_filter", "list_reduce", "list_has_all"),
        *("list_any_value", "list_to_string", "array_extract", "date", "timestamp", "interval", "duration"),
        *("datetime", "localdatetime", "current_date", "current_timestamp", "date_part", "datepart"),
        *("struct_extract", "map_extract", "element_at", "hash", "md5", "sha256", "shortestpath"),
        *("allshortestpaths", "wshortest", "all_wshortest", "is_trail", "is_acyclic", "properties"),
    }
)

# Table functions / procedures that only describe the database (CALL name(...)).
PROCEDURES = frozenset(
    {
        *("show_tables", "table_info", "show_connection", "db_version", "current_setting", "show_functions"),
        *("show_indexes", "show_sequences", "show_attached_databases", "show_loaded_extensions"),
        *("show_macros", "show_projected_graphs", "storage_info", "show_warnings"),
        *("db.labels", "db.relationshiptypes", "db.propertykeys", "db.schema.visualization"),
        *("db.schema.nodetypeproperties", "db.schema.reltypeproperties", "dbms.components"),
    }
)

_PUNCT = frozenset("()[]{},.:;=<>+-*/%^|!~")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?")
_HEX = re.compile(r"[0-9a-fA-F]{8}|[0-9a-fA-F]{4}")
_SIMPLE_ESCAPES = frozenset("\\'\"bBfFnNrRtT")


class _Refused(Exception):
    """Internal: why a text is refused (turned into ReadOnlyViolation's message)."""


@dataclass(frozen=True)
class Token:
    kind: str  # "word" (bare), "name" (backtick-quoted), "string", "number", "param", "punct"
    text: str


def tokens(cypher: str, *, tolerant: bool = False, limit: int | None = None) -> list[Token]:
    """The tokens of a Cypher text, comments dropped; raises _Refused where the engine could read it otherwise.

    ``tolerant`` (the shape check, which must bound every text, also one the read-only check refuses or only
    the engine could read): never raises; a lone CR is whitespace, a character outside plain ASCII is a token
    of kind "other", and a string, name or comment this lexer cannot end is read on as code from its opening
    character, so its contents are counted, never hidden. ``limit``: stop once more tokens than that are read."""
    out: list[Token] = []
    i, n = 0, len(cypher)
    while i < n and (limit is None or len(out) <= limit):
        c = cypher[i]
        if c in " \t\n":
            i += 1
        elif c == "\r":
            if cypher[i + 1 : i + 2] != "\n":
                if not tolerant:
                    raise _Refused("a carriage return without a line feed")
                i += 1
                continue
            i += 2
        elif cypher.startswith("//", i) or cypher.startswith("/*", i) or c in "'\"`":
            try:
                if cypher.startswith("//", i):
                    i = _line_comment_end(cypher, i)
                elif cypher.startswith("/*", i):
                    i = _block_comment_end(cypher, i)
                elif c == "`":
                    j = _backtick_end(cypher, i)
                    out.append(Token("name", cypher[i + 1 : j - 1].replace("``", "`")))
                    i = j
                else:
                    j = _string_end(cypher, i)
                    out.append(Token("string", cypher[i:j]))
                    i = j
            except _Refused:
                if not tolerant:
                    raise
                out.append(Token("other", c))
                i += 1
        elif m := _WORD.match(cypher, i):
            kind = "param" if out and out[-1].text == "$" and out[-1].kind == "punct" else "word"
            out.append(Token(kind, m.group()))
            i = m.end()
        elif m := _NUMBER.match(cypher, i):
            out.append(Token("param" if out and out[-1].text == "$" else "number", m.group()))
            i = m.end()
        elif c in _PUNCT or c == "$":
            out.append(Token("punct", c))
            i += 1
        elif tolerant:
            out.append(Token("other", c))
            i += 1
        else:
            raise _Refused(f"character U+{ord(c):04X} {c!r} outside a string literal (only plain ASCII is read here)")
    return out


def _line_comment_end(text: str, i: int) -> int:
    """``//`` runs to the line feed; the engine breaks such a comment at a CR not followed by LF."""
    end = text.find("\n", i)
    end = len(text) if end < 0 else end
    body = text[i:end]
    if "\r" in (body[:-1] if body.endswith("\r") else body):
        raise _Refused("a carriage return inside a // comment")
    return end


def _block_comment_end(text: str, i: int) -> int:
    """``/* ... */`` as the engine reads it: inside, a ``*`` swallows the next character, so ``**/`` does not
    close the comment. Refused unless that end is also the first ``*/`` (where anyone else would end it)."""
    first = text.find("*/", i + 2)
    j = i + 2
    while j < len(text):
        if text[j] != "*":
            j += 1
        elif text[j + 1 : j + 2] == "/":
            break
        else:
            j += 2
    if first < 0 or j != first:
        raise _Refused("an unterminated or ambiguous /* comment (`**/` does not end a comment for the engine)")
    return first + 2


def _string_end(text: str, i: int) -> int:
    """One string literal from its opening quote; backslash escapes as the engine knows them (an unknown one
    is refused: the engine would not read a string there). A doubled quote continues the literal here and
    starts a second literal for the engine: both end at the same place."""
    quote, j, n = text[i], i + 1, len(text)
    while j < n:
        c = text[j]
        if c == quote:
            if text[j + 1 : j + 2] == quote:
                j += 2
                continue
            return j + 1
        if c == "\\":
            e = text[j + 1 : j + 2]
            if e in _SIMPLE_ESCAPES and e:
                j += 2
            elif e in ("x", "X") and re.fullmatch(r"[0-9a-fA-F]{2}", text[j + 2 : j + 4]):
                j += 4
            elif e in ("u", "U") and (m := _HEX.match(text, j + 2)):
                j = m.end()
            else:
                raise _Refused(f"an unknown escape \\{e} in a string literal")
            continue
        j += 1
    raise _Refused("an unterminated string literal")


def _backtick_end(text: str, i: int) -> int:
    j = i
    while True:
        j = text.find("`", j + 1)
        if j < 0:
            raise _Refused("an unterminated `name`")
        if text[j + 1 : j + 2] != "`":
            return j + 1
        j += 1


def split_text(cypher: str) -> list[str]:
    """The statements of a text, split at each ``;`` outside strings, quoted names and comments, each
    stripped, empty ones dropped: `db shell "A; B"` runs and prints both. A text the scanner cannot read
    (an unterminated string) stays whole, for the engine to name its error."""
    parts, start, i, n = [], 0, 0, len(cypher)
    try:
        while i < n:
            if cypher.startswith("//", i):
                i = _line_comment_end(cypher, i)
            elif cypher.startswith("/*", i):
                i = _block_comment_end(cypher, i)
            elif cypher[i] in "'\"":
                i = _string_end(cypher, i)
            elif cypher[i] == "`":
                i = _backtick_end(cypher, i)
            elif cypher[i] == ";":
                parts.append(cypher[start:i])
                i = start = i + 1
            else:
                i += 1
    except _Refused:
        return [cypher.strip()] if cypher.strip() else []
    parts.append(cypher[start:])
    return [p.strip() for p in parts if p.strip()]


def statements(toks: list[Token]) -> list[list[Token]]:
    """Split at every ``;`` (the engine runs each part; every part must be a read)."""
    parts: list[list[Token]] = [[]]
    for t in toks:
        if t.kind == "punct" and t.text == ";":
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


def _text(toks: list[Token], k: int) -> str:
    return toks[k].text if 0 <= k < len(toks) and toks[k].kind in ("punct", "word") else ""


def _bound(toks: list[Token]) -> set[str]:
    """Variables a statement introduces: after AS or YIELD, a pattern or list-comprehension variable right
    after ``(``/``[``/``,``, a path variable before ``=``, a lambda variable before ``->``."""
    names: set[str] = set()
    in_yield = False  # YIELD a, b AS c: every name of the list
    for k, t in enumerate(toks):
        before, after = _text(toks, k - 1), _text(toks, k + 1)
        in_yield = (in_yield and (t.kind in ("word", "name") or t.text == ",")) or before.upper() == "YIELD"
        if t.kind not in ("word", "name") or before in (".", ":", "$"):
            continue
        if in_yield or before.upper() == "AS" or after == "=" or (after == "-" and _text(toks, k + 2) == ">"):
            names.add(t.text)
        elif before in ("(", "[", ",") and (after in (":", ")", "]", "{", "|", "*", ",") or after.upper() == "IN"):
            names.add(t.text)
    return names


def _label_alternative(toks: list[Token], k: int) -> bool:
    """``B`` of ``(n:A|B)`` or ``[r:T|U|B]``: a word after ``|`` in a chain of names that starts at a ``:``
    (a label or relationship type, as the first one is). A list comprehension's ``|`` follows an expression,
    never such a chain, so its words are still checked."""
    j = k - 1
    while _text(toks, j) == "|" and j >= 1 and toks[j - 1].kind in ("word", "name"):
        if _text(toks, j - 2) == ":":
            return True
        j -= 2
    return False


def _check_statement(toks: list[Token]) -> None:
    first = toks[0]
    if first.kind == "word" and first.text.upper() in REFUSED_WORDS:
        raise _Refused(first.text.upper())
    if first.kind != "word" or first.text.upper() not in STARTS:
        raise _Refused(f"{first.text[:40]!r} (a read-only statement starts with {', '.join(sorted(STARTS))})")
    bound = _bound(toks)
    # A procedure's output columns (name, type, ...) are names the statement did not bind itself.
    calls_procedure = any(t.kind == "word" and t.text.upper() == "CALL" for t in toks)
    k = 0
    while k < len(toks):
        t = toks[k]
        before, after = _text(toks, k - 1), _text(toks, k + 1)
        if t.kind == "name" and after == "(" and before != "." and t.text.lower() not in FUNCTIONS:
            raise _Refused(f"function `{t.text}` (not an allow-listed read-only function)")
        if (
            t.kind != "word"
            or (before in (".", ":") and after != "(")
            or (after == ":" and before in ("{", ","))
            or _label_alternative(toks, k)
        ):
            k += 1  # literals, parameters, punctuation, property and map keys, labels, relationship types
            continue
        word = t.text.upper()
        if word == "CALL":
            k = _check_call(toks, k)
        elif word in REFUSED_WORDS:
            raise _Refused(word)
        elif word in READ_KEYWORDS:
            k += 1
        elif after == "(":
            if t.text.lower() not in FUNCTIONS:
                raise _Refused(f"function {t.text}() (not an allow-listed read-only function)")
            k += 1
        elif t.text in bound or calls_procedure:
            k += 1
        else:
            raise _Refused(f"{t.text!r} (neither a read keyword nor a variable this statement binds)")


def _check_call(toks: list[Token], k: int) -> int:
    """CALL must name an allow-listed procedure and call it with parentheses (``CALL threads=1`` sets an
    option, ``CALL {...}`` runs a subquery: both refused). Returns the index of the ``(``."""
    parts, j = [], k + 1
    while j < len(toks) and toks[j].kind == "word":
        parts.append(toks[j].text)
        if _text(toks, j + 1) != ".":
            break
        j += 2
    name = ".".join(parts)
    if not parts or _text(toks, j + 1) != "(" or name.lower() not in PROCEDURES:
        shown = name or (toks[k + 1].text[:40] if k + 1 < len(toks) else "")
        raise _Refused(f"CALL {shown} (only allow-listed read-only procedures may be called)")
    return j + 1


# The engine's parser is recursive and slow on nesting: 300 nested brackets or 20,000 NOTs crash the process
# (SIGSEGV), 100 brackets take 3 s and 20 nested CASEs 6 s to parse, before any timeout applies (measured on
# LadybugDB 0.22). Chains crash it too, however flat: an expression of about 8,000 operators in a row
# (``1+1+…``, ``*``, ``^``, ``'a'+'a'+…``, ``1 IN [1] IN [1]…``) or 8,000 subscripts or 9,000 property accesses
# in a row (``[1][0][0]…``, ``m.p.p…``) is SIGSEGV in the main thread and in a worker thread alike, and the
# time is quadratic on the way (1,000 ``+`` take 0.8 s, 4,000 take 9 s, 7,000 take 26 s); a list of 10,000
# elements takes 1.6 s. So a statement's size, nesting, chains and items are capped before the engine sees
# it, for every statement on every open (`check_shape`), far below where it breaks and far above what a
# person writes (the project's own queries: at most 485 tokens, chains of a few operators).
MAX_STATEMENT_CHARS = 100_000
MAX_DEPTH = 24  # brackets, CASE ... END and runs of NOT, together
MAX_CASE_DEPTH = 8
MAX_TOKENS = 20_000  # words, literals and punctuation of the whole text, all its statements together
MAX_CHAIN = 500  # operators, subscripts and property accesses in a row, summed over the enclosing brackets
MAX_ITEMS = 5_000  # elements of one list, entries of one map, arguments of one call, items of one RETURN
_OPEN_CLOSE = {"(": ")", "[": "]", "{": "}"}
_OPERATORS = frozenset("+-*/%^=<>~")
_WORD_OPERATORS = frozenset({"AND", "OR", "XOR", "IN", "IS", "CONTAINS", "STARTS", "ENDS"})
# Words after which an expression starts afresh (a clause, a CASE branch, an alias): a chain ends there.
_CHAIN_BREAKS = frozenset(
    {
        *("MATCH", "OPTIONAL", "UNWIND", "WITH", "RETURN", "WHERE", "ORDER", "BY", "SKIP", "LIMIT", "AS"),
        *("UNION", "CALL", "YIELD", "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "ON"),
        *("CASE", "WHEN", "THEN", "ELSE", "END"),
    }
)
_NOT_OPERANDS = (READ_KEYWORDS | REFUSED_WORDS) - {"NULL", "TRUE", "FALSE", "COUNT", "EXISTS"}


def _ends_operand(t: Token | None) -> bool:
    """Whether a ``[`` after ``t`` is a subscript (after a value) rather than a list or a pattern."""
    if t is None:
        return False
    if t.kind == "punct":
        return t.text in ")]}"
    return t.kind != "word" or t.text.upper() not in _NOT_OPERANDS


def _shape_reason(cypher: str) -> str | None:
    if len(cypher) > MAX_STATEMENT_CHARS:
        return f"a statement of {len(cypher):,} characters (at most {MAX_STATEMENT_CHARS:,})"
    # Tolerant: a text the read-only check refuses (a lone CR, a character outside ASCII) still reaches the
    # engine on a --write open, so it is measured all the same.
    toks = tokens(cypher, tolerant=True, limit=MAX_TOKENS)
    if len(toks) > MAX_TOKENS:
        return f"a statement of more than {MAX_TOKENS:,} tokens (at most {MAX_TOKENS:,})"
    stack: list[str] = []
    chains, items = [0], [1]  # per open bracket (and the top level): operators in a row, items so far
    deepest, cases, nots, prev = 0, 0, 0, None
    for k, t in enumerate(toks):
        word = t.text.upper() if t.kind == "word" else ""
        punct = t.text if t.kind == "punct" else ""
        nots = nots + 1 if word == "NOT" else 0
        if punct == ";":
            stack, chains, items, prev = [], [0], [1], None
            continue
        subscript = punct == "[" and _ends_operand(prev)
        access = punct == "." and k + 1 < len(toks) and toks[k + 1].kind in ("word", "name", "other")
        starts_with = word == "WITH" and prev is not None and prev.text.upper() in ("STARTS", "ENDS")
        if subscript or access or punct in _OPERATORS or word in _WORD_OPERATORS:
            chains[-1] += 1
        elif punct == "," or (word in _CHAIN_BREAKS and not starts_with):
            chains[-1] = 0
            if punct == ",":
                items[-1] += 1
                if items[-1] > MAX_ITEMS:
                    return f"{items[-1]:,} items in one list, map, call or clause (at most {MAX_ITEMS:,})"
        if sum(chains) > MAX_CHAIN:
            return (
                f"an expression of more than {MAX_CHAIN:,} operators, subscripts and property accesses in a row "
                f"(at most {MAX_CHAIN:,})"
            )
        if punct in _OPEN_CLOSE:
            stack.append(_OPEN_CLOSE[punct])
            chains.append(0)
            items.append(1)
        elif punct in (")", "]", "}") and stack and stack[-1] == punct:
            stack.pop()
            chains.pop()
            items.pop()
        elif word == "CASE":
            stack.append("END")
            chains.append(0)
            items.append(1)
            cases = stack.count("END")
            if cases > MAX_CASE_DEPTH:
                return f"CASE nested {cases} deep (at most {MAX_CASE_DEPTH})"
        elif word == "END" and stack and stack[-1] == "END":
            stack.pop()
            chains.pop()
            items.pop()
        deepest = max(deepest, len(stack) + nots)
        if deepest > MAX_DEPTH:
            return f"a statement nested more than {MAX_DEPTH} deep (brackets, CASE and NOT together)"
        prev = t
    return None


class _TextCache:
    """A memo of reasons per statement text, bounded in characters, not in entries: an ``lru_cache(4096)``
    kept 300 one-megabyte texts (+310 MB). Texts over `ENTRY_CHARS` are not kept at all."""

    TOTAL_CHARS = 4_000_000
    ENTRY_CHARS = 20_000

    def __init__(self) -> None:
        from collections import OrderedDict

        self._items: OrderedDict[str, str | None] = OrderedDict()
        self._chars = 0

    def get(self, text: str, compute: Callable[[str], str | None]) -> str | None:
        if text in self._items:
            self._items.move_to_end(text)
            return self._items[text]
        value = compute(text)
        if len(text) <= self.ENTRY_CHARS:
            self._items[text] = value
            self._chars += len(text)
            while self._chars > self.TOTAL_CHARS:
                old, _ = self._items.popitem(last=False)
                self._chars -= len(old)
        return value

    def __len__(self) -> int:
        return len(self._items)

    @property
    def chars(self) -> int:
        return self._chars


_SHAPES = _TextCache()
_REASONS = _TextCache()


def shape_reason(cypher: str) -> str | None:
    """Why ``cypher`` is too large or too deeply nested for the engine to parse safely, or None."""
    return _SHAPES.get(cypher, _shape_reason)


def check_shape(cypher: str) -> None:
    """`StatementTooComplex` (exit 2) for a statement the engine could crash or hang on while parsing."""
    reason = shape_reason(cypher)
    if reason is not None:
        raise StatementTooComplex(
            f"{reason} refused: the engine's parser can crash or hang on such a statement; split it up"
        )


def _refused_reason(cypher: str) -> str | None:
    shape = shape_reason(cypher)
    if shape is not None:
        return shape
    try:
        for stmt in statements(tokens(cypher)):
            _check_statement(stmt)
    except _Refused as e:
        return str(e)
    return None


def refused_reason(cypher: str) -> str | None:
    """Why ``cypher`` may not run on a read-only open, or None. Words inside string literals, comments and
    backtick names are data, so a value such as ``'CREATE'`` in a WHERE clause is fine. A statement too large
    or too deeply nested (`shape_reason`) is refused first, before it is lexed."""
    if len(cypher) > MAX_STATEMENT_CHARS:
        return _shape_reason(cypher)
    return _REASONS.get(cypher, _refused_reason)


def check_read_only(cypher: str) -> None:
    reason = refused_reason(cypher)
    if reason is not None:
        raise ReadOnlyViolation(
            f"{reason} refused: the database is open read-only, and only reads (MATCH, WITH, UNWIND, RETURN, "
            "allow-listed functions and CALLs) run there; use `dishgraph db shell --write` if you mean it"
        )


def parameters(cypher: str) -> set[str]:
    """The ``$NAME`` parameters a text uses (empty when the scanner cannot read it: the engine then reports)."""
    try:
        return {t.text for t in tokens(cypher) if t.kind == "param"}
    except _Refused:
        return set()
