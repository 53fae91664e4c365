"""The guide's page on what sitegen reads and refuses (docs/guide/safety.md) states the limits the
code enforces: each figure it names is read here from the constant that enforces it."""
from __future__ import annotations

import re

from conftest import ROOT
from site_gen import cli
from site_gen.core import files
from site_gen.importers import reading
from site_gen.receipts import markdown_bounds as mb
from site_gen.receipts.parse import MAX_DEPTH
from site_gen.render.docs import DOCS_MAX_FILE_BYTES

PAGE = (ROOT / "docs" / "guide" / "safety.md").read_text(encoding="utf-8")
TEXT = " ".join(PAGE.split())  # one line: a phrase may wrap


def mb_text(n: int) -> str:
    return f"{n >> 20} MB"


def test_the_guide_states_the_limits_the_code_enforces():
    said = [f"at most {mb_text(reading.MAX_SOURCE_BYTES)}", f"a licence {mb_text(reading.MAX_LICENCE_BYTES)}",
            f"a page over {mb_text(mb.DOCS_MAX_PAGE_BYTES)}", f"any other file over {mb_text(DOCS_MAX_FILE_BYTES)}",
            f"a file over {mb_text(files.MAX_CUSTOM_FILE_BYTES)}", f"more than {files.MAX_CUSTOM_FILES:,} files",
            f"more than {mb.DOCS_MAX_BLOCKS:,} blocks", f"more than {mb.DOCS_MAX_FOOTNOTE_REFS:,} footnote references",
            f"deeper than {MAX_DEPTH} levels", f"nested more than {mb.DOCS_MAX_DEPTH} deep", "up to five levels"]
    for phrase in said:
        assert phrase in TEXT, phrase
    assert reading.LICENCE_LEVELS == 5
    assert all(name in TEXT for name in ("`LICENSE`", "`COPYING`"))


def test_the_guide_states_the_exit_status_rule_of_the_cli():
    rows = dict(re.findall(r"^\| ([0-9, ]+) \| (.+) \|$", PAGE, re.M))
    assert rows[str(cli.USAGE_ERROR)].startswith("refused: a bad command line")
    assert rows[str(cli.INTERNAL_ERROR)].startswith("an internal error")
    assert rows["0"].startswith("done") and {"120", "130", "143"} <= set(rows)
