"""False alarms of `sitegen compare --fail-on worse` (issue 31): repeats of one setup compared as if
they were two releases. Nothing changed between them, so every figure called worse is a false alarm.

    python benchmarks/false_alarms.py                 # 40 drawn pairs of each kind, seed 0
    python benchmarks/false_alarms.py --pairs 200 --seed 1

Pairs, each compared at the default settings (noise band ±8%, 95% intervals, 2,000 resamples):

- real A/A: vLLM's two runs of tp4×pp2 with InfiniBand (../shared/real2, `03_tp4_pp2_IB` and
  `04_tp4_pp2_IB`, 200 ShareGPT requests at each of 4 loads), each imported as a one-side report
  (`sitegen import vllm-bench --candidate`), compared both ways (their files name the hardware
  differently: `--allow hardware`). Latency percentiles take the unpaired bootstrap over requests,
  throughputs (one run each) the band.
- drawn A/A, rows: pairs of one-side serving reports whose rows come from one distribution
  (tests/serving_receipts.py: 4 loads x 200 requests, lognormal TTFT and TPOT, 20 to 400 output
  tokens, some failed and one-token requests): one run a side sending the same prompts (token
  counts kept, latencies drawn anew: `vllm bench serve --seed`), one run a side of other prompts
  (token counts drawn anew: a throughput then moves with them), and three runs a side (t over runs).
- drawn A/A, one-run cells (the band rule, no interval): the starter receipt's 8 speed cells, each
  release's candidate rate drawn lognormal around the receipt's value with the run-to-run spread of
  real repeated launches: the pooled standard deviation of log tokens/s over the launches of
  data/cuteafd-fp8-recheck-study (3 launches an arm and layout), then twice and three times that.

Each line: pairs, figures compared, figures called worse (false alarms) and their share, figures
called better, and the pairs with any figure worse (a CI run that would fail). Goal: at most 5% of
figures at the default settings; exits 1 when a row at the measured spread misses it.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import serving_receipts as sr  # noqa: E402
from site_gen import api  # noqa: E402
from site_gen.building.starter import receipt as starter  # noqa: E402
from site_gen.cli import main as sitegen  # noqa: E402

REAL2 = ROOT.parent / "shared" / "real2"
VLLM = REAL2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
GOAL = 0.05


class Project:
    def __init__(self, folder: Path):
        self.root = folder
        (folder / "data").mkdir(parents=True)
        (folder / "mkdocs.yml").write_text("site_name: A/A\nplugins:\n  - sitegen:\n      data_dir: data\n", encoding="utf-8")
        self.config = api.load_config(folder / "mkdocs.yml")
        self.n = 0

    def write(self, doc: dict) -> str:
        self.n += 1
        name = f"r{self.n}"
        sr.write(self.root / "data" / name, doc)
        return name

    def counts(self, old: str, new: str, allow: tuple[str, ...] = ()) -> dict[str, int]:
        out = json.loads(api.compare(self.config, old, new, fmt="json", fail_on="worse", allow=allow).text)
        return out["counts"]


def tally(rows: list[dict[str, int]]) -> dict[str, int]:
    """Figures compared, called worse and better over the pairs, and the pairs with any worse (a failed CI run)."""
    out = {k: sum(r[k] for r in rows) for k in ("compared", "worse", "better")}
    out["failing"] = sum(1 for r in rows if r["worse"])
    return out


def real_pairs(folder: Path) -> dict[str, int] | None:
    if not VLLM.is_dir():
        return None
    p = Project(folder)
    for run, name in (("03_tp4_pp2_IB", "ib-1"), ("04_tp4_pp2_IB", "ib-2")):
        files = sorted(glob.glob(str(VLLM / run / "*_qps_*.json")))
        code = sitegen(["import", "vllm-bench", "--candidate", *files, "--label-candidate", "tp4×pp2 InfiniBand",
                        "-o", str(folder / "data" / name), "-q", "-f", str(folder / "mkdocs.yml")])
        if code != 0:
            raise SystemExit(f"import of {run} failed")
    return tally([p.counts("ib-1", "ib-2", ("hardware",)), p.counts("ib-2", "ib-1", ("hardware",))])


def one_side(rng: np.random.Generator, repeats: int) -> dict:
    points = [[sr.rows(rng, 200, failed=2, one_token=2) for _ in range(repeats)] for _ in range(4)]
    return sr.receipt({"candidate": points})


def same_prompts(rng: np.random.Generator, first: dict) -> dict:
    """A second run of `first`'s requests (one run a side): the same input and output token counts,
    latencies drawn anew from the same distribution."""
    doc = one_side(rng, 1)
    for lp, was in zip(doc["serving"]["sides"]["candidate"]["load_points"], first["serving"]["sides"]["candidate"]["load_points"]):
        req, old = lp["repeats"][0]["requests"], was["repeats"][0]["requests"]
        req["input_tokens"], req["output_tokens"] = list(old["input_tokens"]), list(old["output_tokens"])
        req["e2e_ms"] = [None if e else round(t + (p or 0.0) * (o - 1), 6)
                         for t, p, o, e in zip(req["ttft_ms"], req["tpot_ms"], req["output_tokens"], req["error"])]
    return doc


def drawn_rows(folder: Path, pairs: int, seed: int, repeats: int, same: bool = False) -> dict[str, int]:
    p = Project(folder)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(pairs):
        first = one_side(rng, repeats)
        second = same_prompts(rng, first) if same else one_side(rng, repeats)
        rows.append(p.counts(p.write(first), p.write(second)))
    return tally(rows)


def study_spread() -> tuple[float, int]:
    """Pooled standard deviation of log tokens/s over repeated launches of one arm and layout (the
    study's own samples), and how many launches it is from."""
    doc = json.loads((ROOT / "data" / "cuteafd-fp8-recheck-study" / "SUMMARY.json").read_text(encoding="utf-8"))
    squares, dof, launches = 0.0, 0, 0
    for r in doc["measures"]["results"]:
        if r["unit"] != "tokens/s":
            continue
        for role in ("baseline", "candidate"):
            s = np.log(np.array(r[role].get("samples", []), dtype=float))
            if s.size >= 2:
                squares += float(((s - s.mean()) ** 2).sum())
                dof += s.size - 1
                launches += s.size
    return math.sqrt(squares / dof), launches


def drawn_cells(folder: Path, pairs: int, seed: int, sigma: float) -> dict[str, int]:
    """Speed cells of one run each: every release's candidate rate drawn around the receipt's."""
    p = Project(folder)
    rng = np.random.default_rng(seed)

    def release() -> dict:
        doc = starter()
        for cell in doc["speed"]["cells"]:
            cell["candidate"]["rate"] = round(cell["candidate"]["rate"] * math.exp(rng.normal(0.0, sigma)), 6)
        return doc

    rows = [p.counts(p.write(release()), p.write(release())) for _ in range(pairs)]
    # Only the cells are drawn; the receipt's other figures are equal in both releases and left out.
    out = tally(rows)
    out["compared"] = 8 * pairs
    return out


def line(label: str, pairs: int, c: dict[str, int]) -> tuple[str, float]:
    share = c["worse"] / c["compared"] if c["compared"] else float("nan")
    return (f"| {label} | {pairs} | {c['compared']:,} | {c['worse']} | {share * 100:.1f}% | {c['better']} | "
            f"{c['failing']} ({c['failing'] / pairs * 100:.0f}%) | {'met' if share <= GOAL else 'NOT met'} |"), share


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=40, help="drawn pairs of each kind (default 40)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    sigma, launches = study_spread()
    out = ["| A/A pairs (nothing changed) | pairs | figures compared | called worse | false alarms a figure | called better "
           "| pairs that fail (exit 1) | goal: ≤ 5% a figure |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    missed = False
    with tempfile.TemporaryDirectory(prefix="sitegen-aa-") as tmp:
        tmp = Path(tmp)
        real = real_pairs(tmp / "real")
        if real is None:
            print(f"(no {VLLM}: the real pair is left out)", file=sys.stderr)
        else:
            text, share = line("real: vLLM tp4×pp2 InfiniBand, run 1 and run 2, both ways", 2, real)
            out.append(text)
            missed |= share > GOAL
        for label, repeats, same in (
                ("drawn: serving rows, one run a side, the same prompts (latencies drawn anew)", 1, True),
                ("drawn: serving rows, one run a side, other prompts (token counts drawn anew too)", 1, False),
                ("drawn: serving rows, three runs a side, other prompts (t over runs)", 3, False)):
            text, share = line(label, args.pairs, drawn_rows(tmp / f"rows-{repeats}-{same}", args.pairs, args.seed, repeats, same))
            out.append(text)
            missed |= share > GOAL
        for k in (1, 2, 3):
            s = sigma * k
            label = (f"drawn: speed cells, one run each (band), run-to-run sd {s * 100:.1f}%"
                     + (f" (the study's {launches} launches)" if k == 1 else f" ({k}x the study's)"))
            text, share = line(label, args.pairs, drawn_cells(tmp / f"cells-{k}", args.pairs, args.seed, s))
            out.append(text)
            missed |= share > GOAL and k == 1
    print("\n".join(out))
    band = api.PLUGIN_OPTIONS["noise_band"].default
    print(f"\nDefault settings: noise band ±{band * 100:g}%, 95% intervals, 2,000 resamples; seed {args.seed}.")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
