"""Every figure on every report page has a hover source and a row on its Numbers page (issue 28:
tool-calling, versions and checkpoints figures and the per-cell speed tables had neither): on the
example site, on receipts drawn from the schema (tests/receipt_strategies.py), every section of
schema 1.1 included, and on serving receipts drawn here (tests/serving_receipts.py: the Latency,
Distributions and Load pages and the overview's latency part, one side or two, one run or repeated,
paired or not, with objectives or without). The rule and its reading of the pages are in
tests/sourced.py."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import pytest

import fuzzing
import serving_receipts as sr
import sourced
from receipt_strategies import receipts, shape
from site_gen import api
from site_gen.building import starter as new

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

EXAMPLES = int(os.environ.get("SITEGEN_SOURCED_EXAMPLES", "12"))
SERVING_EXAMPLES = int(os.environ.get("SITEGEN_SOURCED_SERVING_EXAMPLES", "6"))
SERVING_PAGES = ("latency.html", "distributions.html", "load.html")


def test_every_figure_of_the_example_is_sourced_and_listed(example_site):
    counted, serving = 0, 0
    for report in sorted((example_site / "reports").iterdir()):
        assert sourced.problems(report) == [], report.name
        counted += sum(len(sourced.figures(p)[0]) for p in report.glob("*.html") if p.name != "numbers.html")
        serving += sum(len(sourced.figures(report / p)[0]) for p in SERVING_PAGES if (report / p).exists())
    assert counted > 2000  # the rule is read for real: thousands of figures, every section's
    assert serving > 2000  # the serving pages' among them (four serving reports, hundreds of cells a page)


def test_a_bare_number_or_an_unlisted_figure_is_found(tmp_path):
    """The check itself: a number outside a figure, and a figure the Numbers page lacks, are named."""
    report = tmp_path / "r"
    report.mkdir()
    (report / "numbers.html").write_text('<main><table id="provenance-table"><tbody><tr><td>5</td><td>$.a.b</td></tr>'
                                         '</tbody></table></main>')
    (report / "x.html").write_text('<main><table><tr><td class="num">7</td>'
                                   '<td class="num"><span class="fig" title="SUMMARY.json $.a.c">5</span></td>'
                                   '<td class="num cond">8</td><td>a name 9</td></tr></table></main>')
    assert sourced.problems(report) == ["x.html: a number with no source: '7'",
                                        "x.html: '5' (SUMMARY.json $.a.c) is not on the Numbers page"]


def test_every_figure_of_a_drawn_receipt_is_sourced_and_listed(tmp_path):
    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate))
    @given(st.sampled_from([1, 1.1]).flatmap(lambda v: receipts(version=v)))
    def run(receipt):
        files = fuzzing.files_of(receipt, fuzzing.TOP, fuzzing.OPTIONS, "", {fuzzing.PAGES[0]: new.PAGE})
        build = fuzzer.run(fuzzing.Case(0, 0, fuzzing.RECEIPT, [], files, ["build", "-q", "-d", "{site}"]))
        assert not build.failure, (build.output, shape(receipt))
        if build.code != 0:
            return  # refused as bad input (tests/test_schema_receipts.py counts how few are)
        report = tmp_path / "site" / "reports" / fuzzing.REPORT
        assert sourced.problems(report) == [], shape(receipt)

    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        run()


SERVING_CONFIG = "site_name: Sourced\nsite_url: https://example.org/s/\nplugins:\n  - sitegen:\n      data_dir: data\n"
SLO = "      slo: {ttft_p99_ms: 500, tpot_p50_ms: 50}\n"


@st.composite
def serving_receipts(draw) -> tuple[dict, bool]:
    """A serving receipt (one side or two; 30 to 200 requests a run; one run or two; paired or not;
    failed requests and one-token replies) and whether the site sets objectives."""
    repeats = draw(st.sampled_from([1, 2]))
    doc = sr.pair(seed=draw(st.integers(0, 10_000)), n=draw(st.sampled_from([30, 200])), points=draw(st.integers(1, 3)),
                  scale=draw(st.sampled_from([0.7, 1.0, 1.3])), repeats=repeats, paired=draw(st.booleans()),
                  failed=draw(st.integers(0, 3)), one_token=draw(st.integers(0, 3)))
    if draw(st.booleans()):  # one setup: the candidate's side alone
        sides = doc["serving"]["sides"]
        del sides["baseline"], doc["serving"]["matched"], doc["report"]["engines"]["baseline"]
        doc["provenance"]["sources"] = [s for s in doc["provenance"]["sources"] if s["file"].startswith("candidate/")]
    return doc, draw(st.booleans())


def test_every_figure_of_a_drawn_serving_receipt_is_sourced_and_listed(tmp_path_factory):
    @settings(max_examples=SERVING_EXAMPLES, derandomize=True, database=None, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate))
    @given(serving_receipts())
    # Besides the drawn: both sides paired with objectives (goodput, objective rows, capacity), and repeated runs with them.
    @example((sr.pair(seed=1, n=200, points=2, failed=1, one_token=1), True))
    @example((sr.pair(seed=2, n=60, points=2, repeats=2, paired=False), True))
    def run(drawn):
        doc, slo = drawn
        root = tmp_path_factory.mktemp("serving")
        sr.write(root / "data" / "r", doc)
        (root / "mkdocs.yml").write_text(SERVING_CONFIG + (SLO if slo else ""), encoding="utf-8")
        files = api.build_files(api.load_config(root / "mkdocs.yml")).files
        report = root / "site"
        for name, body in files.items():
            if name.startswith("reports/r/") and name.endswith(".html"):
                (report / name.rsplit("/", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
                (report / name.rsplit("/", 1)[1]).write_bytes(body)
        shown = {p.name for p in report.glob("*.html")}
        assert {"latency.html", "load.html", "distributions.html", "numbers.html"} <= shown
        assert sourced.problems(report) == [], (doc["serving"]["sides"].keys(), slo)
        assert sum(len(sourced.figures(report / p)[0]) for p in SERVING_PAGES) > 50  # read for real

    run()


def test_the_serving_figures_numbers_rows_lead_to_the_values_they_were_read_from(example_site):
    """The Numbers page's row of a serving figure names what it was computed from: numpy, reading
    those values in the receipt, gives the figure again (a percentile or the highest of the measured
    values), and a figure listed by its place is the value there."""
    import json
    import re

    from decimal import Decimal

    import numpy as np

    from conftest import ROOT
    from test_digits import half_up

    name = "vllm-tp8-against-tp4pp2-ib"
    data = json.loads((ROOT / "data" / name / "SUMMARY.json").read_text())

    def at(path: str):
        node = data
        for key, index in re.findall(r"\.(\w+)|\[(\d+)\]", path.lstrip("$")):
            node = node[int(index)] if index else node[key]
        return node

    read = re.compile(r"computed: (?:p(\d+)|highest) of ([\d,]+) measured \w+s; in (\$\S+)(?: \(numpy's linear percentile\))?$")
    checked = placed = 0
    for text, source in sourced.numbers_rows(example_site / "reports" / name / "numbers.html"):
        found = read.match(source)
        if found:
            values = [v for v in at(found[3]) if v is not None]
            assert len(values) == int(found[2].replace(",", "")), source
            want = np.percentile(values, int(found[1])) if found[1] else max(values)
            # One decimal, or as many more as the ratio beside the figure needs (format.pair), as a
            # reader rounds the number (a double's fifteen significant digits): halves away from zero.
            # From ten seconds (and beside such a figure), in seconds: `12.3 s`.
            scale = 1
            if text.endswith(" s"):
                text, scale = text[:-2], 1000
            places = len(text.split(".")[1]) if "." in text else 0
            assert places >= 1 and Decimal(text.replace(",", "")) == half_up(Decimal(format(float(want), ".15g")) / scale, places), source
            checked += 1
        elif source.startswith("$.serving.") and ".itl_gaps." in source:
            place = source.split(" ")[0].rstrip(";")
            value = at(place)
            assert text == (f"{round(value):,}" if place.endswith(".gaps") else f"{half_up(Decimal(format(float(value), '.15g')), 1):,}"), source
            placed += 1
    assert checked > 200 and placed > 40  # every side's percentiles and quantiles, every run's every-gap figures
