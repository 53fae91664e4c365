"""Reads `mkdocs.yml`: MkDocs' own keys plus the options of the `sitegen` plugin entry."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from site_gen.errors import SitegenError

# Every top-level key MkDocs 1.6 accepts: a config shared with `mkdocs build` must not be refused
# here for keys only MkDocs uses.
MKDOCS_KEYS = {
    "site_name", "site_url", "site_description", "site_author", "docs_dir", "site_dir", "repo_url",
    "repo_name", "edit_uri", "edit_uri_template", "copyright", "google_analytics", "dev_addr",
    "use_directory_urls", "nav", "theme", "extra_css", "extra_javascript", "extra_templates",
    "markdown_extensions", "mdx_configs", "strict", "remote_branch", "remote_name", "extra", "plugins",
    "hooks", "watch", "validation", "exclude_docs", "draft_docs", "not_in_nav", "INHERIT",
}

PLUGIN_DEFAULTS: dict[str, Any] = {
    "data_dir": "data",
    "noise_band": 0.08,
    "ratio_scale": [0.8, 1.8],
    "max_receipt_mb": 64,
    "custom_dir": None,
    "charts": "svg",
}
CHART_ENGINES = ("svg", "plotly")


class _Loader(yaml.SafeLoader):
    """SafeLoader that tolerates MkDocs' `!ENV` and Material's `!!python/name:` tags."""


def _env_tag(loader: _Loader, node: yaml.Node) -> Any:
    import os

    if isinstance(node, yaml.ScalarNode):
        names = [loader.construct_scalar(node)]
    else:
        names = loader.construct_sequence(node)
    *names, default = names if len(names) > 1 else (names + [None])
    for name in names:
        if name in os.environ:
            return yaml.safe_load(os.environ[name])
    return default


def _any_tag(loader: _Loader, suffix: str, node: yaml.Node) -> Any:
    return None


_Loader.add_constructor("!ENV", _env_tag)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _any_tag)
_Loader.add_multi_constructor("!", _any_tag)


@dataclass(frozen=True)
class Config:
    config_file: Path
    site_name: str
    site_dir: Path
    docs_dir: Path
    data_dir: Path
    site_url: str = ""
    site_description: str = ""
    copyright: str = ""
    repo_url: str = ""
    extra: dict = field(default_factory=dict)
    noise_band: float = 0.08
    ratio_scale: tuple[float, float] = (0.8, 1.8)
    max_receipt_bytes: int = 64 * 1024 * 1024
    custom_dir: Path | None = None
    charts: str = "svg"  # how interactive charts are drawn: "svg" (built in, light) or "plotly" (Plotly's bundle)
    dev_addr: str = "127.0.0.1:8000"
    remote_branch: str = "gh-pages"
    remote_name: str = "origin"
    markdown_extensions: tuple = ()

    @property
    def root(self) -> Path:
        return self.config_file.parent


def _suggest(key: str, known) -> str:
    close = difflib.get_close_matches(key, sorted(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _number(value: Any, where: str, file: Path, low: float | None = None, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SitegenError(f"expected a number, got {value!r}", file, where)
    if (low is not None and value < low) or (high is not None and value > high):
        raise SitegenError(f"expected a number between {low} and {high}, got {value!r}", file, where)
    return float(value)


def _plugin_options(raw: Any, file: Path) -> dict[str, Any]:
    """Finds the `sitegen` entry under `plugins:` (list or mapping form) and checks its options."""
    options: dict[str, Any] = dict(PLUGIN_DEFAULTS)
    entries: list[tuple[str, Any, str]] = []
    if raw is None:
        return options
    if isinstance(raw, dict):
        entries = [(name, opts, f"plugins.{name}") for name, opts in raw.items()]
    elif isinstance(raw, list):
        for i, item in enumerate(raw):
            if isinstance(item, str):
                entries.append((item, None, f"plugins[{i}]"))
            elif isinstance(item, dict) and len(item) == 1:
                (name, opts), = item.items()
                entries.append((name, opts, f"plugins[{i}].{name}"))
            else:
                raise SitegenError("expected a plugin name or a one-key mapping", file, f"plugins[{i}]")
    else:
        raise SitegenError("expected a list of plugins", file, "plugins")
    for name, opts, where in entries:
        if name != "sitegen":
            continue
        if opts is None:
            return options
        if not isinstance(opts, dict):
            raise SitegenError("expected a mapping of options", file, where)
        for key, value in opts.items():
            if key not in PLUGIN_DEFAULTS:
                raise SitegenError(
                    f"unknown sitegen option '{key}'{_suggest(key, PLUGIN_DEFAULTS)}; "
                    f"known: {', '.join(sorted(PLUGIN_DEFAULTS))}", file, f"{where}.{key}")
            options[key] = value
        band = _number(options["noise_band"], f"{where}.noise_band", file, 0.0, 1.0)
        scale = options["ratio_scale"]
        if not (isinstance(scale, list) and len(scale) == 2):
            raise SitegenError("expected [low, high], e.g. [0.8, 1.8]", file, f"{where}.ratio_scale")
        low = _number(scale[0], f"{where}.ratio_scale[0]", file, 0.0)
        high = _number(scale[1], f"{where}.ratio_scale[1]", file, 0.0)
        if not low < 1.0 < high:
            raise SitegenError(f"expected low < 1.0 < high, got [{low}, {high}]", file, f"{where}.ratio_scale")
        options["noise_band"], options["ratio_scale"] = band, (low, high)
        options["max_receipt_mb"] = _number(options["max_receipt_mb"], f"{where}.max_receipt_mb", file, 0.001)
        if options["data_dir"] is None or not isinstance(options["data_dir"], str):
            raise SitegenError("expected a folder path", file, f"{where}.data_dir")
        if options["charts"] not in CHART_ENGINES:
            raise SitegenError(f"expected one of {', '.join(CHART_ENGINES)}, got {options['charts']!r}", file, f"{where}.charts")
    return options


def _string(raw: dict, key: str, file: Path, default: str = "") -> str:
    value = raw.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise SitegenError(f"expected a string, got {type(value).__name__}", file, key)
    return value


def load_config(path: str | Path = "mkdocs.yml", site_dir: str | Path | None = None) -> Config:
    file = Path(path)
    if not file.is_file():
        raise SitegenError("config file not found (use -f to name another)", file)
    try:
        raw = yaml.load(file.read_text(encoding="utf-8"), Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else None
        raise SitegenError(f"not valid YAML: {getattr(exc, 'problem', exc)}", file, where) from None
    except UnicodeDecodeError:
        raise SitegenError("not UTF-8 text", file) from None
    if not isinstance(raw, dict):
        raise SitegenError("expected a mapping of settings", file)
    for key in raw:
        if key not in MKDOCS_KEYS:
            raise SitegenError(f"unknown setting '{key}'{_suggest(key, MKDOCS_KEYS)}", file, str(key))
    site_name = _string(raw, "site_name", file)
    if not site_name:
        raise SitegenError("required setting 'site_name' is missing", file, "site_name")
    extra = raw.get("extra") or {}
    if not isinstance(extra, dict):
        raise SitegenError("expected a mapping", file, "extra")
    options = _plugin_options(raw.get("plugins"), file)
    root = file.resolve().parent
    exts = raw.get("markdown_extensions") or []
    return Config(
        config_file=file.resolve(),
        site_name=site_name,
        site_url=_string(raw, "site_url", file),
        site_description=_string(raw, "site_description", file),
        copyright=_string(raw, "copyright", file),
        repo_url=_string(raw, "repo_url", file),
        site_dir=Path(site_dir).resolve() if site_dir else root / _string(raw, "site_dir", file, "site"),
        docs_dir=root / _string(raw, "docs_dir", file, "docs"),
        data_dir=root / options["data_dir"],
        extra=extra,
        noise_band=options["noise_band"],
        ratio_scale=tuple(options["ratio_scale"]),
        max_receipt_bytes=int(options["max_receipt_mb"] * 1024 * 1024),
        custom_dir=(root / options["custom_dir"]) if options["custom_dir"] else None,
        charts=options["charts"],
        dev_addr=_string(raw, "dev_addr", file, "127.0.0.1:8000"),
        remote_branch=_string(raw, "remote_branch", file, "gh-pages"),
        remote_name=_string(raw, "remote_name", file, "origin"),
        markdown_extensions=tuple(e if isinstance(e, str) else next(iter(e)) for e in exts),
    )
