"""Documentation a user can find (issue 52): a short README one link from each task's page of the
guide; the guide is the example site's docs pages, built by README's first command and by
`mkdocs build --strict` with no broken link or anchor; its references are generated from the code
and a check fails when they differ; no file but the changelog and the generated results page holds
a commit hash, a load average or a dated timing."""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import html5lib
import pytest
import yaml
from conftest import ROOT, mkdocs_here
from test_site_sound import check_links

README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide"

# Each task of the README, the page (and section) it links to, and what that section must show.
TASKS = {
    "build the example": ("docs/guide/getting-started.md#build-the-example", "sitegen build"),
    "start a site": ("docs/guide/getting-started.md#start-your-own-site", "sitegen new"),
    "preview": ("docs/guide/preview.md", "sitegen serve"),
    "import": ("docs/guide/importing.md", "sitegen import vllm-bench"),
    "compare in CI": ("docs/guide/comparing.md#benchmarks-in-ci", ".github/workflows/benchmarks.yml"),
    "use the plugin": ("docs/guide/mkdocs.md", "- sitegen:"),
}
INSTALL_AND_BUILD = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/sitegen build"


def links(markdown: str) -> list[str]:
    """The targets of a markdown text's links, images left out."""
    return [m.group(1) for m in re.finditer(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)", markdown)]


def slug(heading: str) -> str:
    """Python-Markdown's (and MkDocs') default heading id."""
    text = re.sub(r"[^\w\s-]", "", re.sub(r"`", "", heading)).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def section(markdown: str, anchor: str) -> str:
    """The text under the heading whose id is `anchor`, to the next heading of its level or above
    (the whole page without an anchor)."""
    if not anchor:
        return markdown
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"(#+) (.*)", line)
        if m and slug(m.group(2)) == anchor:
            level = len(m.group(1))
            end = next((j for j in range(i + 1, len(lines))
                        if re.match(rf"#{{1,{level}}} ", lines[j])), len(lines))
            return "\n".join(lines[i:end])
    raise AssertionError(f"no heading with the id {anchor!r}")


def ids(page: Path) -> set[str]:
    doc = html5lib.parse(page.read_bytes(), treebuilder="etree", namespaceHTMLElements=False)
    return {el.get("id") for el in doc.iter() if el.get("id")}


# -- README -------------------------------------------------------------------------------------------

def test_the_readme_is_at_most_8_kb():
    assert len(README.read_bytes()) <= 8_000


def test_each_task_is_one_link_from_the_readme(example_site):
    """The README links to each task's page; the page is built into the site, its anchor is there, and
    the section it leads to shows the task's command."""
    found = links(README.read_text(encoding="utf-8"))
    for task, (target, shows) in TASKS.items():
        assert target in found, f"README has no link to {target} ({task})"
        path, _, anchor = target.partition("#")
        built = example_site / Path(path).relative_to("docs").with_suffix(".html")
        assert built.is_file(), f"{task}: {path} is not a page of the built site"
        assert not anchor or anchor in ids(built), f"{task}: no #{anchor} on {built.name}"
        assert shows in section((ROOT / path).read_text(encoding="utf-8"), anchor), f"{task}: {target} shows no {shows!r}"


def test_every_link_of_the_readme_reaches_a_file_and_its_anchor(example_site):
    for target in links(README.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        assert (ROOT / path).is_file(), target
        if anchor and path.startswith("docs/"):
            assert anchor in ids(example_site / Path(path).relative_to("docs").with_suffix(".html")), target


def test_the_readme_first_command_builds_the_guide(example_site):
    """README's first command installs sitegen and runs `sitegen build` here, as the example_site
    fixture does; every page of docs/, the guide's among them, is a page of that site."""
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks[0].strip() == INSTALL_AND_BUILD and blocks[1].strip() == "bash tests/run.sh"
    pages = sorted((ROOT / "docs").rglob("*.md"))
    assert len([p for p in pages if p.parent == GUIDE]) >= 12
    for page in pages:
        assert (example_site / page.relative_to(ROOT / "docs").with_suffix(".html")).is_file(), page


# -- the navigation -----------------------------------------------------------------------------------

def nav_targets(entries) -> list[str]:
    out = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        out += nav_targets(value) if isinstance(value, list) else [value]
    return out


def test_every_page_of_docs_is_in_the_nav():
    """A page is one line in nav: of mkdocs.yml; a page left out would be built but never listed."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = nav_targets(config["nav"])
    for page in sorted((ROOT / "docs").rglob("*.md")):
        name = page.relative_to(ROOT / "docs").as_posix()
        if name != "index.md":  # the home page: the site's name in the top bar leads there
            assert name in listed, f"docs/{name} is in no nav: entry of mkdocs.yml: add one line there"
    assert len(listed) == len(set(listed))


# -- references that cannot drift ---------------------------------------------------------------------

def refresh():
    spec = importlib.util.spec_from_file_location("refresh_docs", ROOT / "tools" / "refresh_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_references_match_the_code(capsys):
    """The CLI, configuration, blocks, figures and receipt bounds in the guide are what the code says."""
    tool = refresh()
    status = tool.main(["--check"])
    out = capsys.readouterr().out
    assert status == 0, f"the guide's generated parts differ from the code: run `{tool.COMMAND}`\n{out}"
    for page in ("cli.md", "configuration.md", "writing.md", "receipts.md", "comparing.md"):
        assert GUIDE / page in tool.pages(), page


@pytest.mark.parametrize("change", ["an option", "a command's option", "an edit by hand"])
def test_the_reference_check_fails_when_the_code_or_the_page_changes(change, tmp_path, monkeypatch, capsys):
    from site_gen.core import config

    tool = refresh()
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    if change == "an option":
        monkeypatch.setitem(config.PLUGIN_OPTIONS, "new_option", config.Option("number", 1, "a new option", 0, 2))
    elif change == "a command's option":
        from site_gen.cli import check

        original = check.add_parser

        def with_one_more(sub):
            original(sub)
            sub.choices["check"].add_argument("--new-flag", action="store_true", help="a new flag")
        monkeypatch.setattr(check, "add_parser", with_one_more)
    else:
        page = tmp_path / "docs" / "guide" / "configuration.md"
        page.write_text(page.read_text(encoding="utf-8").replace("| `noise_band` | `0.08` |", "| `noise_band` | `0.05` |"),
                        encoding="utf-8")
    assert tool.main(["--check"], root=tmp_path) != 0
    said = capsys.readouterr()
    assert f"run `{tool.COMMAND}`" in said.out + said.err


# -- no timings, hashes or loads outside their two places ---------------------------------------------

# The two places for them, and this file, whose samples below hold each kind.
EXEMPT_FILES = {"CHANGELOG.md", "docs/guide/performance-results.md", "tests/test_docs_guide.py"}
EXEMPT_FOLDERS = ("data/", "tests/fixtures/", "tests/bad_inputs/")  # receipts and fixtures: hashes as data
HEX = re.compile(r"(?<![\w/.:-])[0-9a-f]{7,40}(?![\w-])")
LOAD = re.compile(r"\bload(?: average)?(?: at (?:the )?(?:start|end))?[:\s]+\d+\.\d\d\b(?!\s?m?s\b)", re.IGNORECASE)
WHEN = re.compile(r"\b20\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b|\b(?:[01]?\d|2[0-3]):[0-5]\d\b(?!:)"
                  r"|\b(?:evening|night|morning|afternoon)(?:'s)? (?:host|run|machine)\b", re.IGNORECASE)
DURATION = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:ms|s|min|minutes?|seconds?|hours?)\b")


def commits() -> set[str]:
    done = subprocess.run(["git", "rev-list", "--all"], cwd=ROOT, capture_output=True, text=True, check=False)
    return set(done.stdout.split()) if done.returncode == 0 else set()


def offences(text: str, known: set[str]) -> list[str]:
    """Each commit hash (of this repository's history, `known`), load average and dated timing (a line
    with a date or a time of day, and a duration on it or the next line) of a text, by line."""
    found = []
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        for m in HEX.finditer(line):
            token = m.group(0)
            if re.search(r"\d", token) and re.search(r"[a-f]", token) and any(c.startswith(token) for c in known):
                found.append(f"line {i}: commit {token}")
        found += [f"line {i}: load average {m.group(0)!r}" for m in LOAD.finditer(line)]
        after = lines[i] if i < len(lines) else ""
        if WHEN.search(line) and DURATION.search(line + " " + after):
            found.append(f"line {i}: dated timing {line.strip()[:100]!r}")
    return sorted(set(found))


def tracked_text_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return [f for f in done.stdout.split("\n") if f and f not in EXEMPT_FILES and not f.startswith(EXEMPT_FOLDERS)]


def test_no_file_but_the_changelog_and_the_results_page_holds_a_hash_a_load_or_a_dated_timing():
    known = commits()
    assert len(known) > 10  # the history is there to recognise a hash by
    problems, read = [], 0
    for name in tracked_text_files():
        path = ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # a picture, or a file deleted in the work tree
        read += 1
        problems += [f"{name}: {o}" for o in offences(text, known)]
    assert read > 300
    assert problems == [], "\n".join(problems)


def test_the_check_finds_each_kind():
    """Lines like those of the README and DEVELOPERS.md this issue rewrote, and lines that hold none."""
    head = "4c4a22b"
    lines = [f"quick loop 42 s, 1,105 tests; at {head}, 18:50, load 2.44 at the start",
             "Figures from 2026-12-03's 2-CPU machine: 12 reports, load average 0.55 at the start",
             "6.5 to 8.6 minutes on the evening host.",
             "a page load 0.05 s against 0.13 s; 0.92 s of CPU; a digest sha256:4c4a22b0 and e257bc61",
             "the receipt of 2026-01-15 names its engine's commit 45955d81bfa6; a 10 s timeout"]
    found = offences("\n".join(lines) + "\n", {head + "0" * 33})
    assert found == sorted([f"line 1: commit {head}", f"line 1: dated timing {lines[0]!r}", "line 1: load average 'load 2.44'",
                            f"line 2: dated timing {lines[1]!r}", "line 2: load average 'load average 0.55'",
                            f"line 3: dated timing {lines[2]!r}", f"line 5: dated timing {lines[4]!r}"])


# -- the results page ---------------------------------------------------------------------------------

def peers():
    sys.path[:0] = [str(ROOT / "benchmarks")]
    try:
        spec = importlib.util.spec_from_file_location("peers", ROOT / "benchmarks" / "peers.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_peers_writes_the_results_page_with_machine_date_load_and_each_goal():
    module = peers()
    table = module.Table()
    table.goal("example site, cold", "0.60 s", "0.25 s", "2.40x", "at most 1.5x", False, "0.9 s vs 0.3 s")
    table.goal("1,000 reports, cold: time", "", "", "", "under 30 s", None)
    text = module.page(machine="A CPU, 2 cores", when="2030-01-02 03:04 UTC", commit="abc1234", start_load="0.50 / 1 / 2",
                       end_load="1.00 / 1 / 2", seconds=61.4, summary="0 of 1 goals measured are met", table=table.markdown(),
                       quick=True)
    assert module.PAGE == GUIDE / "performance-results.md"
    assert "- **Machine**: A CPU, 2 cores\n" in text and "- **Run**: 2030-01-02 03:04 UTC, at commit `abc1234`, 61 s in all" in text
    assert "- **Load average at the start**: 0.50 / 1 / 2\n- **Load average at the end**: 1.00 / 1 / 2\n" in text
    assert "| example site, cold | 0.60 s | 0.25 s | 2.40x | 0.9 s vs 0.3 s | at most 1.5x | not met |" in text
    assert "| 1,000 reports, cold: time |  |  |  |  | under 30 s | not measured (--quick) |" in text
    assert "a quick run" in text
    # The committed page is that page, of a full run: every line of its head, and a table of goals.
    committed = (GUIDE / "performance-results.md").read_text(encoding="utf-8")
    for head in ("# Performance results", "- **Machine**: ", "- **Run**: ", "- **Load average at the start**: ",
                 "- **Load average at the end**: ", "- **Goals**: ", "## Each goal",
                 "| goal | sitegen | peer | ratio (wall) | CPU (sitegen vs peer) | target | result |"):
        assert head in committed, head
    assert "from a full run" in committed and committed.count("| met |") + committed.count("| not met |") >= 10


# -- the MkDocs build of the same docs ----------------------------------------------------------------

@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("mkdocs") / "site"
    built = mkdocs_here("build", "--strict", "-d", str(site), cwd=ROOT)
    assert built.returncode == 0, built.stderr
    return site


@pytest.mark.slow
def test_every_link_and_anchor_of_the_mkdocs_build_resolves(mkdocs_site):
    """`mkdocs build --strict` of the repository's mkdocs.yml: the guide inside MkDocs' theme, its
    links between pages, to the reports and to anchors, every one found. (The same check of the plain
    site, the example built by `sitegen build`: tests/test_site_sound.py.)"""
    for page in sorted(GUIDE.glob("*.md")):
        built = mkdocs_site / "guide" / (page.stem + "/index.html" if page.stem != "index" else "index.html")
        assert built.is_file(), built
    assert check_links(mkdocs_site, rooted=("404.html",)) > 1000


def test_the_commit_message_hook_holds_a_subject_to_72_characters(tmp_path):
    hook = ROOT / ".githooks" / "commit-msg"
    for subject, ok in (("a" * 72, True), ("ä" * 72, True), ("a" * 73, False)):
        message = tmp_path / "COMMIT_EDITMSG"
        message.write_text(f"# a comment line\n{subject}\n\nThe details, as long as they need to be: {'x' * 200}\n",
                           encoding="utf-8")
        done = subprocess.run([sys.executable, str(hook), str(message)], capture_output=True, text=True, check=False)
        assert (done.returncode == 0) == ok, (subject, done.stderr)
        assert ok or "at most 72" in done.stderr
