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

EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_FAILED: "failed: an error (one line on stderr says what and where); nothing or not everything was done",
    EXIT_USAGE: "usage error: a bad option, argument, option value or combination; nothing was done",
    EXIT_SKIPPED: "finished with skipped input: every good record was stored, bad ones were skipped and "
    "reported with file and line",
}


class DishgraphError(Exception):
    """Base of the errors the CLI reports as one line (never with a traceback unless --debug)."""

    exit_code = EXIT_FAILED


class UsageError(DishgraphError):
    """A bad value for an option or argument, found after parsing (e.g. an unknown --segmenter)."""

    exit_code = EXIT_USAGE


class InputError(DishgraphError):
    """An input file cannot be used at all (missing, a directory, nothing readable in it)."""


class DatabaseError(DishgraphError):
    """The database cannot be opened or refused a statement (locked, needs recovery, bad Cypher)."""


class ReadOnlyViolation(DatabaseError):
    """A statement that could write, or touch files or the network, on a read-only open."""

    exit_code = EXIT_USAGE


class UnknownName(DishgraphError):
    """A dish, pair or query the graph does not know."""
