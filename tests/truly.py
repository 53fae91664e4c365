"""Receipts of the shapes issue 28 describes, and a small harness to build them and read what a
reader reads: visible page text, `sitegen summary` in each format, CSV rows.

`losing()` is a report written from the docs as a new user would, with schema 1.1 features: the
candidate SGLang (its version written `v0.5.3`) loses against vLLM, accuracy at a 90% level with one
result that has no paired difference, a failed quality gate, ready-only startups, a checkpoint one
side measured alone, an earlier version's KV pool, an error count. `winning()` is the starter
receipt (`sitegen new`), which wins; `minimal()` holds the report part and one speed cell.
"""
from __future__ import annotations

import copy
import csv
import html
import io
import json
import re
from pathlib import Path

from conftest import ROOT, sitegen_here
from site_gen.building import starter as new


def winning() -> dict:
    return copy.deepcopy(new.receipt())


def minimal() -> dict:
    return {"schema_version": 1, "report": {
        "title": "A against B", "date": "2026-02-01", "engines": {"candidate": {"name": "A", "version": "2"},
                                                                "baseline": {"name": "B", "version": "1"}},
        "checkpoints": [{"id": "C1"}]},
        "speed": {"cells": [{"checkpoint": "C1", "workload": "chat", "input_tokens": 1024, "output_tokens": 256, "concurrency": 1,
                             "metric": "decode", "unit": "tokens/s", "baseline": {"rate": 50.0, "errors": 0},
                             "candidate": {"rate": 52.0, "errors": 0}}]}}


def losing() -> dict:
    cells = []
    for workload, inp, conc, base, cand in (("chat", 2048, 1, 80.0, 70.0), ("chat", 2048, 8, 600.0, 510.0),
                                            ("long", 8192, 1, 60.0, 58.0), ("long", 8192, 8, 420.0, 300.0)):
        for metric, scale in (("aggregate", 1.0), ("decode", 0.1 if conc > 1 else 0.95)):
            cells.append({"checkpoint": "M1", "workload": workload, "input_tokens": inp, "output_tokens": 1024,
                          "concurrency": conc, "metric": metric, "unit": "tokens/s",
                          "baseline": {"rate": round(base * scale, 3), "errors": 0},
                          "candidate": {"rate": round(cand * scale, 3), "errors": 0}})
    cells[3]["candidate"]["errors"] = 1  # one failed request, on the candidate, in one cell
    return {
        "schema_version": 1.1,
        "illustrative": "Every value in this receipt is invented, to show how a losing report reads.",
        "report": {
            "title": "SGLang v0.5.3 against vLLM v0.11.0", "date": "2026-03-02",
            "lede": "SGLang is ready in {{ startup_max }} at the slowest.",
            "engines": {"candidate": {"name": "SGLang", "version": "v0.5.3"}, "baseline": {"name": "vLLM", "version": "0.11.0"}},
            "hardware": "one H100 80GB",
            "checkpoints": [{"id": "M1", "label": "Model one"}, {"id": "M2", "label": "Model two",
                                                                 "missing": {"baseline": "vLLM could not load it"}}],
            "differs": [{"field": "attention backend", "baseline": "flash", "candidate": "triton", "allowed": True}],
        },
        "speed": {"cells": cells, "ttft": [{"checkpoint": "M1", "input_tokens": 8192, "workload": "long", "concurrency": 1,
                                            "baseline": {"seconds": 1.2}, "candidate": {"seconds": 1.5}}]},
        "memory": {
            "kv_pool": [{"checkpoint": "M1", "engine": "baseline", "tokens": 900000},
                        {"checkpoint": "M1", "engine": "candidate", "tokens": 850000},
                        {"checkpoint": "M2", "engine": "candidate", "tokens": 1022464}],
            "startup": [{"checkpoint": "M1", "engine": "baseline", "ready_s": 95.0},
                        {"checkpoint": "M1", "engine": "candidate", "ready_s": 130.0},
                        {"checkpoint": "M2", "engine": "candidate", "ready_s": 412.0}],
            "references": [{"checkpoint": "M1", "name": "SGLang", "version": "v0.5.2", "kv_pool_tokens": 817000}],
        },
        "accuracy": {
            "method": {"name": "paired bootstrap over questions", "resamples": 1000, "seed": 7, "level": 0.9},
            "results": [
                {"checkpoint": "M1", "measure": "gsm8k", "label": "GSM8K", "unit": "proportion", "better": "higher", "items": 200,
                 "baseline": {"value": 0.80, "interval": [0.76, 0.84]}, "candidate": {"value": 0.74, "interval": [0.69, 0.79]},
                 "difference": -0.06, "interval": [-0.09, -0.03]},
                {"checkpoint": "M1", "measure": "mmlu", "label": "MMLU", "unit": "proportion", "better": "higher", "items": 300,
                 "baseline": {"value": 0.70}, "candidate": {"value": 0.705}, "difference": 0.005, "interval": [-0.01, 0.02]},
                {"checkpoint": "M1", "measure": "refusals", "label": "Refusals", "unit": "proportion", "better": "lower", "items": 300,
                 "baseline": {"value": 0.05}, "candidate": {"value": 0.02}, "difference": -0.03, "interval": [-0.05, -0.01]},
                {"checkpoint": "M1", "measure": "humaneval", "label": "HumanEval", "unit": "proportion", "better": "higher",
                 "items": 164, "baseline": {"value": 0.61}, "candidate": {"value": 0.59}},
            ]},
        "gates": {"results": [
            {"checkpoint": "M1", "gate": "kl", "label": "KL against BF16", "engine": "candidate", "value": 0.031, "threshold": 0.02,
             "passes_when": "at_most", "passed": False},
            {"checkpoint": "M1", "gate": "kl", "label": "KL against BF16", "engine": "baseline", "value": 0.012, "threshold": 0.02,
             "passes_when": "at_most", "passed": True},
            {"checkpoint": "M1", "gate": "top1", "label": "Top-1 agreement", "engine": "candidate", "value": 0.97, "threshold": 0.95,
             "passes_when": "at_least", "passed": True}]},
    }


# -- building and reading --------------------------------------------------------------------

def two_models() -> dict:
    """Precision on checkpoints of two models (each against its own teacher): M1's gap not resolved,
    M2's resolved. The spread between the two models' values is no "gap between checkpoints"."""
    r = winning()
    r["report"]["checkpoints"] = [{"id": "M1"}, {"id": "M2"}]
    for c in r["speed"]["cells"] + r["speed"]["ttft"] + r["memory"]["kv_pool"] + r["memory"]["startup"]:
        c["checkpoint"] = "M1"
    p = r["precision"]
    p["measures"] = p["measures"][:1]
    p["rows"] = {"m1": {"panel": "main", "plan": "plan-1", "teacher": "Model one BF16", "sha256": "ab" * 32},
                 "m2": {"panel": "main", "plan": "plan-1", "teacher": "Model two BF16", "sha256": "cd" * 32}}
    p["results"] = [
        {"checkpoint": "M1", "measure": "kl_full", "baseline": {"value": 0.0200, "date": "2026-01-10", "rows": "m1"},
         "candidate": {"value": 0.0204, "date": "2026-01-10", "rows": "m1"}, "difference": 0.0004, "interval": [-0.0003, 0.0011]},
        {"checkpoint": "M2", "measure": "kl_full", "baseline": {"value": 0.0300, "date": "2026-01-10", "rows": "m2"},
         "candidate": {"value": 0.0330, "date": "2026-01-10", "rows": "m2"}, "difference": 0.0030, "interval": [0.0010, 0.0050]}]
    return r


def project(root: Path, receipts: dict[str, dict], site_url: bool = True, options: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text("site_name: Truly\n" + ("site_url: https://example.org/truly/\n" if site_url else "")
                                     + "plugins:\n  - sitegen:\n      data_dir: data\n" + options, encoding="utf-8")
    for rid, receipt in receipts.items():
        (root / "data" / rid).mkdir(parents=True, exist_ok=True)
        (root / "data" / rid / "SUMMARY.json").write_text(json.dumps(receipt, ensure_ascii=False), encoding="utf-8")
    return root


def build(root: Path, receipts: dict[str, dict], site_url: bool = True, options: str = "") -> Path:
    project(root, receipts, site_url, options)
    result = sitegen_here("build", "-q", cwd=root)
    assert result.returncode == 0, result.stderr
    return root / "site"


def check(root: Path, receipt: dict):
    project(root, {"r": receipt})
    return sitegen_here("check", cwd=root)


def summary(root: Path, report: str | None = None, form: str = "json"):
    result = sitegen_here("summary", *([report] if report else []), "--format", form, cwd=root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if form == "json" else result.stdout


def visible(path: Path) -> str:
    """A page's text as a reader sees it: no scripts, styles, SVG or tags; entities decoded; one space."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", text, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


def meta_description(path: Path) -> str:
    return html.unescape(re.search(r'<meta name="description" content="([^"]*)"', path.read_text()).group(1))


def csv_rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


# -- the stylesheet ------------------------------------------------------------------------------

def css_text() -> str:
    return (ROOT / "site_gen" / "static" / "sitegen.css").read_text(encoding="utf-8")


def css_rules() -> dict[str, str]:
    """Selector -> declarations of the theme's screen rules (the first rule of a selector)."""
    text, screen = css_text(), []
    at = 0
    while (start := text.find("@media print", at)) >= 0:  # print's blocks left out, their nested braces too
        screen.append(text[at:start])
        depth, i = 0, text.index("{", start)
        while True:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        at = i
    screen.append(text[at:])
    out: dict[str, str] = {}
    for sel, body in re.findall(r"([^{}\n]+?)\s*\{([^{}]*)\}", "".join(screen)):
        out.setdefault(sel.strip(), body)
    return out


def css_colours(scheme: str) -> dict[str, str]:
    """The `#rrggbb` custom properties of the light `:root` block, with the dark block's over them for "dark"."""
    text = css_text()
    light = dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{6})\b", text.split("@media (prefers-color-scheme: dark)")[0]))
    if scheme == "light":
        return light
    dark = re.search(r"@media \(prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}", text).group(1)
    return {**light, **dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{6})\b", dark))}


def _luminance(colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two `#rrggbb` colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
