"""HTML escaping as plain text: markupsafe's own escaping (the same bytes), without making a Markup
object of every value. A page writes thousands of values; Jinja joins what a page, a macro or a
block writes and makes the result Markup itself, so its pieces need not be."""
from __future__ import annotations

from typing import Any

from markupsafe import escape

try:
    from markupsafe._speedups import _escape_inner as escape_str  # markupsafe's C escaping of a str
except ImportError:  # its pure-Python build: the same escaping, through Markup
    def escape_str(s: str, /) -> str:
        return str(escape(s))


def escape_text(value: Any) -> str:
    """What `{{ value }}` writes under autoescape: a value with `__html__` (Markup, a figure) as it
    says, any other as markupsafe escapes its text."""
    if type(value) is str:
        return escape_str(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        return html()
    return escape_str(str(value))
