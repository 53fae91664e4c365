"""sitegen's public API: what its front ends (the command line, the live preview, the MkDocs plugin)
use, and nothing else of sitegen (tests/test_api.py reads their imports).

Light to import: what a front end needs to read a config and to find a site already built takes
no pandas, Jinja or the pipeline; each function imports the layers it drives when it is called.

    config = load_config("mkdocs.yml")
    result = build(config)                       # the site, written to config.site_dir
    text = summary(config, fmt="markdown")       # the reports' verdicts
"""
from __future__ import annotations

from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING
from collections.abc import Callable

from site_gen import __version__
from site_gen.core.config import PLUGIN_OPTIONS, Config, Option, check_keys, check_url, load_config, receipt_bytes
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.render.where import rel, report_base, theme_dir

from site_gen.building.results import BuildResult
from site_gen.importers.options import ImportOptions, ImportResult

if TYPE_CHECKING:
    from site_gen.building.builder import Builder
    from site_gen.building.hosted import HostedSite

__all__ = [
    "PLUGIN_OPTIONS", "BuildResult", "Config", "Diagnostic", "Option", "SitegenError", "__version__", "build", "build_files",
    "cache_notes", "check_keys", "check_url", "configure_cache", "deploy_inputs", "hosted_site", "import_formats",
    "ImportOptions", "ImportResult", "import_options", "import_receipt", "live_builder", "load_config", "new_project", "rel",
    "receipt_bytes", "refuse_cache_inside",
    "refuse_warnings", "remove_aside", "report_base", "report_folders", "site_prefix", "summary", "theme_dir", "watched_folders",
    "defer_removal", "collect_between_pages", "embed_css", "searchable", "toc_tokens", "static_text", "EMBED_CSS", "MATERIAL_CSS", "OTHER_THEMES_CSS",
    "theme_assets", "asset_name", "compare", "Compared", "FAIL_ON", "COMPARE_FORMATS", "history_changes",
    "HISTORY_FAIL_ON",
]

EMBED_CSS = "sitegen-embed.css"
MATERIAL_CSS = "sitegen-material.css"
OTHER_THEMES_CSS = "sitegen-other-themes.css"  # added to the embedded stylesheet in any other theme


# -- the build cache --------------------------------------------------------------------------

def configure_cache(directory: str | Path | None = None, *, enabled: bool = True, config: Config | None = None) -> None:
    """Where this process keeps its build cache (`--cache-dir`), or none (`--no-cache`); a folder
    inside what `config` reads or publishes is refused."""
    from site_gen.building import cache

    if directory and config is not None:
        cache.check_directory(Path(directory).expanduser(), config, str(directory))
    cache.configure(directory, enabled=enabled)


def refuse_cache_inside(paths) -> None:
    """Turns the cache off (one warning) when its folder lies inside one of `paths`."""
    from site_gen.building import cache

    cache.refuse_inside(paths)


def check_site_dir(config: Config) -> None:
    """Refuses (SitegenError) a site_dir that is, holds or lies inside what the site is made from (the
    config's folder, data_dir, docs_dir, custom_dir): a build would write into a source, and the next
    one clear it. Checked before anything is written."""
    from site_gen.building.write import check_site_dir as check, site_inputs
    from site_gen.core.files import check_custom_dir

    check(config.site_dir, site_inputs(config))
    check_custom_dir(config.custom_dir)  # read only as regular files inside it, each of bounded size


def cache_notes() -> list[Diagnostic]:
    """The build cache's own warnings of this run (not yours, not usable), each once."""
    from site_gen.building import cache

    return list(cache.notes)


# -- building -----------------------------------------------------------------------------------

def build(config: Config, *, progress=None, clean: bool = False, reuse: bool = False,
          accept: Callable[[list[Diagnostic]], None] | None = None) -> BuildResult:
    """Builds the site into `config.site_dir` atomically. With `reuse` (a process of its own), the
    persistent store is used: a site found already built is checked and left as it is (the result
    says so: `reused`), and only what changed is made again. `accept(warnings)`, called before anything is put
    in place (on a site found built too), may refuse the build: `refuse_warnings` is `--strict`."""
    from site_gen.building import site_cache

    key = site_cache.inputs_key(config) if reuse else None
    found = site_cache.unchanged(config, key)
    if found is not None:
        if accept is not None:
            accept(found.warnings)
        return found
    # Here, not above: a site found already built needs none of the pipeline's imports.
    from site_gen.building.builder import build as build_site
    from site_gen.building.store import Store

    result = build_site(config, progress=progress, clean=clean, persist=Store(config, enabled=reuse), accept=accept)
    site_cache.record(config, key, result)
    return result


def build_files(config: Config, *, progress=None) -> BuildResult:
    """Every file of the site, in memory; nothing written (`sitegen check`, a deploy's build). Its
    `warnings` are every warning the build found."""
    from site_gen.building.builder import build_files as files

    return files(config, progress=progress)


def live_builder(config: Config, *, progress=None) -> Builder:
    """A builder that keeps what it made between builds, told of changed files (`changed(paths)`):
    the live preview's."""
    from site_gen.building.builder import Builder

    return Builder(config, progress=progress, watched=True)


def refuse_warnings(warnings: list[Diagnostic]) -> None:
    """`--strict`, decided by a front end once a build is done: the first warning raised as the
    error it then is (naming how many more there are)."""
    from site_gen.core.diagnostics import refuse

    refuse(warnings)


def watched_folders() -> list[Path]:
    """sitegen's own theme folders (static files, the templates of the theme and of each section):
    what a live preview of a source checkout watches besides the project."""
    from site_gen.render.where import template_dirs

    return [theme_dir("static"), *template_dirs()]


def site_prefix() -> str:
    """The prefix of the temporary folders a build makes beside the site (for a .gitignore)."""
    from site_gen.building.write import PREFIX

    return PREFIX


def defer_removal() -> None:
    """The previous site, swapped out by a build, is removed by `remove_aside` (after the command)."""
    from site_gen.building import write

    write.defer_removal()


def collect_between_pages() -> None:
    """A front end's own process that builds a site: the cyclic garbage collector off, a collection
    between reports and pages instead (core/collector.py). Never in a caller's process."""
    from site_gen.core import collector

    collector.take_over()


def remove_aside(*, detach: bool) -> list[Diagnostic]:
    from site_gen.building import write

    return write.remove_aside(detach=detach)


# -- reports ------------------------------------------------------------------------------------

def report_folders(config: Config) -> list[Path]:
    from site_gen.receipts.load import report_folders as folders

    return folders(config.data_dir)


def deploy_inputs(config: Config) -> list[Path]:
    """Every file a build reads (and may publish): the config, receipts and ledes, docs pages and
    files, custom_dir's files."""
    from site_gen.receipts.load import SUMMARY
    from site_gen.render.docs import DocsPages

    inputs = [config.config_file]
    for folder in report_folders(config):
        inputs += [folder / SUMMARY, *sorted(folder.glob("*.md"))]
    if config.docs_dir.is_dir():
        docs = DocsPages(config, [])
        inputs += [s.path for s in docs.sources.values()] + list(docs.static.values())
    if config.custom_dir and config.custom_dir.is_dir():
        inputs += sorted(p for p in config.custom_dir.rglob("*") if p.is_file())
    return inputs


def summary(config: Config, report: str | None = None, fmt: str = "text") -> str:
    """The reports' verdicts (every report newest first, or one), as text, markdown or JSON."""
    from site_gen.building.assembly import assemble
    from site_gen.render import summary as summaries

    site = assemble(config, only=report)
    items = [summaries.summary_data(a) for a in site.analyses]
    return {"text": summaries.as_text, "markdown": summaries.as_markdown, "json": summaries.as_json}[fmt](items)


FAIL_ON = ("slower", "worse", "new-regression", "any", "never")  # analysis/verdict.py FAIL_ON, without importing it
COMPARE_FORMATS = ("text", "markdown", "json")


class Compared:
    """`compare`'s answer: the output in the format asked for, and whether it fails by `fail_on`."""

    def __init__(self, text: str, failed: bool, counts: dict[str, int]):
        self.text, self.failed, self.counts = text, failed, counts


def compare(config: Config, old: str, new: str, *, fmt: str = "text", fail_on: str = "worse",
            allow: tuple[str, ...] = ()) -> Compared:
    """NEW against OLD (each a report id of the data folder, or a folder holding SUMMARY.json): every
    comparable figure better, worse or unchanged within noise, by the config's noise band. Reports
    whose setups differ (model, hardware, baseline, workload, client) are refused (SitegenError)
    unless `allow` names the difference."""
    from site_gen.analysis.compare import compare as compared, refuse_itself
    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import named_report
    from site_gen.render.compare import FORMATS

    if fail_on not in FAIL_ON:
        raise SitegenError(f"--fail-on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
    if fmt not in COMPARE_FORMATS:
        raise SitegenError(f"--format must be one of {', '.join(COMPARE_FORMATS)}, got {fmt!r}")
    reports = [named_report(config.data_dir, name, max_bytes=config.max_receipt_bytes) for name in (old, new)]
    refuse_itself(*reports)
    a, b = (analyse(r, config.noise_band, config.ratio_scale, config.headline_input, slo=config.slo) for r in reports)
    cmp = compared(a, b, set(allow))
    return Compared(FORMATS[fmt](cmp, fail_on), bool(cmp.failing(fail_on)), cmp.counts())


HISTORY_FAIL_ON = FAIL_ON  # one vocabulary for compare and history (the default differs: worse, new-regression)


def history_changes(config: Config, *, since: str | None = None, fail_on: str = "new-regression", fmt: str = "text",
                    series: str | None = None) -> Compared:
    """Every series of the data folder (the reports of one setup over time, analysis/series.py) and
    its change points, as text, markdown or JSON. Fails by `fail_on`: new-regression (a confirmed
    regression the newest point confirms; with `since`, any confirmed regression beginning on or
    after that date), any (any confirmed change since then), never. A series that cannot be one
    (a commit twice, another setup, dates out of order) is a SitegenError; so is `series` naming a
    series that does not exist or has one point."""
    import datetime
    from types import SimpleNamespace

    from site_gen.analysis import changes as cp, series as ser
    from site_gen.analysis.history import report_rows
    from site_gen.building.assembly import assemble
    from site_gen.render import series as view

    if fail_on not in HISTORY_FAIL_ON:
        raise SitegenError(f"--fail-on must be one of {', '.join(HISTORY_FAIL_ON)}, got {fail_on!r}")
    if fmt not in COMPARE_FORMATS:
        raise SitegenError(f"--format must be one of {', '.join(COMPARE_FORMATS)}, got {fmt!r}")
    if since is not None:
        try:
            datetime.date.fromisoformat(since)
        except ValueError:
            raise SitegenError(f"--since must be a date YYYY-MM-DD, got {since!r}") from None
    site = assemble(config)
    records = [SimpleNamespace(id=a.report.id, file=str(a.report.file), history=report_rows(a)) for a in site.analyses]
    found = ser.assemble(records)
    declared: dict[str, list[str]] = {}
    for a in site.analyses:
        if a.report.meta.get("series"):
            declared.setdefault(a.report.meta["series"], []).append(a.report.id)
    notes = [f"series {name!r} has {len(ids)} report{'s' if len(ids) != 1 else ''}: change points need at least "
             f"{cp.MIN_POINTS}" for name, ids in sorted(declared.items()) if len(ids) < cp.MIN_POINTS]
    if series is not None:
        if series in declared and len(declared[series]) < 2:
            raise SitegenError(f"series {series!r} has one point ({declared[series][0]}): a series needs two reports, and "
                               f"change points {cp.MIN_POINTS}; import the next run with --series {series!r}")
        found = [s for s in found if s.declared == series or s.key == series or s.key.startswith(f"{series} · ")]
        if not found:
            names = sorted(declared) or sorted({s.key for s in ser.assemble(records, detect=False)})
            raise SitegenError(f"no series named {series!r}; series of two or more reports: "
                               + ("; ".join(names[:12]) + (" …" if len(names) > 12 else "") if names else "none"))
    failing = {(found.index(s), i) for s, i in ser.failing(found, fail_on, since)}
    shown = [(k, idx) for k, s in enumerate(found) if (idx := ser.since_filter(s, since))]
    meta = {"since": since, "fail_on": fail_on, "reports": len(site.analyses), "notes": notes}
    counts = {"series": len(found), "changes": sum(len(i) for _, i in shown), "failing": len(failing)}
    return Compared(view.FORMATS[fmt](found, shown, failing, meta), bool(failing), counts)


# -- importing and starting -------------------------------------------------------------------------

def import_formats() -> dict[str, str]:
    from site_gen.importers import FORMATS

    return dict(FORMATS)


def import_options(format: str, given: Mapping[str, object]) -> ImportOptions:
    """The options of `sitegen import FORMAT` (importers/options.py: a dataclass per kind of format)
    from a front end's values by name; a name the format has no option for is not one of them."""
    from site_gen.importers.options import FORMAT_OPTIONS

    return FORMAT_OPTIONS[format].of(format, given)


def import_receipt(options: ImportOptions) -> ImportResult:
    """`sitegen import`: the source read (only inside itself), the receipt checked as `sitegen check
    --strict` would and written into `options.output`, a report folder directly in the config's data folder.
    Its `warnings`: what it read and would not credit, or left unread, and what to do."""
    from site_gen.importers.run import run_import

    from site_gen.analysis.joining import series_accepts

    return run_import(options, series_accepts(Path(options.config_file)))



def new_project(folder: Path, *, force: bool = False) -> list[str]:
    """A new site's files (mkdocs.yml, an example receipt, a page, a .gitignore) written into
    `folder`, all or none (over existing files only with `force`); returns their names."""
    from site_gen.building.starter import write_project

    return write_project(folder, force=force)


# -- inside a host (MkDocs) ---------------------------------------------------------------------------

def hosted_site() -> HostedSite:
    from site_gen.building.hosted import HostedSite

    return HostedSite()


def theme_assets(config: Config) -> dict[str, tuple[str, bytes]]:
    from site_gen.render.assets import theme_assets as assets

    return assets(config)


def asset_name(name: str, data: bytes) -> str:
    from site_gen.render.assets import asset_name as named

    return named(name, data)


def embed_css(css: str) -> str:
    from site_gen.render.embed import embed_css as scoped

    return scoped(css)


def static_text(config: Config, name: str) -> str:
    from site_gen.render.embed import static_text as text

    return text(config, name)


def searchable(html: str, *, page_title: bool = False) -> str:
    from site_gen.render.embed import searchable as plain

    return plain(html, page_title=page_title)


def toc_tokens(html: str, title: str) -> list[dict]:
    from site_gen.render.embed import toc_tokens as tokens

    return tokens(html, title)


Progress = Callable[[str, int, int], None]
