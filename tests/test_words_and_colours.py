"""Issue 28's examples of words that were not true for the data and colours against the meaning,
each on a report rebuilt from the issue's description (tests/truly.py): what a reader reads on
the pages, the share card, the meta description and the CSV files."""
from __future__ import annotations

import re

import pytest

import truly
from site_gen.render import card
from site_gen.render import format as fmt

HEADLINE_WINDOW = "      headline_input: [32768, 131072]\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The losing, winning and minimal reports (and one of two models) as one site with a share card each,
    and the text every share card drew."""
    drawn: list[str] = []
    text = card.Canvas.text

    def recorded(self, x, y, s, size, colour):
        drawn.append(s)
        return text(self, x, y, s, size, colour)

    card.Canvas.text = recorded
    card.share_card.cache_clear()
    try:
        root = tmp_path_factory.mktemp("truly")
        out = truly.build(root, {"losing": truly.losing(), "winning": truly.winning(), "minimal": truly.minimal(),
                                 "two-models": truly.two_models()}, options=HEADLINE_WINDOW)
    finally:
        card.Canvas.text = text
        card.share_card.cache_clear()
    return out, " ".join(drawn)


def page(site, report: str, name: str = "index.html") -> str:
    return truly.visible(site[0] / "reports" / report / name)


def html(site, report: str, name: str = "index.html") -> str:
    return (site[0] / "reports" / report / name).read_text(encoding="utf-8")


# -- words ---------------------------------------------------------------------------------------

def test_the_accuracy_interval_is_the_receipts_level(site):
    """An accuracy table headed "95% interval" while its caption said 90% (the receipt's level 0.9)."""
    for name in ("index.html", "accuracy.html"):
        text = page(site, "losing", name)
        assert "90% interval Verdict" in text and "95%" not in text, name


def test_resolved_is_counted_over_the_paired_differences(site):
    """"2 of 4 paired differences are resolved" where one of the 4 has no paired difference."""
    text = page(site, "losing", "accuracy.html")
    assert "2 of 3 paired differences are resolved" in text
    assert "HumanEval (M1): no paired difference" in text and "of 4" not in text


def test_a_ratio_keeps_the_digits_its_side_of_one_needs(site):
    """"v0.5.2 holds 1.0x that" for 1.04x; a KV pool ratio of 0.996 is not "1.00x"."""
    assert "M1 on SGLang v0.5.2 held 817,000 tokens; v0.5.3 holds 1.04x that." in page(site, "losing", "memory.html")
    assert fmt.side_ratio(850000 / 817000, 1) == "1.04x" and fmt.side_ratio(4.3158, 1) == "4.3x"
    assert fmt.side_ratio(0.996) == "0.996x" and fmt.side_ratio(1.0) == "1.00x" and fmt.side_ratio(1.25) == "1.25x"


def test_the_share_of_the_checkpoint_gap_is_said_only_where_it_applies(site, example_site):
    """"31% of the gap between checkpoints" came from a resolved gap of another model while the
    sentence was about an unresolved one: checkpoints of two models (two teachers) have no such gap."""
    for name in ("index.html", "precision.html"):
        assert "of the gap between checkpoints" not in page(site, "two-models", name)
    # Checkpoints of one model (one teacher, the same rows) with a resolved gap keep it.
    assert "the largest is 38% of the gap between checkpoints on the same measure, teacher and rows" in \
        truly.visible(example_site / "reports" / "cuteafd-v4.0.0" / "index.html")


def test_the_startup_hover_counts_the_times_it_takes(site):
    """The lede's hover said "largest of 6 cold and warm startups" over readiness times alone."""
    found = re.search(r'title="([^"]*)"[^>]*>412.0 s<', html(site, "losing"))
    assert found and found.group(1) == "largest of 2 startup times (2 readiness), candidate", found


def test_a_version_written_with_its_v_is_not_doubled(site):
    """"SGLang vv0.5.3"."""
    out, drawn = site
    for path in (out / "reports" / "losing").glob("*.html"):
        text = truly.visible(path)
        assert "vv0" not in text, path.name
    assert "SGLang v0.5.3" in page(site, "losing") and "vv0" not in drawn
    assert "vv0" not in truly.summary(out.parent, "losing", "text")


def test_errors_are_counted_with_plurals_and_their_engine(site):
    """"1 errors in 1 cells" (and which engine?)."""
    text = page(site, "losing", "speed.html")
    assert "1 error in 1 cell: 0 on vLLM, 1 on SGLang." in text and "1 errors" not in text and "1 cells" not in text
    assert "slower · 1 error (SGLang)" in text
    assert "0 errors in every cell." in page(site, "winning", "speed.html")


def test_the_card_and_the_meta_description_use_the_words_of_the_readme(site):
    """"holds 0.87–1.13x the baseline's context": the guide says KV pool and names the engine."""
    out, drawn = site
    description = truly.meta_description(out / "reports" / "losing" / "index.html")
    assert "KV pool: SGLang holds 0.94x the tokens of vLLM" in description, description
    # The card draws the lines that fit above its strip (the losing report's KV line is the fifth):
    # the winning report's is drawn.
    assert "KV pool: NewEngine holds 1.25x the tokens of OldEngine" in re.sub(r"\s+", " ", drawn)
    assert "more verdicts on the report's overview" in drawn or "KV pool: SGLang" in re.sub(r"\s+", " ", drawn)
    assert "context" not in description and "baseline's" not in description and "baseline's" not in drawn


def test_the_pointer_to_about_the_data_quotes_the_receipt(site):
    """"Some values are illustrative" when the receipt says every value is invented."""
    text = page(site, "losing", "speed.html")
    assert "About the data (the receipt says): Every value in this receipt is invented" in text
    assert "Some values" not in text and "illustrative, not measured" not in text


def test_the_importers_flag_is_named_only_for_an_imported_receipt(site, example_site):
    """"the importer's flag" on a hand-written receipt."""
    text = page(site, "losing")
    assert "not comparable by the source's rules; marked allowed in the receipt" in text and "import" not in text.split("What was tested")[0]
    imported = truly.visible(example_site / "reports" / "vllm-tp8-against-tp4pp2-ib" / "index.html")
    assert "allowed on import with --allow" in imported and "importer's flag" not in imported


def test_time_to_first_token_says_where_it_was_measured(site):
    """"1.5 s vs 1.2 s" with no workload or concurrency anywhere, CSV included."""
    assert "Time to first token long, 8K input, 1 stream; SGLang vs vLLM 1.5 s vs 1.2 s" in page(site, "losing", "speed.html")
    rows = truly.csv_rows(site[0] / "reports" / "losing" / "csv" / "time-to-first-token.csv")
    assert [(r["workload"], r["input_tokens"], r["concurrency"], r["candidate"], r["baseline"]) for r in rows] == \
        [("long", "8192", "1", "1.5", "1.2")]
    # A receipt that leaves them out says so rather than nothing.
    assert "Time to first token 128K input; NewEngine vs OldEngine" in page(site, "winning", "speed.html")


def test_clean_decode_at_several_streams_is_said_to_be_a_median_per_request(site):
    """"clean decode" at 8 streams is a median per request and did not say so; CSV output_tokens is the cap."""
    text = page(site, "losing", "speed.html")
    assert "Speed cells, clean decode of 4; above one stream, the median per request" in text
    assert "at 8 streams it is the median over the requests of each request's own rate" in text
    rows = truly.csv_rows(site[0] / "reports" / "losing" / "csv" / "speed-cells.csv")
    means = {(r["metric"], r["concurrency"]): r["rate_is"] for r in rows}
    assert means[("decode", "8")] == "median over the requests of each request's own decode tokens per second"
    assert means[("decode", "1")] == "decode tokens per second of the one stream"
    assert means[("aggregate", "8")] == "output tokens per second, summed over the concurrent streams"
    assert "output_tokens" not in rows[0] and {r["output_tokens_cap"] for r in rows} == {"1024"}


def test_history_calls_each_row_a_build(site):
    """A history page called patch builds "Release"."""
    text = truly.visible(site[0] / "history.html")
    assert ">Release<" not in (site[0] / "history.html").read_text() and "Build Date" in text
    assert "release" not in text.lower().replace("a release, or", "")


def test_a_headline_range_row_stays_with_its_reason(site):
    """The losing report's aggregate range row disappeared with the 32K–128K window."""
    rows = page(site, "losing", "speed.html")
    assert "Aggregate, 32K–128K input no aggregate cell with 32K–128K input" in rows


def test_the_hardware_is_shown_wherever_the_receipt_states_it(site):
    r = truly.minimal()
    r["report"]["hardware"] = "one L4"
    text = truly.visible(truly.build(site[0].parent / "hw", {"m": r}) / "reports" / "m" / "index.html")
    assert "Hardware one L4" in text


# -- colours -------------------------------------------------------------------------------------

def _tone(page_html: str, words: str) -> str:
    found = re.search(r'<td class="([^"]*)"[^>]*>(?:<span class="fig"[^>]*>)?' + re.escape(words) + "<", page_html)
    assert found, words
    return found.group(1)


def test_better_and_worse_wear_different_colours(site):
    """"SGLang lower (worse)" was in the same bold green as "lower (better)"."""
    page_html = html(site, "losing", "accuracy.html")
    assert "tone-worse" in _tone(page_html, "SGLang lower (worse)").split()
    assert "tone-better" in _tone(page_html, "SGLang lower (better)").split()
    assert "tone-neutral" in _tone(page_html, "not resolved").split()


def test_resolved_is_neutral_and_the_direction_has_the_colour(example_site):
    """"resolved" bold green beside a gap that is further from the reference."""
    page_html = (example_site / "reports" / "cuteafd-v4.0.0" / "precision.html").read_text()
    assert _tone(page_html, "resolved").split() == ["verdict", "key", "resolved"]
    assert "tone-worse" in _tone(page_html, "further")
    css = truly.css_rules()
    assert "font-weight" not in css[".verdict.resolved"] and "var(--ok)" not in css[".verdict.resolved"]


def test_a_failed_gate_is_the_loudest_row(site):
    """"pass" in bold green and "fail" in muted grey: the one failure was the least visible row."""
    page_html = html(site, "losing", "gates.html")
    assert '<tr data-source="$.gates.results[0]" class="gate-failed">' in page_html
    assert '<span class="tone-fail">✕ fail</span>' in page_html and '<span class="tone-neutral">✓ pass</span>' in page_html
    assert '<span class="tone-fail">✕ 1 of 3 gates failed</span>: KL against BF16 (M1, SGLang v0.5.3).' in page_html
    css = truly.css_rules()
    assert "font-weight: 700" in css[".tone-fail"] and "background" in css[".tone-fail"]
    assert "font-weight" not in css[".tone-neutral"] and "background" not in css[".tone-neutral"]


def test_a_kv_line_straddling_one_wears_no_verdict_colour(tmp_path):
    """The card's KV line was blue while its range straddled 1."""
    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import load_reports
    from site_gen.render import publish

    r = truly.winning()
    r["report"]["checkpoints"].append({"id": "Q8"})
    r["memory"]["kv_pool"] = [{"checkpoint": c, "engine": e, "tokens": t} for c, e, t in
                              (("Q4", "baseline", 1000000), ("Q4", "candidate", 870000),
                               ("Q8", "baseline", 1000000), ("Q8", "candidate", 1130000))]
    truly.project(tmp_path, {"straddles": r, "above": truly.winning()})
    lines = {rep.id: {label: (text, key) for label, text, key in publish.headlines(analyse(rep))}
             for rep in load_reports(tmp_path / "data")}
    assert lines["straddles"]["KV pool:"] == ("NewEngine holds 0.87–1.13x the tokens of OldEngine", "neutral")
    assert lines["above"]["KV pool:"] == ("NewEngine holds 1.25x the tokens of OldEngine", "better")


def test_hollow_and_filled_marks_are_explained(site):
    """Hollow and filled range bars meant different things with no legend."""
    for text in (page(site, "losing", "speed.html"), page(site, "losing"), truly.visible(site[0] / "index.html")):
        assert "filled bar: every ratio in the range has one verdict" in text
        assert "hollow bar: the range crosses an edge of the band" in text
    precision = page(site, "winning", "precision.html")
    assert "filled: resolved, the 95% interval excludes zero" in precision and "hollow: not resolved" in precision


def test_one_legend_by_direction_on_every_page_that_colours_by_direction(site):
    coloured = {"index.html", "accuracy.html", "speed.html", "memory.html", "gates.html"}
    for path in sorted((site[0] / "reports" / "losing").glob("*.html")):
        text = truly.visible(path)
        legend = "▲ blue better for SGLang (faster, closer to the reference, a better score) ▼ orange worse ● grey neutral"
        assert (legend in text) == (path.name in coloured), path.name
    assert legend.replace("SGLang", "NewEngine") in page(site, "winning", "precision.html")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_noise_band_stands_out_at_three_to_one(scheme):
    """The ±8% band was at 1.24:1 contrast in light mode (1.49:1 dark); graphics need 3:1."""
    colours = truly.css_colours(scheme)
    css = truly.css_rules()
    for rule in (".ratio-bar .band", ".chart-svg .band"):
        assert "stroke: var(--band-edge)" in css[rule], rule
    for against in ("soft", "bg"):  # the bars' track and the page behind the chart
        assert truly.contrast(colours["band-edge"], colours[against]) >= 3.0, (scheme, against)
    # better and worse wear the faster and slower colours (.tone-better, .tone-worse)
    assert "var(--faster)" in css[".tone-better"] and "var(--slower)" in css[".tone-worse"]
    assert truly.contrast(colours["faster"], colours["bg"]) >= 3.0 and truly.contrast(colours["slower"], colours["bg"]) >= 3.0
    if scheme == "dark":  # the share card is drawn in the dark palette, band edges and all
        palette = card.palette()
        assert truly.contrast("#{:02x}{:02x}{:02x}".format(*palette["band-edge"]), "#{:02x}{:02x}{:02x}".format(*palette["soft"])) >= 3.0


def test_the_card_counts_the_lines_that_do_not_fit(monkeypatch):
    """With every section speaking on the card, its lines never run over the strip of speed cells."""
    drawn: list[tuple[int, str]] = []
    text = card.Canvas.text
    monkeypatch.setattr(card.Canvas, "text", lambda self, x, y, s, size, colour: drawn.append((y, s)) or text(self, x, y, s, size, colour))
    card.share_card.cache_clear()
    lines = tuple((f"Line {i}:", f"figure {i}", "neutral") for i in range(8))
    card.share_card("Site", "A against B", "2026-01-01", lines, ((1.2, "faster", 0),), "Every cell:", (0.8, 1.8), 0.08, "footer")
    card.share_card.cache_clear()
    shown = [s for _, s in drawn if s.startswith("Line ")]
    rest = [(y, s) for y, s in drawn if "more verdicts on the report's overview" in s]
    strip_top = next(y for y, s in drawn if s == "Every cell:") + 42
    assert rest and rest[0][1] == f"{8 - len(shown)} more verdicts on the report's overview"
    assert all(y + 40 <= strip_top for y, s in drawn if s.startswith(("Line ", "…")) or "more verdicts" in s)


# -- nothing left out ----------------------------------------------------------------------------

def test_a_checkpoint_one_side_measured_alone_is_on_the_memory_page(site):
    """A checkpoint measured by one side only (KV pool 1,022,464, ready in 412 s) was missing from the
    memory page while the lede quoted its 412 s."""
    text = page(site, "losing", "memory.html")
    assert "M1 M2 KV pool, vLLM tokens 900,000 not run: vLLM could not load it" in text
    assert "KV pool, SGLang v0.5.3 tokens 850,000 0.94x 1,022,464" in text
    assert "Startup, SGLang v0.5.3 cold / warm or ready ready in 130 s ready in 412 s" in text
    lede = re.search(r'<div class="lede">(.*?)</div>', html(site, "losing"), re.S).group(1)
    assert "412" in lede  # the figure the lede cites is on its section's page


def test_ready_only_startups_are_in_history(site):
    """Ready-only startups showed "—" in history."""
    text = truly.visible(site[0] / "history.html")
    startup = text.split("Startup", 1)[1]
    assert "SGLang · M1, cold / warm, or ready" in startup and "ready in 130 s" in startup
    assert "SGLang · M2, cold / warm, or ready" in startup and "ready in 412 s" in startup
