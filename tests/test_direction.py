"""Direction only with evidence: a precision gap is further or closer only when its 95% interval
excludes zero, by the measure's orientation; unresolved gaps are "not resolved" and counted apart,
on the precision page, the overview, the dashboard, `sitegen summary` and the CSV."""
from __future__ import annotations

import csv
import html
import io
import json
import re

from conftest import sitegen_here


def _project(tmp_path, results):
    """The starter site with its two precision results replaced: (difference, interval) for KL (higher is
    further) and top-1 agreement (lower is further)."""
    assert sitegen_here("new", str(tmp_path / "s")).returncode == 0
    path = tmp_path / "s" / "data" / "example-report" / "SUMMARY.json"
    receipt = json.loads(path.read_text())
    for r, (d, iv) in zip(receipt["precision"]["results"], results):
        r["difference"], r["interval"] = d, iv
        # The values go the way the difference says (a receipt against itself is refused).
        r["candidate"]["value"] = round(r["baseline"]["value"] + d, 6)
    path.write_text(json.dumps(receipt))
    return tmp_path / "s"


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


def _headline(page: str) -> str:
    return _text(re.search(r'<p class="headline">(.*?)</p>', page, re.S).group(1))


def _directions(page: str) -> list[str]:
    rows = re.findall(r'<tr data-source="\$\.precision\.results\[\d\]">(.*?)</tr>', page, re.S)
    return [_text(re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[-1]) for row in rows]


def test_unresolved_gaps_claim_no_direction(tmp_path):
    """The starter receipt's two gaps are both unresolved: nothing is called further or closer."""
    site = _project(tmp_path, [(0.0006, [-0.0002, 0.0014]), (-0.1, [-0.3, 0.1])])
    assert sitegen_here("build", "-q", cwd=site).returncode == 0
    page = (site / "site" / "reports" / "example-report" / "precision.html").read_text()
    assert _headline(page).startswith("No gap between NewEngine and OldEngine v2.3 is resolved"), _headline(page)
    assert "further from BF16 in" not in _headline(page) and "in all 2 comparisons" not in _headline(page)
    assert _directions(page) == ["not resolved", "not resolved"]
    s = json.loads(sitegen_here("summary", "--format", "json", cwd=site).stdout)["reports"][0]["precision"]
    assert (s["further"], s["closer"], s["unresolved"], s["resolved"]) == (0, 0, 2, 0)
    assert [r["direction"] for r in s["rows"]] == ["not resolved", "not resolved"]
    dashboard = (site / "site" / "index.html").read_text()
    assert "0 of 2 resolved; 0 further, 0 closer" in dashboard


def test_direction_follows_the_measures_orientation(tmp_path):
    """Higher top-1 agreement is closer to the reference; a higher KL is further; an unresolved one neither."""
    site = _project(tmp_path, [(0.0006, [-0.0002, 0.0014]), (0.2, [0.1, 0.3])])
    assert sitegen_here("build", "-q", cwd=site).returncode == 0
    report = site / "site" / "reports" / "example-report"
    page = (report / "precision.html").read_text()
    assert _directions(page) == ["not resolved", "closer"]
    assert _headline(page).startswith("Of the 2 comparisons, 1 is resolved: NewEngine is further from BF16 in 0 "
                                      "and closer in 1; 1 not resolved"), _headline(page)
    assert _directions((report / "index.html").read_text()) == ["not resolved", "closer"]
    rows = list(csv.DictReader(io.StringIO((report / "csv" / "precision.csv").read_text())))
    assert [(r["measure"], r["direction"]) for r in rows] == [("kl_full", "not resolved"), ("top1", "closer")]
    s = json.loads(sitegen_here("summary", "--format", "json", cwd=site).stdout)["reports"][0]["precision"]
    assert (s["further"], s["closer"], s["unresolved"]) == (0, 1, 1)
    markdown = sitegen_here("summary", "--format", "markdown", cwd=site).stdout
    assert "| Precision gaps resolved | 1 of 2: 0 further from BF16, 1 closer; 1 not resolved |" in markdown
    assert "1 of 2 resolved; 0 further, 1 closer" in (site / "site" / "index.html").read_text()


def test_a_lower_kl_is_closer_and_a_lower_agreement_further(tmp_path):
    site = _project(tmp_path, [(-0.001, [-0.0015, -0.0005]), (-0.5, [-0.7, -0.3])])
    assert sitegen_here("build", "-q", cwd=site).returncode == 0
    page = (site / "site" / "reports" / "example-report" / "precision.html").read_text()
    assert _directions(page) == ["closer", "further"]
    assert "every gap is resolved" in _headline(page)
