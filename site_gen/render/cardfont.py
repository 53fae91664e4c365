"""Bitmap glyphs for the share cards: Spleen 1.9.1 by Frederic Cambus, 16x32 and 32x64.

Taken from the PSF files of Debian's `fonts-spleen` package: the glyphs of printable ASCII,
Latin-1 and a few typographic marks, rows packed most significant bit first, zlib-compressed,
base64. Spleen's licence (BSD-2-Clause):

Copyright (c) 2018-2020, Frederic Cambus
All rights reserved.

Redistribution and use in source and binary forms, with or without modification, are permitted
provided that the following conditions are met:

  * Redistributions of source code must retain the above copyright notice, this list of
    conditions and the following disclaimer.
  * Redistributions in binary form must reproduce the above copyright notice, this list of
    conditions and the following disclaimer in the documentation and/or other materials provided
    with the distribution.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR
IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND
FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR
CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER
IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT
OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""

from __future__ import annotations

import base64
import unicodedata
import zlib
from dataclasses import dataclass
from functools import lru_cache, cache

from site_gen.render import where

# height -> (glyph width, glyph height, the characters, their bitmaps)
FONTS = {
    32: (16, 32, ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~¡¢£¤¥¦§¨©ª«¬®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ–‘’“”…−•',
         "eNq1Wj+PozgUN0IHDQe6jtGyw1dwFGni6KLwNa7M9CMd100R7VBtFV29RT4M1VbRfYIr+ADRiepEgebu2YRgwBjbzPpJOxvg8fz8"
         "/vpnEPq4YWXTxD8h4g0Hw0R+y/v2/vY+fB9/bWruQR3X22x1o20Wl0Flna0TR+ekSsopHZDne59CIOxjdADKUU6ftZGNHOK8eEAh"
         "mVbNLYIyIu0sIxKUbhFnSZ5eD8cDOeADSY/JP/F3lbXXXLodqq3CzlzkIB95KELhgCK46sNdF9mZVaAaOHrsCXIzK0cFaJ0ijMjo"
         "BQSupnC3sHI3S/rsIztGxE/dws7tnNqN/nULP6Vro+uLcRVXhmsy8c5mlVRHUif1R0eY4IYD5AHRlcZo7H2C2+MRlHFFIuwBRXiH"
         "j/i6uqxPG2/v7TxCr3okiqugnJodrEz2c/aQ/SLJA9QeU/ytfOTdJksnmlMNnOYnzEC2nkN+t3RLYGt/z84ftzQYTCbmSGJrtnq3"
         "x5IyqVjgKMq/rz/Hjxt73EjO38ofr1+fZuUzCsOgDMowVJff52fPe3Ed1Kr6z/u6ThyPn52N3wiyVEozFH3GZz8J/Os3WY9mt5Rd"
         "0Ix71RwglCWYk5L/36zf5ID5+ju24erCUb2qMUvrYL9K3f73iOjR5Jr1/T2E3yXu+R+OaP2dlA/1m/QCdUgwf+qPavJFpCk/KZJC"
         "Xf48vzT9iPSvcS2Ix6n8N9JXz358rTXJ//P8dvaGviCl+YeQuA9JnuT4AP8LVeaPZ0luP5rfdrv9cXNdX1anaS+SzZ8A7YCegNZA"
         "qxO86QL0ArQDinCkHn9DmqkfQ/9n3q7hfxL5jR7kbyafvoS2InPyRRlAsn5D/wdrQQfPV2AkjV/aa875ryx/SjOHUfzxlmt7YhP5"
         "q9P6srnuj7sdqw8K/K28pu/uW1VVfr/6z68/q5PT3V+TEQW1NAApHtKjoGcH2g+3Tknv0n6ZdkrM2lBDhQ/wflsqJI8eMZ5eb9Lu"
         "cUiU+gf1DYbhoL7e30Dc+47DR7w/hlzQRB6LSjX/5yufuBZL/We+F5Dnb95B+Fmrxu9IPl9FFeRblV25zLUaiou4cNCYdOWP8n8o"
         "jkWF9ZfGP58dXdgLCrNnYRUq/PNZ2M5i9NjHDXjCYRoWD/kneCpGn7KHPCzgCgmjcHL+zixBjFRWpbL++3T/ujrTqtfR3Pqp9qJK"
         "9hfWYvX9lyz+lHtRT6EizPEj9f5DHP+9LkCaP5zZ2FO3v0n9l9ZShfov4u974Pb0ePSPavydxA59azxqsf7qvcCoCxDupWurtkco"
         "h4v2aAe0p1YbUmbVqFbFrud6wAQltHIOqUBHNoEj/G9wz8qTLJldQ9+LvV/PqwprICbqWLxkwAxZ/OR4QCRn9qM6iPC/wi194oVd"
         "cNMux+NaulABC2m8boyEUw+c9zn6PHU15+AcqOfyGHD7V/XsQuVeD7tPG6TcFyL5DM+BB/zml7gBaeDDhaPN/evr5vrkNQR70qss"
         "/7s5myF2y6CkcwgodsrepYrXCfzh7IIto2Kbb/MI7OcS+6yFmyvUiSndN7DfeXrZXDeXpxdKMt2X6Mhpy7JkY8Emby49RxueXciw"
         "k0b+rVy2GRPraNbxsx4N03DS0AK3KKX9IfsTLBzkNXnf/DXVC7DzO67WxafgZAlo8WnLDzlHYleyn3pZhu6/l/nfEt/uoraLZOF5"
         "HSS2V/Rb23k7oR9GX8gXDrX+nG2zP749f7MovVvvt0dV+V+jevs1hZR+7wi+s7fcxiNU4Ge2XgEKkPXV+vP5nJBHZfnT+4/m7OyO"
         "PghzyH3fbIp/32Zpxt/iBub4e+DF5y3rMcz4u5plOv+mVoP1Fp4fjHsWxt/vYWqsgb9P4Ae3Hq7JdZz9zfD/zv4G/D37G8nn7GfE"
         "3+lviP/f9Tfh5/U3k9/pv/T8Yrxn/g9oDr/q4s8M/5flH6X9vyT/zPPL84+KfFn+UeGX5R8z/EO095Xh5i12GIBvEGojaiuwGbUd"
         "tSG15Y59Q0GY/ftfX3T2Mzw/uNvPhJ+3n5n8bv0/ev665wc8hqmCX43yfx4XJL03myku1vm6xK/te2AXFa2rVSnGjvr4uTb+Peif"
         "dfm784PmGyld/iHWYILf87tXPX7Qu3AwJRvWwFQ+Px6PcW1faLcfnGBXUN++6aP4hRL+JT0/6NV/sf218f+B/XX5h/Y3OX/g7afL"
         "P9RfG/8/tHnAMTo/GOpvcv7A66/P/5A9sP1HnD3AKuji78P408X/R/6ni/8P1l+Xf+R/C/U3Ob/o+e+i848x5qKLBQT/xu9k/BVl"
         "9Fb9rlQ/tM8PBvbT5R/az+T8gl//Hzp/z/j8Unp+pTx/xV5E59u/hd9vL+Zf+v39R3y/Pz8aZE+Hw/z7axoPDckw0P8BTk9atA=="
         ),
    64: (32, 64, ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~¡¢£¤¥¦§¨©ª«¬®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ–‘’“”…−•',
         "eNrtXT2O4zoSpqBA2fICg9YhNhlgtdaVJuwFDJtABxPuDfYkG3DQwYTvCnzoYFMuXrB6GMHaKv7YtOUfUb+k3DI+oFuiKJaKrCoW"
         "iyVCPg+vI+Xzwrcdo5M77Lc+9t//lU1Tuxj6/nzrm7y/7xuZNI1MARninRP6BkgfAMpg2aw5ELiXQR0c6hIkfQf8kFC3J/Ced0Gb"
         "BsEBjELdU48HQhKBSKpUpHUqsn9lXIMyjZwg0npDkmoD5bcGlUYiNVKhkXENyjRyorEx2OaMbEtOqn8IRCI1UqGR8ZJnPGcZ3IqY"
         "/MiBhj2856YhCfJRUgZv4XFPhjJYFu/Be1UdZQV1YJ+A/gFdIW8kkF5925CtLEgJyEVBKAcwADHAv/kGruVQJm/qijb1NmuqImnE"
         "l+DkfXQHhc5ZAoAZCSCtoWPBvxRoga5IStsv73drS77t3rZ/doa57/gqTb32Ofa5x3Zgm7Bt2EZsK7YZ2440IC2KJqTt/pFBnRl0"
         "zQy6KfZL6Ga6rgQfBvWRnXmYHah24B5bbFtqYVvsCXufraeLwNjpNmJbsc3Q9kyNL6ZpqmbUjygTJOVJBQypgTE7aFtZa/lB5RGX"
         "+s29psriPXgv1IF1YZ2uvIndXgRdyF2sT57M9D7tkCgdGfU1AmkLNpSLTwYP7AfjHYXBUANu0dstEaMdYLehDYeyCux/lMSCohUI"
         "OusE/B8kNSghCoKckhxQAnaAWtKkkjSVkmZCUsolzZmkJdy3A9SACiABAsABjFzUj+cSic/GNmBblF2JNuXkAxZtAkCJcyHAL06S"
         "P0BsfwBgfpPCPCed0T/Q0h9THw/4f8OWcXqr7aWbU8e2Hbrb5fN+MLf87EX/8R1wMHgYgBgwzUi81s0uXLr/04cY+GvxkxI/zKuv"
         "W3LpUQubA9G+CuWzcGY1cfC/g/z3oh/0hND6gvhhqf7/gP+353Ie8s+3y8/X/Tvq/zYylgicrx39P8Z/hOfwWiz870t/u/3wTsC2"
         "yYwvFX2q6FsNfvyHYq/HNj8eq72Lz39T6IeZOHcIOn4nj8su8Fx66WY78+d1LRD3/D50f8C4vHIxTp8Kz/43dr/yaqOCfjEz8lcD"
         "p1giglv/HU0f4nzfC805Lk0d63E3816znsiDofcRHs8jemF6edbXfkcbLzXrtA0xYOoc6WH/aR9Te/13cv5frH+PYLL3wqn/X9qP"
         "gfJ/bETOf1zqchEJ/4Ohf6Hp73jjH2W+i9Hmj1P7/8YZv5HqP+/12pX5/4Oh3wy8oztdhxORMPu/0VXQaAqNpiQ3etTKP/gbz6lr"
         "WKa/Tl3e/79y+8f43ihGt4hMUvxVuaR1KeluJ2lZS5pXklKzvplySRM2m100W/9nBtxAGEiDymBrsDHIDSjTyLhGKjQSqUEqg63B"
         "xiA3oAaZQaoQzfxvKBZb/xhq/1+32+Ox/2bmP8qP9Mr4YH8C/39d4f/NuMRRHETD+O/owZYfYJjem0v+Dbb/j3rrIg7ecx3YLhrO"
         "Pf9txWsubP/O7f+c38+x0vmfh55DWysTmbgbT5yJdfEfbUaU+ypGTmqbEm1LtDHR1kSbE39og6ItanRQkPRf46HdA2L3kpjYbizj"
         "0hOs/Tv+uO2xP2B++X9lffJhG0eK+7vhRxx5vRTrcNGDM0Hhkp6Oh40btnHED3e73NuXs2wFXiHQjk2qEJDHoxfa9PSIN1GL685+"
         "HJTZzn4cK7NzllSgmWvg1hZeePGVkC/k81j0aNnrvsdXRxDcjfHYkpF3GqziSM08z/jLb8/z2vPK6/selrf/Pdf5plovXmj9N5R4"
         "gaXWf30tEN9+Hfj8dwT+36e/vS4aFv9PG/Y5yRHkfKPZA6ToMnLQ9b7OiJ3//v5/bvyITMe/2b3n08wXw5H/C/l/ff2OuE/Qxeg+"
         "z/ocodEfil/YKN60QcApTBVTjUf+bWQqwjHlOWAD2AIqm76GpD85SX8zbXKB5/DaMT1OZe7dmLoog7pVpoWUJxKehfg2Of+LQHB0"
         "CRhdhDopmSH+11dewmyY1iUDcICgmLMIGHpa1/PE0vJv9vXiwOR/KOvFkez/mnv+F0G86NTzH18sTf+oHs9o5//MNy5gmfUfXz09"
         "2XwvFv0/4fo/vRz/Ie4XHDHWzeYQJBUwfgsdYLOdff1/dPr72oFvHHNvyqwuZQpIAGRbhs3/Lny060x4Dq9BGTfHZKazv2kb6ood"
         "9Uzj30//hxQvMGJcwOj7pfcm7yUgQ4zgsM/Jcc8yBRVIz1MgalT62mmr9GgLBJoWlQdz7/9+QovvmzgekB6wTzFlUtA+YZlXcbYP"
         "HgWcbPeA3OQoNRvb1T0DnmkGCdKgaWGKtsWPVyKTAwGZhbKLSfrbD0m/f+Aeb0HBfqMEY4E3AS/oevavlcW/ei8PtuY/EkQTgAwE"
         "Q9Esr6x/TTy9xSS6+UHnb9vDoNqiHZNp76tCt+HZisvpOqzFeZqIUPKFXI3NdfKEX+btvZcnXNV1lie8nQN4aXsOc1bZnFYqr5XQ"
         "Z44W2uuLRlFovLxqWHGP85VMeOcDfrj/cq71nqnkU2jyENXyHvpfg35cgCxBrebtRxkz4RgOtR8xTz7Km1PwFbvIjK6BMqimTMmk"
         "vdkQSyfcEHtrZvLsxyN/f1pLSnGPqAHuiSxuQO2XNOXwHrx3bv9/KfTGapTB2KeOjjcz0aCN1YUaldMX8G97HsvQK/GnJhfgEWs/"
         "6Lsk+XdBStBhO60vk2oH+rMm2e/V8TIC/8ZzeA3LaN0K9+C9tkDo5HrtF1hgfWLq8V5KgNm7gygKDfu/ugZlitfTNRdzj/dnG4+d"
         "7X5xHv9ufJM39aD1bVr7Fe/FOtZ+TPy9i9nznd/if/VyZfXypYMfE8ptaXzjrBP9uQmssvFoh7YjU42Nl4jGRdZ24l5NZsoCXYBe"
         "ev1joh/LGeUlrmPUCvs/a5qL7eTxAu3v36m1uM7rdQ2HeznUwSXZ8x7fvXuAWPXD5zHt+x2aH/pYBz99/wTxN8Bfe/hl1HzSwbPa"
         "f09mb3ea02IBdzJ8Z648xfDp2c0LwBZQpzzB77RWKc9kWVNR1jkv65KV9R6eAP0hqXXwufquojAPgnHpXv7FSfYHJ/QDXss7J+Xb"
         "Oy/Td74BFOpDQ5e4DLTqJ2iXpz9nSb0XaQW69b9NRT/EK9BfwOUCekqx0d70V/I4UKCAy0X7vdw/EvP9R3RV5TDF3mRMEdaSpfjp"
         "HhyuCsolW5gAfXjOjxp4VG2y7zJv/ilok/PsULKkCp//o+vv1rtjp1TodsrkpkS/kjGdtmcQ4/tD7u5vrrr7e6LNf7olN/Pt52S9"
         "9F/Lb2DWGpUO9/X3xcr/HYE5CYO5yQ+Yo3xI+rMR9K3hNMF4jN366e+6nrX2/m/Xqy0u42uf/PsHo8WztOjvGwtznkd8fvpD+/7B"
         "g1RU1PHX/aWP/l9r/v+u+n9l9Hvr/5Xyv7P+Wyn9Hcf/evP/dxv/q6Pfc/yvlv8dx/+zf/9irP3MTXOOxfNfdZz/rTb//9z+n+D2"
         "/8/s/wmF/qX8P6Hxf27/T2j0z+3/WWn+D5hSf/PK235l3N3KBY51L0CS40BIcI4hEvPONf9BBzHq6CWrp6zeMnrM6jWr56zes3rQ"
         "6kWrJ63etHrU6lWrZ7l6vy397y6nFBPov/V+/6Cb/lsd/Z76b7X87yj/P/v/c3//4Ep/CCr/8eT5kfYC7J9KhRhgrqKMbzAWs0PE"
         "Zm4A5Qm0k9aABsEA+F1E593ceT/HvVFQpgTbIAf6EVhHOkH81MD85/Hn/x4W/xw9/Xf0o7VTj/s6WcJXR//AfA1ry3/vu+81Wvox"
         "CCszSWlw//EL7mWn58BzeA3LYNlErJ//vuID83Md9qqNCJAjEuRJO25/r/cEnPYVNJK+Nbh3gFzFmyDZTyf/BTwjxPxf83//oOf6"
         "/0T6P/78/wP3P8VO/0D9v7rvP/jmfYid/qHjP/r8/18MXXf8A3Y/0TWHY+z0Dx3/a/v+g+/4Xwn9aovFfzDeANMMM73vA1VhQ9T/"
         "eD79nyDpB5hzP5x8f/sm7vzvA+d/0ef/H2z/xZ7/f6D8j53+wfbf4anH/+q+f+Ft/z7p9z/GyucSe76A/eEL8ObfQFsNvKpUdkuU"
         "GipmzcYNlIAdoJY0qWBsSfPddy5pDmOuBH7vALUTCyD0+n8O/C/hvf0d+P91Cv4P1H/xrH9Oo/+ip3+g/ouf/8Pk/2f/X9f3D0L/"
         "/vHk+Y/C7/9Bx4u058dh5O/2tuOiyUf/Sf8w8of9Pun/PCaRmzfy7EVHR+jyf+iBdqKbN83kxL8Ke33GvKD/B5lHNi8="
         ),
}


# -- beyond Latin-1: GNU Unifont ------------------------------------------------------------------
# Spleen draws ASCII and Latin-1. Names from receipts may be Greek (Ω, β), Cyrillic, Chinese (引擎),
# Japanese or Korean: those are drawn with GNU Unifont 15.0.01's 8x16 and 16x16 glyphs, scaled to
# Spleen's cell (a narrow glyph one cell, a wide one two), from `unifont.bin` beside this file: the
# glyphs of the blocks below, taken from Debian's `unifont` package (/usr/share/unifont/unifont.hex)
# by tools/unifont_subset.py. Unifont is dual-licensed: GNU GPL 2+ with the GNU font embedding
# exception, and (since 13.0.04) the SIL Open Font License 1.1, under which this subset is
# distributed: UNIFONT-OFL.txt beside this file holds its copyright notice and the licence.
#
# Scripts that need shaping or run right to left (Arabic, Hebrew, Devanagari and the other Indic
# scripts, Thai) and emoji are not drawn: a glyph drawn alone would misspell them. The card draws a
# box for such a character and says so (render/card.py).
UNIFONT_BLOCKS = (
    ("Latin Extended-A and -B", 0x0100, 0x024F),
    ("IPA Extensions", 0x0250, 0x02AF),
    ("Spacing Modifier Letters", 0x02B0, 0x02FF),
    ("Greek and Coptic", 0x0370, 0x03FF),
    ("Cyrillic and Cyrillic Supplement", 0x0400, 0x052F),
    ("Latin Extended Additional", 0x1E00, 0x1EFF),
    ("Greek Extended", 0x1F00, 0x1FFF),
    ("General Punctuation", 0x2000, 0x206F),
    ("Superscripts, Subscripts and Currency Symbols", 0x2070, 0x20CF),
    ("Letterlike Symbols and Number Forms", 0x2100, 0x218F),
    ("Arrows", 0x2190, 0x21FF),
    ("Mathematical Operators", 0x2200, 0x22FF),
    ("CJK Symbols and Punctuation", 0x3000, 0x303F),
    ("Hiragana and Katakana", 0x3040, 0x30FF),
    ("CJK Unified Ideographs", 0x4E00, 0x9FFF),
    ("Hangul Syllables", 0xAC00, 0xD7A3),
    ("Halfwidth and Fullwidth Forms", 0xFF00, 0xFFEF),
)
UNIFONT_FILE = "unifont.bin"  # zlib: per glyph, its code point (3 bytes), width (8 or 16), 16 rows


Runs = tuple[tuple[int, int, int], ...]  # (row, first column, length) of a glyph's lit pixels


@lru_cache(maxsize=1)
def _unifont() -> dict[str, tuple[int, bytes]]:
    """GNU Unifont's glyphs beyond Latin-1 (cardfont.UNIFONT_BLOCKS): char -> (width, 16 rows).
    Read only when a card has such a character."""
    data = zlib.decompress((where.theme_dir("render") / UNIFONT_FILE).read_bytes())
    out, i = {}, 0
    while i < len(data):
        point, width = int.from_bytes(data[i:i + 3], "big"), data[i + 3]
        size = 16 * (width // 8)
        out[chr(point)] = (width, data[i + 4:i + 4 + size])
        i += 4 + size
    return out


def _box(width: int, height: int) -> Runs:
    """A hollow box in a cell: the mark of a character the card cannot draw."""
    top, bottom, x0, x1 = height // 5, height - height // 5, width // 8, width - width // 8
    line = max(1, height // 32)
    rows = [(r, x0, x1 - x0) for r in range(top, top + line)] + [(r, x0, x1 - x0) for r in range(bottom - line, bottom)]
    rows += [(r, x, line) for r in range(top + line, bottom - line) for x in (x0, x1 - line)]
    return tuple(sorted(rows))


@dataclass(frozen=True)
class Font:
    width: int
    height: int
    runs: dict[str, Runs]  # Spleen: char -> its runs

    def _fallback(self, ch: str) -> tuple[int, Runs] | None:
        """A Unifont glyph scaled to this size: (cells, runs); None where Unifont has none here."""
        found = _unifont().get(ch)
        if found is None:
            return None
        width, rows = found
        scale, per_row = self.height // 16, width // 8
        out = []
        for row in range(16):
            bits = int.from_bytes(rows[row * per_row:(row + 1) * per_row], "big")
            col = 0
            while col < width:
                if bits >> (width - 1 - col) & 1:
                    start = col
                    while col < width and bits >> (width - 1 - col) & 1:
                        col += 1
                    out += [(row * scale + k, start * scale, (col - start) * scale) for k in range(scale)]
                else:
                    col += 1
        return width // 8, tuple(sorted(out))

    def shape(self, ch: str) -> tuple[int, Runs, bool]:
        """A character's cells (1, or 2 for a wide one), runs, and whether the card can draw it: Spleen,
        else Unifont, else Spleen's glyph of its base letter; else a box (False)."""
        if ch in self.runs:
            return 1, self.runs[ch], True
        return _shape(self.height, ch)

    def _shape(self, ch: str) -> tuple[int, Runs, bool]:
        if ch == "—":
            return 1, self.runs["–"], True
        found = self._fallback(ch)
        if found is not None:
            return found[0], found[1], True
        folded = unicodedata.normalize("NFKD", ch)[:1]
        if folded in self.runs:
            return 1, self.runs[folded], True
        return 1, _box(self.width, self.height), ch.isspace()

    def glyph(self, ch: str) -> Runs:
        return self.shape(ch)[1]

    def cells(self, text: str) -> int:
        return sum(self.shape(ch)[0] for ch in text)

    def measure(self, text: str) -> int:
        return self.cells(text) * self.width


@lru_cache(maxsize=4096)
def _shape(height: int, ch: str) -> tuple[int, Runs, bool]:
    return font(height)._shape(ch)


def drawable(text: str) -> bool:
    """Whether the card draws every character of `text` (none as a box)."""
    f = font(32)
    return all(f.shape(ch)[2] for ch in text)


@cache
def font(height: int) -> Font:
    """Spleen at 32 or 64 pixels high."""
    w, h, chars, data = FONTS[height]
    raw = zlib.decompress(base64.b64decode(data))
    per_row = (w + 7) // 8
    size = per_row * h
    runs: dict[str, tuple[tuple[int, int, int], ...]] = {}
    for i, ch in enumerate(chars):
        glyph = raw[i * size:(i + 1) * size]
        out = []
        for row in range(h):
            bits = int.from_bytes(glyph[row * per_row:(row + 1) * per_row], "big")
            col = 0
            while col < w:
                if bits >> (per_row * 8 - 1 - col) & 1:
                    start = col
                    while col < w and bits >> (per_row * 8 - 1 - col) & 1:
                        col += 1
                    out.append((row, start, col - start))
                else:
                    col += 1
        runs[ch] = tuple(out)
    return Font(w, h, runs)
