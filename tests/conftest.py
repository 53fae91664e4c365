"""Shared fixtures: the example site built once, temporary copies to edit, a headless Chromium."""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import site_gen.build.builder as build_module
from site_gen import cli

ROOT = Path(__file__).resolve().parent.parent
# The tests' own build cache (site_gen/build/cache.py), never the user's; builds they run inherit it, and
# so do xdist's workers (templates compiled once for the whole run). Whoever made it removes it.
_MADE_CACHE = "SITEGEN_TEST_CACHE" not in os.environ
if _MADE_CACHE:
    os.environ["SITEGEN_TEST_CACHE"] = tempfile.mkdtemp(prefix="sitegen-test-cache-")
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


# The tests that are about the forked build (site_gen.build.builder's workers) take it from this many
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
    """The repository's example site, built once per session by the real CLI."""
    site = tmp_path_factory.mktemp("example") / "site"
    result = run_sitegen("build", "-q", "-d", str(site))
    assert result.returncode == 0, result.stderr
    return site


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
LONGEST_FIRST = ("test_a11y_layout.py", "test_every_page_in_themes.py", "test_schema_receipts.py", "test_fuzz.py", "test_serve.py",
                 "test_serve_load.py", "test_properties.py", "test_scale.py", "test_mkdocs_plugin.py", "test_bad_inputs.py", "test_deploy.py",
                 "test_anywhere.py", "test_mkdocs_material.py", "test_mkdocs_themes.py", "test_site_cache.py", "test_spare.py",
                 "test_one_truth.py",
                 "test_large_receipt.py", "test_security.py", "test_history.py", "test_dependencies.py",
                 "test_plotly_charts.py", "test_serve_safety.py", "test_docs_pages.py", "test_escaping.py",
                 "test_browser.py", "test_meaning.py", "test_cli.py", "test_determinism.py")


# The quick loop (`bash tests/run.sh --quick`, `-m "not slow"`) leaves out what is marked slow here:
# the long property and fuzz runs, the browser passes, the scale and many-build files, and every
# test that took 1.5 s or more on a 2-core machine (`pytest --durations=0`). CI runs everything.
SLOW_FILES = frozenset({
    "test_a11y_layout.py", "test_schema_receipts.py", "test_fuzz.py", "test_properties.py", "test_scale.py",
    "test_serve_load.py", "test_large_receipt.py", "test_mkdocs_material.py", "test_anywhere.py", "test_browser.py",
    "test_serving_properties.py", "test_plotly_charts.py", "test_deploy.py", "test_cache_trust.py",
    "test_site_cache.py", "test_one_truth_sections.py", "test_every_figure_sourced.py", "test_one_truth_serving.py",
    "test_mkdocs_themes.py", "test_open_pages_first.py", "test_spare.py", "test_series_pages.py", "test_gfm_outputs.py",
    "test_every_page_in_themes.py",
    "test_study_stats.py", "test_study_import.py", "test_study_pages.py", "test_study_simulation.py",
    "test_accuracy_study.py",
})
SLOW_TESTS = frozenset({
    "test_the_overview_and_the_latency_page_open_with_every_ratio_at_every_load",  # the guide's bootstrap, four loads
    "test_the_build_progress_never_counts_back",
    "test_every_command_of_the_formats_guide_imports_a_receipt_that_checks_and_builds",
    "test_a_damaged_file_of_each_new_format_is_refused_with_exit_1_never_a_crash",
    "test_lm_eval_names_the_aggregation_that_gives_back_a_corpus_metric",
    "test_an_edit_outside_the_shown_releases_keeps_the_stored_page_and_one_inside_makes_it_again",
    "test_a_forked_build_whose_edit_leaves_the_history_page_never_loads_pandas_itself",
    "test_every_percentile_interval_ratio_and_verdict_on_the_latency_page_is_numpys",
    "test_unpaired_load_points_resample_each_side_on_its_own", "test_the_summary_json_holds_numpys_figures_as_numbers",
    "test_every_page_of_the_payload_site_runs_nothing",
    "test_two_builds_are_byte_identical", "test_eleven_hundred_idle_connections_do_not_stop_the_server",
    "test_bad_input", "test_bad_input_cli", "test_plugin_site_runs_no_receipt_script_and_shows_it_as_text",
    "test_every_output_tells_the_same_figures", "test_incremental_equals_fresh_after_each_kind_of_edit",
    "test_serve_command_prints_one_line_per_rebuild_and_stops_cleanly_on_ctrl_c", "test_quiet_prints_nothing",
    "test_rebuild_in_the_same_folder_is_identical", "test_an_edit_analyses_again_only_the_sections_whose_inputs_changed",
    "test_the_key_is_a_content_hash_the_same_in_another_builder", "test_the_judge_sees_a_payload_that_runs",
    "test_build_prints_one_summary_line", "test_failed_build_leaves_previous_site",
    "test_a_valid_build_imports_neither_jsonschema_nor_plotly", "test_failed_cli_build_keeps_site",
    "test_strict_writes_nothing_and_leaves_the_previous_site", "test_builder_follows_created_renamed_and_deleted_reports",
    "test_preview_edits_do_not_pin_their_garbage", "test_html5_parses_without_errors",
    "test_parallel_cold_build_equals_sequential", "test_a_warning_names_its_file_as_the_error_of_the_same_problem_does",
    "test_resampled_percentiles_are_numpys_nanpercentile_of_the_same_draws",
    "test_bad_block_names_page_and_line_both_ways", "test_preview_follows_new_renamed_and_deleted_reports_and_config",
    "test_a_docs_page_records_its_text_and_the_reports_its_blocks_draw_on", "test_example_site_pages",
    "test_build_reports_progress_to_its_callback", "test_repository_config_builds_with_mkdocs_and_shows_every_seed_figure",
    "test_a_preview_whose_first_build_forked_takes_each_reports_pages_from_its_worker_and_survives_a_prose_edit",

    # test_series.py: the benchmark's goals at a reduced size and the outlier sweep (480 series a size);
    # the file's other tests stay in the quick loop.
    "test_benchmark_goals_at_a_reduced_size", "test_a_single_outlier_never_becomes_a_change_point",

    # Over 1.5 s each on a slower host (`pytest --durations`, the quick loop's own run):
    "test_the_recipe_runs_push_then_pull_requests",
    "test_ctrl_c_while_the_first_round_is_taken_leaves_no_worker_running",
    "test_workers_stopped_while_they_write_the_store_leave_no_half_written_entry",
    "test_no_duplicate_ids",
    "test_the_guides_commands_rewrite_the_committed_receipts",
    "test_script_is_injected_only_by_the_preview",
    "test_a_template_edited_between_two_builds_of_one_process_is_compiled_again",
    "test_builder_template_edit_rerenders_only_pages_using_it",
    "test_output_does_not_depend_on_where_it_was_built",
    "test_every_table_has_a_caption_unique_row_headers_and_no_empty_header",
    "test_the_json_is_valid_against_its_published_versioned_schema",
    "test_http_traversal_gets_404_and_nothing_outside_the_site",
    "test_sitemap_lists_every_page_sorted",
    "test_only_the_folder_and_the_registry_line_were_added",
    "test_author_page_figures_are_the_same_both_ways",
    "test_preview_rebuilds_keeps_last_good_pages_on_error_and_recovers",
    "test_each_declared_field_of_the_nav_docs_and_home_contexts_is_given",
    "test_example_dashboard_shows_both_versions",
    "test_docs_page_unknown_report_cli",
    "test_material_theme",
    "test_a_custom_template_sees_the_declared_contract",
    "test_docs_page_names_a_bad_report",
    "test_reading_the_inputs_wakes_no_watcher_only_writing_them_does",
    "test_input_errors_name_page_and_line",
    "test_front_ends_import_only_the_public_api",
    "test_share_card_is_a_png_drawn_from_the_data",
    "test_stop_leaves_no_thread_behind",
    "test_the_runs_gpqa_interval_is_recomputed_and_a_wrong_one_refused",
    "test_docs_file_of_the_same_name_wins",
    "test_report_pages_are_the_same_both_ways",
    "test_site_dir_and_config_flags",
    "test_band_option_changes_verdicts",
    "test_the_a_a_intervals_are_the_unpaired_bootstrap_replayed_with_numpy",
    "test_invalidate_names_just_the_outputs_made_from_a_changed_file",
    "test_preview_error_message_is_the_one_build_prints",
    "test_every_link_and_anchor_of_the_mkdocs_build_resolves",
    "test_a_card_names_its_column_as_the_table_s_header_does",  # every page of the example parsed (3 s)
    # Issue 50 (safe by default, round three):
    "test_fuzz_serving_importers", "test_a_refused_page_is_one_error_naming_its_line",
    "test_an_accepted_page_of_the_worst_shape_does_bounded_work",
    "test_the_issues_pages_are_refused_with_the_place_and_what_to_do",
    "test_a_large_load_point_is_bootstrapped_in_bounded_memory", "test_memory_does_not_grow_with_the_requests",
    "test_an_edited_page_is_not_kept_by_a_warm_build", "test_an_edited_page_is_not_linked_into_the_next_site",
})


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "slow: left out of the quick loop (tests/run.sh --quick); CI runs it")


def pytest_collection_modifyitems(items) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: each file keeps its order
    for item in items:
        if (item.path.name in SLOW_FILES or item.originalname in SLOW_TESTS
                or {"browser", "page"} & set(getattr(item, "fixturenames", ()))):
            item.add_marker(pytest.mark.slow)


def pytest_unconfigure(config) -> None:
    if _MADE_CACHE:
        shutil.rmtree(CACHE_HOME, ignore_errors=True)
