"""The receipt schema's fastjsonschema validator, generated once per schema and kept in the
persistent cache (site_gen/cache.py): generating its code is a fifth of a small build.

The entry is named by a hash of the final schema (sections may add their parts to it) and of
fastjsonschema's version, so a changed schema generates a new validator, never reuses an old one.
"""
from __future__ import annotations

import json
import marshal
import types
from functools import partial
from typing import Any, Callable


def compiled(schema: dict[str, Any], formats: dict[str, Callable[[Any], bool]]) -> Callable[[Any], Any]:
    """A validator of `schema` (raises on invalid data), from the cache when one was made before."""
    import fastjsonschema
    from fastjsonschema.ref_resolver import RefResolver

    from site_gen import cache

    text = json.dumps(schema, sort_keys=True, ensure_ascii=True)
    name = cache.key("fastjsonschema", fastjsonschema.VERSION, text, sorted(formats))
    code = _code(cache.read("validators", name))
    if code is None:
        # Kept compiled (marshal, keyed by the Python version too): compiling the generated
        # source costs as much again as generating it.
        code = compile(fastjsonschema.compile_to_code(schema, formats=formats), "<sitegen receipt validator>", "exec")
        cache.write("validators", name, marshal.dumps(code))
    scope: dict[str, Any] = {}
    exec(code, scope)
    entry = RefResolver.from_schema(schema, store={}).get_scope_name()
    return partial(scope[entry], custom_formats=formats)


def _code(data: bytes | None) -> types.CodeType | None:
    try:
        code = marshal.loads(data) if data is not None else None
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None
