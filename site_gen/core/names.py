"""How an engine and its version are written on every page, card and summary."""
from __future__ import annotations

import re

# An engine version the source did not record (the serving importers write it so, never a guess).
UNRECORDED = "unrecorded"

_V_PREFIX = re.compile(r"[vV](?=\d)")


def version_text(version: str) -> str:
    """A version as pages write it: `v0.5.3`, whether the receipt wrote `0.5.3` or `v0.5.3` (never `vv0.5.3`)."""
    return version if _V_PREFIX.match(version) else f"v{version}"


def engine_label(name: str, version: str) -> str:
    """`SGLang v0.5.3`; the name alone when the version is unrecorded, or when the name already says
    it (a ledger's build label, `tpurtell 0.8.0 + kpool fixes`, names its version its own way)."""
    if version == UNRECORDED:
        return name
    bare = version[1:] if _V_PREFIX.match(version) else version
    if re.search(rf"(?<![\w.])[vV]?{re.escape(bare)}(?![\w.])", name):
        return name
    return f"{name} {version_text(version)}"
