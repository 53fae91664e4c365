"""Every markdown output sitegen writes, rendered as GitHub renders a pull-request comment (cmark-gfm
with its extensions: tables, strikethrough, autolinks, tag filter): nothing a receipt's strings hold
becomes a link, an image, code, emphasis or HTML, and each string reads as written.

`cmarkgfm` is GitHub's own renderer (its fork of cmark) bound for Python: a CommonMark renderer
without GitHub's autolink extension (the other markdown tests' markdown-it) leaves a bare URL as
text, so it cannot see what GitHub makes of one."""
from __future__ import annotations

import copy
from pathlib import Path

import cmarkgfm
import pytest
import serving_receipts as sr
import truly
from cmarkgfm.cmark import Options
from conftest import sitegen_here

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

# What a receipt string could make of a comment on GitHub: bare URLs and addresses (GitHub's
# autolink extension links them with no markup around them), links, images, tags, autolinks.
PAYLOADS = {
    "bare url": "see https://evil.example/x?y=1 now",
    "bare url, upper case": "HTTP://EVIL.EXAMPLE/UP",
    "ftp": "ftp://files.evil.example/a",
    "www": "www.evil.example and WWW.Evil.Example",
    "email": "mail ops@evil.example today",
    "email in parts": "a.b+c_d-e@mail.evil.example.",
    "mailto and xmpp": "mailto:x@evil.example xmpp:y@evil.example/res",
    "brackets": "[click](https://evil.example) [ref] [x][ref] ![img](https://evil.example/i.png)",
    "reference": "[ref]: https://evil.example",
    "tags": "<b>bold</b> <img src=https://evil.example/i.png> <script>alert(1)</script> <div>d</div>",
    "autolinks": "<https://evil.example/auto> <ops@evil.example>",
    "comment": "<!-- hidden",
    "emphasis and code": "**strong** _em_ `code` ~~struck~~",
}
# The elements sitegen itself writes in its markdown outputs; anything else was made from a receipt.
OURS = {"div", "h3", "p", "strong", "br", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "ul", "li"}
# The invisible characters the guard may put inside a string (a word joiner after `@`): they are
# no part of what a reader reads.
INVISIBLE = dict.fromkeys(map(ord, "\u2060"))


def render(text: str):
    """`text` as GitHub renders a comment (cmark-gfm, its extensions, raw HTML passed through so that
    any a string made shows), parsed to a tree."""
    import html5lib

    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    return html5lib.parseFragment(f"<div>{html}</div>", treebuilder="etree", namespaceHTMLElements=False)[0]


def made(tree) -> list[str]:
    return sorted({el.tag for el in tree.iter()} - OURS)


def shown(tree) -> str:
    return " ".join("".join(tree.itertext()).translate(INVISIBLE).split())


def hostile(doc: dict, text: str) -> dict:
    """`doc` with `text` in every free-text string a markdown output prints: title, engines, hardware,
    labels, workloads, a precision reference and measure, gates, accuracy and serving labels."""
    doc = copy.deepcopy(doc)
    r = doc["report"]
    r["title"] = f"Title {text}"
    for role, e in r["engines"].items():
        e["name"] = f"{role} {text}"
    r["hardware"] = f"Hardware {text}"
    for c in r["checkpoints"]:
        c["label"] = f"Label {text}"
    for c in doc.get("speed", {}).get("cells", []):
        c["workload"] = f"load {text}"
    if "precision" in doc:
        doc["precision"]["reference"] = f"Ref {text}"
        for m in doc["precision"]["measures"]:
            m["label"] = f"Measure {text}"
    for part in ("accuracy", "gates"):
        for x in doc.get(part, {}).get("results", []):
            x["label"] = f"{part} {text}"
    for side in doc.get("serving", {}).get("sides", {}).values():
        side["label"] = f"side {text}"
        for p in side["load_points"]:
            p["workload"] = f"wl {text}"
    return doc


def serving_pair(seed: int, scale: float) -> dict:
    return sr.pair(seed=seed, n=30, points=1, scale=scale)


RECEIPTS = {"starter": lambda: truly.winning(), "losing": lambda: truly.losing(),
            "serving": lambda: serving_pair(1, 1.3)}


def project(root: Path, receipts: dict[str, dict], slo: bool = False) -> Path:
    return truly.project(root, receipts, options="      slo:\n        ttft_p99_ms: 300\n" if slo else "")


NAMES = sorted(PAYLOADS)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, dict[str, str]]:
    """One project holding, for each payload, a starter, a losing and a serving report whose strings
    hold it, and two releases of a starter and of a serving report: `sitegen summary --format
    markdown` of them all, and `sitegen compare --format markdown` of each pair."""
    receipts: dict[str, dict] = {}
    for i, name in enumerate(NAMES):
        text = PAYLOADS[name]
        receipts.update({f"{k}-{i}": hostile(make(), text) for k, make in RECEIPTS.items()})
        old = hostile(truly.winning(), text)
        new = copy.deepcopy(old)
        new["report"]["date"] = "2026-02-01"
        new["report"]["engines"]["candidate"]["version"] = "1.1"
        new["report"]["hardware"] = f"Hardware {text} (second)"
        for c in new["speed"]["cells"][:2]:
            c["candidate"]["rate"] *= 0.7
        receipts.update({f"a-{i}": old, f"b-{i}": new,
                         f"s1-{i}": hostile(serving_pair(1, 1.0), text), f"s2-{i}": hostile(serving_pair(2, 1.4), text)})
    root = project(tmp_path_factory.mktemp("gfm"), receipts, slo=True)
    out: dict[str, dict[str, str]] = {}
    for i, name in enumerate(NAMES):
        out[name] = {}
        for pair, allow in (((f"a-{i}", f"b-{i}"), ("--allow", "hardware")), ((f"s1-{i}", f"s2-{i}"), ())):
            result = sitegen_here("compare", *pair, "--format", "markdown", "--fail-on", "never", *allow, cwd=root)
            assert result.returncode == 0, result.stderr
            out[name][pair[0][:-len(str(i)) - 1]] = result.stdout
    result = sitegen_here("summary", "--format", "markdown", cwd=root)
    assert result.returncode == 0, result.stderr
    tree = render(result.stdout)
    out["summary"] = {"text": result.stdout, "made": " ".join(made(tree)), "shown": shown(tree)}
    return out


@pytest.mark.parametrize("name", NAMES)
def test_summary_markdown_makes_no_link_image_or_html_of_a_receipt(name, outputs):
    summary = outputs["summary"]
    assert summary["made"] == "", summary["text"]
    said = summary["shown"]
    want = " ".join(PAYLOADS[name].split())
    # Each of its reports' headings reads its title as written, and its names and labels.
    assert said.count(f"Title {want} (") == len(RECEIPTS) + 4, said[:400]
    assert f"candidate {want}" in said and f"Measure {want}" in said


@pytest.mark.parametrize("name", NAMES)
def test_compare_markdown_makes_no_link_image_or_html_of_a_receipt(name, outputs):
    want = " ".join(PAYLOADS[name].split())
    for first, text in outputs[name].items():
        tree = render(text)
        assert made(tree) == [], text
        said = shown(tree)
        assert f"load {want}" in said or f"wl {want}" in said, said[:600]
        if first == "a":
            assert f"Hardware {want} (second)" in said


def test_the_judge_sees_what_github_links():
    """The renderer links a bare URL, a www. address and an email with no markup around them: what
    the guard must stop."""
    for text in ("see https://evil.example/x", "www.evil.example", "ops@evil.example", "<https://a.example>"):
        assert made(render(f"| a |\n|---|\n| {text} |")) == ["a"], text
    assert made(render("![i](https://e.example/i.png)")) == ["img"]
    assert made(render("<b>x</b>")) == ["b"]


def test_the_ci_recipe_comment_keeps_a_refusal_as_text(tmp_path):
    """The workflow `sitegen new` writes puts `sitegen compare`'s refusal in the pull-request comment;
    the refusal quotes receipt strings (a model's name), so it goes in as code no line of it can end."""
    import subprocess

    import yaml

    root = tmp_path / "site"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    doc = yaml.safe_load((root / ".github" / "workflows" / "benchmarks.yml").read_text(encoding="utf-8"))
    step = next(s for s in doc["jobs"]["benchmark"]["steps"] if s.get("id") == "compare")
    stub = tmp_path / "bin"
    stub.mkdir()
    refusal = ("Error: data/run-2/SUMMARY.json: $.report.checkpoints: model differs: 'org/m ```' in run-1, "
               "'\n```\n<img src=https://evil.example/i.png> [x](https://evil.example) ops@evil.example www.evil.example' in run-2")
    (stub / "sitegen").write_text(f"#!/bin/sh\ncat >&2 <<'END'\n{refusal}\nEND\nexit 1\n")
    (stub / "sitegen").chmod(0o755)
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {"PATH": f"{stub}:/usr/bin:/bin", "LAST": "run-1", "RUN": "run-2", "FAIL_ON": "worse", "RUNNER_TEMP": str(temp),
           "GITHUB_STEP_SUMMARY": str(temp / "summary"), "GITHUB_OUTPUT": str(temp / "output")}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    comment = (temp / "comparison.md").read_text(encoding="utf-8")
    tree = render(comment)
    assert made(tree) == ["code", "pre"], comment  # the refusal as code, and nothing else made of it
    assert "".join(tree.find("pre").itertext()).strip() == refusal
