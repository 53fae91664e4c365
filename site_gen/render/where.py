"""Where things are: the theme's folders, a report's folder in the site, the link between two
site pages. Apart from render/pages.py (which imports pandas) so that the MkDocs plugin can place a
cached report without loading the pipeline."""
from __future__ import annotations

import posixpath
from functools import lru_cache
from importlib import resources
from pathlib import Path

import site_gen

REPORTS_DIR = "reports"


def theme_dir(name: str) -> Path:
    """`templates/` or `static/`: inside the installed package, or beside it in a source checkout."""
    packaged = Path(str(resources.files("site_gen"))) / name
    if packaged.is_dir():
        return packaged
    return Path(site_gen.__file__).resolve().parent.parent / name


@lru_cache(maxsize=1 << 16)  # posixpath.relpath asks the OS for the working folder: each page makes dozens of links
def rel(from_url: str, to_url: str) -> str:
    """Relative link between two site paths, so the site works from any sub-path and from file://."""
    target, _, anchor = to_url.partition("#")
    path = posixpath.relpath(target, posixpath.dirname(from_url) or ".")
    return path + (f"#{anchor}" if anchor else "")


def report_base(report_id: str) -> str:
    return f"{REPORTS_DIR}/{report_id}/"
