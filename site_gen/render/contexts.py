"""The contracts of the page templates: what `base.html` and each site-wide page is given.

A custom template (custom_dir) can rely on these names. Every page gets a `BaseContext` (the page,
the site, the top bar's navigation, asset URLs, the canonical URL); a page kind adds its own
fields (`HomeContext` for home.html, `HistoryContext` for history.html, `DocsPageContext` for
page.html, `NotFoundContext` for 404.html). Report pages add their section's view (see sections/).
Jinja reads `page.url` and `page["url"]` alike, so the records read as the dicts they replace.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


def as_context(record: Any) -> dict[str, Any]:
    """A context record as the mapping a template renders with (its fields, not copied)."""
    return {f.name: getattr(record, f.name) for f in fields(record)}


@dataclass(frozen=True)
class PageInfo:
    url: str             # the page's site path, e.g. `reports/ID/speed.html`
    title: str
    section: str | None  # the report section it shows, if a report page
    charts: bool         # whether it draws a chart (the chart script is linked only then)


@dataclass(frozen=True)
class SiteInfo:
    name: str
    description: str
    url: str        # site_url of the config ("" when unset)
    charts: str     # the chart renderer (`charts` option)
    copyright: str
    extra: dict     # `extra` of mkdocs.yml, as given
    home: str       # the home page, relative to this page


@dataclass(frozen=True)
class NavItem:
    """An entry of the top bar: a site page (reports are reached from the dashboard), a link out, or a
    section of `nav:` (its `url` its first page's; its pages are listed beside each of them)."""
    title: str
    url: str             # relative to the page (a link out: as written)
    report: str | None
    current: bool        # the page itself (a section: one of its pages)
    children: tuple[NavItem, ...] = ()
    external: bool = False


@dataclass(frozen=True)
class BaseContext:
    """What `base.html` is rendered with on every page."""
    page: PageInfo
    site: SiteInfo
    site_nav: list[NavItem]
    asset: dict[str, str]  # asset key (css, js, dashboard, ...) -> URL relative to the page
    canonical: str         # the page's absolute URL with site_url, else ""


@dataclass(frozen=True)
class HomeContext:
    reports: list[dict]  # dashboard rows (render/dashboard.py), superseded ones under their rerun


@dataclass(frozen=True)
class HistoryContext:
    history: dict  # render/history.py's context: series tables and charts over releases


@dataclass(frozen=True)
class DocsPageContext:
    content: Any     # the page's HTML (markupsafe.Markup)
    doc: dict        # {"src": path inside docs_dir}
    dashboard: bool  # whether the page holds the table of reports


@dataclass(frozen=True)
class NotFoundContext:
    site: dict            # {"name", "url"}: url is the site root, or "" (then the page links nothing)
    reports: list[dict]   # {"title", "url"} with absolute URLs (only with a site root)
    version: str          # sitegen's version
