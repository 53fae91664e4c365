"""Values stated once: the option defaults in config.py's table, the dark palette in the stylesheet."""
from __future__ import annotations

import io
import re
import tokenize

from conftest import ROOT
from imports_graph import sources

SOURCES = sources()


def numbers(path) -> list[tuple[str, int]]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return [(t.string, t.start[0]) for t in tokens if t.type == tokenize.NUMBER]


def test_the_noise_band_and_ratio_scale_defaults_stand_only_in_the_option_table():
    found = [(path.relative_to(ROOT).as_posix(), line, number) for path in SOURCES
             for number, line in numbers(path) if number in ("0.08", "1.8")]
    config = (ROOT / "site_gen" / "core" / "config.py").read_text(encoding="utf-8").splitlines()
    assert [(p, n) for p, _, n in found] == [("site_gen/core/config.py", "0.08"), ("site_gen/core/config.py", "1.8")], found
    assert all(config[line - 1].lstrip().startswith(('"noise_band": Option(', '"ratio_scale": Option('))
               for _, line, _ in found)


def test_the_dark_palette_stands_only_in_the_stylesheet():
    css = (ROOT / "site_gen" / "static" / "sitegen.css").read_text(encoding="utf-8")
    dark = css[css.index("prefers-color-scheme: dark"):]
    colours = set(re.findall(r"#[0-9a-f]{6}", dark[:dark.index("}")], re.I))
    assert len(colours) > 5
    repeated = [(path.name, c) for path in SOURCES for c in colours if c in path.read_text(encoding="utf-8")]
    assert repeated == []
