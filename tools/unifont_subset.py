"""Writes site_gen/render/unifont.bin: the GNU Unifont glyphs of the blocks the share card draws
beyond Spleen's Latin-1 (site_gen/render/cardfont.py UNIFONT_BLOCKS), from a unifont.hex.

    apt-get download unifont && dpkg-deb -x unifont_*.deb unifont
    python tools/unifont_subset.py unifont/usr/share/unifont/unifont.hex

Each glyph: its code point (3 bytes, big-endian), its width in pixels (8 or 16), then 16 rows of
1 or 2 bytes, most significant bit leftmost; the whole zlib-compressed. The same hex file gives
the same bytes.
"""
from __future__ import annotations

import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_gen.render.cardfont import UNIFONT_BLOCKS, UNIFONT_FILE  # noqa: E402 (the checkout, put on the path above)


def main(hex_file: str) -> None:
    glyphs = {}
    for line in Path(hex_file).read_text(encoding="ascii").splitlines():
        point, bits = line.split(":")
        glyphs[int(point, 16)] = bytes.fromhex(bits)
    out = bytearray()
    for _, first, last in UNIFONT_BLOCKS:
        for point in range(first, last + 1):
            bits = glyphs.get(point)
            if bits is None or len(bits) not in (16, 32):
                continue
            out += point.to_bytes(3, "big") + bytes([8 if len(bits) == 16 else 16]) + bits
    target = ROOT / "site_gen" / "render" / UNIFONT_FILE
    target.write_bytes(zlib.compress(bytes(out), 9))
    print(f"{target}: {len(out) // 1:,} bytes of glyphs, {target.stat().st_size:,} compressed")


if __name__ == "__main__":
    main(sys.argv[1])
