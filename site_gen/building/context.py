"""What every stage of one build reads (builder.py `build_site`): the build context, frozen once the
reports are settled, and the outputs the site-pages stage makes from it."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from site_gen.building.buildstore import BuildStore
from site_gen.building.dependencies import Dependencies
from site_gen.building.environment import ReportRecord
from site_gen.building.results import Made
from site_gen.building.write import Staging
from site_gen.core.config import Config
from site_gen.core.diagnostics import Diagnostic
from site_gen.render.pages import Page
from site_gen.render.where import REPORTS_DIR

# The preview's (open_pages, show): the open pages a build remakes are shown as soon as they are made.
Early = tuple[Callable[[], Iterable[str]], Callable[[dict[str, bytes]], None]]
Progress = Callable[[str, int, int], None]  # progress(what, done, total), e.g. a terminal progress bar


@dataclass(frozen=True)
class BuildContext:
    """One build's inputs once its reports are settled: the config, the records (newest first), the
    site's navigation, the theme's assets, and the store the build reads and fills (in memory and on
    disk; the preview's lives from one build to the next). `out`: where a one-shot build writes."""
    config: Config
    records: list[ReportRecord]
    nav: list[dict]
    assets: dict[str, tuple[str, bytes]]
    store: BuildStore
    out: Staging | None = None
    progress: Progress | None = None
    prefilled: bool = False  # forked workers made this build's reports: their files are taken, a step of its own
    open: frozenset[str] = frozenset()  # the preview's open pages, when this build shows them early
    show: Callable[[dict[str, bytes]], None] | None = None
    # Made from the above (`of`):
    asset_urls: dict[str, str] = field(default_factory=dict)
    site: str = ""  # the hash of what a page draws besides its own context (BuildStore.site_hash)
    receipts: Dependencies = field(default_factory=Dependencies)
    open_reports: frozenset[str] = frozenset()  # the reports with a page open, when this build shows pages early

    @classmethod
    def of(cls, config: Config, records: list[ReportRecord], nav: list[dict], assets: dict[str, tuple[str, bytes]],
           store: BuildStore, *, out: Staging | None = None, early: Early | None = None, progress: Progress | None = None,
           prefilled: bool = False) -> BuildContext:
        opened = frozenset(early[0]()) if early else frozenset()
        show = early[1] if early else None
        asset_urls = {k: v[0] for k, v in assets.items()}
        return cls(config, records, nav, assets, store, out, progress, prefilled, opened, show, asset_urls,
                   store.site_hash(nav, asset_urls), Dependencies(receipts=tuple((r.id, r.sha256) for r in records)),
                   frozenset(url.split("/")[1] for url in opened if url.startswith(f"{REPORTS_DIR}/") and url.count("/") >= 2)
                   if show is not None and out is None else frozenset())

    def step(self, what: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(what, done, total)


@dataclass
class SiteFiles:
    """What the site-pages stage makes (site.py): every file of the site (those a one-shot build
    wrote already are in `written`), the pages to render and which of them the render cache may
    give, the warnings in the order a build says them."""
    files: dict[str, bytes] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    cached: set[int] = field(default_factory=set)    # ids of pages that may be taken from the render cache
    written: set[str] = field(default_factory=set)   # files already in `out`
    docs_names: list[str] = field(default_factory=list)  # the docs' pages and files (`docs_pages`)
    charts: bool = False
    remade: list[tuple[str, Made]] = field(default_factory=list)  # reports whose files were made (or looked at)
    later: list[tuple[ReportRecord, int]] = field(default_factory=list)  # (a report left for `linked`, where its warnings go)
    shown: set[str] = field(default_factory=set)     # the pages shown early
    templates_current: dict[tuple, bool] = field(default_factory=dict)  # a record's templates -> whether each is unchanged
    history_key: str | None = None  # the store's name for the history page (`home_and_history`)
    history_made: Page | None = None  # the history page when made here, to keep under that name
