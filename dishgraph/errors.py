"""Typed errors the library raises and the exit codes the CLI maps them to.

The library never prints or exits: it raises one of these (or a standard exception such as
``FileNotFoundError``), and `dishgraph.cli` turns it into a one-line message and an exit code in one place
(`dishgraph.cli_errors`), the way sqlite-utils does. Keeping the codes here lets scripts and tests import them.
"""

from __future__ import annotations

# Exit codes of every `dishgraph` command (documented in docs/cli.md by dishgraph/docs_cli.py).
EXIT_OK = 0  # done
EXIT_FAILED = 1  # failed: nothing (or not everything asked for) was done; the message says why
EXIT_USAGE = 2  # usage: a bad option, argument or combination; nothing was done
EXIT_SKIPPED = 3  # finished, but some input was skipped (each skipped record reported with file:line)
EXIT_VIOLATIONS = 4  # a check ran and found what it looks for (`order check`: violated constraints), like diff's 1
EXIT_IN_USE = 5  # the database stayed in use by another process for longer than --wait; nothing was done
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)

EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_FAILED: "failed: an error (one line on stderr says what and where); nothing or not everything was done. "
    "An input file that is missing or unreadable is this code in every command",
    EXIT_USAGE: "usage error: the command line itself is wrong (an unknown option, a bad option value, a "
    "missing argument, options that exclude each other); nothing was done",
    EXIT_SKIPPED: "finished with skipped input: every good record was stored, bad ones were skipped and "
    "reported with file and line",
    EXIT_VIOLATIONS: "check found violations: the check ran and the input breaks a rule (`order check`), or "
    "the database is not whole (`db check`); "
    "the output lists them",
    EXIT_IN_USE: "database in use: another process held the database for longer than --wait SECONDS "
    "($DISHGRAPH_WAIT, default 60); the message names it (PID, command, since when); nothing was done",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); what was stored before the interrupt stays",
}


class DishgraphError(Exception):
    """Base of the errors the CLI reports as one line (never with a traceback unless --debug)."""

    exit_code = EXIT_FAILED


class UsageError(DishgraphError):
    """A bad value for an option or argument, found after parsing (e.g. an unknown --segmenter)."""

    exit_code = EXIT_USAGE


class InputError(DishgraphError):
    """An input file cannot be used at all (missing, a directory, nothing readable in it)."""


class DishgraphNotice(UserWarning):
    """Something the user should know that stops nothing (the CLI prints it as one "note:" line on stderr)."""


class DatabaseError(DishgraphError):
    """The database cannot be opened or refused a statement (locked, needs recovery, bad Cypher)."""

    abandoned = False  # a statement still runs in the engine: the CLI exits at once, without closing


class ReadOnlyViolation(DatabaseError):
    """A statement that could write, or touch files or the network, on a read-only open."""

    exit_code = EXIT_USAGE


class StatementTooComplex(DatabaseError):
    """A statement too large or too deeply nested for the engine to parse without crashing or hanging."""

    exit_code = EXIT_USAGE


class UnknownName(DishgraphError):
    """A dish, pair or query the graph does not know."""


def nearest_path(path: str) -> str:
    """ "; did you mean report/replace.txt?" for a misspelled file or folder: the closest existing name, at the
    first part of the path that does not exist (names listed from its folder, compared by difflib)."""
    import difflib
    import os.path

    parts, head = [], path
    while head and not os.path.exists(head):
        head, tail = os.path.split(head)
        if not tail:
            break
        parts.append(tail)
    if not parts:
        return ""
    folder = head or "."
    try:
        names = [n for n in os.listdir(folder) if not n.startswith(".")][:5000]
    except OSError:
        return ""
    found = difflib.get_close_matches(parts[-1], names, n=1, cutoff=0.6)
    if not found:
        return ""
    guess = (
        os.path.join(head, found[0], *reversed(parts[:-1])) if head else os.path.join(found[0], *reversed(parts[:-1]))
    )
    return f"; did you mean {guess}?"
