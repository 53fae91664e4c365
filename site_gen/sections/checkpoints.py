"""Checkpoints: every checkpoint with each engine's values (a page drawn from the other sections)."""
from __future__ import annotations

from site_gen.render import views
from site_gen.sections.base import Section

SECTION = Section(key="checkpoints", title="Checkpoints", view=views.checkpoints, needs=("precision",))
