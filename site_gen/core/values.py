"""Checks of one value of mkdocs.yml, each refusing a wrong one with its key's path
(`plugins[0].sitegen.noise_band`) and what was expected (site_gen/core/config.py, nav.py)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from site_gen.core.errors import SitegenError


def described(value: Any) -> str:
    """What a value is, as the message's "got ...": `null`, `int 5`, `list [1, 2]`."""
    if value is None:
        return "null"
    if value == "" and isinstance(value, str):
        return "an empty string"
    shown = repr(value)
    return f"{type(value).__name__} {shown if len(shown) <= 60 else shown[:57] + '...'}"


def check_number(value: Any, where: str, file: Path | None, low: float | None = None, high: float | None = None) -> float:
    bounds = (f" between {low} and {high}" if low is not None and high is not None else
              f" of at least {low}" if low is not None else "")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SitegenError(f"expected a number{bounds}, got {described(value)}", file, where)
    # NaN compares false with any bound and infinity passes an open one: both refused by name.
    if not math.isfinite(value) or (low is not None and value < low) or (high is not None and value > high):
        raise SitegenError(f"expected a finite number{bounds}, got {value!r}", file, where)
    return float(value)


def check_text(value: Any, where: str, file: Path | None, what: str = "a string") -> str:
    if not isinstance(value, str) or not value:
        raise SitegenError(f"expected {what}, got {described(value)}", file, where)
    return value


def check_key(key: Any, where: str, file: Path | None) -> str:
    """A mapping's key as a name: text, never a number or null (`5:` or `~:` in YAML)."""
    if not isinstance(key, str):
        raise SitegenError(f"expected a name as key, got {described(key)}", file, where or None)
    return key


def check_keys(value: Any, where: str, file: Path | None) -> None:
    """Every key of every mapping inside `value` is text (templates reach values by name).

    Iterative, and each list or mapping is looked at once: MkDocs' own loader (the plugin's case)
    has no limits, so `value` may be deep, share one list a billion times over, or contain itself.
    """
    seen: set[int] = set()
    todo = [(value, where)]
    while todo:
        node, path = todo.pop()
        if not isinstance(node, (dict, list)) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            children = [(item, f"{path}.{check_key(key, path, file)}") for key, item in node.items()]
        else:
            children = [(item, f"{path}[{i}]") for i, item in enumerate(node)]
        todo.extend(reversed(children))  # depth first, in the file's order


def check_url(value: Any, where: str, file: Path | None) -> str:
    """An http(s) URL with a host, or "" for none: it becomes links and canonical addresses, and any
    other scheme (javascript:, data:, vbscript:, file:) would be followed by a reader's click."""
    if value is None or value == "":
        return ""
    url = check_text(value, where, file)
    parts = urlsplit(url) if url.isprintable() and url.strip() == url else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise SitegenError(f"expected an http:// or https:// URL, got {url!r}", file, where)
    return url
