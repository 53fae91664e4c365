"""The share card (issue 51, item 6): no mark of the strip hides a mark of another verdict, and names
in Greek, Cyrillic, Chinese, Japanese or Korean are drawn as themselves; a character the card
cannot draw is a box, and its footer says so. Read from the PNG's pixels (decoded here) and from
GNU Unifont's own hex glyphs."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_publish import png_size_and_pixels

from site_gen.render import card

VERDICTS = ("faster", "slower", "level", "not resolved")
SCALE = (0.8, 1.8)


def pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    width, height, raw = png_size_and_pixels(png)
    stride = 1 + width * 3
    rows = [raw[i * stride:(i + 1) * stride] for i in range(height)]
    assert all(r[0] == 0 for r in rows)  # filter 0: the bytes are the pixels
    return width, height, [r[1:] for r in rows]


def colours_in(rows: list[bytes], top: int, bottom: int, left: int, right: int) -> set[tuple[int, int, int]]:
    return {tuple(rows[y][x * 3:x * 3 + 3]) for y in range(top, bottom) for x in range(left, right)}


def draw(strip: tuple, title: str = "Title", lines: tuple = ()) -> bytes:
    return card.share_card.__wrapped__("Site", title, "2026-01-01", lines, strip, "Every cell:", SCALE, 0.08, "footer")


def strip_top(lines: int = 0) -> int:
    """Where the strip starts with the title on one line and `lines` headlines (card.share_card's layout)."""
    return max(86 + 68 + 56 + 40 * lines + 54, 452)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.floats(0.3, 3.0), st.sampled_from([0.5, 1.0, 1.001, 2.5, 2.6])),
                          st.sampled_from(VERDICTS), st.integers(0, 2)), min_size=1, max_size=40))
def test_no_mark_hides_a_mark_of_another_verdict(cells):
    """Every verdict a row of the strip holds shows its colour in that row, wherever its cells lie:
    beyond the scale's ends (where they pile up) or on the same ratio as cells of another verdict."""
    c = card.palette()
    strip = tuple((r, v, row) for r, v, row in cells)
    _, _, rows = pixels(draw(strip))
    top = strip_top()
    for row in {r for _, _, r in strip}:
        want = {c.get(v, c["level"]) for _, v, r in strip if r == row}
        band = colours_in(rows, top + 18 + 22 * row - 3, top + 18 + 22 * row + 4, 60, 1140)
        assert want <= band, (row, [x for x in strip if x[2] == row])


def test_the_trial_s_row_shows_every_colour_beyond_the_end():
    """Three slower cells beyond the scale's end and a not-resolved one drawn last over them: before,
    no slower colour showed."""
    c = card.palette()
    strip = ((2.5, "slower", 0), (2.7, "slower", 0), (3.1, "slower", 0), (2.6, "not resolved", 0))
    _, _, rows = pixels(draw(strip))
    y = strip_top() + 18
    right = colours_in(rows, y - 2, y + 3, 1080, 1140)
    assert c["slower"] in right and c["level"] in right


# GNU Unifont 15.0.01's own glyphs (unifont.hex, 16 rows of 8 or 16 bits): Ω, β, 引, 擎, 한.
UNIFONT_HEX = {"Ω": "000000003E4141414141221414770000", "β": "00000000384444447C424242625C4040",
               "引": "00087F080108010801083F082008200840087F0801080108010801080A080408",
               "擎": "2420FF20247E7EC482287A104A287AC604201FC001003FF801007FFC01000300",
               "한": "000008087F081C082208220E22081C080008000808000800080008000FF80000"}


def lit(hexbits: str, scale: int) -> set[tuple[int, int]]:
    """A Unifont glyph's lit pixels, each scaled to a scale × scale square."""
    data = bytes.fromhex(hexbits)
    width = 8 if len(data) == 16 else 16
    out = set()
    for row in range(16):
        bits = int.from_bytes(data[row * (width // 8):(row + 1) * (width // 8)], "big")
        for col in range(width):
            if bits >> (width - 1 - col) & 1:
                out |= {(row * scale + dy, col * scale + dx) for dy in range(scale) for dx in range(scale)}
    return out


@pytest.mark.parametrize("size", [32, 64])
@pytest.mark.parametrize("ch", sorted(UNIFONT_HEX))
def test_a_non_latin_character_is_drawn_as_unifont_draws_it(ch, size):
    canvas = card.Canvas(80, 70, (0, 0, 0))
    end = canvas.text(0, 0, ch, size, (255, 255, 255))
    drawn = {(y, x) for y in range(70) for x in range(80) if canvas.rows[y][x * 3] == 255}
    assert drawn == lit(UNIFONT_HEX[ch], size // 16), ch
    assert end == (size // 2) * (1 if len(UNIFONT_HEX[ch]) == 32 else 2)  # a wide glyph takes two cells
    assert card.drawable(ch)


def test_names_the_card_can_draw_need_no_note_and_others_are_boxes_it_explains():
    c = card.palette()
    _, _, plain_rows = pixels(draw((), title="Ω-Engine β2 against 引擎 v1"))
    _, _, boxed_rows = pixels(draw((), title="Engine against العربية"))
    footer = (630 - 44, 630 - 12)
    # The footer as given where every character is drawn; the note where one is not.
    assert plain_rows[footer[0]:footer[1]] == pixels(draw((), title="Plain"))[2][footer[0]:footer[1]]
    note = card.Canvas(1200, 630, c["bg"])
    note.text(60, 630 - 44, "\u25a1: a character this card cannot draw; the report's pages show it", 32, c["muted"])
    assert boxed_rows[footer[0]:footer[1]] == note.rows[footer[0]:footer[1]]
    assert not card.drawable("العربية") and not card.drawable("😀") and card.drawable("Модель 模型 한국어 ΩβΓ")


def test_a_wide_name_is_cut_by_its_cells():
    """A line of wide characters takes two cells each: cut to the card's width, not past it."""
    f = card.font(32)
    text = card.fit("引擎" * 40, 32, 1080)
    assert f.measure(text) <= 1080 and text.endswith("…")
    assert card.wrap("one two three four five", 32, 16 * 9, 2) == ["one two", "three…"]
