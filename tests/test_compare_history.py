"""The history page marks where a release changed beyond noise since the one before it (issue 31),
by the rule `sitegen compare` applies, and its tables say in words what the marks show."""
from __future__ import annotations

import math

from conftest import sitegen_here
from htmlutil import NS, cell_text, parse
from test_compare import compare, project, release


def three_releases(tmp_path):
    """v1.0; v1.1 within noise of it (KV pool +4%); v1.2 worse: KV pool −23%, every candidate rate ×0.85
    (each series' median ratio too), the KL gap further (its interval clear of v1.1's)."""
    r1, r2, r3 = release("1.0", "2026-01-15"), release("1.1", "2026-02-01"), release("1.2", "2026-03-01")
    r2["memory"]["kv_pool"][1]["tokens"] = 1_300_000
    r3["memory"]["kv_pool"][1]["tokens"] = 1_000_000
    for cell in r3["speed"]["cells"]:
        cell["candidate"]["rate"] = round(cell["candidate"]["rate"] * 0.85, 4)
    gap = r3["precision"]["results"][0]
    gap["candidate"]["value"], gap["difference"], gap["interval"] = 0.0342, 0.0030, [0.0022, 0.0038]
    root = project(tmp_path, {"r1": r1, "r2": r2, "r3": r3})
    assert sitegen_here("build", "-q", "--no-cache", cwd=root).returncode == 0
    return root, (r1, r2, r3)


def figures(doc, prefix: str):
    return [f for f in doc.iter(f"{NS}figure") if (f.get("id") or "").startswith(prefix)]


def rows(figure) -> list[list]:
    return [[td for td in tr if td.tag in (f"{NS}th", f"{NS}td")] for tr in figure.iter(f"{NS}tr")][1:]


def glyphs(element) -> list[tuple[str, str]]:
    return [(span.get("class"), span.text) for span in element.iter() if (span.get("class") or "").startswith("g g-")]


def test_only_a_change_beyond_noise_is_marked_and_said(tmp_path):
    root, (r1, r2, r3) = three_releases(tmp_path)
    doc = parse(root / "site" / "history.html")
    kv = rows(figures(doc, "history-kv")[0])
    since = [row[-1] for row in kv]
    assert [cell_text(c) for c in since[:2]] == ["first build", "within noise of NewEngine v1.0"]
    assert glyphs(since[0]) == glyphs(since[1]) == []
    # v1.1 -> v1.2 by hand: 1,000,000 / 1,300,000 = 0.769, beyond the ±8% band, and higher is better.
    assert abs(1_000_000 / 1_300_000 - 1) > 0.08 and abs(1_300_000 / 1_250_000 - 1) <= 0.08
    assert cell_text(since[2]) == "▼ worse than NewEngine v1.1: 1,300,000 → 1,000,000 tokens (0.77x)"
    assert glyphs(since[2]) == [("g g-slower", "▼")]
    # Each speed series: its median ratio ×0.85 from v1.1 to v1.2, worse; unchanged from v1.0 to v1.1.
    assert len(figures(doc, "history-speed")) == 2  # Q4 aggregate and clean decode
    for fig in figures(doc, "history-speed"):
        last = rows(fig)[2][-1]
        assert glyphs(last) == [("g g-slower", "▼")] and "worse than NewEngine v1.1" in cell_text(last)
        assert cell_text(rows(fig)[1][-1]) == "within noise of NewEngine v1.0"


def test_the_precision_forest_marks_the_release_its_table_calls_worse(tmp_path):
    root, (r1, r2, r3) = three_releases(tmp_path)
    doc = parse(root / "site" / "history.html")
    forests = figures(doc, "history-precision")
    marked = {}
    for fig in forests:
        svg_marks = glyphs(fig.find("{http://www.w3.org/2000/svg}svg"))
        said = [cell_text(row[0]) for row in rows(fig)]  # the release, its mark and what changed since the one before
        marked[cell_text(fig.find(f"{NS}figcaption"))] = (svg_marks, said)
    kl = next(v for k, v in marked.items() if k.startswith("Q4 · KL, full vocabulary"))
    top1 = next(v for k, v in marked.items() if k.startswith("Q4 · Top-1 agreement"))
    assert kl[0] == [("g g-slower", "▼")] and kl[1][2].startswith("NewEngine v1.2 ▼ worse than NewEngine v1.1: +0.0024 [")
    assert kl[1][:2] == ["NewEngine v1.0", "NewEngine v1.1 within noise of NewEngine v1.0"]
    assert top1[0] == [] and top1[1][1:] == ["NewEngine v1.1 within noise of NewEngine v1.0",
                                             "NewEngine v1.2 within noise of NewEngine v1.1"]
    # The interval of the change, by hand, excludes zero.
    o, n = r2["precision"]["results"][0], r3["precision"]["results"][0]
    low = (n["difference"] - o["difference"]) - math.hypot(n["difference"] - n["interval"][0], o["interval"][1] - o["difference"])
    assert low > 0 and f"[+{low:.4f}," in kl[1][2]


def test_history_and_compare_give_the_same_verdicts(tmp_path):
    root, _ = three_releases(tmp_path)
    import json

    _, out, _ = compare(root, "r2", "r3", "--format", "json")
    doc = json.loads(out)
    kv = next(c for c in doc["changes"] if c["kind"] == "kv")
    gap = next(c for c in doc["changes"] if c["kind"] == "gap" and c["measure"] == "kl_full")
    assert kv["verdict"] == gap["verdict"] == "worse"
    _, out, _ = compare(root, "r1", "r2", "--format", "json")
    assert json.loads(out)["counts"]["worse"] == json.loads(out)["counts"]["better"] == 0
