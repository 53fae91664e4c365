"""The study's pages and every other output, read as a reader sees them and checked against numbers
computed here from the receipt with numpy: the per-load tables, ties, the frontier's text equivalent,
the IB repeats against no-IB (no verdict the A/A pair alone could not support), a study whose GPU
count is unknown, the overview, dashboard, Numbers page, CSV, summary, MkDocs block and `sitegen compare`."""
from __future__ import annotations

import csv as csvlib
import io
import json
import math
import shutil
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import htmlutil
import study_receipts
from conftest import ROOT, import_here, sitegen_here, strictly
from site_gen.building.builder import build_files
from site_gen.core.config import load_config
from test_import_serving import VLLM, need_real2

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

STUDY = "vllm-llm-k8s-study"
IB, NO_IB, TP8 = "tp4×pp2, two nodes, InfiniBand", "tp4×pp2, two nodes, no InfiniBand", "tp8, one node"
CONFIG = ("site_name: Study\nplugins:\n  - sitegen:\n      data_dir: data\n      noise_band: 0.08\n"
          "      slo: {ttft_p99_ms: 500, tpot_p50_ms: 50}\n")


def project(root: Path, reports: dict[str, Path | dict], docs: str = "# Home\n") -> dict[str, str]:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(docs)
    (root / "mkdocs.yml").write_text(CONFIG)
    for rid, src in reports.items():
        if isinstance(src, Path):
            shutil.copytree(src, root / "data" / rid)
        else:
            study_receipts.write(root / "data" / rid, src)
    files = strictly(build_files(load_config(root / "mkdocs.yml"))).files
    return {k: v.decode() if k.endswith((".html", ".csv")) else v for k, v in files.items()}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("study-site")
    docs = "# Home\n\n```sitegen\nreport: vllm-llm-k8s-study\nblock: frontier\n```\n"
    files = project(root, {STUDY: ROOT / "data" / STUDY}, docs)
    return root, files


def _doc(text: str):
    import html5lib

    return html5lib.parse(text, treebuilder="etree", namespaceHTMLElements=True)


def receipt() -> dict:
    return json.loads((ROOT / "data" / STUDY / "SUMMARY.json").read_text())


def runs_of(doc: dict, setup: str, load: str) -> list[dict]:
    s = next(x for x in doc["study"]["setups"] if x["id"] == setup)
    return next(lp for lp in s["load_points"] if lp["id"] == load)["repeats"]


def figure(rep: dict, metric: str, q: float) -> float:
    if metric == "tput":
        return sum(rep["requests"]["output_tokens"]) / rep["duration_s"]
    x = np.array([np.nan if v is None else v for v in rep["requests"][f"{metric}_ms"]], dtype=float)
    return float(np.percentile(x[~np.isnan(x)], q))


def geomean(values: list[float]) -> float:
    return float(np.exp(np.mean(np.log(values))))


LOADS = {"rate-1": "1 req/s", "rate-4": "4 req/s", "rate-16": "16 req/s", "rate-inf": "all at once"}
COLUMNS = {"TTFT p50": ("ttft", 50), "TTFT p99": ("ttft", 99), "TPOT p50": ("tpot", 50), "TPOT p99": ("tpot", 99),
           "ITL p50": ("itl", 50), "ITL p99": ("itl", 99), "E2E p50": ("e2e", 50), "E2E p99": ("e2e", 99),
           "output tokens/s": ("tput", 0)}
SETUP_IDS = {TP8: "tp8", NO_IB: "tp4pp2-no-ib", IB: "tp4pp2-ib"}


def test_every_setups_figure_at_every_load_is_numpys(site):
    _, files = site
    doc, tables = receipt(), htmlutil.tables(_doc(files[f"reports/{STUDY}/study.html"]))
    for lid, label in LOADS.items():
        rows = tables[f"at-sharegpt-{label.replace(' ', '-').replace('/', '-')}-table"]
        head = rows[0]
        for row in rows[1:]:
            setup = next(name for name in SETUP_IDS if row[0].startswith(name))
            reps = runs_of(doc, SETUP_IDS[setup], lid)
            for col, cell in zip(head[1:], row[1:]):
                metric, q = COLUMNS[col]
                want = geomean([figure(r, metric, q) for r in reps])
                shown = cell.split()[1] if cell.split()[0].lstrip("=").startswith("#") else cell.split()[0]
                assert shown == f"{want:,.1f}", (lid, setup, col, cell)
                if len(reps) >= 2:  # the runs' range beside the interval
                    lo, hi = sorted(figure(r, metric, q) for r in reps)
                    assert f"runs {lo:,.1f}–{hi:,.1f}" in cell, (lid, setup, col, cell)
            assert ("one run: within-run interval only" in row[0]) == (len(reps) == 1)


def test_the_ib_repeats_against_no_ib_show_no_verdict_the_aa_pair_could_not_support(site):
    """Every faster or slower verdict between the InfiniBand setup (two runs) and the no-InfiniBand one
    (one run) is of a difference larger than the two InfiniBand runs' own difference there."""
    _, files = site
    doc, tables = receipt(), htmlutil.tables(_doc(files[f"reports/{STUDY}/study.html"]))
    seen = verdicts = 0
    for lid, label in LOADS.items():
        rows = tables[f"at-sharegpt-{label.replace(' ', '-').replace('/', '-')}-comparisons"]
        for row in rows[1:]:
            if not ({IB, NO_IB} <= {s.strip() for s in row[0].split(" / ")}):
                continue
            for col, cell in zip(rows[0][1:], row[1:]):
                seen += 1
                if not cell.startswith(("▲", "▼")):
                    continue
                verdicts += 1
                metric, q = COLUMNS[col]
                a, b = (figure(r, metric, q) for r in runs_of(doc, "tp4pp2-ib", lid))
                ib, no_ib = geomean([a, b]), figure(runs_of(doc, "tp4pp2-no-ib", lid)[0], metric, q)
                assert abs(math.log(no_ib / ib)) > abs(math.log(b / a)), (lid, col, cell)
    assert seen == 4 * 9 and verdicts >= 1


def test_the_aa_pair_as_a_study_of_its_own_gives_no_verdict(tmp_path):
    need_real2()
    args = ["import", "vllm-bench"]
    for name, folder in (("run1", "03_tp4_pp2_IB"), ("run2", "04_tp4_pp2_IB")):
        args += ["--setup", name, *sorted(str(p) for p in (VLLM / folder).glob("*_qps_*.json"))]
    r = import_here(*args, "--setup-set", "run1:gpus=8", "--setup-set", "run2:gpus=8", "-o", str(tmp_path / "data" / "aa"), "-q")
    assert r.returncode == 0, r.stderr
    s = json.loads(sitegen_here("summary", "aa", "--format", "json", cwd=tmp_path).stdout)["reports"][0]["study"]
    # 4 loads x 7 figures (the two runs' ITL equals their TPOT request by request: shown once, as TPOT)
    assert s["counts"]["faster"] == s["counts"]["slower"] == 0 and s["counts"]["comparisons"] == 28


def test_ties_where_no_verdict_separates_two_setups(site):
    _, files = site
    doc = _doc(files[f"reports/{STUDY}/study.html"])
    ranking = htmlutil.text(htmlutil.find_id(doc, "at-sharegpt-1-req-s-ranking"))
    # At 1 req/s the two tp4×pp2 setups' TTFT p50 are 97.3 and 97.3 ms: one rank, tied, tp8 first.
    assert f"TTFT p50: 1. {TP8}; =2. " in ranking and f"{NO_IB} = {IB}" in ranking


def test_the_frontiers_text_equivalent_is_numpys(site):
    _, files = site
    doc = receipt()
    rows = htmlutil.tables(_doc(files[f"reports/{STUDY}/frontier.html"]))["frontier-sharegpt-rate-points"][1:]
    points = {}
    for row in rows:
        setup, load = row[0].rsplit(" · ", 1)
        lid = next(k for k, v in LOADS.items() if v == load)
        reps = runs_of(doc, SETUP_IDS[setup], lid)
        x = 1000 / geomean([figure(r, "tpot", 50) for r in reps])
        y = geomean([figure(r, "tput", 0) for r in reps]) / 8
        assert row[1].split()[0] == f"{x:,.1f}" and row[2].split()[0] == f"{y:,.1f}", row
        points[setup, load] = (x, y, row[3] == "yes")
    for (s, load), (x, y, on) in points.items():
        dominated = any(x2 >= x and y2 >= y and (x2 > x or y2 > y) for x2, y2, _ in points.values())
        assert on == (not dominated), (s, load)
    assert {s for (s, _), p in points.items() if p[2]} == {TP8}
    # The chart draws every point, and names the frontier's setups.
    svg = files[f"reports/{STUDY}/frontier.html"]
    assert svg.count("tokens/s per GPU (on the frontier)</title>") == 4


def test_a_study_without_gpu_counts_draws_no_frontier_and_says_why(tmp_path):
    files = project(tmp_path, {"s": study_receipts.drawn(points=2, runs=[2, 1], setups=2, n=60, gpus=None)})
    page_text = htmlutil.text(_doc(files["reports/s/frontier.html"]))
    assert "No frontier is drawn: the GPU count of setup a, setup b is not recorded" in page_text
    assert "--setup-set NAME:gpus=N" in page_text and "<svg" not in files["reports/s/frontier.html"].split('id="top"')[1]


def test_the_overview_dashboard_and_card_name_the_study(site):
    _, files = site
    overview = htmlutil.text(_doc(files[f"reports/{STUDY}/index.html"]))
    assert overview.count(f"A study of 3 setups ({TP8}; {NO_IB}; {IB})") == 0  # under the title, unnamed
    assert "no baseline: every pair of the 3 setups is compared" in overview
    assert "3 setups at 4 load points" in overview and "false discoveries" in overview or "Verdicts hold" in overview
    home = files["index.html"]
    assert "Study: 3 setups × 4 loads" in home and f"Frontier: {TP8}" in home
    assert 'content="' in files[f"reports/{STUDY}/index.html"] and "Study: 3 setups" in files[f"reports/{STUDY}/index.html"]


def test_the_numbers_page_and_csv_carry_every_figure(site):
    _, files = site
    numbers = files[f"reports/{STUDY}/numbers.html"]
    assert "$.study.setups[2].load_points[0].repeats" in numbers and "$.study.setups[0].load_points[0].repeats[0].requests.ttft_ms" in numbers
    table = list(csvlib.DictReader(io.StringIO(files[f"reports/{STUDY}/csv/study-figures.csv"])))
    doc = receipt()
    for r in table:
        if r["metric"] == "ttft" and r["percentile"] == "50":
            want = geomean([figure(x, "ttft", 50) for x in runs_of(doc, r["setup"], r["point"])])
            assert float(r["value"]) == pytest.approx(want, rel=1e-9)
    comparisons = list(csvlib.DictReader(io.StringIO(files[f"reports/{STUDY}/csv/study-comparisons.csv"])))
    assert len(comparisons) == 4 * 9 * 3 and {c["verdict"] for c in comparisons} <= {"faster", "slower", "level", "not resolved"}


def test_the_frontier_block_draws_in_an_author_page(site):
    _, files = site
    home = files["index.html"]
    assert 'class="sitegen-frontier"' in home and "Throughput per GPU against interactivity" in home


def test_the_summary_json_is_valid_and_holds_the_study(site):
    root, _ = site
    out = json.loads(sitegen_here("summary", "--format", "json", cwd=root).stdout)
    schema = json.loads((ROOT / "site_gen/schema/summary-output-1.schema.json").read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(out)) == []
    s = out["reports"][0]["study"]
    assert [x["id"] for x in s["setups"]] == ["tp8", "tp4pp2-no-ib", "tp4pp2-ib"] and s["method"] == "benjamini-hochberg"
    assert s["counts"]["comparisons"] == len(s["comparisons"]) == 108 and s["frontier"][0]["levels"]
    text = sitegen_here("summary", "--format", "text", cwd=root).stdout
    assert "Frontier, sharegpt" in text and "At 14+ tokens/s per user" in text


def test_compare_two_studies_of_the_same_setups(tmp_path):
    slower = study_receipts.drawn(seed=3, setups=3, runs=3, n=200, points=2, scales={1: 1.4})
    same = study_receipts.drawn(seed=3, setups=3, runs=3, n=200, points=2)
    project(tmp_path, {"old": same, "new": slower})
    r = sitegen_here("compare", "old", "new", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr  # --fail-on slower by default: b got slower
    out = json.loads(r.stdout)
    schema = json.loads((ROOT / "site_gen/schema/compare-output-1.schema.json").read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(out)) == []
    worse = [c for c in out["changes"] if c["verdict"] == "worse"]
    assert worse and all(c["where"]["setup"] == "setup b" for c in worse)
    assert not [c for c in out["changes"] if c["verdict"] == "better"]
    refused = sitegen_here("compare", "old", "new", cwd=tmp_path)
    assert "setup b · synthetic" in refused.stdout


def test_a_large_studys_page_lists_the_pairs_of_its_leader_and_keeps_every_pair_in_the_csv(tmp_path, monkeypatch):
    from site_gen.sections.study import view as study_view

    monkeypatch.setattr(study_view, "SHOWN_COMPARISONS", 10)
    doc = study_receipts.drawn(seed=2, setups=5, runs=2, n=100, points=1, scales={2: 0.7})
    files = project(tmp_path, {"s": doc})
    tables = htmlutil.tables(_doc(files["reports/s/study.html"]))
    rows = tables["at-synthetic-1-req-s-comparisons"][1:]
    # setup c is 0.7x every latency: its rows are listed, the other pairs are not
    assert len(rows) == 4 and all("setup c" in r[0].split(" / ") for r in rows)
    assert "those of setup c (the highest output throughput here)" in files["reports/s/study.html"]
    pairs = {(c["a"], c["b"]) for c in csvlib.DictReader(io.StringIO(files["reports/s/csv/study-comparisons.csv"]))}
    assert len(pairs) == 10


def test_the_share_card_strip_is_every_comparison_as_a_speed_up_by_its_verdict(site):
    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import load_report
    from site_gen.render import parts
    from site_gen.sections import section

    _, files = site
    a = analyse(load_report(ROOT / "data" / STUDY, ROOT / "data"), band=0.08)
    strip, caption = parts.view_part(section("study")).card_strip(a)
    rows = {"ttft": 0, "tpot": 1, "itl": 1, "e2e": 1, "output_tokens_per_s": 2}
    want = []
    for c in csvlib.DictReader(io.StringIO(files[f"reports/{STUDY}/csv/study-comparisons.csv"])):
        va, vb = float(c["value_a"]), float(c["value_b"])
        speed_up = va / vb if c["metric"] == "output_tokens_per_s" else vb / va  # right of 1: a is faster
        want.append((speed_up, c["verdict"], rows[c["metric"]]))
    assert len(strip) == len(want) == 108
    got = sorted(strip, key=lambda m: (m[2], m[1], m[0]))
    want.sort(key=lambda m: (m[2], m[1], m[0]))
    assert [(v, r) for _, v, r in got] == [(v, r) for _, v, r in want]
    assert [x for x, _, _ in got] == pytest.approx([x for x, _, _ in want], rel=1e-9)
    assert caption.startswith("Pairs a/b, a's speed-up: TTFT | TPOT/ITL/E2E | tokens/s")
    # Three rows: the card's strip and its scale stay above the footer.
    assert max(r for _, _, r in strip) == 2


def test_a_promise_of_n_tokens_per_user_is_read_as_n_or_more(site):
    """tp8 gives every user 27 tokens/s or more at each of its loads: at a promise of 14 to 22 tokens/s
    per user it serves the most per GPU (its heaviest load), where a reading at exactly N (which tp8's
    curve never crosses) named a tp4×pp2 setup best. Each reading's interval is its load's own."""
    from scipy.stats import norm

    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import load_report

    f = analyse(load_report(ROOT / "data" / STUDY, ROOT / "data"), band=0.08).of("study").frontiers[0]
    pts = f.points.to_dict("records")
    levels = f.levels.to_dict("records")
    assert levels
    for lv in levels:
        served = {}
        for sid in ("tp8", "tp4pp2-no-ib", "tp4pp2-ib"):
            mine = sorted((p for p in pts if p["setup"] == sid), key=lambda p: p["x"])
            beyond = [p["y"] for p in mine if p["x"] >= lv["level"]]
            x, y = [p["x"] for p in mine], [p["y"] for p in mine]
            crossing = [float(np.interp(lv["level"], x, y))] if x[0] <= lv["level"] <= x[-1] else []
            if beyond or crossing:
                served[sid] = max(beyond + crossing)
        assert lv["best"] == max(served, key=served.get) == "tp8"
        assert lv["best_y"] == pytest.approx(served["tp8"])
        heaviest = next(p for p in pts if p["setup"] == "tp8" and p["load"] == "rate-inf")
        z = norm.ppf(0.975)
        assert (lv["best_low"], lv["best_high"]) == pytest.approx(
            (heaviest["y"] * math.exp(-z * heaviest["se_y"]), heaviest["y"] * math.exp(z * heaviest["se_y"])), rel=1e-9)
        assert lv["best_low"] < lv["best_y"] < lv["best_high"]


def test_the_headline_names_who_is_first_alone_and_counts_without_a_direction(site):
    _, files = site
    ranks = list(csvlib.DictReader(io.StringIO(files[f"reports/{STUDY}/csv/study-ranks.csv"])))
    cells = {(r["load"], r["metric"], r["percentile"]) for r in ranks}
    first: dict[str, int] = {}
    for r in ranks:
        if r["rank"] == "1" and r["tied"] == "False":
            first[r["setup"]] = first.get(r["setup"], 0) + 1
    names = {v: k for k, v in SETUP_IDS.items()}
    want = "; ".join(f"{names[s]} in {n} of {len(cells)} figures × loads" for s, n in sorted(first.items(), key=lambda t: -t[1]))
    headline = htmlutil.text(_doc(files[f"reports/{STUDY}/study.html"]))
    assert f"Ranked first alone (ahead of every other setup by a verdict): {want}." in headline
    comparisons = list(csvlib.DictReader(io.StringIO(files[f"reports/{STUDY}/csv/study-comparisons.csv"])))
    resolved = sum(c["verdict"] in ("faster", "slower") for c in comparisons)
    assert f"{resolved} resolved (one setup faster)" in headline
    assert " faster · " not in headline  # no count of "faster" whose direction the reader cannot tell


def test_a_percentile_of_too_few_requests_says_no_interval(site):
    _, files = site
    doc = receipt()
    rep = runs_of(doc, "tp8", "rate-1")[0]
    n = sum(v is not None for v in rep["requests"]["tpot_ms"])
    assert n < 200  # a p99 needs 2 requests beyond it: 200 or more
    page = files[f"reports/{STUDY}/study.html"]
    table = page[page.index('id="at-sharegpt-1-req-s-table"'):]
    row = table[table.index("tp8, one node"):table.index("</tr>", table.index("tp8, one node"))]
    cells = row.split('data-label="')[1:]
    tpot99 = next(c for c in cells if c.startswith("TPOT p99"))
    assert "no interval" in tpot99 and f"{n:,} measured" in tpot99


def test_the_frontier_caption_puts_the_lightest_load_where_the_data_does(site):
    doc = receipt()
    for sid in SETUP_IDS.values():  # 1000 / median TPOT: a request sees more tokens per second at the lightest load
        light = np.median([figure(r, "tpot", 50) for r in runs_of(doc, sid, "rate-1")])
        heavy = np.median([figure(r, "tpot", 50) for r in runs_of(doc, sid, "rate-inf")])
        assert 1000 / light > 1000 / heavy
    _, files = site
    page = htmlutil.text(_doc(files[f"reports/{STUDY}/frontier.html"]))
    assert "from its lightest load (at the right end) to its heaviest" in page and "left end" not in page


def test_allowances_too_wide_to_resolve_a_one_run_setup_are_named(site):
    _, files = site
    rows = list(csvlib.DictReader(io.StringIO(files[f"reports/{STUDY}/csv/study-allowances.csv"])))
    wide = [r for r in rows if r["measured"] == "True" and float(r["allowance"]) > 3 * 0.08
            and (r["metric"] == "output_tokens_per_s" or r["percentile"] in ("50", "99"))]
    assert wide and all(r["load_class"] == "saturated" and r["df"] == "1" for r in wide)  # one repeated load point there
    page = files[f"reports/{STUDY}/study.html"]
    note = page[page.index('id="wide-allowances"'):]
    note = note[:note.index("</p>")]
    names = {"ttft": "TTFT", "tpot": "TPOT", "itl": "ITL", "e2e": "E2E"}
    for r in wide:
        assert f"{names[r['metric']]} p{r['percentile']}, saturated:" in note
    assert note.count("degree of freedom;") + note.count("degree of freedom)") == len(wide)


def test_the_overview_says_who_leads_the_frontier_at_the_lowest_and_highest_level(site):
    """The overview's Frontier part: at the lowest and the highest level of the Frontier page's levels
    table, the same setups and figures, each ratio the quotient of the two throughputs it names."""
    import re

    _, files = site
    levels = htmlutil.tables(_doc(files[f"reports/{STUDY}/frontier.html"]))["frontier-sharegpt-rate-levels-table"][1:]
    overview = htmlutil.text(_doc(files[f"reports/{STUDY}/index.html"]))
    said = re.findall(r"At ≥(\d+) tokens/s per user, (.+?) serves ([\d,.]+) tokens/s per GPU, ([\d.]+)× "
                      r"\(95% interval ([\d.]+)–([\d.]+)\) the ([\d,.]+) of (.+?)\.(?= At|$| \w)", overview)
    assert len(said) == 2, overview
    for got, row in zip(said, (levels[0], levels[-1])):
        level, best, best_y, ratio, low, high, runner_y, runner = got
        assert row[0].split()[0] == f"≥{level}" and row[1] == best and row[3] == runner
        assert row[2].split()[0] == best_y and row[4].split()[0] == runner_y
        assert row[5].split()[:2] == [f"{ratio}×", f"{low}–{high}"]
        # The ratio a reader computes from the two printed throughputs agrees to its printed digits.
        assert abs(float(best_y.replace(",", "")) / float(runner_y.replace(",", "")) - float(ratio)) < 0.01
