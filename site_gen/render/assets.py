"""The theme's stylesheet and scripts as site files, each named by a hash of its bytes."""
from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from site_gen.core.config import Config
from site_gen.core.files import MAX_CUSTOM_FILE_BYTES, read_limited
from site_gen.render.where import theme_dir


@lru_cache(maxsize=1)
def plotly_js() -> bytes:
    """Plotly's full bundle as the plotly package ships it (used only with `charts: plotly`)."""
    return resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()


def asset_name(name: str, data: bytes) -> str:
    """`sitegen.css` -> `assets/sitegen.<hash>.css`: a changed file gets a new URL, so no cache serves it stale."""
    stem, _, ext = name.rpartition(".")
    return f"assets/{stem}.{hashlib.sha256(data).hexdigest()[:10]}.{ext}"


_CSS_COMMENT = re.compile(rb"/\*.*?\*/", re.S)
_CSS_BRACES = re.compile(rb"[ \t]*([{};])[ \t]*")  # spaces around a brace or a semicolon say nothing
# A declaration's space after its property's colon (`color: red`) says nothing either; a selector's
# colon is never followed by a space, and a space before one (`a :hover`) is kept.
_CSS_PROPERTY = re.compile(rb"(?m)((?:^|[{;])[ \t]*-{0,2}[a-zA-Z][-a-zA-Z0-9]*):[ \t]+")


def compact(name: str, data: bytes) -> bytes:
    """A stylesheet or script as served: its comments and indentation left out (they are for the
    reader of the source; every page loads these bytes, and a page's weight goal counts them).
    Line by line, never inside a line: a rule or a statement stays as written."""
    if name.endswith(".css"):
        data = _CSS_PROPERTY.sub(rb"\1:", _CSS_BRACES.sub(rb"\1", _CSS_COMMENT.sub(b"", data)))
    elif not name.endswith(".js"):
        return data
    lines = (line.strip() for line in data.split(b"\n"))
    return b"\n".join(line for line in lines if line and not (name.endswith(".js") and line.startswith(b"//"))) + b"\n"


_assets: dict[tuple, tuple[str, bytes]] = {}  # by path and status: read, compacted and named once


def _asset(path: Path, name: str, own: bool) -> tuple[str, bytes]:
    """(its name in the site, its bytes): sitegen's own files compacted, a user's served as written."""
    st = os.stat(path)
    key = (str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, own)
    if key not in _assets:
        data = read_limited(path, MAX_CUSTOM_FILE_BYTES, "static file", "custom_dir's files are read whole")
        if own:
            data = compact(name, data)
        _assets[key] = (asset_name(name, data), data)
    return _assets[key]


def theme_assets(config: Config) -> dict[str, tuple[str, bytes]]:
    """Stylesheet and script of the theme (a user's custom_dir may override either)."""
    out = {}
    chart_script = ("plotly_charts", "plotly-charts.js") if config.charts == "plotly" else ("js", "sitegen.js")
    names = [("css", "sitegen.css"), chart_script, ("dashboard", "dashboard.js"), ("page", "page.js")]
    for key, name in names:
        path = theme_dir("static") / name
        if config.custom_dir and (config.custom_dir / name).is_file():
            path = config.custom_dir / name
        out[key] = _asset(path, name, path.parent == theme_dir("static"))
    if config.charts == "plotly":
        # Plotly's own bundle from the plotly package, served from the site (never a CDN).
        import plotly

        out["plotly"] = (f"assets/plotly-{plotly.__version__}.min.js", plotly_js())
    return out
