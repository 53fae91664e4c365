"""`sitegen import` on the real sources (../shared/real): the guide's commands give the example's
receipts byte for byte, `check --strict` passes on them, and figures recomputed here from the raw
files, independently of the importers, are what the built pages show."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import statistics
from pathlib import Path

import numpy as np
import pytest

from conftest import strictly, ROOT, SEED_TOOL, sitegen_here
from site_gen.building.builder import build_files
from site_gen.core.config import load_config

REAL = Path(os.environ.get("SITEGEN_REAL_DIR", SEED_TOOL.parent.parent / "real"))
LEDGER = REAL / "ledger"
STUDY = REAL / "cuteafd/hughmadden-benchmarks/glm5_flash/2026-10-04-fp8-recheck/comparison.json"


def need_real() -> None:
    if not LEDGER.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{REAL} is missing: CI places shared/ beside the checkout")
        pytest.skip(f"{REAL} not found (set SITEGEN_REAL_DIR to shared/real)")


def readme_imports() -> list[list[str]]:
    """The import commands of the guide's ledger block (docs/guide/importing.md), its shell variables filled in."""
    text = (ROOT / "docs" / "guide" / "importing.md").read_text(encoding="utf-8")
    block = text.split("### From the receipts ledger", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    env: dict[str, str] = {}
    out = []
    for line in block.replace("../shared/real", str(REAL)).strip().splitlines():
        if m := re.fullmatch(r"(\w+)=(.*)", line):
            env[m.group(1)] = shlex.split(m.group(2))[0]
        elif line.startswith("sitegen import"):
            words = shlex.split(line)
            out.append([env.get(w[1:], w) if w.startswith("$") else w for w in words[1:]])
    return out


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The guide's imports into a fresh data folder, checked strictly, and the pages built once."""
    need_real()
    root = tmp_path_factory.mktemp("imported")
    (root / "mkdocs.yml").write_text("site_name: Real\nplugins:\n  - sitegen:\n      data_dir: data\n")
    commands = readme_imports()
    assert len(commands) == 5
    for args in commands:
        out = args[args.index("-o") + 1]
        args[args.index("-o") + 1] = str(root / out)
        r = sitegen_here(*args, "-f", str(root / "mkdocs.yml"), "-q")
        assert r.returncode == 0, r.stderr
    check = sitegen_here("check", "--strict", "-f", str(root / "mkdocs.yml"))
    assert check.returncode == 0, check.stderr
    files = strictly(build_files(load_config(root / "mkdocs.yml"))).files
    return root, {k: v.decode() for k, v in files.items() if k.endswith(".html")}


def test_the_guides_commands_make_the_example_receipts(imported):
    root, _ = imported
    for folder in sorted((root / "data").iterdir()):
        assert (folder / "SUMMARY.json").read_bytes() == (ROOT / "data" / folder.name / "SUMMARY.json").read_bytes(), folder.name


def rows(run: str) -> list[dict]:
    return [json.loads(line) for line in (LEDGER / "runs" / run / "results.jsonl").read_text().splitlines() if line.strip()]


SP_BASE = "2026-10-04_glm53-flash_k3.25-v0.8.0-dflash3_serving-probe"


def test_serving_probe_aggregate_recomputed_from_rows_is_on_the_speed_page(imported):
    _, pages = imported
    rs = rows(SP_BASE)
    wall = next(r["wall_s"] for r in rs if r["kind"] == "batch" and r["batch"] == "sampled_c8")
    agg = sum(r["tokens"] for r in rs if r["kind"] == "request" and r["batch"] == "sampled_c8") / wall
    summary = json.loads((LEDGER / "runs" / SP_BASE / "summary.json").read_text())
    assert round(agg, 1) == summary["batches"]["sampled_c8"]["aggregate_tok_s"]
    speed = pages["reports/ledger-serving-probe-kpoolfix/speed.html"]
    # The row header: the workload, then its conditions in words for a screen reader (hidden: the row's cells show them).
    row = re.search(r'<tr data-source="[^"]+"[^>]*><th scope="row">sampled_c8<span class="vh">, input not measured, '
                    r'8 streams</span></th>.*?</tr>', speed).group(0)
    assert re.search(rf'<td class="num"[^>]*><span class="fig"[^>]*>{re.escape(f"{agg:,.1f}")}</span></td>', row), row
    # Its hover names the original rows: the file, its SHA-256 and the lines of that batch.
    raw = (LEDGER / "runs" / SP_BASE / "results.jsonl").read_bytes()
    lines = [n for n, line in enumerate(raw.decode().splitlines(), 1) if '"sampled_c8"' in line]
    assert f"from baseline: runs/{SP_BASE}/results.jsonl (SHA-256 {hashlib.sha256(raw).hexdigest()}), " \
           f"lines {lines[0]}-{lines[-1]} (batch &#39;sampled_c8&#39;)" in row
    decode = statistics.median(r["decode_tok_s"] for r in rs if r["kind"] == "request" and r["batch"] == "sampled_c1")
    assert re.search(rf'<td class="num"[^>]*><span class="fig"[^>]*>{re.escape(f"{decode:,.1f}")}</span></td>', speed)


TOOL = ["2026-10-08_glm53-flash_k3.25-v0.9.0-dflash3_tool-eval", "2026-10-08_glm53-flash_k3.25-v0.9.0-tailfix-dflash3_tool-eval"]


def test_tool_page_shows_every_scenarios_points_for_both_runs(imported):
    _, pages = imported
    page = pages["reports/ledger-tool-eval-tailfix/tool-calling.html"]
    points = {}
    for role, run in zip(("baseline", "candidate"), TOOL):
        for r in rows(run):
            points.setdefault(r["scenario_id"], {})[f"{role}-rep{r['rep']}"] = r["points"]
        for rep in (1, 2):
            total = sum(r["points"] for r in rows(run) if r["rep"] == rep)
            assert f'<th scope="row">{role}-rep{rep}</th>' in page
            assert re.search(rf'<td class="num"><span class="fig"[^>]*>{total}</span> of <span class="fig"[^>]*>176</span></td>', page)
    assert len(points) == 88
    for scenario, by_run in points.items():
        # Each scenario's points, with the place in the receipt its hover names.
        cells = "".join(rf'<td class="num p{by_run[k]}"><span class="fig" title="SUMMARY.json \$\.tool_calling\.runs\[\d\]\.scenarios\[\d+\]'
                        rf'\.points[^"]*">{by_run[k]}</span></td>' for k in ("baseline-rep1", "baseline-rep2", "candidate-rep1", "candidate-rep2"))
        assert re.search(rf'<th scope="row">{re.escape(scenario)}</th>{cells}</tr>', page), scenario


GPQA = ["2026-09-30_glm53-flash_k4-v0.8.0-dflash3_gpqa-diamond", "2026-10-06_glm53-flash_k4-v0.9.0-dflash3_gpqa-diamond"]


def test_gpqa_accuracy_page_shows_the_paired_difference_and_its_interval(imported):
    _, pages = imported
    page = pages["reports/ledger-gpqa-k4-v080-v090/accuracy.html"]
    score = [{r["doc_id"]: float(r["correct_flexible"]) for r in rows(run)} for run in GPQA]
    ids = sorted(score[0])
    assert ids == sorted(score[1])
    for run, s in zip(GPQA, score):
        acc = sum(s.values()) / len(s)
        assert round(acc, 4) == json.loads((LEDGER / "runs" / run / "summary.json").read_text())["accuracy_flexible"]
        # One decimal, or as many more as the difference beside it needs (format.pair): here two,
        # as 85.9% and 84.3% would make a difference of 1.6 beside the page's −1.5 pts.
        assert f"{acc * 100:.1f}%" in page or f"{acc * 100:.2f}%" in page
    d = np.array([score[1][i] - score[0][i] for i in ids])
    assert f"−{abs(d.mean()) * 100:.1f} pts" in page
    # The interval the receipt's recorded method (seeded resampling of question ids) gives.
    receipt = json.loads((ROOT / "data/ledger-gpqa-k4-v080-v090/SUMMARY.json").read_text())["accuracy"]
    m = receipt["method"]
    picks = np.random.default_rng(m["seed"]).integers(0, len(d), size=(m["resamples"], len(d)))
    low, high = np.quantile(d[picks].mean(axis=1), [0.025, 0.975], method="lower")
    shown = f"[{'−' if low < 0 else '+'}{abs(low) * 100:.1f}, {'−' if high < 0 else '+'}{abs(high) * 100:.1f}]"
    assert shown in page and "2,000 resamples (seed 0)" in page
    digest = hashlib.sha256((LEDGER / "runs" / GPQA[1] / "results.jsonl").read_bytes()).hexdigest()
    assert f"runs/{GPQA[1]}/results.jsonl (SHA-256 {digest}), lines 1-198" in page
    numbers = pages["reports/ledger-gpqa-k4-v080-v090/numbers.html"]
    assert digest in numbers and f"runs/{GPQA[1]}/results.jsonl" in numbers


def test_study_change_of_medians_recomputed_from_launches(imported):
    _, pages = imported
    study = json.loads(STUDY.read_text())
    m = study["measurements"]["min"]
    med = {arm: statistics.median(launch["c4_tps"] for launch in m[arm]["launches"]) for arm in ("D", "F")}
    change = (med["F"] / med["D"] - 1) * 100
    assert round(change, 6) == round(study["comparison"]["min"]["median_change_percent"]["c4_tps"], 6)
    page = pages["reports/cuteafd-fp8-recheck-study/measures.html"]
    row = re.search(r'<th scope="row">c4_tps.*?</tr>', page).group(0)
    assert f"+{change:.1f}%" in row and f"{med['D']:,.1f}" in row


def test_ledger_pages_carry_the_attribution_and_what_differs(imported):
    _, pages = imported
    for name, html in pages.items():
        if name.startswith("reports/ledger-") or name in ("index.html", "history.html"):
            assert "UrbanAstroLA (Michael M), https://github.com/UrbanAstroLA/local-inference-evals, CC BY 4.0" in html, name
    overview = pages["reports/ledger-tool-eval-tailfix/index.html"]
    assert "<code>engine.patches</code>" in overview and "comparison glm53-flash-v090-tailfix-tool-eval" in overview


def test_study_gates_recomputed_from_the_quality_checks(imported):
    _, pages = imported
    study = json.loads(STUDY.read_text())
    top1 = {(layout, arm): next(c["metrics"]["top1"] for c in study["measurements"][layout][arm]["quality"]["checks"] if c["id"] == "fidelity")
            for layout in ("min", "max") for arm in ("D", "F")}
    limit = study["conditions"]["decision_rule"]["max_top1_drop_points"]
    failed = [layout for layout in ("min", "max") if (top1[layout, "D"] - top1[layout, "F"]) * 100 > limit]
    assert failed == ["max"]
    # The study's own "kl_nll: not worse" rule: F's KL and NLL at most D's, per layout (issue 28: it was left out).
    fidelity = {(layout, arm): next(c["metrics"] for c in study["measurements"][layout][arm]["quality"]["checks"] if c["id"] == "fidelity")
                for layout in ("min", "max") for arm in ("D", "F")}
    assert study["conditions"]["decision_rule"]["kl_nll"] == "not worse"
    worse = [(layout, m) for layout in ("min", "max") for m in ("kl", "nll") if fidelity[layout, "F"][m] > fidelity[layout, "D"][m]]
    assert worse == [("max", "kl")]
    # Its speed bar: at least 5% C4 or agentic emitted tok/s improvement of the medians.
    med = lambda layout, arm, key: statistics.median(x[key] for x in study["measurements"][layout][arm]["launches"])
    slow = [layout for layout in ("min", "max") if max((med(layout, "F", k) / med(layout, "D", k) - 1) * 100
                                                        for k in ("c4_tps", "agentic_decode_tps")) < 5]
    assert slow == ["max"] == [lay for lay in ("min", "max") if not study["comparison"][lay]["speed_bar_pass"]]
    page = pages["reports/cuteafd-fp8-recheck-study/gates.html"]
    # 8 fidelity gates (kl and top1 per arm and layout), then per layout the drop, KL, NLL and speed bar.
    assert f"✕ {len(failed) + len(worse) + len(slow)} of 16 gates failed</span>" in page
    row = re.search(r'<th scope="row">top1 drop against the baseline <span class="sub">layout max</span>.*?</tr>', page).group(0)
    assert f"{(top1['max', 'D'] - top1['max', 'F']) * 100:.4g}" in row and "✕ fail<" in row
    row = re.search(r'<th scope="row">kl not worse than the baseline <span class="sub">layout max</span>.*?</tr>', page).group(0)
    assert f"{fidelity['max', 'F']['kl'] - fidelity['max', 'D']['kl']:.4g}" in row and "✕ fail<" in row
    # The study's recommendation opens its report, in its own words.
    overview = pages["reports/cuteafd-fp8-recheck-study/index.html"]
    assert f"The study recommends arm {study['recommendation']['arm']}." in overview
    assert study["recommendation"]["reason"].split(";")[0] in overview


def test_gpqa_shows_the_empty_answers_of_each_run(imported):
    """The GPQA report asks whether v0.9.0 "scores or finishes" differently: the questions left
    without an answer (3 → 9 in the rows) are a result of its own, paired by question."""
    _, pages = imported
    empty = [sum(1 for r in rows(run) if r["empty"]) for run in GPQA]
    assert empty == [json.loads((LEDGER / "runs" / run / "summary.json").read_text())["empty"] for run in GPQA] == [3, 9]
    page = pages["reports/ledger-gpqa-k4-v080-v090/accuracy.html"]
    row = re.search(r'<th scope="row">empty answers \(no answer after reasoning\).*?</tr>', page, re.S).group(0)
    assert f"{empty[0] / 198 * 100:.1f}%" in row and f"{empty[1] / 198 * 100:.1f}%" in row
    assert f"{empty[0]} of 198" in row and f"{empty[1]} of 198" in row and "lower is better" in row


def test_ledger_sides_follow_the_ledgers_own_naming_rule(imported):
    """Engine labels broke the ledger's rule (`<name> <version> + <patch> ≈ <release>`), both GPQA sides
    had one long name, and a label said "no speculation" twice."""
    root, pages = imported
    for folder in (root / "data").iterdir():
        receipt = json.loads((folder / "SUMMARY.json").read_text())
        engines = receipt["report"]["engines"]
        if not folder.name.startswith("ledger-"):
            continue
        assert engines["baseline"]["long_name"] != engines["candidate"]["long_name"], folder.name
        for side in engines.values():
            assert side["long_name"].count("no speculation") <= 1 and " v0." not in side["name"]
    kpool = json.loads((root / "data/ledger-serving-probe-kpoolfix/SUMMARY.json").read_text())["report"]
    assert kpool["engines"]["candidate"]["name"] == "tpurtell 0.8.0 + kpool fixes \u2248 0.9.0"
    assert kpool["title"] == "tpurtell 0.8.0 + kpool fixes \u2248 0.9.0 against tpurtell 0.8.0: serving-probe/v1"
    gpqa = json.loads((root / "data/ledger-gpqa-k4-v080-v090/SUMMARY.json").read_text())["report"]["engines"]
    assert [gpqa[r]["long_name"] for r in ("baseline", "candidate")] == ["4bpw TR3 (Brandon) \u00b7 tpurtell 0.8.0 \u00b7 DFlash2 \u00d73",
                                                                         "4bpw TR3 (Brandon) \u00b7 tpurtell 0.9.0 \u00b7 DFlash2 \u00d73"]
    assert "tpurtell 0.9.0 against tpurtell 0.8.0" in pages["reports/ledger-gpqa-k4-v080-v090/index.html"]


def test_a_side_without_speculation_says_so_once(tmp_path):
    from conftest import import_here

    need_real()
    out = tmp_path / "data" / "nospec"
    r = import_here("import", "ledger", str(LEDGER), "--baseline", "2026-10-04_glm53-flash_k3.25-v0.8.0-kpoolfix-nospec_serving-probe",
                    "--candidate", "2026-10-04_glm53-flash_k3.25-v0.8.0-kpoolfix-dflash3_serving-probe", "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr
    engines = json.loads((out / "SUMMARY.json").read_text())["report"]["engines"]
    assert engines["baseline"]["name"] == "tpurtell 0.8.0 + kpool fixes \u2248 0.9.0 \u00b7 no speculation"
    assert engines["baseline"]["long_name"] == "3.25bpw \u00b7 tpurtell 0.8.0 + kpool fixes \u2248 0.9.0 \u00b7 no speculation"
    assert engines["candidate"]["name"] == "tpurtell 0.8.0 + kpool fixes \u2248 0.9.0 \u00b7 DFlash2 \u00d73"
