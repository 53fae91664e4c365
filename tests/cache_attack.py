"""An attacker's rewrite of a build cache, for tests/test_cache_trust.py (imported by a process of
its own too, so it imports nothing of the tests' set-up)."""
from __future__ import annotations

import json
import marshal
import os
import pickle
from pathlib import Path

from site_gen.building import cache
class _Touch:
    """Unpickled, creates the marker file (what a planted pickle would do, as root)."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _entries(root: Path):
    """(kind, name, path) of every entry under a cache folder."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if path.is_file() and len(rel) == 3 and not path.name.startswith("."):
            yield rel[0], rel[2], path


def _evil(kind: str, payload: bytes, marker: Path) -> bytes:
    """What an attacker writes in place of an entry's payload: code where code might be loaded,
    a script in every page where pages are kept."""
    import jinja2.bccache

    code = compile(f"open({str(marker)!r}, 'w').close()", "<planted>", "exec")
    if payload.startswith(jinja2.bccache.bc_magic):
        return jinja2.bccache.bc_magic + pickle.dumps(_Touch(str(marker)), 2) + marshal.dumps(code)
    unpacked = cache.unpack(payload)
    if unpacked is not None:
        head, files = unpacked
        files = {n: d.replace(b"</h1>", b"</h1><script>alert('planted')</script>") if n.endswith(".html") else d
                 for n, d in files.items()}
        return cache.pack(head, files)
    try:
        json.loads(payload)
        return payload  # a list of names or files: planted below, as a listing of a stale site
    except ValueError:
        pass
    if kind == "validators":
        return marshal.dumps(code)
    return pickle.dumps(_Touch(str(marker)))


