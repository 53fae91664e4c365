"""A receipt full of injection payloads: every free-text field of the example receipt carries one.

Each script payload calls `pwn(N)`: a page that runs any of them records N in `window.__pwned`
(tests define `pwn` before the page's own scripts). The receipt stays valid — ids, dates and
digests keep their forms, equal strings stay equal (rows must match across a pair), distinct
strings stay distinct — so the build succeeds and every payload lands somewhere on the site.
"""
from __future__ import annotations

import json
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "cuteafd-v4.0.0"

PAYLOADS = [
    "<script>pwn(1)</script>",
    "<img src=x onerror=pwn(2)>",
    "\"><svg onload=pwn(3)>",
    "<svg><script>pwn(4)</script></svg>",
    "</script><script>pwn(5)</script>",
    "<!--<script>pwn(6)</script>-->",
    "javascript:pwn(7)",
    "[click me](javascript:pwn(8))",
    "<a href=\"javascript:pwn(9)\">link</a>",
    "' onmouseover='pwn(10)' x='",
    "<iframe src=\"javascript:pwn(11)\"></iframe>",
    "<math><mtext><table><mglyph><style><img src=x onerror=pwn(12)>",
    "<svg><a xlink:href=\"javascript:pwn(13)\"><text y=\"20\">x</text></a></svg>",
    "<details open ontoggle=pwn(14)>",
    "<javascript:pwn(15)>",
    "![image](javascript:pwn(16))",
    "![image](x\" onerror=\"pwn(17))",
    "<style>*{background:url(javascript:pwn(18))}</style>",
    "<object data=\"javascript:pwn(19)\"></object>",
    "<base href=\"javascript:pwn(20)//\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:pwn(21)\">",
    "<b onclick=pwn(22)>bold</b> <i>italic</i> <br> <sub>x</sub>",
    "[x](JaVaScRiPt:pwn(23)) [y]( javascript:pwn(24)) [z](java&#x09;script:pwn(25))",
    "{\"a\": \"</script><script>pwn(26)</script>\"} \u2028 \u2029 <!-- &amp; &lt;",
    "<form action=\"javascript:pwn(27)\"><button>go</button></form>",
    "<svg><animate onbegin=pwn(28) attributeName=x dur=1s>",
    "<a href=\"data:text/html,<script>pwn(29)</script>\">data</a> [d](data:text/html,pwn(30))",
    "`<script>pwn(31)</script>` and ```<img src=x onerror=pwn(32)>```",
]
# Spreadsheet formulas: a CSV cell must never start with one.
FORMULAS = ["=HYPERLINK(\"http://evil.invalid\",\"x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)"]

# Keys whose string values are free text (everything else is an id, a date, an enum or a digest).
FREE_TEXT = {"title", "name", "long_name", "version", "hardware", "label", "text", "description", "reference",
             "note", "panel", "plan", "teacher", "workload", "prompt", "run", "benchmark", "illustrative",
             "baseline", "candidate"}


def poison(doc: dict) -> dict:
    """Every free-text string in `doc` replaced by a payload, consistently (equal in, equal out).

    Workloads alternate between spreadsheet formulas and script payloads: they reach tables,
    chart specs and CSV files.
    """
    seen: dict[str, str] = {}
    workloads: dict[str, str] = {}

    def swap(value: str) -> str:
        if value not in seen:
            seen[value] = f"{PAYLOADS[len(seen) % len(PAYLOADS)]} #{len(seen)}"
        return seen[value]

    def workload(value: str) -> str:
        if value not in workloads:
            n = len(workloads)
            pool = FORMULAS if n % 2 == 0 else PAYLOADS
            workloads[value] = f"{pool[(n // 2) % len(pool)]} w{n}"
        return workloads[value]

    def walk(node, parent=None):
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, str) and k == "workload":
                    node[k] = workload(v)
                elif isinstance(v, str) and (k in FREE_TEXT or (k == "id" and parent == "scenarios")
                                             or (k == "unit" and parent == "cells")):
                    node[k] = swap(v)
                elif k == "not_covered":
                    node[k] = [swap(item) for item in v]
                else:
                    walk(v, k)
        elif isinstance(node, list):
            for item in node:
                walk(item, parent)

    walk(doc)
    return doc


def payload_receipt() -> dict:
    doc = poison(json.loads((EXAMPLE / "SUMMARY.json").read_text(encoding="utf-8")))
    doc["illustrative"] = "Illustrative " + PAYLOADS[0] + " " + PAYLOADS[7]
    doc["report"]["lede"] = ("Lede " + " ".join(PAYLOADS[:12]) + "\n\n" + " ".join(PAYLOADS[12:]) +
                             "\n\nIt is {{ speed_verdict }}.")
    return doc


def payload_project(root: Path) -> Path:
    """A project (mkdocs.yml, data/) whose one report is the payload receipt; returns the report folder."""
    report = root / "data" / "payloads"
    report.mkdir(parents=True)
    (report / "SUMMARY.json").write_text(json.dumps(payload_receipt(), ensure_ascii=False, indent=1), encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: \"Payloads <script>pwn(99)</script>\"\n"
        "plugins:\n  - sitegen:\n      data_dir: data\n", encoding="utf-8")
    (root / "docs").mkdir(exist_ok=True)
    return report
