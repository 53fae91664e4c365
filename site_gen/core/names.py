"""How an engine and its version are written on every page, card and summary."""
from __future__ import annotations

import re

# An engine version the source did not record (the serving importers write it so, never a guess).
UNRECORDED = "unrecorded"

_V_PREFIX = re.compile(r"[vV](?=\d)")
# A version number (`0.5.3`, `2`, `1.0rc1`, `4.0.0-beta.2`): written with a v. Anything else (a
# commit `45955d81bfa6`, a date, a name) is written as the receipt gives it.
_NUMBERED = re.compile(r"\d+(\.\d+)*([a-z]+\d*)?([-+][0-9A-Za-z.-]+)?")


def version_text(version: str) -> str:
    """A version as pages write it: `v0.5.3`, whether the receipt wrote `0.5.3` or `v0.5.3` (never
    `vv0.5.3`); a version that is no number (a commit) as it is."""
    if _V_PREFIX.match(version) or not _NUMBERED.fullmatch(version):
        return version
    return f"v{version}"


def engine_label(name: str, version: str) -> str:
    """`SGLang v0.5.3`; the name alone when the version is unrecorded, or when the name already says
    it (a ledger's build label, `tpurtell 0.8.0 + kpool fixes`, names its version its own way)."""
    if version == UNRECORDED:
        return name
    bare = version[1:] if _V_PREFIX.match(version) else version
    if re.search(rf"(?<![\w.])[vV]?{re.escape(bare)}(?![\w.])", name):
        return name
    return f"{name} {version_text(version)}"
