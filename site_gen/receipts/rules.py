"""Small rules every meaning check uses (the receipts layer's and each section's own)."""
from __future__ import annotations

import re
from pathlib import Path

from site_gen.core.errors import SitegenError


def require(condition: bool, message: str, file: Path, where: str) -> None:
    if not condition:
        raise SitegenError(message, file, where)


def anchor_key(ident: str) -> str:
    """What is left of an id in a page anchor (`Q3.5` -> `q3-5`): case and punctuation go."""
    return re.sub(r"[^a-z0-9]+", "-", ident.lower()).strip("-")


def unique_ids(ids: list[str], what: str, where: str, file: Path) -> None:
    """Ids must differ, and differ in more than case and punctuation: pages use them as anchors,
    and two checkpoints sharing one would share a chart."""
    seen: dict[str, str] = {}
    for i, ident in enumerate(ids):
        require(ident not in ids[:i], f"duplicate {what} id '{ident}'", file, f"{where}[{i}].id")
        key = anchor_key(ident)
        require(key not in seen, f"{what} ids '{seen.get(key)}' and '{ident}' differ only in case or punctuation; "
               "on the pages both would be '" + key + "'", file, f"{where}[{i}].id")
        seen[key] = ident
