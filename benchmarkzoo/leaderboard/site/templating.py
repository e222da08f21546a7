r"""The Jinja2 environment of the site: autoescaping always on, and the only filters that emit markup.

Every string from a submission reaches the page through autoescaping. The filters here are the
only code that returns :class:`markupsafe.Markup`, and each escapes what it is given: ``link``
makes an ``<a>`` only of an absolute http(s) URL with a host and no whitespace, quotes or
control characters, and shows anything else (``javascript:``, ``data:``, relative paths) as text.
Control and format characters (ESC, NUL, U+202E RIGHT-TO-LEFT OVERRIDE...) never reach a page:
every value is passed through :func:`visible` first, which writes them as ``\uXXXX`` text.
Validation refuses them already; the site does not rely on it.
"""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchmarkzoo.core.extras import require
from benchmarkzoo.leaderboard.text import REFUSED_CATEGORIES

TEMPLATES = Path(__file__).parent / "templates"
#: Longest text shown in a table cell; the full text stays in the cell's tooltip and on its own page.
CELL_CHARS = 80


def visible(value: Any) -> Any:
    r"""``value`` with every control (but newline and tab), format, surrogate or private-use character as ``\uXXXX``.

    Markup made by the filters here is left alone: its parts went through this function already.
    """
    markupsafe = require("markupsafe", "eval", "the leaderboard site")
    if not isinstance(value, str) or isinstance(value, markupsafe.Markup):
        return value
    if not any(_hidden(c) for c in value):
        return value
    return "".join(f"\\u{ord(c):04x}" if _hidden(c) else c for c in value)


def _hidden(c: str) -> bool:
    return c not in "\n\t" and unicodedata.category(c) in REFUSED_CATEGORIES  # newlines and tabs are HTML whitespace


def is_http_url(value: Any) -> bool:
    """Whether ``value`` is an absolute http(s) URL safe to put in an ``href``."""
    if not isinstance(value, str) or not value or len(value) > 2000:
        return False
    if any(ord(c) <= 0x20 or ord(c) == 0x7F or c in "\"'<>\\`" for c in value):
        return False  # browsers strip tabs and newlines inside schemes: "java\tscript:" must not pass
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def link(value: Any, text: Any = None) -> Any:
    """An escaped ``<a>`` to ``value`` when it is an http(s) URL, else the escaped text of ``value``."""
    markupsafe = require("markupsafe", "eval", "the leaderboard site")
    shown = visible(value if text is None else text)
    if is_http_url(value):
        return markupsafe.Markup('<a href="{0}" rel="nofollow noopener noreferrer">{1}</a>').format(value, shown)
    return markupsafe.escape(shown)


def number(value: Any, digits: int = 3) -> str:
    """A number with ``digits`` decimals, or an em dash when there is none."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return "—"
    return f"{value:.{digits}f}"


def interval(value: Any, digits: int = 3) -> str:
    """``[low, high]`` with ``digits`` decimals, or an em dash."""
    if not value or len(value) != 2:
        return "—"
    return f"[{number(value[0], digits)}, {number(value[1], digits)}]"


def shorten(value: Any, limit: int = CELL_CHARS) -> str:
    """``value`` as one line of at most ``limit`` characters (plain text: autoescaping still applies)."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def percent(value: Any) -> str:
    """A fraction as a percentage, or an em dash."""
    return "—" if number(value) == "—" else f"{100 * value:.0f}%"


def environment() -> Any:
    """The site's :class:`jinja2.Environment` (autoescape on for every template, undefined names fail)."""
    jinja2 = require("jinja2", "eval", "the leaderboard site")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=visible,
    )
    env.filters.update(link=link, number=number, interval=interval, shorten=shorten, percent=percent)
    return env


def render(template: str, **context: Any) -> str:
    """Render one template of the site."""
    return environment().get_template(template).render(**context)
