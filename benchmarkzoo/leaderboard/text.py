r"""Untrusted text: how it is shown in a message, which characters it may hold, which names may be file names.

A submission's strings reach terminals (refusal messages), HTML (the site) and file names (the
submissions folder). :func:`shown` is the one way a refusal message quotes one: ``repr``-style, so
ESC, NUL, bidirectional overrides and lone surrogates arrive as ``\x1b``, ``\x00``, ``\u202e``,
``\ud800``, and long values are cut.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

#: Longest piece of untrusted text a message quotes.
SHOWN_CHARS = 120
#: Unicode categories refused anywhere in a submission's text: controls (ESC, NUL, newline), format
#: characters (bidirectional overrides, zero-width joiners, BOM), surrogates, private use,
#: unassigned, and line/paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: A name that becomes part of a file name: ASCII letters, digits and ``_.+-``, starting and ending
#: with a letter or digit (no trailing dot or space, which Windows strips), at most 64 characters.
SAFE_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_.+-]{0,62}[A-Za-z0-9])?$")
#: Device names Windows reserves in every folder, with any extension (``nul.json`` too), in any case.
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{d}{i}" for d in ("com", "lpt") for i in [*"0123456789", "¹", "²", "³"]}
)


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``value`` quoted for a message: its ``repr`` with every non-printable character escaped, cut to ``limit``.

    ``repr`` already escapes ASCII controls and lone surrogates; format characters such as U+202E
    (RIGHT-TO-LEFT OVERRIDE) are printable to ``repr``, so they are escaped here as well.
    """
    if isinstance(value, int) and value.bit_length() > 256:
        return f"an integer of {value.bit_length()} bits"  # str() of a huge int is slow, and refused past 4300 digits
    if isinstance(value, int | float | bool) or value is None:
        return str(value)[:limit]  # digits, signs, 'e', '.', 'inf', 'nan', 'True', 'None': nothing to escape
    if not isinstance(value, str):
        value = repr(value)
    cut = len(value) > limit
    text = repr(value[:limit])
    text = "".join(c if unicodedata.category(c) not in REFUSED_CATEGORIES else f"\\u{ord(c):04x}" for c in text)
    return text + ("…" if cut else "")


def printable(text: str) -> str:
    """``text`` itself when it holds no refused character, else :func:`shown` (quoted and escaped)."""
    return text if refused_character(text) is None else shown(text, limit=len(text))


def refused_character(text: str) -> str | None:
    """Why ``text`` may not appear in a submission (its first refused character), or ``None``."""
    for i, c in enumerate(text):
        category = unicodedata.category(c)
        if category in REFUSED_CATEGORIES:
            name = unicodedata.name(c, "unnamed") if category != "Cs" else "a lone surrogate"
            return f"character {i} is U+{ord(c):04X} ({name}, category {category}), which text may not contain"
    return None


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be part of a file name on common file systems, or ``None``."""
    if not SAFE_NAME.match(name):
        return (
            "names are 1 to 64 ASCII letters, digits and '_', '.', '+', '-', starting and ending with a letter or digit"
        )
    if name.split(".")[0].lower() in WINDOWS_RESERVED:
        return f"{name.split('.')[0]!r} is a device name Windows reserves"
    return None
