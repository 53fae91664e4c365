"""`sitegen summary` names each startup figure (cold, warm, or ready): a line of text has no table
header to say which of "348 / 349 s" is which."""
from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal

from conftest import ROOT
from site_gen.cli import main as sitegen

REPORT = "cuteafd-v4.0.0"


def whole(x: float) -> str:
    return str(Decimal(repr(x)).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def test_summary_names_cold_and_warm_startup(capsys):
    config = str(ROOT / "mkdocs.yml")
    assert sitegen(["summary", REPORT, "-f", config, "--format", "json"]) == 0
    startup = json.loads(capsys.readouterr().out)["reports"][0]["memory"]["startup"]
    assert startup and all(s["cold_s"] is not None and s["warm_s"] is not None for s in startup)
    for fmt in ("text", "markdown"):
        assert sitegen(["summary", REPORT, "-f", config, "--format", fmt]) == 0
        lines = [line for line in capsys.readouterr().out.splitlines() if "Startup " in line]
        assert len(lines) == len(startup), lines
        for s, line in zip(startup, lines):
            assert f"Startup {s['checkpoint']}, {s['engine']}" in line
            assert f"cold {whole(s['cold_s'])} s, warm {whole(s['warm_s'])} s" in line, line
