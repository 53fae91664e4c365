"""Shared fixtures: the example site built once, temporary copies to edit, a headless Chromium."""
from __future__ import annotations

import contextlib
import fcntl
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import site_gen.building.builder as build_module
from site_gen import cli

ROOT = Path(__file__).resolve().parent.parent
# The tests' own build cache (site_gen/building/cache.py), never the user's; builds they run inherit it, and
# so do xdist's workers (templates compiled once for the whole run). Whoever made it removes it.
_MADE_CACHE = "SITEGEN_TEST_CACHE" not in os.environ
if _MADE_CACHE:
    os.environ["SITEGEN_TEST_CACHE"] = tempfile.mkdtemp(prefix="sitegen-test-cache-")
    os.environ["SITEGEN_TEST_RUN_CACHE"] = os.environ["SITEGEN_TEST_CACHE"]  # made for this run: its workers share it
CACHE_HOME = Path(os.environ["SITEGEN_TEST_CACHE"])
os.environ["XDG_CACHE_HOME"] = str(CACHE_HOME)
os.environ.pop("SITEGEN_NO_CACHE", None)
# The seed report's figure checker lives beside the checkout (../shared/tools/), where CI puts it;
# SITEGEN_SEED_TOOL names it elsewhere.
SEED_TOOL = Path(os.environ.get("SITEGEN_SEED_TOOL", ROOT.parent / "shared" / "tools" / "seed_figures.py"))


def need_seed_tool() -> None:
    """The seed checker is required in CI; on a machine without it, its tests say why they skip."""
    if not SEED_TOOL.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{SEED_TOOL} is missing: CI places shared/ beside the checkout")
        pytest.skip(f"{SEED_TOOL} not found (set SITEGEN_SEED_TOOL to the seed_figures.py checker)")


# The browser tests drive Debian's chromium-headless-shell: Blink and V8 of the same Debian source
# package and version as the `chromium` browser, built for headless runs (it is what Playwright itself
# runs headless), without the browser's window and the WebUI pages that come with it (omnibox popups,
# a renderer of their own). A new context costs about a third of the CPU it costs in `chromium`, a
# page load under half, and the browser tests outside test_a11y_layout.py about two thirds of their
# CPU there. test_browser.py checks that `chromium` itself lays a page out as the shell does.
# SITEGEN_TEST_CHROMIUM picks another.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
DEBIAN_CHROMIUM = "/usr/bin/chromium"
CHROMIUM = os.environ.get("SITEGEN_TEST_CHROMIUM") or (HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() or os.environ.get("CI")
                                                      else DEBIAN_CHROMIUM)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic"]


def as_from_a_terminal() -> None:
    """A child's preexec_fn: Ctrl-C (SIGINT) as a terminal delivers it. A runner that starts the
    suite in the background without job control (`cmd &` in a script, some CI agents) hands its
    children SIGINT ignored, and Python keeps an ignored SIGINT ignored: a test of what Ctrl-C does
    would then time out or see the program finish."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_sitegen(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs the CLI as a user would, in a fresh process."""
    return subprocess.run([sys.executable, "-m", "site_gen", *args], cwd=cwd or ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


# The tests that are about the forked build (site_gen.building.builder's workers) take it from this many
# reports, whatever the default (PARALLEL_MIN_REPORTS, 8 too since it weighs reports by size).
FORKED_REPORTS = 8


@pytest.fixture
def forked_builds(monkeypatch) -> int:
    """Builds of FORKED_REPORTS reports or more fork workers, cold or beside a previous site, here and
    in the CLI the test runs."""
    for name in ("PARALLEL_MIN_REPORTS", "PARALLEL_MIN_WARM_REPORTS"):
        monkeypatch.setattr(build_module, name, FORKED_REPORTS)
        monkeypatch.setenv(f"SITEGEN_{name}", str(FORKED_REPORTS))
    return FORKED_REPORTS


def sitegen_here(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """The CLI run in this process, in `cwd` with `env` added: what run_sitegen gives, without a new
    interpreter's imports and template compiling. Not for output written by the programs it runs
    (git's, say): that goes to this process's own stdout."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    os.environ.update(env or {})
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(args))
    except SystemExit as exc:  # argparse's --help and usage errors end the process
        code = exc.code
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["sitegen", *args], code, out.getvalue(), err.getvalue())


def strictly(result):
    """A build's result as `--strict` takes it: its first warning, if any, raised as the error."""
    from site_gen.core.diagnostics import refuse

    refuse(result.warnings)
    return result


def import_here(*args: str) -> subprocess.CompletedProcess:
    """`sitegen import …` in this process with the config of the project that `-o` names a report
    folder of (`-o ROOT/data/ID` needs ROOT/mkdocs.yml, data_dir `data`; made if missing)."""
    out = Path(args[args.index("-o") + 1])
    config = out.parent.parent / "mkdocs.yml"
    if out.parent.name == "data" and not config.exists():
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text("site_name: Imported\nplugins:\n  - sitegen:\n      data_dir: data\n")
    return sitegen_here(*args, "-f", str(config))


def mkdocs_here(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`mkdocs ARGS` (its click command line, messages and exit code) run in this process, as a new
    process would run it: a new sitegen plugin (MkDocs keeps one that has on_startup for every later
    build of a process), and MkDocs's logger as it was, after. Not for what a fresh interpreter is
    tested for (which modules it imports)."""
    import logging

    from mkdocs.__main__ import cli as mkdocs_cli
    from mkdocs.config.defaults import MkDocsConfig

    dict(MkDocsConfig._schema)["plugins"].plugin_cache.pop("sitegen", None)
    logger = logging.getLogger("mkdocs")
    saved = (logger.level, logger.propagate, list(logger.handlers), list(logger.filters))
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                mkdocs_cli.main(list(args), prog_name="mkdocs")
                code = 0
            except SystemExit as exc:  # click ends every run so, 0 included
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
        logger.handlers[:], logger.filters[:] = saved[2], saved[3]
        dict(MkDocsConfig._schema)["plugins"].plugin_cache.pop("sitegen", None)
    return subprocess.CompletedProcess(["mkdocs", *args], code, out.getvalue(), err.getvalue())


def one_error_line(code: int, err: str, *needles: str) -> str:
    """The one `Error:` line of a refused run (exit 1), holding every needle."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1 and lines[0].startswith("Error: "), (code, err)
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="session")
def example_site(tmp_path_factory) -> Path:
    """The repository's example site, built by the real CLI once per run, read-only: in a run whose
    test cache conftest made (CACHE_HOME, shared by xdist's workers, removed at the run's end), by
    the first worker that asks for it while the others wait for it (a lock); else once per session."""
    if not _MADE_CACHE and os.environ.get("SITEGEN_TEST_RUN_CACHE") != str(CACHE_HOME):
        site = tmp_path_factory.mktemp("example") / "site"
        result = run_sitegen("build", "-q", "-d", str(site))
        assert result.returncode == 0, result.stderr
        return site
    shared = CACHE_HOME / "example-site"
    with open(CACHE_HOME / "example-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not shared.is_dir():
            staging = CACHE_HOME / f"example-site.{os.getpid()}"
            result = run_sitegen("build", "-q", "-d", str(staging / "site"))
            assert result.returncode == 0, result.stderr
            staging.rename(shared)
    return shared / "site"


@pytest.fixture
def project(tmp_path) -> Path:
    """A temporary copy of the example project (mkdocs.yml, data/, docs/) safe to edit."""
    for name in ("mkdocs.yml",):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "data", tmp_path / "data", ignore=shutil.ignore_patterns("*.py"))
    if (ROOT / "docs").is_dir():
        shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


# The reports a small project keeps: the one the example's docs pages draw on, and its engine's
# version before it (a report links to its engine's other versions: site_gen/render/related.py).
FEW_REPORTS = ("cuteafd-v4.0.0", "cuteafd-v3.0.1")


@pytest.fixture
def small_project(tmp_path) -> Path:
    """The example project (mkdocs.yml, docs/) with FEW_REPORTS of its reports: for what a build, the
    preview or a deploy does whatever the number of reports, at a fifth of the example's build."""
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    for rid in FEW_REPORTS:
        shutil.copytree(ROOT / "data" / rid, tmp_path / "data" / rid, ignore=shutil.ignore_patterns("*.py"))
    if (ROOT / "docs").is_dir():
        shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def need_browser(path: str) -> None:
    if not Path(path).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is not installed; tests/run.sh installs chromium and chromium-headless-shell")
        pytest.skip(f"{path} not installed (tests/run.sh installs chromium and chromium-headless-shell)")


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium (CHROMIUM) via Playwright. Missing in CI is a failure, never a skip."""
    need_browser(CHROMIUM)
    from playwright.sync_api import sync_playwright

    # Playwright gives each launch a fresh, temporary user-data dir of its own.
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def watched_page(context):
    """A new page of `context` whose `errors` list gathers console errors, page errors and failed requests."""
    pg = context.new_page()
    pg.errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: pg.errors.append(f"console: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(f"pageerror: {e}"))
    pg.on("requestfailed", lambda r: pg.errors.append(f"failed: {r.url} {r.failure}"))
    return pg


@pytest.fixture
def page(browser):
    """A fresh browser context and page that records console errors and failed requests."""
    context = browser.new_context()
    yield watched_page(context)
    context.close()


# The longest files first (by their measured seconds): with `--dist loadfile --no-loadscope-reorder`
# (tests/run.sh) each worker takes whole files in this order as it frees up, so the run ends with
# short files on both workers instead of one long file on one of them.
LONGEST_FIRST = ("test_a11y_layout.py", "test_every_page_in_themes.py", "test_dependencies.py", "test_history.py",
                 "test_import_crashes.py", "test_schema_receipts.py", "test_phones_print.py", "test_mkdocs_themes.py",
                 "test_open_pages_first.py", "test_serve.py", "test_fuzz.py", "test_deploy.py", "test_cache_trust.py",
                 "test_determinism.py", "test_site_cache.py", "test_serve_load.py", "test_properties.py", "test_scale.py",
                 "test_anywhere.py", "test_mkdocs_plugin.py", "test_series.py", "test_every_figure_sourced.py", "test_cli.py",
                 "test_bootstrap_memory.py", "test_site_tamper.py", "test_import_formats.py", "test_study_simulation.py",
                 "test_mkdocs_material.py", "test_history_store.py", "test_bad_inputs.py")


def pytest_collection_modifyitems(items) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: each file keeps its order


def pytest_unconfigure(config) -> None:
    if _MADE_CACHE:
        shutil.rmtree(CACHE_HOME, ignore_errors=True)
