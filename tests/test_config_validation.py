"""mkdocs.yml is checked like a receipt: every key sitegen reads has its type (and range) checked,
a refusal is one line naming the key's path, the YAML is loaded with depth and alias limits, and
the MkDocs plugin checks its options by the same table."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import ROOT
from site_gen import cli

SMALL = ROOT / "data" / "cuteafd-v3.0.1"
PLUGIN = "plugins:\n  - sitegen:\n      data_dir: data\n"


def project(root: Path, config: str) -> Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "docs").mkdir(exist_ok=True)
    if not (root / "data" / SMALL.name).exists():
        shutil.copytree(SMALL, root / "data" / SMALL.name)
    path = root / "mkdocs.yml"
    path.write_text(config, encoding="utf-8")
    return path


@contextmanager
def counted_calls() -> Iterator[list[int]]:
    """The function calls (Python's and C's) made meanwhile: the work, counted, not timed."""
    calls = [0]

    def count(frame, event, arg) -> None:
        if event in ("call", "c_call"):
            calls[0] += 1

    sys.setprofile(count)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def refused(root: Path, capsys, monkeypatch) -> str:
    """The one line `sitegen build` prints for the project's config (exit 1, nothing built)."""
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = cli.main(["build", "-q"])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1, err
    assert len(lines) == 1 and lines[0].startswith("Error: mkdocs.yml: "), err
    assert not (root / "site").exists()
    return lines[0]


BAD = {  # mkdocs.yml after `site_name: X` -> the error line after "Error: mkdocs.yml: "
    "integer key": ("5: x\n", "expected a name as key, got int 5"),
    "null key": ("~: x\n", "expected a name as key, got null"),
    "integer key in extra": ("extra:\n  a:\n    - {5: b}\n", "extra.a[0]: expected a name as key, got int 5"),
    "null key in theme": ("theme:\n  name: mkdocs\n  ~: 1\n", "theme: expected a name as key, got null"),
    "integer key in plugin options": ("plugins:\n  - sitegen:\n      5: 1\n",
                                      "plugins[0].sitegen: expected a name as key, got int 5"),
    "integer plugin name": ("plugins:\n  5: {}\n", "plugins: expected a name as key, got int 5"),
    "plugins not a list": ("plugins: 5\n", "plugins: expected a list of plugins, got int 5"),
    "plugin entry null": ("plugins: [~]\n", "plugins[0]: expected a plugin name or a one-key mapping, got null"),
    "float tag on a word": (PLUGIN + "      max_receipt_mb: !!float x\n",
                            "line 5: not valid YAML: tag:yaml.org,2002:float cannot take 'x'"),
    "int tag on a word": ("repo_url: !!int x\n", "line 2: not valid YAML: tag:yaml.org,2002:int cannot take 'x'"),
    "timestamp tag on no date": ("copyright: !!timestamp 2026-13-45\n", "line 2: not valid YAML: tag:yaml.org,2002:timestamp"),
    "lone surrogate": ('copyright: "\\ud800"\n', "line 2: not valid YAML: text holds the lone surrogate U+D800"),
    "lone surrogate in a key": ('extra:\n  "\\udfff": 1\n', "line 3: not valid YAML: text holds the lone surrogate U+DFFF"),
    "noise_band nan": (PLUGIN + "      noise_band: .nan\n",
                       "plugins[0].sitegen.noise_band: expected a finite number between 0.0 and 1.0, got nan"),
    "noise_band text": (PLUGIN + "      noise_band: small\n",
                        "plugins[0].sitegen.noise_band: expected a number between 0.0 and 1.0, got str 'small'"),
    "noise_band boolean": (PLUGIN + "      noise_band: true\n", "noise_band: expected a number between 0.0 and 1.0, got bool True"),
    "ratio_scale inf": (PLUGIN + "      ratio_scale: [0.5, .inf]\n",
                        "plugins[0].sitegen.ratio_scale[1]: expected a finite number between 0.0 and 1000000.0, got inf"),
    "ratio_scale nan": (PLUGIN + "      ratio_scale: [.nan, 2]\n", "ratio_scale[0]: expected a finite number"),
    "ratio_scale one value": (PLUGIN + "      ratio_scale: 1.5\n", "ratio_scale: expected [low, high], e.g. [0.8, 1.8], got float 1.5"),
    "max_receipt_mb inf": (PLUGIN + "      max_receipt_mb: .inf\n",
                           "plugins[0].sitegen.max_receipt_mb: expected a finite number between 0.001 and 1000000.0, got inf"),
    "max_receipt_mb -inf": (PLUGIN + "      max_receipt_mb: -.inf\n", "max_receipt_mb: expected a finite number"),
    "custom_dir integer": (PLUGIN + "      custom_dir: 5\n", "plugins[0].sitegen.custom_dir: expected a folder path, got int 5"),
    "data_dir null": (PLUGIN + "      data_dir: ~\n", "plugins[0].sitegen.data_dir: expected a folder path, got null"),
    "charts unknown": (PLUGIN + "      charts: canvas\n", "plugins[0].sitegen.charts: expected one of svg, plotly, got str 'canvas'"),
    "theme custom_dir integer": ("theme:\n  name: mkdocs\n  custom_dir: 5\n", "theme.custom_dir: expected a string, got int 5"),
    "theme a list": ("theme: [mkdocs]\n", "theme: expected a theme name or a mapping, got list ['mkdocs']"),
    "extension integer": ("markdown_extensions: [5]\n",
                          "markdown_extensions[0]: expected an extension name or a one-key mapping, got int 5"),
    "extension empty mapping": ("markdown_extensions: [{}]\n",
                                "markdown_extensions[0]: expected an extension name or a one-key mapping, got dict {}"),
    "extension null": ("markdown_extensions: [~]\n",
                       "markdown_extensions[0]: expected an extension name or a one-key mapping, got null"),
    "extension options a list": ("markdown_extensions:\n  - toc: [1]\n",
                                 "markdown_extensions[0].toc: expected a mapping of the extension's options, got list [1]"),
    "extensions a number": ("markdown_extensions: 5\n", "markdown_extensions: expected a list of extensions, got int 5"),
    "site_name integer": ("site_name: 5\n", "site_name: expected a string, got int 5"),
    "site_description list": ("site_description: [a]\n", "site_description: expected a string, got list ['a']"),
    "copyright mapping": ("copyright: {a: 1}\n", "copyright: expected a string, got dict {'a': 1}"),
    "docs_dir integer": ("docs_dir: 5\n", "docs_dir: expected a folder path, got int 5"),
    "site_dir empty": ("site_dir: ''\n", "site_dir: expected a folder path, got an empty string"),
    "dev_addr integer": ("dev_addr: 8000\n", "dev_addr: expected a string, got int 8000"),
    "remote_branch integer": ("remote_branch: 1\n", "remote_branch: expected a string, got int 1"),
    "remote_name list": ("remote_name: [origin]\n", "remote_name: expected a string, got list ['origin']"),
    "extra a list": ("extra: [1]\n", "extra: expected a mapping, got list [1]"),
    "extra containing itself": ("extra: &a\n  b: *a\n", "extra, line 3: expected an alias outside its anchor, got *a inside it"),
    "not a mapping": ("- a\n", "expected a mapping of settings, got list"),
}
URLS = ["javascript:alert(1)", "JavaScript:alert(1)", "javascript://x/%0aalert(1)", "data:text/html,<script>1</script>",
        "vbscript:msgbox(1)", "file:///etc/passwd", "//evil.invalid/", " https://x.invalid/", "https://", "x.invalid",
        "https://x.invalid/\u2028"]


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_config_is_one_line_naming_the_key(case, tmp_path, capsys, monkeypatch):
    body, message = BAD[case]
    head = "" if body.startswith(("site_name", "- ")) else "site_name: X\n"
    project(tmp_path, head + body)
    line = refused(tmp_path, capsys, monkeypatch)
    assert message in line, line


def test_a_folder_name_too_long_for_the_system_is_refused(tmp_path, capsys, monkeypatch):
    """The operating system's word (ENAMETOOLONG) on a path the config names is bad input, not a bug."""
    project(tmp_path, "site_name: X\n" + PLUGIN.replace("data_dir: data", "data_dir: " + "a" * 301))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["build", "-q"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("Error:") == 1 and "File name too long" in err and "internal error" not in err, err


@pytest.mark.parametrize("key", ["site_url", "repo_url"])
@pytest.mark.parametrize("url", URLS)
def test_urls_other_than_http_are_refused(key, url, tmp_path, capsys, monkeypatch):
    project(tmp_path, f"site_name: X\n{key}: {json.dumps(url)}\n")
    line = refused(tmp_path, capsys, monkeypatch)
    assert f"mkdocs.yml: {key}: expected an http:// or https:// URL, got {url!r}" in line, line


def test_http_urls_and_every_form_mkdocs_takes_still_load(tmp_path, monkeypatch):
    from site_gen.core.config import load_config

    monkeypatch.setenv("SITEGEN_TEST_NAME", "From the environment")
    path = project(tmp_path, "site_name: !ENV [SITEGEN_TEST_NAME, fallback]\nsite_url: HTTPS://example.org/sub/\n"
                             "repo_url: http://example.org/repo\nsite_dir: ~\ntheme:\n  name: material\n  features: [a]\n"
                             "  palette:\n    - scheme: slate\nmarkdown_extensions:\n  - toc:\n      permalink: true\n  - admonition\n"
                             "  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
                             "extra:\n  social: &s [{icon: x, link: 'https://x.org'}]\n  again: *s\n" + PLUGIN +
                             "      noise_band: 0\n      ratio_scale: [0.5, 2]\n")
    config = load_config(path)
    assert (config.site_name, config.site_url, config.repo_url) == (
        "From the environment", "HTTPS://example.org/sub/", "http://example.org/repo")
    assert config.site_dir == tmp_path / "site" and config.noise_band == 0.0 and config.ratio_scale == (0.5, 2.0)
    assert config.markdown_extensions == ("toc", "admonition", "pymdownx.emoji")
    assert config.extra["again"] == config.extra["social"]
    project(tmp_path, "site_name: X\nsite_url: ''\nmarkdown_extensions: {toc: {permalink: true}, tables: ~}\n")
    assert load_config(path).markdown_extensions == ("toc", "tables")


DEEP = {
    "flow": "extra:\n  a: " + "[" * 50_000 + "]" * 50_000 + "\n",
    "flow mappings": "extra:\n  a: " + "{a: " * 50_000 + "}" * 50_000 + "\n",
    "block": "extra:\n  a:\n    " + "- " * 50_000 + "x\n",
}


@pytest.mark.parametrize("case", sorted(DEEP))
def test_50000_deep_extra_is_refused_at_once(case, tmp_path, capsys, monkeypatch):
    project(tmp_path, "site_name: X\n" + DEEP[case])
    with counted_calls() as calls:
        line = refused(tmp_path, capsys, monkeypatch)
    assert calls[0] < 200_000, calls  # refused at the limit; the unbounded loader made billions (minutes)
    line_no = 4 if case == "block" else 3
    assert f"mkdocs.yml: extra, line {line_no}: expected at most 50 levels of nesting, got more" in line, line


def test_nesting_under_the_limit_loads(tmp_path):
    from site_gen.core.config import load_config

    path = project(tmp_path, "site_name: X\nextra:\n  a: " + "[" * 45 + "]" * 45 + "\n")
    value = load_config(path).extra["a"]
    for _ in range(44):
        value = value[0]
    assert value == []


def test_billion_laughs_is_refused_at_once(tmp_path, capsys, monkeypatch):
    lines = ["site_name: X", "extra:", '  l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
    project(tmp_path, "\n".join(lines) + "\n")
    with counted_calls() as calls:
        line = refused(tmp_path, capsys, monkeypatch)
    assert calls[0] < 200_000, calls  # refused at the limit; the unbounded loader made billions (minutes)
    assert "mkdocs.yml: extra, line 8: expected at most 100,000 values with aliases expanded, got more" in line, line


def test_404_links_only_to_the_http_site(tmp_path, monkeypatch):
    """The 404 page links the reports through site_url: an https one; a javascript: one never builds."""
    from html5lib import parse

    project(tmp_path, "site_name: X\nsite_url: https://example.org/bench/\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["build", "-q"]) == 0
    doc = parse((tmp_path / "site" / "404.html").read_text(encoding="utf-8"), namespaceHTMLElements=False)
    hrefs = [a.get("href") for a in doc.iter("a")]
    assert hrefs and all(h.startswith("https://example.org/bench/") for h in hrefs), hrefs


# -- the MkDocs plugin ----------------------------------------------------------------------------

def test_plugin_config_scheme_is_the_option_table():
    from site_gen.core.config import PLUGIN_OPTIONS
    from site_gen.mkdocs_plugin import SitegenPlugin

    plugin = SitegenPlugin()
    errors, warnings = plugin.load_config({})
    assert errors == [] and warnings == []
    assert dict(plugin.config) == {name: option.check(option.default, name, None) for name, option in PLUGIN_OPTIONS.items()}


@pytest.mark.parametrize("case", sorted(k for k in BAD if "sitegen." in BAD[k][1]))
def test_plugin_refuses_bad_options_in_sitegen_words(case):
    from site_gen.mkdocs_plugin import SitegenPlugin

    import yaml

    body, message = BAD[case]
    options = yaml.safe_load(body)["plugins"][0]["sitegen"]
    errors, _ = SitegenPlugin().load_config(options)
    key, words = message.split(".sitegen.")[1].split(": ", 1)
    option = key.split("[")[0]
    assert [name for name, _ in errors] == [option]
    assert str(errors[0][1]) == (words if key == option else f"{key}: {words}")


def mkdocs_config(root: Path, monkeypatch):
    from mkdocs.config import load_config

    monkeypatch.chdir(root)  # messages name files relative to the working folder
    return load_config(config_file=str(root / "mkdocs.yml"))


@pytest.mark.parametrize("key, url", [("site_url", "javascript://x.invalid/%0aalert(1)"), ("repo_url", "data://x/y")])
def test_plugin_refuses_urls_mkdocs_takes(key, url, tmp_path, monkeypatch):
    from mkdocs.exceptions import PluginError

    project(tmp_path, f"site_name: X\n{key}: '{url}'\n{PLUGIN}")
    config = mkdocs_config(tmp_path, monkeypatch)  # MkDocs takes any scheme with a host
    with pytest.raises(PluginError, match=f"sitegen: mkdocs.yml: {key}: expected an http:// or https:// URL"):
        config.plugins.on_config(config)


def test_plugin_refuses_non_text_keys_in_extra(tmp_path, monkeypatch):
    from mkdocs.exceptions import PluginError

    project(tmp_path, f"site_name: X\nextra:\n  a: {{5: 1}}\n{PLUGIN}")
    config = mkdocs_config(tmp_path, monkeypatch)
    with pytest.raises(PluginError, match="sitegen: mkdocs.yml: extra.a: expected a name as key, got int 5"):
        config.plugins.on_config(config)


def test_mkdocs_build_prints_one_line_for_a_bad_option(tmp_path):
    project(tmp_path, "site_name: X\n" + PLUGIN + "      max_receipt_mb: .inf\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q"], cwd=tmp_path, capture_output=True, text=True,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, result.stderr
    assert ("Plugin 'sitegen' option 'max_receipt_mb': expected a finite number between 0.001 and 1000000.0, got inf"
            in errors[0]), errors[0]


def test_the_guide_shows_every_option_with_its_help():
    from site_gen.core.config import PLUGIN_OPTIONS

    guide = (ROOT / "docs" / "guide" / "configuration.md").read_text(encoding="utf-8")
    example = guide[guide.index("## An example"):guide.index("## The site's settings")]
    lines = {line.split(":")[0].strip(): line for line in example.splitlines() if line.startswith("      ")}
    for name, option in PLUGIN_OPTIONS.items():
        assert name in lines and option.help in lines[name], name


def test_key_check_survives_what_mkdocs_loader_builds():
    """Under `mkdocs build`, `extra` comes from MkDocs' loader, which has no limits."""
    from site_gen.core.config import check_keys
    from site_gen.core.errors import SitegenError

    laughs: list = ["lol"] * 9
    for _ in range(9):
        laughs = [laughs] * 9  # 9^10 values when walked naively
    looped: dict = {"a": []}
    looped["a"].append(looped)
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    with counted_calls() as calls:
        for value in (laughs, looped, deep):
            check_keys({"x": value}, "extra", None)
    assert calls[0] < 2_000_000, calls  # each value once; a naive walk makes 9^10 calls
    looped["a"].append({7: 1})
    with pytest.raises(SitegenError, match=r"extra\.x\.a\[1\]: expected a name as key, got int 7"):
        check_keys({"x": looped}, "extra", None)
