"""Checkpoints: every checkpoint with each engine's values (a page drawn from the other sections,
with no part of the receipt of its own)."""
from __future__ import annotations

from site_gen.sections.base import Section

SECTION = Section(key="checkpoints", title="Checkpoints", package=__name__, needs=("precision",), provenance=True)
