"""Share card images: a small RGB canvas, bitmap text and a PNG writer, in pure Python.

Chat apps and forums show a PNG (not an SVG) beside a posted link. The card is drawn from the
report's data with Spleen bitmap glyphs for Latin-1 and GNU Unifont's beyond it (`cardfont.py`:
Greek, Cyrillic, Latin Extended, Chinese, Japanese, Korean) and written with zlib: the same input
gives the same bytes, with no imaging library. A character neither covers (a script that needs
shaping or runs right to left, an emoji) is drawn as a box, and the card says so in its footer.
"""
from __future__ import annotations

import re
import struct
import zlib
from functools import lru_cache

from site_gen.render import where
from site_gen.render.cardfont import Font, drawable, font  # noqa: F401  (the card's text, re-exported for its tests)

Colour = tuple[int, int, int]


def hex_colour(value: str) -> Colour:
    value = value.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


@lru_cache(maxsize=8)
def _disc(r: float) -> tuple[tuple[int, int, float], ...]:
    """Pixel offsets and coverage of a disc of radius r around a pixel centre."""
    out = []
    for dy in range(-int(r) - 1, int(r) + 2):
        for dx in range(-int(r) - 1, int(r) + 2):
            alpha = min(1.0, max(0.0, r + 0.5 - (dx * dx + dy * dy) ** 0.5))
            if alpha > 0:
                out.append((dx, dy, alpha))
    return tuple(out)


class Canvas:
    def __init__(self, width: int, height: int, background: Colour):
        self.width, self.height = width, height
        self.rows = [bytearray(bytes(background) * width) for _ in range(height)]

    def rect(self, x: int, y: int, w: int, h: int, colour: Colour) -> None:
        x0, x1 = max(0, x), min(self.width, x + w)
        if x1 <= x0:
            return
        fill = bytes(colour) * (x1 - x0)
        for row in range(max(0, y), min(self.height, y + h)):
            self.rows[row][x0 * 3:x1 * 3] = fill

    def blend(self, x: int, y: int, colour: Colour, alpha: float) -> None:
        if 0 <= x < self.width and 0 <= y < self.height and alpha > 0:
            row, i = self.rows[y], x * 3
            for k in range(3):
                row[i + k] = round(row[i + k] * (1 - alpha) + colour[k] * alpha)

    def dot(self, cx: float, cy: float, r: float, colour: Colour) -> None:
        """A filled circle with soft edges, centred on the nearest pixel centre."""
        x0, y0 = int(cx), int(cy)
        ink = bytes(colour)
        for dx, dy, alpha in _disc(r):
            x, y = x0 + dx, y0 + dy
            if alpha == 1.0 and 0 <= x < self.width and 0 <= y < self.height:
                # Full coverage: `blend` would give the colour itself (x * 0 + c * 1, rounded).
                self.rows[y][x * 3:x * 3 + 3] = ink
            else:
                self.blend(x, y, colour, alpha)

    def triangle(self, tip: int, cy: int, half: int, colour: Colour, pointing: int) -> None:
        """A filled triangle whose tip is at (tip, cy), `half` pixels high either side, pointing
        right (pointing=1) or left (-1): its body lies on the other side of the tip."""
        for dy in range(-half, half + 1):
            length = half - abs(dy) + 1
            self.rect(tip - length + 1 if pointing > 0 else tip, cy + dy, length, 1, colour)

    def text(self, x: int, y: int, text: str, size: int, colour: Colour) -> int:
        """Draws text with its top-left corner at (x, y); returns the x after it."""
        f = font(size)
        ink, fills = bytes(colour), {}  # type: bytes, dict[int, bytes]
        for ch in text:
            cells, runs, _ = f.shape(ch)
            for row, start, length in runs:
                left, top = x + start, y + row
                if 0 <= top < self.height and 0 <= left and left + length <= self.width:
                    fill = fills.get(length) or fills.setdefault(length, ink * length)
                    self.rows[top][left * 3:(left + length) * 3] = fill
                else:
                    self.rect(left, top, length, 1, colour)
            x += f.width * cells
        return x

    def png(self) -> bytes:
        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)
        return (b"\x89PNG\r\n\x1a\n"
                + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6))
                + chunk(b"IEND", b""))


def fit(text: str, size: int, width: int) -> str:
    """Cuts text to a pixel width with an ellipsis (a wide character, 引, takes two cells)."""
    f = font(size)
    chars = width // f.width
    if f.cells(text) <= chars:
        return text
    cut, used = "", 0
    for ch in text:
        used += f.shape(ch)[0]
        if used > max(chars - 1, 0):
            break
        cut += ch
    if " " in cut and f.cells(cut.rsplit(" ", 1)[0]) > chars // 2:  # at a word's end when one is near
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:·") + "…"


def wrap(text: str, size: int, width: int, lines: int) -> list[str]:
    """Breaks text at spaces into at most `lines` lines of a pixel width; the last is cut if need be."""
    f = font(size)
    chars = width // f.width
    out: list[str] = []
    words = text.split()
    while words and len(out) < lines:
        line = words.pop(0)
        while words and f.cells(line) + 1 + f.cells(words[0]) <= chars:
            line += " " + words.pop(0)
        out.append(line)
    if words:
        out[-1] = fit(out[-1] + " " + " ".join(words), size, width)
    return [fit(line, size, width) for line in out]


WIDTH, HEIGHT = 1200, 630
_DARK = re.compile(r"@media \(prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}")
_COLOUR = re.compile(r"--([a-z-]+):\s*(#[0-9a-fA-F]{6})\b")
# The CSS band is translucent over the page; the card has no alpha, so its band is opaque.
_CARD_ONLY = {"band": "#262c35"}


def dark_palette(css: str) -> dict[str, Colour]:
    """The `#rrggbb` colours of a stylesheet's dark `:root` block, by custom property name."""
    block = _DARK.search(css)
    if block is None:
        raise ValueError("the stylesheet has no dark :root block")
    return {name: hex_colour(value) for name, value in _COLOUR.findall(block.group(1))}


@lru_cache(maxsize=1)
def palette() -> dict[str, Colour]:
    """The site's dark theme, read from its stylesheet: the card reads the same in a light or a
    dark chat window, and matches the site in a dark one."""
    css = (where.theme_dir("static") / "sitegen.css").read_text(encoding="utf-8")
    return {**dark_palette(css), **{k: hex_colour(v) for k, v in _CARD_ONLY.items()}}


# A line's colour by direction is the verdict colour of that direction (the site's stylesheet says so too).
_BY_DIRECTION = {"better": "faster", "worse": "slower", "neutral": "level"}


def _headlines(card: Canvas, c: dict, lines: tuple, y: int, strip: bool, left: int) -> int:
    """The headline lines from `y`: as many as fit above the strip (or the footer), the rest counted
    in a last line, never drawn over the strip (the meta description holds every line whole)."""
    room = max(1, ((452 - 54 if strip else HEIGHT - 44 - 8) - y) // 40)
    if len(lines) > room:
        lines = (*lines[:room - 1], ("…", f"{len(lines) - room + 1} more verdicts on the report's overview", "level"))
    for label, text, key in lines:
        card.dot(left + 8, y + 17, 7, c.get(_BY_DIRECTION.get(key, key), c["level"]))
        x = card.text(left + 28, y, label + " ", 32, c["muted"])
        card.text(x, y, fit(text, 32, WIDTH - 60 - x), 32, c["fg"])
        y += 40
    return y


# Marks of a strip's row, and how far apart two of other verdicts must be not to cover each other:
# a dot's width (6.5 px radius) and a pixel; a triangle's (8 px either side of its tip) and a pixel.
DOT_GAP, TRIANGLE_GAP = 14, 10
_ORDER = {"faster": 0, "slower": 1, "level": 2, "not resolved": 3}


def placed(marks: list[tuple[int, str, int]], start: int, end: int) -> list[tuple[int, str, int]]:
    """A row's marks (x, verdict, shape: 0 a dot, 1 or -1 a triangle past the scale's right or left
    end) where each is drawn, so that none hides another of another verdict: one triangle per
    verdict past an end, stacked inward from it; a dot of one verdict never within DOT_GAP of a
    dot of another (moved along the row the least that takes, and kept clear of the triangles).
    Marks of one verdict at one place are one mark (thousands of cells stay quick)."""
    out: list[tuple[int, str, int]] = []
    ends = {1: end, -1: start}
    room = {1: end, -1: start}  # where the dots end, inside the triangles
    for side in (1, -1):
        verdicts = sorted({v for x, v, s in marks if s == side}, key=lambda v: (_ORDER.get(v, 9), v))
        for k, v in enumerate(verdicts):
            out.append((ends[side] - side * k * TRIANGLE_GAP, v, side))
        if verdicts:
            room[side] = ends[side] - side * (len(verdicts) * TRIANGLE_GAP + DOT_GAP // 2)
    dots = sorted({(x, v) for x, v, s in marks if s == 0}, key=lambda m: (m[0], _ORDER.get(m[1], 9), m[1]))
    dots = [(min(max(x, room[-1]), room[1]), v) for x, v in dots]
    # Left to right, each dot at least DOT_GAP right of the last dot of every other verdict; then, where
    # that ran past the row's end, right to left the same way.
    last: dict[str, int] = {}
    ahead = []
    for x, v in dots:
        x = max([x] + [p + DOT_GAP for w, p in last.items() if w != v])
        last[v] = x
        ahead.append((x, v))
    if ahead and ahead[-1][0] > room[1]:
        first: dict[str, int] = {}
        back = []
        for x, v in reversed(ahead):
            x = min([x, room[1]] + [p - DOT_GAP for w, p in first.items() if w != v])
            first[v] = x
            back.append((x, v))
        ahead = back[::-1]
    return [(x, v, 0) for x, v in ahead] + out


def _marks(card: Canvas, c: dict, strip: tuple, sx, top: int, scale: tuple[float, float], left: int, inner: int) -> None:
    """The strip's cells, each row's marks where `placed` puts them."""
    low, high = scale
    rows_of: dict[int, list[tuple[int, str, int]]] = {}
    for ratio, verdict, row in strip:
        # A cell beyond the scale is a triangle inside the strip, its tip on the end it passes.
        x = left + inner - 1 if ratio > high else left if ratio < low else round(sx(ratio))
        rows_of.setdefault(row, []).append((x, verdict, 1 if ratio > high else -1 if ratio < low else 0))
    for row, found in rows_of.items():
        cy = top + 18 + 22 * row
        for x, verdict, shape in placed(found, left, left + inner - 1):
            colour = c.get(verdict, c["level"])
            if shape:
                card.triangle(x, cy, 8, colour, shape)
            else:
                card.dot(x, cy, 6.5, colour)


@lru_cache(maxsize=64)
def share_card(site: str, title: str, subtitle: str, lines: tuple[tuple[str, str, str], ...],
               strip: tuple[tuple[float, str, int], ...], strip_caption: str, scale: tuple[float, float],
               band: float, footer: str) -> bytes:
    """The card as PNG bytes.

    lines: (label, text, verdict colour key) headline verdicts; strip: (ratio, verdict, row) of
    every speed cell, drawn on the fixed ratio scale with the noise band; empty for none.
    """
    c = palette()
    card = Canvas(WIDTH, HEIGHT, c["bg"])
    left, inner = 60, WIDTH - 120
    # A name in a script the card cannot draw shows a box: the footer says what the box means.
    words = (site, title, subtitle, strip_caption, *(x for line in lines for x in line[:2]))
    if not all(drawable(w) for w in words):
        footer = "\u25a1: a character this card cannot draw; the report's pages show it"
    card.rect(0, 0, WIDTH, 10, c["accent"])
    card.text(left, 40, fit(site, 32, inner), 32, c["muted"])
    y = 86
    for line in wrap(title, 64, inner, 2):
        card.text(left, y, line, 64, c["fg"])
        y += 68
    card.text(left, y + 4, fit(subtitle, 32, inner), 32, c["muted"])
    y = _headlines(card, c, lines, y + 56, bool(strip), left)
    if strip:
        low, high = scale
        top, rows = max(y + 54, 452), 1 + max(r for _, _, r in strip)
        card.text(left, top - 42, fit(strip_caption, 32, inner), 32, c["muted"])
        height = 22 * rows + 14

        def sx(v: float) -> float:
            return left + (min(max(v, low), high) - low) / (high - low) * inner

        card.rect(left, top, inner, height, c["soft"])
        card.rect(round(sx(1 - band)), top, round(sx(1 + band) - sx(1 - band)), height, c["band"])
        for edge in (1 - band, 1 + band):  # the band's edges, at 3:1 or more against the strip (its fill is faint)
            card.rect(round(sx(edge)), top, 1, height, c["band-edge"])
        card.rect(round(sx(1.0)) - 1, top, 2, height, c["fg"])
        _marks(card, c, strip, sx, top, scale, left, inner)
        step = 0.2 if high - low > 0.6 else 0.1
        v = low
        while v <= high + 1e-9:
            label = f"{v:.1f}x"
            x = round(sx(v))
            card.rect(x, top + height, 1, 6, c["muted"])
            card.text(min(max(x - font(32).measure(label) // 2, left), left + inner - font(32).measure(label)),
                      top + height + 6, label, 32, c["muted"])
            v += step
    card.text(left, HEIGHT - 44, fit(footer, 32, inner), 32, c["muted"])
    return card.png()
