"""Author-page markdown with sitegen's blocks and figures swapped for tokens, and the pieces put back
after the markdown is converted. Apart from render/blocks.py (which imports pandas): the MkDocs
plugin restores a page it expanded in an earlier build without loading the pipeline."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from site_gen.core.diagnostics import Diagnostic


@dataclass
class Expanded:
    """An author page's markdown with blocks and figures swapped for tokens, and their HTML."""

    markdown: str
    pieces: list[str] = field(default_factory=list)
    marker: str = "SITEGEN0Z"  # a placeholder prefix that the page's text does not contain
    charts: bool = False
    blocks: list[str] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)  # (line, message) of contradicted statements

    def token(self, i: int) -> str:
        return f"{self.marker}{i}Z"

    def restore(self, html: str) -> str:
        """Puts each piece where its token ended up; a block's token stands alone in a paragraph.
        One pass: receipt text inside a piece is never taken for a token."""
        return put_back(html, self.marker, self.pieces, paragraph=True)


def put_back(html: str, marker: str, pieces: list[str], *, paragraph: bool = False) -> str:
    """Each placeholder of `marker` replaced by its piece, in one pass: a piece's own text (receipt
    strings in it) is never searched for placeholders. With `paragraph`, a placeholder alone in a
    paragraph takes the paragraph's place."""
    found = re.compile(("(<p>)?" if paragraph else "") + re.escape(marker) + r"(\d+)Z" + ("(</p>)?" if paragraph else ""))

    def piece(m: re.Match) -> str:
        shown = pieces[int(m.group(2 if paragraph else 1))]
        if paragraph and bool(m.group(1)) != bool(m.group(3)):
            return (m.group(1) or "") + shown + (m.group(3) or "")
        return shown
    return found.sub(piece, html)
