"""What a template's source names, kept in the persistent cache (see site_gen/building/cache.py) as data.

Compiled templates are not kept there: they are code (see site_gen/render/pages.py `environment`).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable

import jinja2

from site_gen.building import cache
def references(source: str, find: Callable[[], Iterable[str | None]]) -> tuple[str | None, ...]:
    """The templates a template's source names (`find()` parses it), kept by the source's hash:
    parsing a template only to list its references costs as much as compiling it."""
    # The rule's version is in the key: entries found by an older rule (before `prefix*`) are not used.
    name = cache.key("references", 2, jinja2.__version__, source)
    data = cache.read("templates", name)
    if data is not None:
        try:
            found = json.loads(data)
        except ValueError:
            found = None
        if isinstance(found, list) and all(x is None or isinstance(x, str) for x in found):
            return tuple(found)
    refs = tuple(find())
    cache.write("templates", name, json.dumps(refs).encode("utf-8"))
    return refs
