"""Where things are: the theme's folders, a report's folder in the site, the history page, the link
between two site pages. Apart from render/pages.py (which imports the templates' environment and
every section's declarations) so that the MkDocs plugin can place a cached report without loading
the pipeline."""
from __future__ import annotations

import importlib
import posixpath
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path


REPORTS_DIR = "reports"
HISTORY_URL = "history.html"


def template_dirs(custom_dir: str | Path | None = None) -> list[Path]:
    """Where a template is looked up, the first found winning: the author's custom_dir, the theme's
    templates, then each section's own (`site_gen/sections/<name>/templates/`)."""
    from site_gen.sections import all_sections

    sections = []
    for s in all_sections():
        module = sys.modules.get(s.package) or importlib.import_module(s.package)
        folder = Path(getattr(module, "__file__", "") or "").parent / "templates"
        if s.package and folder.is_dir() and folder not in sections:
            sections.append(folder)
    return ([Path(custom_dir)] if custom_dir else []) + [theme_dir("templates")] + sections


def theme_dir(name: str) -> Path:
    """The theme's `templates/` or `static/`, inside the package (installed or a checkout alike)."""
    return Path(str(resources.files("site_gen"))) / name


@lru_cache(maxsize=1 << 16)  # each page makes dozens of links, most of them the same as its neighbours'
def rel(from_url: str, to_url: str) -> str:
    """Relative link between two site paths, so the site works from any sub-path and from file://."""
    target, _, anchor = to_url.partition("#")
    return _relpath(target, posixpath.dirname(from_url)) + (f"#{anchor}" if anchor else "")


def _relpath(target: str, start: str) -> str:
    """posixpath.relpath(target, start or "."), by string alone for site paths: relpath makes both
    absolute, and asks the OS for the working folder twice a call (a third of a page's link time)."""
    if not target or target.startswith("/") or start.startswith("/") or ".." in target or ".." in start:
        return posixpath.relpath(target, start or ".")
    if start and target.startswith(start + "/"):
        # In the page's folder or below it (a report's pages and CSV files, from each of its pages):
        # what lies past the folder, as the general case below finds it.
        return "/".join(p for p in target[len(start) + 1:].split("/") if p and p != ".") or "."
    to = [p for p in target.split("/") if p and p != "."]
    at = [p for p in start.split("/") if p and p != "."]
    common = 0
    for a, b in zip(to, at):
        if a != b:
            break
        common += 1
    return "/".join([".."] * (len(at) - common) + to[common:]) or "."


def report_base(report_id: str) -> str:
    return f"{REPORTS_DIR}/{report_id}/"
