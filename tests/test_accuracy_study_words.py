"""An accuracy study reads as the pair's accuracy does (issue 51): scores in percent, differences in
points with the site's minus (U+2212) and its interval style `[low, high]`, on the page and in
`sitegen summary` text and markdown; JSON and CSV keep fractions. Checked against the summary's
own JSON fractions, formatted here by hand."""
from __future__ import annotations

import json
import re
import shutil
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from conftest import ROOT
from site_gen.cli import main as sitegen

STUDY = ROOT / "data" / "lm-eval-llama-3-8b-shots-study"
MINUS = "\u2212"


def one(x: float) -> str:
    """x (a fraction) in percent to one decimal, a tie away from zero."""
    return str(Decimal(repr(x * 100)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def pts(x: float) -> str:
    text = one(x)
    return ("+" + text if not text.startswith("-") else MINUS + text[1:])


def project(tmp_path: Path) -> Path:
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - sitegen:\n      data_dir: data\n", encoding="utf-8")
    shutil.copytree(STUDY, tmp_path / "data" / STUDY.name)
    return tmp_path / "mkdocs.yml"


def test_a_study_summary_prints_points_and_intervals_as_the_site_does(tmp_path, capsys):
    config = project(tmp_path)
    assert sitegen(["summary", "-f", str(config), "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["reports"][0]["accuracy_study"]
    resolved = [c for c in s["comparisons"] if c["verdict"] in ("better", "worse")]
    assert resolved and all(abs(c["difference"]) < 1 for c in resolved)  # JSON: fractions
    assert all(0 <= g["value"] <= 1 for g in s["scores"])
    names = {x["id"]: x["label"] for x in s["setups"]}
    for fmt in ("text", "markdown"):
        assert sitegen(["summary", "-f", str(config), "--format", fmt]) == 0
        out = capsys.readouterr().out.replace("\\[", "[").replace("\\]", "]")  # markdown's escapes
        for c in resolved:
            lo, hi = c["interval"]["low"], c["interval"]["high"]
            want = f"{names[c['a']]} {c['verdict']} than {names[c['b']]}, {pts(c['difference'])} pts [{pts(lo)}, {pts(hi)}]"
            assert want in out, (fmt, want, out)
        assert not re.search(r"(?<![\w.])-\d", out), out  # no ASCII hyphen as a minus
        assert not re.search(r"[+-]0\.\d{3}", out), out   # no fraction printed as a difference


def test_a_study_page_prints_scores_in_percent_and_differences_in_points(tmp_path):
    config = project(tmp_path)
    assert sitegen(["build", "-q", "-f", str(config), "-d", str(tmp_path / "site"), "--no-cache"]) == 0
    page = (tmp_path / "site" / "reports" / STUDY.name / "accuracy-study.html").read_text(encoding="utf-8")
    doc = json.loads((STUDY / "SUMMARY.json").read_text(encoding="utf-8"))
    assert doc["accuracy_study"]["tasks"]
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S))
    assert re.search(r"\d+\.\d% +\d+\.\d–\d+\.\d%", text), "a score and its interval in percent"
    assert re.search(rf"[+{MINUS}]\d+\.\d pts +\[[+{MINUS}]\d+\.\d, [+{MINUS}]\d+\.\d\]", text), "a difference in points"
    assert not re.search(r"\b0\.\d{3}\b", text), "no score printed as a fraction"


def test_only_proportions_read_in_percent():
    from site_gen.sections.accuracy_study.view import proportion

    assert proportion("acc,none", [0.5, 0.51, 0.49])
    assert not proportion("mcc,none", [0.2, 0.3])        # Matthews' correlation: its own scale
    assert not proportion("bleu", [0.4, 0.5])
    assert not proportion("exact_match", [0.5, 1.2])     # a score beyond 1 is no proportion
