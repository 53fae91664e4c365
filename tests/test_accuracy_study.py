"""An accuracy study (`sitegen import lm-eval --setup NAME FILE… --setup …`): every score, interval,
difference, adjusted p-value, verdict and rank checked against an independent computation (numpy and
scipy here, from the harness's own files), for the real 0-shot and 5-shot runs and for drawn studies
whose setups repeat their runs; the pages, the summary and the CSV show it."""
from __future__ import annotations

import copy
import csv as csv_module
import io
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from conftest import import_here, one_error_line, sitegen_here
from test_import_serving import REAL2

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

LMEVAL = REAL2 / "lm-eval" / "bias_classification-Meta-Llama-3-8B"
ZERO, FIVE = "2024-06-17T15-44-37.867068", "2024-06-17T12-20-26.826621"
Z = norm.ppf(0.975)


def need_lmeval() -> None:
    if not LMEVAL.is_dir():
        pytest.skip(f"{LMEVAL} not found")


def study(tmp_path: Path, setups: list[tuple[str, Path]], *extra: str, out: str = "s"):
    args = ["import", "lm-eval"]
    for name, path in setups:
        args += ["--setup", name, str(path)]
    return import_here(*args, *extra, "-o", str(tmp_path / "data" / out), "-q", "--force")


def summary(tmp_path: Path, report: str = "s") -> dict:
    r = sitegen_here("summary", "-f", str(tmp_path / "mkdocs.yml"), report, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["reports"][0]["accuracy_study"]


def bh(p: list[float], q: float = 0.05) -> list[bool]:
    """Benjamini–Hochberg by hand: reject the k smallest, k the largest i with p_(i) <= i q / m."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    k = max((i + 1 for i, j in enumerate(order) if p[j] <= (i + 1) * q / m), default=0)
    out = [False] * m
    for j in order[:k]:
        out[j] = True
    return out


def f1_binary(gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Binary F1 (positive label 1) over the last axis, by its confusion counts."""
    tp = ((gold == 1) & (pred == 1)).sum(axis=-1)
    fp = ((gold != 1) & (pred == 1)).sum(axis=-1)
    fn = ((gold == 1) & (pred != 1)).sum(axis=-1)
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)


def samples_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- the real runs: 0-shot and 5-shot, one run each -------------------------------------------------

def test_the_real_zero_and_five_shot_runs_as_a_study(tmp_path):
    need_lmeval()
    r = study(tmp_path, [("zero", LMEVAL / f"results_{ZERO}.json"), ("five", LMEVAL / f"results_{FIVE}.json")],
              "--setup-label", "zero=0-shot", "--setup-label", "five=5-shot")
    assert r.returncode == 0, r.stderr
    s = summary(tmp_path)
    runs = {k: {d["doc_id"]: d for d in samples_of(LMEVAL / f"samples_bias_classification_{t}.json")}
            for k, t in (("zero", ZERO), ("five", FIVE))}
    ids = sorted(runs["zero"])
    want_p, comps = [], {}
    for metric in ("acc", "acc_norm"):
        x = {k: np.array([float(runs[k][i][metric]) for i in ids]) for k in runs}
        for k in runs:
            got = next(g for g in s["scores"] if g["metric"] == metric and g["setup"] == k)
            se = x[k].std(ddof=1) / math.sqrt(len(ids))
            assert got["value"] == pytest.approx(x[k].mean(), abs=1e-12)
            assert got["interval"]["low"] == pytest.approx(x[k].mean() - Z * se, abs=1e-9)
            assert got["interval"]["high"] == pytest.approx(x[k].mean() + Z * se, abs=1e-9)
        d = x["five"] - x["zero"]
        se = d.std(ddof=1) / math.sqrt(d.size)
        comps[metric] = (d.mean(), d.mean() - Z * se, d.mean() + Z * se)
        want_p.append(2 * norm.sf(abs(d.mean()) / se))
    # f1: the (gold, prediction) pairs, one bootstrap over documents for both setups (seed 0, 2,000).
    pairs = {k: np.array([runs[k][i]["f1"] for i in ids], dtype=float) for k in runs}
    idx = np.random.default_rng(0).integers(0, len(ids), size=(2000, len(ids)))
    boot = {k: f1_binary(pairs[k][:, 0][idx], pairs[k][:, 1][idx]) for k in runs}
    value = {k: float(f1_binary(pairs[k][:, 0], pairs[k][:, 1])) for k in runs}
    diff = boot["five"] - boot["zero"]
    lo, hi = np.percentile(diff, [2.5, 97.5])
    p_f1 = min(1.0, 2 * min((1 + (diff <= 0).sum()) / 2001, (1 + (diff >= 0).sum()) / 2001))
    comps["f1"] = (value["five"] - value["zero"], lo, hi)
    want_p.append(p_f1)
    for k in runs:
        got = next(g for g in s["scores"] if g["metric"] == "f1" and g["setup"] == k)
        assert got["value"] == pytest.approx(value[k], abs=1e-12)
        assert (got["interval"]["low"], got["interval"]["high"]) == pytest.approx(tuple(np.percentile(boot[k], [2.5, 97.5])))
    rejected = bh(want_p)
    assert s["tests"] == 3
    for (metric, (d, lo, hi)), rej in zip(comps.items(), rejected):
        got = next(c for c in s["comparisons"] if c["metric"] == metric)
        assert (got["a"], got["b"], got["paired"]) == ("five", "zero", True)
        assert got["difference"] == pytest.approx(d, abs=1e-12)
        assert (got["interval"]["low"], got["interval"]["high"]) == pytest.approx((lo, hi), abs=1e-9)
        want = ("better" if d > 0 else "worse") if rej and (lo > 0 or hi < 0) else "not resolved"
        assert got["verdict"] == want, metric
    # What the real runs say: 5-shot's F1 is lower, its accuracy not resolved.
    assert [c["verdict"] for c in s["comparisons"]] == ["not resolved", "not resolved", "worse"]


# -- drawn studies: setups with repeated runs ----------------------------------------------------------

def lm_files(folder: Path, stamp: str, model: str, acc: np.ndarray, pairs: np.ndarray, shots: int = 0) -> Path:
    """A harness run of task `t` (acc per document, binary f1 of (gold, prediction) pairs) as the
    harness writes it: results_<time>.json and samples_t_<time>.jsonl beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    n = acc.size
    f1 = float(f1_binary(pairs[:, 0], pairs[:, 1]))
    results = {"results": {"t": {"alias": "t", "acc,none": float(acc.mean()),
                                 "acc_stderr,none": float(acc.std(ddof=1) / math.sqrt(n)), "f1,none": f1}},
               "configs": {"t": {"num_fewshot": shots}}, "versions": {"t": 1}, "n-shot": {"t": shots},
               "higher_is_better": {"t": {"acc": True, "f1": True}}, "n-samples": {"t": {"original": n, "effective": n}},
               "config": {"model": "hf", "model_args": f"pretrained={model}"}, "model_name": model,
               "date": datetime(2026, 1, 2, tzinfo=UTC).timestamp()}
    out = folder / f"results_{stamp}.json"
    out.write_text(json.dumps(results))
    with open(folder / f"samples_t_{stamp}.jsonl", "w") as f:
        for i in range(n):
            f.write(json.dumps({"doc_id": i, "doc_hash": f"h{i}", "filter": "none", "acc": float(acc[i]),
                                "f1": [int(pairs[i, 0]), int(pairs[i, 1])]}) + "\n")
    return out


def draw(rng: np.random.Generator, p: np.ndarray, gold: np.ndarray, flip: float) -> tuple[np.ndarray, np.ndarray]:
    """One run: each document right with its probability p (acc), and a prediction of gold flipped with
    probability `flip` (f1 pairs)."""
    acc = (rng.random(p.size) < p).astype(float)
    pred = np.where(rng.random(gold.size) < flip, 1 - gold, gold)
    return acc, np.stack([gold, pred], axis=1)


def test_a_drawn_study_combines_repeats_document_by_document(tmp_path):
    rng = np.random.default_rng(7)
    n = 300
    ease = rng.beta(2, 2, n)           # each document's difficulty, shared by every setup
    gold = (rng.random(n) < 0.5).astype(int)
    setups = {"a": (0.0, 0.15, 2), "b": (0.12, 0.15, 3), "c": (0.0, 0.35, 1)}  # accuracy shift, f1 flips, runs
    given: list[tuple[str, Path]] = []
    runs: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for k, (shift, flip, count) in setups.items():
        for j in range(count):
            acc, pairs = draw(rng, np.clip(ease + shift, 0, 1), gold, flip)
            runs.setdefault(k, []).append((acc, pairs))
            given.append((k, lm_files(tmp_path / "runs" / f"{k}{j}", f"2026-01-02T00-00-0{j}", "org/model", acc, pairs)))
    r = study(tmp_path, given, "--baseline", "a")
    assert r.returncode == 0, r.stderr
    s = summary(tmp_path)
    assert {x["id"]: x["runs"] for x in s["setups"]} == {"a": 2, "b": 3, "c": 1}
    # Scores: each document's mean over the setup's runs, their mean and standard error.
    per_doc = {k: np.mean([acc for acc, _ in rs], axis=0) for k, rs in runs.items()}
    for k in setups:
        got = next(g for g in s["scores"] if g["metric"] == "acc" and g["setup"] == k)
        se = per_doc[k].std(ddof=1) / math.sqrt(n)
        assert got["value"] == pytest.approx(np.mean([acc.mean() for acc, _ in runs[k]]), abs=1e-12)
        assert (got["interval"]["low"], got["interval"]["high"]) == pytest.approx(
            (per_doc[k].mean() - Z * se, per_doc[k].mean() + Z * se), abs=1e-9)
    # Comparisons: b and c against the baseline a, then c against b; paired over documents.
    idx = np.random.default_rng(0).integers(0, n, size=(2000, n))
    boot = {k: np.mean([f1_binary(pr[:, 0][idx], pr[:, 1][idx]) for _, pr in rs], axis=0) for k, rs in runs.items()}
    f1 = {k: np.mean([float(f1_binary(pr[:, 0], pr[:, 1])) for _, pr in rs]) for k, rs in runs.items()}
    want = []
    for a, b in (("b", "a"), ("c", "a"), ("c", "b")):
        d = per_doc[a] - per_doc[b]
        se = d.std(ddof=1) / math.sqrt(n)
        want.append(("acc", a, b, d.mean(), d.mean() - Z * se, d.mean() + Z * se, 2 * norm.sf(abs(d.mean()) / se)))
    for a, b in (("b", "a"), ("c", "a"), ("c", "b")):
        diff = boot[a] - boot[b]
        lo, hi = np.percentile(diff, [2.5, 97.5])
        p = min(1.0, 2 * min((1 + (diff <= 0).sum()) / 2001, (1 + (diff >= 0).sum()) / 2001))
        want.append(("f1", a, b, f1[a] - f1[b], lo, hi, p))
    got = {(c["metric"], c["a"], c["b"]): c for c in s["comparisons"]}
    assert len(got) == 6 and s["tests"] == 6
    rejected = bh([w[-1] for w in want])
    verdicts = {}
    for (metric, a, b, d, lo, hi, _), rej in zip(want, rejected):
        c = got[metric, a, b]
        assert c["difference"] == pytest.approx(d, abs=1e-12)
        assert (c["interval"]["low"], c["interval"]["high"]) == pytest.approx((lo, hi), abs=1e-9)
        verdicts[metric, a, b] = ("better" if d > 0 else "worse") if rej and (lo > 0 or hi < 0) else "not resolved"
        assert c["verdict"] == verdicts[metric, a, b], (metric, a, b)
    # What was drawn: b is 0.12 more accurate than a and c (found); c's predictions are noisier (f1 lower).
    assert verdicts["acc", "b", "a"] == "better" and verdicts["acc", "c", "b"] == "worse"
    assert verdicts["acc", "c", "a"] == "not resolved"
    assert verdicts["f1", "c", "a"] == "worse"
    # The CSV of ranks: b first for accuracy, a and c tied behind it.
    site = tmp_path / "site"
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n```sitegen\nreport: s\nblock: accuracy-study\n```\n")
    built = sitegen_here("build", "-q", "--no-cache", "-d", str(site), "-f", str(tmp_path / "mkdocs.yml"))
    assert built.returncode == 0, built.stderr
    home = (site / "index.html").read_text()
    assert 'class="sitegen-accuracy-study"' in home and "t: acc (higher is better)" in home and "=#2" in home
    ranks = list(csv_module.DictReader(io.StringIO((site / "reports/s/csv/accuracy-study-ranks.csv").read_text())))
    acc_rank = {row["setup"]: (int(row["rank"]), row["tied"]) for row in ranks if row["key"] == "t|acc|none"}
    assert acc_rank == {"b": (1, "False"), "a": (2, "True"), "c": (2, "True")}
    page = (site / "reports/s/accuracy-study.html").read_text()
    assert "3 runs" in page and "=#2" in page and "#1" in page
    assert "Benjamini–Hochberg procedure over all 6 comparisons" in page
    # Who leads: b alone ahead in accuracy; in F1, a and b tied ahead of c.
    assert "Ranked first alone (a verdict puts it ahead of every other setup): b in 1 of 2 scores." in page
    # The overview names each resolved comparison the better setup first, with its lead (the difference
    # turned round where a is the worse one) and the lead's interval, the largest lead first.
    import re
    overview = (site / "reports/s/index.html").read_text()
    items = re.findall(r"<li><strong>([^<]+)</strong> ahead of ([^<]+) on ([^:]+: [a-z0-9]+): (.*?)</li>",
                       overview.split('id="accuracy-study-resolved"')[1].split("</ul>")[0])
    expect = []
    for (metric, a, b, d, lo, hi, _), _rejected in zip(want, rejected):
        if verdicts[metric, a, b] != "not resolved":
            win, lose, lead, span = (a, b, d, (lo, hi)) if d > 0 else (b, a, -d, (-hi, -lo))
            expect.append((win, lose, f"t: {metric}", lead, span))
    expect.sort(key=lambda e: -e[3])
    assert len(items) >= 3
    assert [(w, lo_, what) for w, lo_, what, _ in items] == [(w, lo_, what) for w, lo_, what, _, _ in expect]
    for (_, _, _, text), (_, _, _, lead, (low, high)) in zip(items, expect):
        # In points (a proportion's difference, as the pair's accuracy prints it), to one decimal.
        nums = [float(x.replace("\u2212", "-")) / 100 for x in re.findall(r"[+\u2212-]\d+\.\d", re.sub("<[^>]+>", "", text))]
        assert nums == pytest.approx([lead, low, high], abs=0.0005) and lead > 0 and low > 0


def test_two_setups_of_one_model_run_alike_read_as_no_difference(tmp_path):
    rng = np.random.default_rng(11)
    n = 400
    ease = rng.beta(2, 2, n)
    gold = (rng.random(n) < 0.5).astype(int)
    given = []
    for k in ("x", "y"):
        for j in range(3):
            acc, pairs = draw(rng, ease, gold, 0.2)
            given.append((k, lm_files(tmp_path / "runs" / f"{k}{j}", f"2026-01-02T00-00-0{j}", "org/model", acc, pairs)))
    assert study(tmp_path, given).returncode == 0
    s = summary(tmp_path)
    assert {c["verdict"] for c in s["comparisons"]} == {"not resolved"}


def test_bad_studies_are_one_error_line(tmp_path):
    need_lmeval()
    zero, five = LMEVAL / f"results_{ZERO}.json", LMEVAL / f"results_{FIVE}.json"
    r = study(tmp_path, [("a", zero), ("b", zero)])
    one_error_line(r.returncode, r.stderr, "given twice")
    r = study(tmp_path, [("a", zero)])
    one_error_line(r.returncode, r.stderr, "two setups or more")
    r = study(tmp_path, [("a", zero), ("b", five)], "--baseline", "c")
    one_error_line(r.returncode, r.stderr, "--baseline 'c' names no setup")
    d = json.loads(five.read_text())
    d["model_name"] = "other/model"
    other = tmp_path / "o" / f"results_{FIVE}.json"
    other.parent.mkdir()
    other.write_text(json.dumps(d))
    (other.parent / f"samples_bias_classification_{FIVE}.json").write_bytes(
        (LMEVAL / f"samples_bias_classification_{FIVE}.json").read_bytes())
    r = study(tmp_path, [("a", zero), ("a", other), ("b", five)])
    one_error_line(r.returncode, r.stderr, "setup 'a'", "other models", "--allow model")
    assert not (tmp_path / "data" / "s").exists()


def test_compare_two_accuracy_studies_of_the_same_setups(tmp_path):
    from conftest import ROOT

    rng = np.random.default_rng(5)
    n = 300
    ease = rng.beta(2, 2, n)
    gold = (rng.random(n) < 0.5).astype(int)
    per_doc: dict[tuple[str, str], np.ndarray] = {}
    for out, shift in (("old", 0.0), ("new", 0.15)):
        given = []
        for k, s in (("x", 0.0), ("y", shift)):
            accs = []
            for j in range(2):
                acc, pairs = draw(rng, np.clip(ease + s, 0, 1), gold, 0.2)
                accs.append(acc)
                given.append((k, lm_files(tmp_path / out / f"{k}{j}", f"2026-01-02T00-00-0{j}", "org/model", acc, pairs)))
            per_doc[out, k] = np.mean(accs, axis=0)
        assert study(tmp_path, given, out=out).returncode == 0
    r = sitegen_here("compare", "old", "new", "--format", "json", "-f", str(tmp_path / "mkdocs.yml"))
    out = json.loads(r.stdout)
    schema = json.loads((ROOT / "site_gen/schema/compare-output-1.schema.json").read_text())
    import jsonschema

    assert list(jsonschema.Draft202012Validator(schema).iter_errors(out)) == []
    acc = {c["where"]["setup"]: c for c in out["changes"] if c["where"]["measure"] == "t: acc"}
    assert set(acc) == {"x", "y"}
    for k, c in acc.items():
        o, nw = per_doc["old", k], per_doc["new", k]
        d = nw.mean() - o.mean()
        se = math.hypot(o.std(ddof=1) / math.sqrt(n), nw.std(ddof=1) / math.sqrt(n))
        assert c["change"]["value"] == pytest.approx(d, abs=1e-12)
        assert (c["change"]["low"], c["change"]["high"]) == pytest.approx((d - Z * se, d + Z * se), abs=1e-9)
    assert acc["y"]["verdict"] == "better" and acc["x"]["verdict"] == "not resolved"
    text = sitegen_here("compare", "old", "new", "-f", str(tmp_path / "mkdocs.yml")).stdout
    assert "y · t: acc" in text


# -- the receipt: its meaning checks, and any drawn accuracy study builds ------------------------------

def drawn_receipt(rng: np.random.Generator, setups: int = 3, runs: tuple[int, ...] = (1, 2, 3), n: int = 40,
                  kinds: tuple[str, ...] = ("mean", "f1", "mcc", "stated"), baseline: bool = False,
                  text_labels: bool = False) -> dict:
    """An accuracy_study receipt (schema 1.4) drawn here, every metric of every kind with its scores."""
    ids = [chr(ord("a") + i) for i in range(setups)]
    part: dict = {"method": {"resamples": 200, "seed": 0, "level": 0.95},
                  "setups": [{"id": s, "label": f"setup {s}", "runs": [{"source": "s1"} for _ in range(runs[i % len(runs)])]}
                             for i, s in enumerate(ids)], "tasks": []}
    docs = list(range(n))
    metrics = []
    for kind in kinds:
        m = {"metric": kind, "filter": "none", "label": f"t: {kind}", "better": "higher", "kind": kind, "runs": []}
        for i, s in enumerate(ids):
            for k in range(runs[i % len(runs)]):
                entry: dict = {"setup": s, "run": k}
                if kind == "mean":
                    sc_ = (rng.random(n) < 0.5 + 0.05 * i).astype(float).tolist()
                    entry.update(value=float(np.mean(sc_)) if n else 0.0, scores=sc_)
                elif kind == "stated":
                    entry.update(value=float(rng.random()), stderr=float(rng.random() * 0.05))
                else:
                    gold = rng.integers(0, 3 if kind == "mcc" else 2, n)
                    pred = np.where(rng.random(n) < 0.3, rng.integers(0, 2, n), gold)
                    pairs = [[(f"L{g}" if text_labels else int(g)), (f"L{p}" if text_labels else int(p))]
                             for g, p in zip(gold, pred)]
                    entry.update(value=0.5, scores=pairs)
                m["runs"].append(entry)
        metrics.append(m)
    part["tasks"].append({"task": "t", "documents": docs, "metrics": metrics})
    if baseline:
        part["baseline"] = "a"
    engines = {"candidate": {"name": f"{setups} setups", "version": "unrecorded"}}
    return {"schema_version": 1.4, "report": {"title": "Drawn accuracy study", "date": "2026-01-02", "engines": engines,
                                              "checkpoints": [{"id": "m", "label": "org/model"}]},
            "accuracy_study": part,
            "provenance": {"sources": [{"id": "s1", "file": "results.json", "sha256": "0" * 64}], "figures": []}}


def _load(tmp_path: Path, doc: dict):
    from site_gen.core.diagnostics import refuse
    from site_gen.receipts.load import load_report

    folder = tmp_path / "data" / "r"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SUMMARY.json").write_text(json.dumps(doc))
    refuse(load_report(folder, tmp_path / "data").warnings)


M0 = "$.accuracy_study.tasks[0].metrics[0]"


@pytest.mark.parametrize("edit, where, message", [
    (lambda d: d["accuracy_study"]["setups"][1].update(id="a"), "$.accuracy_study.setups[1].id", "duplicate setup id"),
    (lambda d: d["accuracy_study"]["setups"][1].update(label="setup a"), "$.accuracy_study.setups[1].label",
     "two setups are labelled"),
    (lambda d: d["accuracy_study"].update(baseline="z"), "$.accuracy_study.baseline", "unknown baseline setup"),
    (lambda d: d["accuracy_study"]["tasks"][0]["metrics"][0]["runs"][0].update(setup="z"), f"{M0}.runs[0].setup",
     "unknown setup"),
    (lambda d: d["accuracy_study"]["tasks"][0]["metrics"][0]["runs"][0].update(run=5), f"{M0}.runs[0].run", "no run 5"),
    (lambda d: d["accuracy_study"]["tasks"][0]["metrics"][0]["runs"][1].update(setup="a", run=0), f"{M0}.runs[1]", "again"),
    (lambda d: d["accuracy_study"]["tasks"][0]["metrics"][0]["runs"][0]["scores"].pop(), f"{M0}.runs[0].scores",
     "one a document"),
    (lambda d: d["accuracy_study"]["tasks"][0]["metrics"][0]["runs"][0]["scores"].__setitem__(0, [1, 0]),
     f"{M0}.runs[0].scores", "are numbers"),
    (lambda d: d["accuracy_study"]["setups"][0]["runs"][0].update(source="s9"), "$.accuracy_study.setups[0].runs[0].source",
     "not in $.provenance.sources"),
])
def test_accuracy_study_meaning_checks_refuse_at_the_place(tmp_path, edit, where, message):
    from site_gen.core.errors import SitegenError

    doc = drawn_receipt(np.random.default_rng(1), runs=(1, 2, 1))
    _load(tmp_path, copy.deepcopy(doc))  # valid as drawn
    edit(doc)
    with pytest.raises(SitegenError) as exc:
        _load(tmp_path, doc)
    assert exc.value.where == where and message in exc.value.message, (exc.value.where, exc.value.message)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 16), setups=st.integers(2, 4), runs=st.lists(st.integers(1, 3), min_size=1, max_size=3),
       n=st.sampled_from([0, 1, 2, 25]), baseline=st.booleans(), text_labels=st.booleans())
def test_any_drawn_accuracy_study_builds_and_summarises(tmp_path_factory, seed, setups, runs, n, baseline, text_labels):
    """Every shape the schema and the meaning checks accept builds (pages, CSV, summary): one setup
    with one run or several, no document, one, a few; labels as numbers or text; with a baseline or not."""
    from site_gen.building.builder import build_files
    from site_gen.core.config import load_config

    root = tmp_path_factory.mktemp("drawn")
    doc = drawn_receipt(np.random.default_rng(seed), setups, tuple(runs), n, baseline=baseline, text_labels=text_labels)
    if baseline:
        doc["report"]["engines"]["baseline"] = {"name": "setup a", "version": "unrecorded"}
    _load(root, doc)
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# Home\n")
    (root / "mkdocs.yml").write_text("site_name: Drawn\nplugins:\n  - sitegen:\n      data_dir: data\n")
    files = build_files(load_config(root / "mkdocs.yml")).files
    page = files["reports/r/accuracy-study.html"].decode()
    assert "t: mean" in page and "t: f1" in page
    r = sitegen_here("summary", "--format", "json", "-f", str(root / "mkdocs.yml"))
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["reports"][0]["accuracy_study"]
    pairs = setups * (setups - 1) // 2
    assert len(s["comparisons"]) == 4 * pairs


def test_compare_prints_a_score_on_its_own_scale_as_it_is(tmp_path):
    """`sitegen compare` of two accuracy studies: a proportion (a mean of 0/1 scores, F1) in percent
    with its change in points, Matthews' correlation as the number it is (−1 to 1), as the study's
    page prints each; the JSON says which by its unit."""
    for name, seed in (("old", 1), ("new", 2)):
        folder = tmp_path / "data" / name
        folder.mkdir(parents=True)
        (folder / "SUMMARY.json").write_text(json.dumps(drawn_receipt(np.random.default_rng(seed), 3, (2,), 60)))
    (tmp_path / "mkdocs.yml").write_text("site_name: D\nplugins:\n  - sitegen:\n      data_dir: data\n")
    r = sitegen_here("compare", "old", "new", "--format", "json", "-f", str(tmp_path / "mkdocs.yml"))
    changes = json.loads(r.stdout)["changes"]
    text = sitegen_here("compare", "old", "new", "-f", str(tmp_path / "mkdocs.yml")).stdout
    lines = {ln.split("·")[0].split()[-1] + ln.split("·")[1].split()[1]: ln for ln in text.splitlines() if "· t: " in ln}
    seen = set()
    for c in changes:
        metric = c["where"]["measure"].split(": ")[1]
        old, new = c["old"]["value"] if isinstance(c["old"], dict) else c["old"], \
            c["new"]["value"] if isinstance(c["new"], dict) else c["new"]
        line = lines[c["where"]["setup"].split()[-1] + metric]
        if metric in ("mean", "f1"):
            assert c["unit"] == "proportion"
            assert f"{old * 100:.1f} → {new * 100:.1f} %" in line, line
        elif metric == "mcc":
            assert c["unit"] != "proportion" and -1 <= new <= 1
            shown = [float(x) for x in re.findall(r"(-?\d+\.\d+) → (-?\d+\.\d+)", line)[0]]
            assert shown == pytest.approx([old, new], abs=0.0005), line  # not x100
            assert "%" not in line
        seen.add(metric)
    assert {"mean", "f1", "mcc"} <= seen
