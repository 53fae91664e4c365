"""The theme's stylesheet and scripts as site files, each named by a hash of its bytes."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources

from site_gen.core.config import Config
from site_gen.render.where import theme_dir


@lru_cache(maxsize=1)
def plotly_js() -> bytes:
    """Plotly's full bundle as the plotly package ships it (used only with `charts: plotly`)."""
    return resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()


def asset_name(name: str, data: bytes) -> str:
    """`sitegen.css` -> `assets/sitegen.<hash>.css`: a changed file gets a new URL, so no cache serves it stale."""
    stem, _, ext = name.rpartition(".")
    return f"assets/{stem}.{hashlib.sha256(data).hexdigest()[:10]}.{ext}"


def theme_assets(config: Config) -> dict[str, tuple[str, bytes]]:
    """Stylesheet and script of the theme (a user's custom_dir may override either)."""
    out = {}
    chart_script = ("plotly_charts", "plotly-charts.js") if config.charts == "plotly" else ("js", "sitegen.js")
    names = [("css", "sitegen.css"), chart_script, ("dashboard", "dashboard.js"), ("page", "page.js")]
    for key, name in names:
        path = theme_dir("static") / name
        if config.custom_dir and (config.custom_dir / name).is_file():
            path = config.custom_dir / name
        data = path.read_bytes()
        out[key] = (asset_name(name, data), data)
    if config.charts == "plotly":
        # Plotly's own bundle from the plotly package, served from the site (never a CDN).
        import plotly

        out["plotly"] = (f"assets/plotly-{plotly.__version__}.min.js", plotly_js())
    return out
