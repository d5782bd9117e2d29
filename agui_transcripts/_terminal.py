r"""Stream text made safe to show: control characters and bidirectional controls escaped.

A log's ids and text reach a terminal through ``show`` and ``check`` and a browser
through the HTML view. Written raw, an escape sequence sets the window title, clears the
screen or writes the clipboard on terminals that allow it, and a right-to-left override
(U+202E) makes a line read reversed. Each such character is shown as its escape
(``\x1b``, ``\u202e``) instead, so it is seen and does nothing.
"""

from __future__ import annotations

import re

__all__ = ["visible"]

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional marks,
# embeddings, overrides and isolates.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_IN_TEXT = re.compile(f"[{_CONTROLS}]")
_IN_LINE = re.compile(f"[{_CONTROLS}\t\n]")


def _escape(found: re.Match[str]) -> str:
    code = ord(found[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character shown as its escape.

    ``one_line``: tabs and newlines too (an id, a name, a status line).
    """
    pattern = _IN_LINE if one_line else _IN_TEXT
    return pattern.sub(_escape, text) if pattern.search(text) else text
