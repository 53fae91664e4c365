"""Files for publishing: sitemap.xml, 404.html, and each report's share card and link metadata.

Nothing here depends on where or when the site is built: URLs come from `site_url` alone,
lists are sorted, and the card is drawn from the receipt's data.
"""
from __future__ import annotations

import html
from typing import Any
from collections.abc import Iterable

import site_gen
from site_gen.analysis.report import Analysis
from site_gen.core.config import Config
from site_gen.render import card, parts
from site_gen.render.contexts import NotFoundContext, as_context
from site_gen.render.environment import environment
from site_gen.render.where import report_base

CARD = "card.png"


def site_root(config: Config) -> str:
    """`site_url` ending in one slash, or "" when none is set."""
    url = (config.site_url or "").strip()
    return url.rstrip("/") + "/" if url else ""


def absolute(config: Config, path: str) -> str:
    root = site_root(config)
    return root + path if root else ""


def _report_base(report_id: str) -> str:
    return report_base(report_id)


def headlines(a: Analysis) -> list[tuple[str, str, str]]:
    """(label, text, colour key) of the report's headline verdicts: each section's (`headlines` of its view)."""
    return parts.lines(a, lambda part: part.headlines)


def description(a: Analysis) -> str:
    """One sentence for link previews and search results."""
    parts = [f"{label} {text}" for label, text, _ in headlines(a)]
    return (" · ".join(parts) + ".") if parts else a.report.title


def share_meta(a: Analysis, config: Config) -> dict[str, Any]:
    """What base.html puts in Open Graph and Twitter card tags for the report's pages."""
    image = absolute(config, _report_base(a.report.id) + CARD)
    return {"description": description(a), "image": image, "width": card.WIDTH, "height": card.HEIGHT,
            "image_alt": f"{a.report.title}: " + "; ".join(f"{label} {text}" for label, text, _ in headlines(a))}


def share_card(a: Analysis, config: Config) -> bytes:
    r = a.report
    # The strip of dots under the headlines: the first section that draws one (`card_strip` of its view).
    strip: tuple[tuple[float, str, int], ...] = ()
    caption = f"Every speed cell, {r.candidate.name} / {r.baseline.name}; band ±{a.band * 100:g}%:"
    for s in parts.ordered():
        make = parts.view_part(s).card_strip
        drawn = make(a) if make is not None and s.present(a) else None
        if drawn:
            strip, caption = drawn
            break
    subtitle = " · ".join(x for x in (r.date, ", ".join(a.checkpoints)) if x)
    return card.share_card(config.site_name, r.title, subtitle, tuple(headlines(a)), strip, caption, tuple(a.scale),
                           a.band, "Every figure is computed from the receipts · sitegen")


def sitemap(config: Config, names: Iterable[str]) -> bytes:
    """Every page's canonical URL, sorted; no dates (they would change with every build)."""
    pages = sorted(p for p in names if p.endswith(".html") and p != "404.html")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    # html.escape, not xml.sax.saxutils.escape (the same three characters): that one imports
    # urllib.request, http.client and ssl into every build.
    lines += [f"  <url><loc>{html.escape(absolute(config, p), quote=False)}</loc></url>" for p in pages]
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def not_found(config: Config, records: list) -> bytes:
    """404.html: served by the host for any missing path, at any depth, so it links nothing relative.

    With `site_url` its links are absolute; without, it is a self-contained note.
    """
    env = environment(str(config.custom_dir) if config.custom_dir else None)
    reports = [{"title": r.title, "url": absolute(config, _report_base(r.id) + "index.html")}
               for r in records] if site_root(config) else []
    context = NotFoundContext(site={"name": config.site_name, "url": site_root(config)}, reports=reports,
                              version=site_gen.__version__)
    return env.get_template("404.html").render(as_context(context)).encode("utf-8")


def card_file(a: Analysis, config: Config) -> dict[str, bytes]:
    """A report's link-preview card, among its own files (only with `site_url`: a card is only ever
    shown through og:image, which needs an absolute URL)."""
    return {_report_base(a.report.id) + CARD: share_card(a, config)} if site_root(config) else {}


def extra_files(config: Config, records: list, names: Iterable[str]) -> dict[str, bytes]:
    """The publishing files of a site whose other files are named `names` (a file of docs_dir of the
    same name, such as the author's own 404.html, wins): 404.html and sitemap.xml."""
    names = set(names)
    out = {"404.html": not_found(config, records)}
    if site_root(config):
        out["sitemap.xml"] = sitemap(config, names | set(out))
    return {path: data for path, data in out.items() if path not in names}
