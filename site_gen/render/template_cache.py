"""Jinja's compiled templates kept in the persistent cache (see site_gen/cache.py).

Compiling the theme's templates is most of a small site's build; the compiled code is found again
by the template's name, file and source (Jinja checks the source's checksum too), so an edited
template is compiled afresh and never served stale.
"""
from __future__ import annotations

import json
from typing import Callable, Iterable

import jinja2

from site_gen import cache


class TemplateCache(jinja2.BytecodeCache):
    """A `jinja2.BytecodeCache` over the checksummed entries of `site_gen.cache`."""

    def __init__(self, settings: object):
        # What else shapes the compiled code: the environment's syntax options and Jinja itself.
        self.settings = (jinja2.__version__, settings)

    def _name(self, bucket: jinja2.bccache.Bucket) -> str:
        return cache.key("template", self.settings, bucket.key, bucket.checksum)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = cache.read("templates", self._name(bucket))
        if data is not None:
            bucket.bytecode_from_string(data)  # Jinja resets the bucket if its magic or checksum differ

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        cache.write("templates", self._name(bucket), bucket.bytecode_to_string())


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
