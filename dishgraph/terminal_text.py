"""Text for the terminal: data may hold control characters, and the terminal must not obey them.

A glossary class, a dish name or a file name from a scraped corpus can carry ESC sequences (CSI to move the
cursor or clear the screen, OSC to set the title or plant a hyperlink), C1 controls, or bidi overrides that
make a line read differently from what it holds. Printed raw, the terminal acts on them. The rule is an
allow-list: a printable character (`str.isprintable`: letters, marks, numbers, punctuation, symbols and the
plain space) passes; every other one (C0/C1 controls, DEL, format characters such as U+202E or U+200B, line
and paragraph separators, surrogates, private-use and unassigned code points) is shown as its Python escape
(``\\x1b``, ``\\u202e``, ``\\U000e0001``), so a reader sees that it is there and nothing acts on it. Newline and
tab pass where the text is a message or a table (`keep`), never inside a one-line cell.
"""

from __future__ import annotations

from functools import lru_cache

MESSAGE_KEEP = "\n\t"


@lru_cache(maxsize=4096)
def _escaped_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with every character that is not printable (and not in ``keep``) written as its escape."""
    if text.isprintable():
        return text  # the common case, one C-level pass
    return "".join(ch if ch.isprintable() or ch in keep else _escaped_char(ch) for ch in text)


def is_terminal_safe(text: str, keep: str = "") -> bool:
    """True when ``text`` holds only printable characters (and those of ``keep``)."""
    return all(ch.isprintable() or ch in keep for ch in text)


def safe_console(stderr: bool = False, **kwargs):
    """A rich console (markup off: data prints literally) whose every printed text is escaped as above.

    Tables and messages escape their own cells where widths matter (`commands._tables`); this is the net
    under everything else a command prints: rich's own control segments (cursor moves of a progress bar)
    pass, the text of every other segment goes through `escape_controls`."""
    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        def render_str(self, text: str, **kwargs):
            # before rich's Text, which drops BEL/BS/VT/FF/CR silently: shown escaped like the rest
            return super().render_str(escape_controls(text, MESSAGE_KEEP), **kwargs)

        def render(self, renderable, options=None):
            for seg in super().render(renderable, options):
                if seg.control or seg.text.isprintable():
                    yield seg
                else:
                    yield Segment(escape_controls(seg.text, MESSAGE_KEEP), seg.style, seg.control)

    return SafeConsole(stderr=stderr, markup=False, **kwargs)
