"""`sitegen summary` for scripts and for people (issue 28): the JSON is valid against its published,
versioned schema, its figures are numbers with their units and directions as fields; every
section that has lines prints them in every format; every report opens with a sentence made from
its data, and what differs between the sides is folded below it."""
from __future__ import annotations

import json
import re

import jsonschema
import pytest

import truly
from conftest import ROOT, sitegen_here
from site_gen.render import summary as summary_module

SCHEMA = ROOT / "site_gen" / "schema" / "summary-output-1.schema.json"
# Printed figures: what a page shows and a script should never have to parse.
PRINTED = re.compile(r"[−+\-]?[\d.,]+(\s*[–-]\s*[\d.,]+)?\s*(x|%|s|pts|tokens)?")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, dict]:
    """`sitegen summary` of the example's reports and of issue 28's three shapes, in each format."""
    root = truly.project(tmp_path_factory.mktemp("summaries"), {"losing": truly.losing(), "winning": truly.winning(),
                                                                "minimal": truly.minimal()})
    out = {}
    for name, cwd in (("example", ROOT), ("shapes", root)):
        out[name] = {form: sitegen_here("summary", "--format", form, cwd=cwd).stdout for form in ("json", "text", "markdown")}
    return out


def reports(outputs) -> dict[str, dict]:
    return {r["report"]: r for name in ("example", "shapes") for r in json.loads(outputs[name]["json"])["reports"]}


@pytest.mark.slow
def test_the_json_is_valid_against_its_published_versioned_schema(outputs):
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    for name in ("example", "shapes"):
        data = json.loads(outputs[name]["json"])
        assert (data["format"], data["version"], data["schema"]) == ("sitegen summary", summary_module.VERSION, SCHEMA.name)
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]
        assert errors == [], errors[:5]
    assert len(reports(outputs)) == len(list((ROOT / "data").glob("*/SUMMARY.json"))) + 3  # the example and 3 shapes
    # One report is one object in a list, as many are: a script reads one shape.
    one = json.loads(sitegen_here("summary", "cuteafd-v4.0.0", "--format", "json", cwd=ROOT).stdout)
    assert [r["report"] for r in one["reports"]] == ["cuteafd-v4.0.0"]


def _strings(node, path="$"):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, f"{path}[{i}]")
    elif isinstance(node, str):
        yield path, node


def test_figures_are_numbers_with_units_and_directions_as_fields(outputs):
    """"1.06–1.46x", "+0.0017", "5,799,424", "19.8 s" and "−0.35 pts" were strings."""
    for rid, r in reports(outputs).items():
        printed = [(path, s) for path, s in _strings(r) if PRINTED.fullmatch(s.strip()) and not path.endswith(
            (".version", ".report", ".date", ".title", ".label", ".id", ".name", ".checkpoint", ".measure", ".gate", ".panel", ".run"))]
        assert printed == [], (rid, printed[:5])
    v4 = reports(outputs)["cuteafd-v4.0.0"]
    k325 = v4["speed"]["checkpoints"]["K3.25"]
    assert k325["ranges"]["one_stream_decode"]["low"] == pytest.approx(1.06, abs=0.005)
    assert k325["ranges"]["one_stream_decode"]["high"] == pytest.approx(1.46, abs=0.005)
    receipt = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text())
    t = next(x for x in receipt["speed"]["ttft"] if x["checkpoint"] == "K3.25")
    b, c = t["baseline"]["seconds"], t["candidate"]["seconds"]
    assert k325["ttft"] == {"unit": "s", "better": "lower", "baseline": b, "candidate": c, "ratio": pytest.approx(c / b),
                            "workload": None, "input_tokens": 131072, "concurrency": None}
    # The receipt's own numbers, not their printed forms ("+0.0017", "−0.35 pts").
    for row, given in zip(v4["precision"]["rows"], receipt["precision"]["results"]):
        assert (row["difference"], row["interval"]) == (given["difference"], dict(zip(("low", "high"), given["interval"])))
    assert v4["precision"]["rows"][3]["unit"] == "percent" and v4["precision"]["rows"][3]["difference"] < 0
    assert v4["memory"]["kv_pool"]["K3.25"]["candidate"] == 5799424 and v4["memory"]["better"] == "higher"
    assert v4["speed"]["better"] == "higher" and v4["speed"]["noise_band"] == 0.08
    losing = reports(outputs)["losing"]
    assert [r["better"] for r in losing["accuracy"]["results"]] == ["higher", "higher", "lower", "higher"]
    assert losing["accuracy"]["level"] == 0.9 and losing["accuracy"]["paired"] == 3 and losing["accuracy"]["resolved"] == 2


def test_every_section_with_lines_speaks_in_every_format(outputs):
    """Failed gates, accuracy verdicts, measure directions, tool calling and loops were missing; three
    reports printed only a title (markdown: an empty `| | |` table)."""
    text, markdown = outputs["shapes"]["text"], outputs["shapes"]["markdown"]
    for out in (text, markdown):
        assert "FAILED KL against BF16 (M1, SGLang v0.5.3)" in out
        assert "M1 GSM8K" in out and "worse (higher is better)" in out and "better (lower is better)" in out
        assert "HumanEval" in out and "no paired difference" in out
    ex_text, ex_md = outputs["example"]["text"], outputs["example"]["markdown"]
    for out in (ex_text, ex_md):
        assert "Tool calling 3.25bpw" in out and "failed in every run" in out  # the tool-eval report
        assert "Long outputs: replies that looped" in out and "0 of 512" in out
        assert "Measures" in out and "ranges overlap; lower is better" in out
        assert "3 of 16 gates failed" in out  # the fp8 study, its own rules included
        assert "empty answers (no answer after reasoning)" in out  # GPQA: finishing differently
    # No report is a title alone, and markdown never holds an empty table.
    for out in (ex_text, text):
        for block in out.strip().split("\n\n"):
            assert len(block.splitlines()) >= 2, block
    for out in (ex_md, markdown):
        assert "| | |\n|---|---|\n\n" not in out and not out.rstrip().endswith("|---|---|")


def _expected_speed_clause(receipt: dict, band: float = 0.08) -> str:
    counts = {"faster": 0, "level": 0, "slower": 0}
    for c in receipt["speed"]["cells"]:
        ratio = c["candidate"]["rate"] / c["baseline"]["rate"]
        counts["level" if abs(ratio - 1) <= band else "faster" if ratio > 1 else "slower"] += 1
    n = sum(counts.values())
    lead = max(counts, key=lambda k: (counts[k], k == "slower"))
    if counts[lead] == n:
        return f"{lead} in all {n} speed cells"
    rest = ", ".join(f"{counts[w] or 'none'} {w}" for w in ("faster", "level", "slower") if w != lead)
    return f"{lead} in {counts[lead]} of {n} speed cells ({rest})"


def test_every_report_opens_with_a_verdict_sentence_made_from_its_data(example_site, tmp_path):
    """Imported reports opened with raw JSON diffs and full image digests, not a finding."""
    for folder in sorted((example_site / "reports").iterdir()):
        html = (folder / "index.html").read_text(encoding="utf-8")
        main = html.split('<main id="main" class="content">', 1)[1]
        # (The receipt's own note on its data may stand before it, folded to one line.)
        first = re.search(r"<h1[^>]*>.*?</h1>\s*<p class=\"meta\">.*?</p>\s*(?:<details class=\"about-data\"[^>]*>.*?</details>\s*)?"
                          r"<p class=\"verdict-sentence\" id=\"verdict\">(.*?)</p>", main, re.S)
        assert first, folder.name
        assert len(re.sub(r"<[^>]+>", "", first.group(1))) > 30, folder.name
        # What differs is folded below it (closed), never a raw list at the top.
        if "id=\"differs\"" in main:
            assert re.search(r'<details class="provenance note" id="differs"><summary>', main), folder.name
            assert main.index('id="verdict"') < main.index('id="differs"')
    site = truly.build(tmp_path, {"losing": truly.losing()})
    sentence = re.search(r'<p class="verdict-sentence" id="verdict">(.*?)</p>', (site / "reports/losing/index.html").read_text()).group(1)
    clause = _expected_speed_clause(truly.losing())
    assert sentence.startswith(clause[0].upper() + clause[1:])  # under the title, which names the sides
    said = truly.summary(tmp_path, "losing", "json")["reports"][0]["verdict"]
    assert said.startswith("SGLang v0.5.3 against vLLM v0.11.0: " + clause)
    assert "accuracy better on 1 (Refusals) and worse on 1 (GSM8K) of 3 paired differences" in sentence
    assert "holds 0.94x the KV pool tokens of vLLM" in sentence and "1 of 3 quality gates failed (KL against BF16)" in sentence
    lm = truly.visible(example_site / "reports" / "lm-eval-llama-3-8b-0-against-5-shot" / "index.html")
    assert "Accuracy worse on 1 (bias_classification: f1) of 3 paired differences." in lm


def test_the_schema_is_published_with_the_package():
    from importlib import resources

    text = resources.files("site_gen.schema").joinpath(summary_module.SCHEMA).read_text(encoding="utf-8")
    assert json.loads(text)["properties"]["version"] == {"const": summary_module.VERSION}
    guide = (ROOT / "docs" / "guide" / "getting-started.md").read_text(encoding="utf-8")
    assert "site_gen/schema/summary-output-1.schema.json" in guide
