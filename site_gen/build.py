"""The pipeline: load -> analyse -> render -> files. Front ends (CLI, preview, MkDocs) call this."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import site_gen
from site_gen.analyse.report import Analysis, analyse
from site_gen.config import Config
from site_gen.load import Report, load_reports
from site_gen.render import views
from site_gen.render import format as fmt
from site_gen.render.pages import Page, ReportPages, render_page, report_base, theme_dir
from site_gen.write import check_site_dir, write_site


@dataclass
class BuildResult:
    files: dict[str, bytes]
    pages: int
    reports: int
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


@lru_cache(maxsize=1)
def plotly_js() -> bytes:
    """Plotly's own bundle, shipped by the plotly package: served from the site, never a CDN."""
    return resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()


def _asset(name: str, data: bytes) -> tuple[str, bytes]:
    stem, dot, ext = name.rpartition(".")
    return f"assets/{stem}.{hashlib.sha256(data).hexdigest()[:10]}.{ext}", data


def theme_assets(config: Config) -> dict[str, tuple[str, bytes]]:
    """Stylesheet and script of the theme (a user's custom_dir may override either)."""
    out = {}
    for key, name in (("css", "sitegen.css"), ("js", "sitegen.js")):
        path = theme_dir("static") / name
        if config.custom_dir and (config.custom_dir / name).is_file():
            path = config.custom_dir / name
        out[key] = _asset(name, path.read_bytes())
    import plotly
    out["plotly"] = (f"assets/plotly-{plotly.__version__}.min.js", plotly_js())
    return out


def dashboard_row(a: Analysis, url: str) -> dict[str, str]:
    counts = a.speed_counts
    speed = "—"
    if counts is not None:
        speed = f"{int(counts['faster'].sum())} faster · {int(counts['level'].sum())} level · {int(counts['slower'].sum())} slower"
    precision = "—"
    if a.precision_summary:
        s = a.precision_summary
        precision = f"{s['resolved']} of {s['pairs']} resolved; {s['further']} further, {s['closer']} closer"
    kv = "—"
    if a.kv is not None and not a.kv["ratio"].dropna().empty:
        kv = fmt.ratio_range(a.kv["ratio"].min(), a.kv["ratio"].max())
    return {"title": a.report.title, "date": a.report.date, "url": url, "checkpoints": ", ".join(a.checkpoints),
            "speed": speed, "precision": precision, "kv": kv}


def build_files(config: Config, *, strict: bool = False, reports: list[Report] | None = None) -> BuildResult:
    """Every file of the site, in memory. Raises SitegenError on bad input; writes nothing."""
    start = time.perf_counter()
    if reports is None:
        reports = load_reports(config.data_dir, max_bytes=config.max_receipt_bytes, strict=strict)
    analyses = [analyse(r, config.noise_band, config.ratio_scale) for r in reports]
    # Newest first on the dashboard and in navigation.
    analyses.sort(key=lambda a: (a.report.date, a.report.id), reverse=True)
    site_nav = [{"title": a.report.title, "url": report_base(a.report.id) + "index.html", "report": a.report.id} for a in analyses]
    assets = theme_assets(config)
    asset_urls = {k: v[0] for k, v in assets.items()}
    files: dict[str, bytes] = {}
    warnings: list[str] = []
    pages: list[Page] = []
    for a in analyses:
        warnings.extend(a.report.warnings)
        rp = ReportPages(a, config, site_nav, strict=strict)
        pages.extend(rp.pages())
        files.update(rp.files())
        warnings.extend(rp.warnings)
    home = Page(url="index.html", title=config.site_name, template="home.html",
                context={"reports": [dashboard_row(a, url=report_base(a.report.id) + "index.html") for a in analyses]})
    pages.append(home)
    uses_charts = False
    for page in pages:
        files[page.url] = render_page(page, config, site_nav, asset_urls)
        uses_charts |= page.charts
    for key, (path, data) in assets.items():
        if key != "plotly" or uses_charts:
            files[path] = data
    return BuildResult(files=files, pages=len(pages), reports=len(reports), warnings=warnings,
                       seconds=time.perf_counter() - start)


def build(config: Config, *, strict: bool = False) -> BuildResult:
    check_site_dir(config.site_dir, [config.config_file.parent / "mkdocs.yml", config.data_dir, config.docs_dir,
                                     config.config_file, *( [config.custom_dir] if config.custom_dir else [])])
    result = build_files(config, strict=strict)
    write_site(result.files, config.site_dir)
    return result
