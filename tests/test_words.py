"""One word for one thing across pages: KV pool, clean decode, engine names for the sides, a
memory heading that promises only what the receipt holds."""
from __future__ import annotations

import re


def visible(path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", "", path.read_text(), flags=re.S)))


def test_the_same_words_on_every_page(example_site):
    pages = {p.relative_to(example_site).as_posix(): visible(p) for p in example_site.rglob("*.html")}
    for name, text in pages.items():
        assert "KV cache" not in text, name
        assert "Candidate tokens" not in text and "Baseline tokens" not in text, name
        assert not re.search(r"· decode\b", text), name  # the metric is "clean decode" everywhere
        assert "receipts from different days side by side" not in text, name
    history = pages["history.html"]
    assert "CuteAFD tokens" in history and re.search(r"vLLM fork[^<]* tokens", history)
    assert "· clean decode" in history


def test_memory_heading_names_startup_only_when_measured(example_site):
    with_startup = visible(example_site / "reports/cuteafd-v4.0.0/memory.html")
    without = visible(example_site / "reports/cuteafd-v3.0.1/memory.html")
    assert "Memory and startup" in with_startup
    assert "Memory and startup" not in without and "Memory" in without
    assert '<h1 id="top">Memory</h1>' in (example_site / "reports/cuteafd-v3.0.1/memory.html").read_text()
