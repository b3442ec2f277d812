"""The one place where exceptions become one-line messages and exit codes (sqlite-utils style).

Commands stay thin and let the library's exceptions through; `DishgraphGroup.invoke` (the root command
group) catches whatever reaches the edge and prints ``error: <one line>`` on stderr, with the exit code
of `message_for`. ``dishgraph --debug …`` or ``DISHGRAPH_DEBUG=1`` re-raises instead, for the traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from typer.core import TyperGroup
from typer.exceptions import Abort, Exit, TyperException

from dishgraph.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, DishgraphError, nearest_path

INTERRUPTED = EXIT_INTERRUPTED


def debug_enabled(ctx=None) -> bool:
    if os.environ.get("DISHGRAPH_DEBUG", "").strip().lower() not in ("", "0", "false", "no"):
        return True
    return bool(ctx is not None and ctx.find_root().params.get("debug"))


def one_line(text: str, limit: int = 500) -> str:
    """Messages are one line: whitespace runs (newlines included) become one space; very long ones are cut."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def engine_io_message(e: BaseException) -> str | None:
    """The engine's own I/O failure (a RuntimeError "IO exception: Cannot write to file. path: P … Error: …")
    in words, or None for any other error. Its errno text is often "Success" (a short write sets none), so
    the free space where it wrote is said instead: a full disk is by far the usual cause."""
    import re
    import shutil
    from pathlib import Path

    text = " ".join(str(e).split())
    if not isinstance(e, RuntimeError) or not text.startswith("IO exception"):
        return None
    m = re.search(r"path: (\S+)", text)
    where = Path(m.group(1)) if m else None
    detail = re.sub(r"\s*Error: Success\.?", "", text.removeprefix("IO exception: "))
    free = ""
    if where is not None:
        for parent in (where.parent, *where.parent.parents):
            if parent.exists():
                free = f" ({shutil.disk_usage(parent).free / 2**20:.1f} MiB free on its filesystem)"
                break
    return f"{where or 'a file'}: could not be written: is the disk full?{free} The engine said: {detail}"


def _os_message(e: OSError) -> str:
    import errno

    where = e.filename if e.filename is not None else None
    what = e.strerror or str(e)
    if e.errno == errno.ENOSPC and where is None:
        # A failed write() names no file; most writes without one are temporary files: name where they go.
        import tempfile

        return f"{what} (temporary files go to {tempfile.gettempdir()}: free space there or set TMPDIR)"
    if isinstance(e, IsADirectoryError):
        what = "is a directory, not a file"
    elif isinstance(e, NotADirectoryError):
        what = "is not a directory (or a path component is a file)"
    elif isinstance(e, FileNotFoundError) and where is not None:
        import os.path

        what = (
            "dangling symbolic link (its target does not exist)"
            if os.path.islink(where)
            else "no such file or directory" + nearest_path(str(where))
        )
    elif e.errno == errno.ELOOP:
        what = "a symbolic link loop (too many levels of links)"
    return f"{where}: {what}" if where is not None else what


def message_for(e: BaseException) -> tuple[int, str]:
    """(exit code, one-line message) for an exception that reached the CLI edge."""
    from dishgraph.ingest.readers import ReadError

    if isinstance(e, DishgraphError):
        return e.exit_code, one_line(str(e))
    if isinstance(e, ModuleNotFoundError):
        from dishgraph.extras import missing_message

        hint = missing_message(e)
        if hint is not None:
            return EXIT_FAILED, hint
    if isinstance(e, ReadError):
        return EXIT_FAILED, one_line(str(e))
    import pickle

    if isinstance(e, pickle.UnpicklingError):  # the safe loader refused a pickle naming code to run
        return EXIT_FAILED, one_line(f"refused: {e}")
    if isinstance(e, UnicodeError):
        return EXIT_FAILED, one_line(f"cannot decode input ({e}); give a UTF-8 file or --encoding")
    if isinstance(e, OSError) and type(e).__module__ == "builtins":
        return EXIT_FAILED, one_line(_os_message(e))
    mod = type(e).__module__ or ""
    if mod.startswith("neo4j"):
        return EXIT_FAILED, one_line(f"Neo4j: {type(e).__name__}: {e}")
    if isinstance(e, RecursionError):
        return EXIT_FAILED, "input nested too deeply to process"
    if isinstance(e, MemoryError):
        return EXIT_FAILED, "out of memory"
    if (io := engine_io_message(e)) is not None:
        return EXIT_FAILED, one_line(io)
    if isinstance(e, (ValueError, KeyError, LookupError, RuntimeError, TypeError)) and str(e):
        text = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        return EXIT_FAILED, one_line(text)
    return EXIT_FAILED, one_line(f"{type(e).__name__}: {e} (run with --debug for the traceback)")


def reported(message: str, code: int = EXIT_FAILED) -> DishgraphError:
    """A `DishgraphError` carrying ``message`` and exit ``code``: a command's ``raise reported(...)`` is its one
    way to fail (no hand-written ``error:`` line and ``typer.Exit`` pair); the edge prints and exits."""
    err = DishgraphError(message)
    err.exit_code = code
    return err


@contextmanager
def exit_on(*types: type[BaseException], code: int = EXIT_USAGE) -> Iterator[None]:
    """Inside the block, a library exception of ``types`` becomes a one-line error with exit ``code``, its
    message unchanged (a KeyError's message is its argument, not its repr). Commands use it where an
    exception's usual exit code (`message_for`) is not the documented one, e.g. a bad option value (2).

    One rule wins over ``code``: a file the system refuses (missing, unreadable, a full disk: a built-in
    OSError, or the engine's own "IO exception") is a failure (1) in every command, never a usage error, and
    keeps its message naming the path."""
    try:
        yield
    except types as e:
        if isinstance(e, OSError) and type(e).__module__ == "builtins":
            raise reported(_os_message(e), EXIT_FAILED) from None
        if (io := engine_io_message(e)) is not None:  # the engine's write failed: I/O, not a usage error
            raise reported(io, EXIT_FAILED) from None
        text = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        raise reported(str(text), code) from None


def report(code_and_message: tuple[int, str]) -> None:
    from rich.text import Text

    from dishgraph.terminal_text import escape_controls, safe_console

    # Its own stderr console (markup off and control characters escaped, as commands._common's): importing
    # that one would run back up into the commands package, which imports this module (an import cycle).
    err_console = safe_console(stderr=True)
    code, message = code_and_message
    label = "usage error:" if code == EXIT_USAGE else "error:"
    err_console.print(Text.assemble((label, "bold red"), " ", escape_controls(message)), soft_wrap=True)


def _group_names(ctx) -> list[str]:
    """The group names between the root and ``ctx`` (``["eval"]`` for ``dishgraph eval l1``): the root's own
    name differs by how it was started (``dishgraph``, ``python -m dishgraph.cli``), so it is left out."""
    names = []
    while ctx.parent is not None:
        names.append(ctx.info_name)
        ctx = ctx.parent
    return names[::-1]


def _guarded(callback, command: str):
    if getattr(callback, "_dishgraph_guarded", False):
        return callback
    import functools

    @functools.wraps(callback)
    def run(*args, **kwargs):
        from dishgraph.cli_outputs import guard

        guard(command, kwargs)
        if type(kwargs.get("workers")) is int:  # every --workers, also one a command forgot to cap itself
            from dishgraph.cli_workers import capped_workers

            kwargs["workers"] = capped_workers(kwargs["workers"])
        return callback(*args, **kwargs)

    run._dishgraph_guarded = True  # type: ignore[attr-defined]
    return run


class DishgraphGroup(TyperGroup):
    """The group class of the root app and of every command group: every command runs inside an ``invoke``
    of one, so this is the edge every error crosses (a group app invoked on its own, as tests do, too).
    The commands it hands out have their help reflowed (`dishgraph.cli_help`): the terminal wraps it."""

    def get_command(self, ctx, cmd_name):
        from dishgraph.cli_help import reflow

        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            cmd.help = reflow(cmd.help)
        return cmd

    def resolve_command(self, ctx, args):
        """Every leaf command runs behind the output rule (`dishgraph.cli_outputs.guard`): its callback is
        wrapped once, here, where each command is looked up, so no command can forget it."""
        name, cmd, rest = super().resolve_command(ctx, args)
        if cmd is not None and not hasattr(cmd, "commands") and cmd.callback is not None:
            cmd.callback = _guarded(cmd.callback, " ".join([*_group_names(ctx), name]))
        return name, cmd, rest

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (Exit, Abort, TyperException):
            raise  # typer's own: usage errors (exit 2), typer.Exit, Ctrl-C at a prompt
        except KeyboardInterrupt as e:
            if debug_enabled(ctx):
                raise
            report((INTERRUPTED, "interrupted"))
            if type(e).__name__ == "QueryAbandoned":  # a statement still runs in the engine: leave at once
                import sys

                sys.stderr.flush()
                os._exit(INTERRUPTED)
            raise Exit(INTERRUPTED) from None
        except Exception as e:  # noqa: BLE001 - the edge: nothing may reach a user as a traceback
            if debug_enabled(ctx):
                raise
            code, message = message_for(e)
            report((code, message))
            if getattr(e, "abandoned", False):  # a statement still runs in the engine: leave at once
                import sys

                sys.stderr.flush()
                os._exit(code)
            raise Exit(code) from None
