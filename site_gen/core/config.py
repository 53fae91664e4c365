"""Reads `mkdocs.yml`: MkDocs' own keys plus the options of the `sitegen` plugin entry.

Checked like a receipt: every key sitegen reads has its type checked (and its range, for numbers),
a refusal names the key's path (`plugins[0].sitegen.noise_band`), and the YAML is loaded safely,
with limits on nesting and on what aliases expand to.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError, suggest
from site_gen.core.files import check_custom_dir
from site_gen.core.nav import NavEntry, nav_entries
from site_gen.core.values import described, check_key, check_number, check_text, check_keys, check_url
from site_gen.core.yaml_safe import load_yaml as _load_yaml

# Every top-level key MkDocs 1.6 accepts: a config shared with `mkdocs build` must not be refused
# here for keys only MkDocs uses.
MKDOCS_KEYS = {
    "site_name", "site_url", "site_description", "site_author", "docs_dir", "site_dir", "repo_url",
    "repo_name", "edit_uri", "edit_uri_template", "copyright", "google_analytics", "dev_addr",
    "use_directory_urls", "nav", "theme", "extra_css", "extra_javascript", "extra_templates",
    "markdown_extensions", "mdx_configs", "strict", "remote_branch", "remote_name", "extra", "plugins",
    "hooks", "watch", "validation", "exclude_docs", "draft_docs", "not_in_nav", "INHERIT",
}

# The keys of mkdocs.yml itself that sitegen reads: each one's default (None: required, or none) and
# what it does. load_config takes the defaults from here; the guide's configuration reference is
# generated from it (tools/reference.py).
SITE_SETTINGS: dict[str, tuple[Any, str]] = {
    "site_name": (None, "required: the site's name, in the top bar and every page's title"),
    "site_description": ("", "what search engines and link previews show of a page that has no description of its own"),
    "site_url": ("", "the published address (http:// or https://): canonical links, sitemap.xml, link-preview cards"),
    "copyright": ("", "a line in every page's footer"),
    "docs_dir": ("docs", "the folder of markdown pages (and files copied as they are)"),
    "site_dir": ("site", "the folder the site is written to (`sitegen build -d` names another)"),
    "nav": (None, "the order, titles and sections of the site's own navigation (else every docs page in file order)"),
    "markdown_extensions": (None, "Python-Markdown extensions for the docs pages, besides sitegen's own"),
    "extra": (None, "free-form values a template of `custom_dir` may read (as `site.extra`)"),
    "dev_addr": ("127.0.0.1:8000", "where `sitegen serve` listens (`-a` names another)"),
    "remote_name": ("origin", "the git remote `sitegen gh-deploy` pushes to"),
    "remote_branch": ("gh-pages", "the branch `sitegen gh-deploy` commits the site to"),
    "plugins": (None, "the `sitegen` entry holds sitegen's options (below)"),
}


@dataclass(frozen=True)
class Option:
    """One option of the `sitegen` plugin entry: what it holds, its default and what it means.

    kind: "folder" (a path relative to mkdocs.yml), "number" (finite, within [low, high]),
    "scale" ([low, high] around 1, each a number within [low, high]), "choice" (one of `choices`),
    "window" (null, or [low, high] whole numbers with low <= high, each within [low, high]),
    "objectives" (null, or a mapping `METRIC_pNN_ms: limit`, see `objectives`).
    """
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def check(self, value: Any, where: str, file: Path | None) -> Any:
        """The value as sitegen uses it, or a SitegenError saying what was expected."""
        if self.kind == "folder":
            return None if value is None and self.default is None else check_text(value, where, file, "a folder path")
        if self.kind == "number":
            return check_number(value, where, file, self.low, self.high)
        if self.kind == "choice":
            if value not in self.choices:
                raise SitegenError(f"expected one of {', '.join(self.choices)}, got {described(value)}", file, where)
            return value
        if self.kind == "window":
            return None if value is None else self._window(value, where, file)
        if self.kind == "objectives":
            return objectives(value, where, file, self.high)
        if not (isinstance(value, (list, tuple)) and len(value) == 2):
            raise SitegenError(f"expected [low, high], e.g. {list(self.default)}, got {described(value)}", file, where)
        low, high = (check_number(v, f"{where}[{i}]", file, self.low, self.high) for i, v in enumerate(value))
        if not low < 1.0 < high:
            raise SitegenError(f"expected low < 1.0 < high, got [{low}, {high}]", file, where)
        return (low, high)

    def _window(self, value: Any, where: str, file: Path | None) -> tuple[int, int]:
        if not (isinstance(value, (list, tuple)) and len(value) == 2):
            raise SitegenError(f"expected null or [low, high], e.g. [1024, 4096], got {described(value)}", file, where)
        assert self.low is not None and self.high is not None  # a window option has its bounds
        for i, v in enumerate(value):
            if isinstance(v, bool) or not isinstance(v, int) or not self.low <= v <= self.high:
                raise SitegenError(f"expected a whole number between {self.low:g} and {self.high:g}, got {described(v)}",
                                   file, f"{where}[{i}]")
        if value[0] > value[1]:
            raise SitegenError(f"expected low <= high, got [{value[0]}, {value[1]}]", file, where)
        return (value[0], value[1])


# Service-level objectives, as users state them: `ttft_p99_ms: 500` is "the 99th percentile of time
# to first token at most 500 ms". The metrics and percentiles are those the serving pages compute.
SLO_METRICS = ("ttft", "tpot", "itl", "e2e")
SLO_PERCENTILES = (50, 90, 95, 99)
_SLO_KEYS = {f"{m}_p{p}_ms": (m, p) for m in SLO_METRICS for p in SLO_PERCENTILES}


def objectives(value: Any, where: str, file: Path | None, high: float | None = None) -> tuple[tuple[str, int, float], ...]:
    """`slo:` as (metric, percentile, limit in ms) in the pages' order (metric, then percentile);
    () for none."""
    if value is None or value == {}:
        return ()
    if not isinstance(value, dict):
        raise SitegenError(f"expected a mapping such as {{ttft_p99_ms: 500, tpot_p50_ms: 50}}, got {described(value)}", file, where)
    out = []
    for key, limit in value.items():
        name = check_key(key, where, file)
        if name not in _SLO_KEYS:
            raise SitegenError(f"unknown objective '{name}'{suggest(name, _SLO_KEYS)}; expected METRIC_pNN_ms with METRIC "
                               f"one of {', '.join(SLO_METRICS)} and NN one of {', '.join(map(str, SLO_PERCENTILES))}",
                               file, f"{where}.{name}")
        metric, percentile = _SLO_KEYS[name]
        ms = check_number(limit, f"{where}.{name}", file, 0.0, high)
        if ms <= 0:
            raise SitegenError(f"expected a limit above 0 ms, got {limit!r}", file, f"{where}.{name}")
        out.append((metric, percentile, ms))
    return tuple(sorted(out, key=lambda o: (SLO_METRICS.index(o[0]), o[1])))


CHART_ENGINES = ("svg", "plotly")
# The one table of the plugin's options: `sitegen` reads them from mkdocs.yml with it, the MkDocs
# plugin's config_scheme is made from it (both check a value with `Option.check`), and the guide's
# configuration reference is generated from it (tools/reference.py).
PLUGIN_OPTIONS: dict[str, Option] = {
    "data_dir": Option("folder", "data", "one folder per report, each with SUMMARY.json"),
    "noise_band": Option("number", 0.08, "|ratio - 1| <= band counts as level", 0.0, 1.0),
    "ratio_scale": Option("scale", (0.8, 1.8), "fixed scale of every speed ratio bar", 0.0, 1e6),
    "max_receipt_mb": Option("number", 64, "receipts above this are refused before parsing", 0.001, 1e6),
    "custom_dir": Option("folder", None, "templates and static files that override sitegen's"),
    "charts": Option("choice", "svg", "interactive speed charts: svg or plotly", choices=CHART_ENGINES),
    "headline_input": Option("window", None, "input tokens [low, high] of the aggregate headline range; none: every input",
                             1, 2**53),
    "slo": Option("objectives", None, "serving objectives, e.g. {ttft_p99_ms: 500, tpot_p50_ms: 50}; none: no objectives",
                  high=1e9),
}
NOISE_BAND: float = PLUGIN_OPTIONS["noise_band"].default
RATIO_SCALE: tuple[float, float] = PLUGIN_OPTIONS["ratio_scale"].default


def receipt_bytes(mb: float) -> int:
    """`max_receipt_mb` in bytes."""
    return int(mb * 1024 * 1024)


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
    noise_band: float = NOISE_BAND
    ratio_scale: tuple[float, float] = RATIO_SCALE
    max_receipt_bytes: int = receipt_bytes(PLUGIN_OPTIONS["max_receipt_mb"].default)
    custom_dir: Path | None = None
    headline_input: tuple[int, int] | None = None  # input-token window of the aggregate headline range
    charts: str = "svg"  # how interactive charts are drawn: "svg" (built in, light) or "plotly" (Plotly's bundle)
    slo: tuple = ()  # serving objectives: (metric, percentile, limit ms), `objectives`
    dev_addr: str = "127.0.0.1:8000"
    remote_branch: str = "gh-pages"
    remote_name: str = "origin"
    markdown_extensions: tuple = ()
    nav: tuple[NavEntry, ...] = ()  # `nav:` of mkdocs.yml; () for every docs page in file order

    @property
    def root(self) -> Path:
        return self.config_file.parent


def plugin_options(opts: Any, where: str, file: Path | None) -> dict[str, Any]:
    """The options of one `sitegen` plugin entry, checked, with defaults for the rest."""
    if opts is None:
        opts = {}
    if not isinstance(opts, dict):
        raise SitegenError(f"expected a mapping of options, got {described(opts)}", file, where)
    for key in opts:
        name = check_key(key, where, file)
        if name not in PLUGIN_OPTIONS:
            raise SitegenError(
                f"unknown sitegen option '{name}'{suggest(name, PLUGIN_OPTIONS)}; "
                f"known: {', '.join(sorted(PLUGIN_OPTIONS))}", file, f"{where}.{name}")
    return {name: option.check(opts.get(name, option.default), f"{where}.{name}", file)
            for name, option in PLUGIN_OPTIONS.items()}


def _plugin_entries(raw: Any, file: Path) -> list[tuple[str, Any, str]]:
    """(name, options, key path) of each entry under `plugins:`, list or mapping form."""
    if raw is None:
        return []
    if isinstance(raw, dict):
        return [(check_key(name, "plugins", file), opts, f"plugins.{name}") for name, opts in raw.items()]
    if not isinstance(raw, list):
        raise SitegenError(f"expected a list of plugins, got {described(raw)}", file, "plugins")
    entries = []
    for i, item in enumerate(raw):
        if isinstance(item, str) and item:
            entries.append((item, None, f"plugins[{i}]"))
        elif isinstance(item, dict) and len(item) == 1:
            (name, opts), = item.items()
            entries.append((check_key(name, f"plugins[{i}]", file), opts, f"plugins[{i}].{name}"))
        else:
            raise SitegenError(f"expected a plugin name or a one-key mapping, got {described(item)}", file, f"plugins[{i}]")
    return entries


def _custom_dir_key(raw: Any, file: Path) -> str:
    return next((f"{where}.custom_dir" for name, _, where in _plugin_entries(raw, file) if name == "sitegen"), "custom_dir")


def _sitegen_options(raw: Any, file: Path) -> dict[str, Any]:
    for name, opts, where in _plugin_entries(raw, file):
        if name == "sitegen":
            return plugin_options(opts, where, file)
    return plugin_options(None, "plugins", file)


def _string(raw: dict, key: str, file: Path, default: str = "") -> str:
    value = raw.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise SitegenError(f"expected a string, got {described(value)}", file, key)
    return value


def _folder(raw: dict, key: str, file: Path, default: str) -> str:
    value = raw.get(key)
    return default if value is None else check_text(value, key, file, "a folder path")


def _extensions(raw: Any, file: Path) -> tuple[str, ...]:
    """Names of `markdown_extensions`: a list of names or one-key mappings (name: its options), or
    a mapping of name to options, as MkDocs takes them."""
    if raw is None:
        return ()
    if isinstance(raw, dict):
        raw = [{name: opts} for name, opts in raw.items()]
    if not isinstance(raw, list):
        raise SitegenError(f"expected a list of extensions, got {described(raw)}", file, "markdown_extensions")
    names = []
    for i, item in enumerate(raw):
        where = f"markdown_extensions[{i}]"
        if isinstance(item, dict) and len(item) == 1:
            (name, opts), = item.items()
            name = check_text(check_key(name, where, file), where, file, "an extension name")
            if opts is not None and not isinstance(opts, dict):
                raise SitegenError(f"expected a mapping of the extension's options, got {described(opts)}", file,
                                   f"{where}.{name}")
            check_keys(opts, f"{where}.{name}", file)
        else:
            name = check_text(item, where, file, "an extension name or a one-key mapping")
        names.append(name)
    return tuple(names)


def _theme(raw: Any, file: Path) -> None:
    """`theme:` is MkDocs' (a name, or a mapping); sitegen only needs its parts to be what MkDocs
    expects, so one config builds or is refused alike both ways."""
    if raw is None or isinstance(raw, str):
        return
    if not isinstance(raw, dict):
        raise SitegenError(f"expected a theme name or a mapping, got {described(raw)}", file, "theme")
    check_keys(raw, "theme", file)
    for key in ("name", "custom_dir", "locale"):
        if raw.get(key) is not None:
            check_text(raw[key], f"theme.{key}", file)


def load_config(path: str | Path = "mkdocs.yml", site_dir: str | Path | None = None) -> Config:
    file = Path(path)
    if not file.is_file():
        raise SitegenError("config file not found (use -f to name another)", file)
    raw = _load_yaml(file)
    if not isinstance(raw, dict):
        raise SitegenError(f"expected a mapping of settings, got {described(raw)}", file)
    for key in raw:
        if check_key(key, "", file) not in MKDOCS_KEYS:
            raise SitegenError(f"unknown setting '{key}'{suggest(key, MKDOCS_KEYS)}", file, key)
    site_name = _string(raw, "site_name", file)
    if not site_name:
        raise SitegenError("required setting 'site_name' is missing", file, "site_name")
    extra = raw.get("extra")
    if extra is None:
        extra = {}
    if not isinstance(extra, dict):
        raise SitegenError(f"expected a mapping, got {described(extra)}", file, "extra")
    check_keys(extra, "extra", file)
    _theme(raw.get("theme"), file)
    options = _sitegen_options(raw.get("plugins"), file)
    root = file.resolve().parent
    if options["custom_dir"]:
        check_custom_dir(root / options["custom_dir"], file, _custom_dir_key(raw.get("plugins"), file))
    return Config(
        config_file=file.resolve(),
        site_name=site_name,
        site_url=check_url(raw.get("site_url"), "site_url", file),
        site_description=_string(raw, "site_description", file),
        copyright=_string(raw, "copyright", file),
        repo_url=check_url(raw.get("repo_url"), "repo_url", file),
        site_dir=Path(site_dir).resolve() if site_dir else root / _folder(raw, "site_dir", file, SITE_SETTINGS["site_dir"][0]),
        docs_dir=root / _folder(raw, "docs_dir", file, SITE_SETTINGS["docs_dir"][0]),
        data_dir=root / options["data_dir"],
        extra=extra,
        noise_band=options["noise_band"],
        ratio_scale=options["ratio_scale"],
        max_receipt_bytes=receipt_bytes(options["max_receipt_mb"]),
        custom_dir=(root / options["custom_dir"]) if options["custom_dir"] else None,
        charts=options["charts"],
        headline_input=options["headline_input"],
        slo=options["slo"],
        dev_addr=_string(raw, "dev_addr", file, SITE_SETTINGS["dev_addr"][0]),
        remote_branch=_string(raw, "remote_branch", file, SITE_SETTINGS["remote_branch"][0]),
        remote_name=_string(raw, "remote_name", file, SITE_SETTINGS["remote_name"][0]),
        markdown_extensions=_extensions(raw.get("markdown_extensions"), file),
        nav=nav_entries(raw.get("nav"), "nav", file),
    )
