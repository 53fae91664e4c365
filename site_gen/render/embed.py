"""sitegen's content inside another theme (an MkDocs theme): its stylesheet scoped to its own
blocks, its HTML as the host's search index reads it, its headings as the host's table of contents.
Text in, text out: the MkDocs plugin (site_gen/mkdocs_plugin.py) places what these make."""
from __future__ import annotations

import re
from html import escape, unescape
from typing import Any

from site_gen.core.config import Config
from site_gen.core.files import MAX_CUSTOM_FILE_BYTES, read_limited
from site_gen.render.where import theme_dir

EMBED_CSS = "sitegen-embed.css"
MATERIAL_CSS = "sitegen-material.css"  # added to it when Material for MkDocs is the theme
# Variables that follow the host theme where it has them (Material), else sitegen's light values.
_HOST_VARS = {"--bg": "--md-default-bg-color", "--fg": "--md-default-fg-color", "--muted": "--md-default-fg-color--light",
              "--line": "--md-default-fg-color--lightest", "--soft": "--md-code-bg-color",
              "--accent": "--md-typeset-a-color", "--font": "--md-text-font-family", "--mono": "--md-code-font-family"}
# Rules of the stand-alone theme that style the page around the content: left to the host theme.
_CHROME = re.compile(r"^(\*|html|body|a|code|h1|h2|h2 a|h2 a:hover|:target|:focus-visible)$|"
                     r"^(\.skip|\.topbar|\.brand|\.crumb[\w-]*|\.layout|\.sidenav|\.sitenav|\.content|\.page-site|"
                     r"\.footer|\.doc)(?![\w-])")
_SCOPES = (".sitegen-block", ".sitegen-inline")  # blocks, and figures inside the author's sentences
# The tooltip of "where a number comes from" (page.js) lives at the end of <body>, outside every
# block: its rules stay unscoped, and it carries the colour variables the blocks do.
_UNSCOPED = ".sitegen-tip"
_ROOT = ", ".join((*_SCOPES, _UNSCOPED))
# A class page.js puts on <html>: a rule under it is scoped inside it.
_ROOT_CLASS = ".js-tips "
_DARK = ('[data-md-color-scheme="slate"]', '[data-bs-theme="dark"]')


_BRACE = re.compile(r"[{}]")


def _blocks(css: str) -> list[tuple[str, str]]:
    """Top-level `prelude { body }` pairs of a stylesheet (comments removed)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out, i, depth, start = [], 0, 0, 0
    for m in _BRACE.finditer(css):
        if m[0] == "{":
            depth += 1
            if depth == 1:
                start = m.start()
        elif depth:
            depth -= 1
            if not depth:
                out.append((css[i:start].strip(), css[start + 1:m.start()]))
                i = m.end()
    if depth:  # an unclosed block runs to the end (its last character aside, as before)
        out.append((css[i:start].strip(), css[start + 1:len(css) - 1]))
    return out


def _declarations(body: str) -> dict[str, str]:
    out = {}
    for part in body.split(";"):
        name, sep, value = part.partition(":")
        if sep and name.strip():
            out[name.strip()] = value.strip()
    return out


def _scope_rules(css: str) -> list[str]:
    out = []
    for prelude, body in _blocks(css):
        if prelude.startswith("@media"):
            if "prefers-color-scheme" in prelude:
                continue  # the host theme decides light or dark: see the variables
            inner = _scope_rules(body)
            if inner:
                out.append(prelude + " {\n" + "\n".join("  " + r for r in inner) + "\n}")
            continue
        if prelude.startswith("@"):
            continue
        selectors = [s.strip() for s in prelude.split(",")]
        kept = [_scoped(s, scope) for s in selectors if s and not s.startswith(":root") and not _CHROME.match(s)
                for scope in (("",) if s.startswith(_UNSCOPED) else _SCOPES)]
        kept = list(dict.fromkeys(kept))
        if kept:
            out.append(", ".join(kept) + " { " + body.strip() + " }")
    return out


def _scoped(selector: str, scope: str) -> str:
    if not scope:
        return selector
    if selector.startswith(_ROOT_CLASS):
        return f"{_ROOT_CLASS}{scope} {selector[len(_ROOT_CLASS):]}"
    return f"{scope} {selector}"


def embed_css(css: str) -> str:
    """The stand-alone stylesheet, for inside another theme: every rule scoped to `.sitegen-block`
    (and `.sitegen-inline`),
    the page chrome left out, colours following Material's palette (or the default theme's dark mode)."""
    light: dict[str, str] = {}
    dark: dict[str, str] = {}
    for prelude, body in _blocks(css):
        if prelude == ":root":
            light.update(_declarations(body))
        elif prelude.startswith("@media") and "prefers-color-scheme: dark" in prelude:
            for inner, inner_body in _blocks(body):
                if inner == ":root":
                    dark.update(_declarations(inner_body))
    light = {k: v for k, v in light.items() if k.startswith("--")}
    dark = {k: v for k, v in dark.items() if k.startswith("--")}
    lines = ["/* sitegen blocks inside an MkDocs theme: generated from sitegen.css by the sitegen plugin. */"]
    lines.append(_ROOT + " { " + " ".join(
        f"{k}: var({_HOST_VARS[k]}, {v});" if k in _HOST_VARS else f"{k}: {v};" for k, v in light.items()) + " }")
    if dark:
        for scheme, skip in zip(_DARK, (_HOST_VARS, ())):
            lines.append(", ".join(f"{scheme} {s}" for s in (*_SCOPES, _UNSCOPED)) + " { " +
                         " ".join(f"{k}: {v};" for k, v in dark.items() if k not in skip) + " }")
    lines.append(".sitegen-block { color: var(--fg); }")
    # Host themes style bare elements inside their content (Material centres figures, makes tables blocks).
    lines.append(".sitegen-block table.data { display: table; } .sitegen-block figure { display: block; width: auto; max-width: none; }")
    lines.append(".sitegen-block figcaption { max-width: none; margin: 0 0 0.4em; font-style: normal; text-align: left; }")
    # Sizes relative to the text around the block: host themes set their own root size (Material: 20px).
    lines.extend(re.sub(r"(\d*\.?\d+)rem\b", r"\1em", rule) for rule in _scope_rules(css))
    return "\n".join(lines) + "\n"


def static_text(config: Config, name: str) -> str:
    """A file of sitegen's static/ (or the user's custom_dir override of it)."""
    path = config.custom_dir / name if config.custom_dir and (config.custom_dir / name).is_file() else theme_dir("static") / name
    return read_limited(path, MAX_CUSTOM_FILE_BYTES, "static file", "custom_dir's files are read whole").decode("utf-8")


# The overview's note on where the data comes from, as Material shows a note: an admonition.
_ABOUT = re.compile(r'<p class="illustrative" id="illustrative"><strong>(About the data):</strong> (.*?)</p>', re.S)


def admonition(html: str) -> str:
    """The overview's note on where the data comes from as Material shows a note: an admonition."""
    return _ABOUT.sub(_admonition, html)


def _admonition(m: re.Match) -> str:
    return f'<div class="admonition info" id="illustrative">\n<p class="admonition-title">{m[1]}</p>\n<p>{m[2]}</p>\n</div>'


_CELL_END = re.compile(r"</(t[dh])>(?=<t[dh][\s>])")
_ROW_END = re.compile(r"</tr>(?=<tr[\s>])")


def searchable(html: str, *, page_title: bool = False) -> str:
    """sitegen's HTML as MkDocs' search plugins read it. Their index takes an element's text with
    nothing between elements: adjacent table cells get a space ("Engine NewEngine", not
    "EngineNewEngine"). Material's leaves out a heading's permalink only when its class is exactly
    `headerlink` (the host themes style that class too). With `page_title`, the page's h1 is left
    out of the index, so that Material's search titles the page with its full title (the meta
    title, which names the report) rather than a bare "Speed"."""
    html = _ROW_END.sub("</tr>\n", _CELL_END.sub(r"</\1> ", html))
    html = html.replace('<a class="anchor" href="#', '<a class="headerlink" href="#')
    return html.replace('<h1 id="top">', '<h1 id="top" data-search-exclude>', 1) if page_title else html


_HEADING = re.compile(r'<h([12])\s+id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)


def toc_tokens(html: str, title: str) -> list[dict[str, Any]]:
    """The table of contents of a report page (its h1 and h2), for the theme's sidebar, as MkDocs'
    `get_toc` takes it. The h1 is named with the page's full `title` (already escaped): MkDocs' own
    search titles its result so."""
    tokens: list[dict[str, Any]] = []
    for level, ident, inner in _HEADING.findall(html):
        inner = re.sub(r'<a class="headerlink".*?</a>', "", inner, flags=re.S)
        # MkDocs themes print toc titles unescaped (autoescape is off there): keep the text escaped,
        # so a report title from a receipt stays text in the sidebar.
        name = title if level == "1" else escape(unescape(re.sub(r"<[^>]+>", "", inner)).strip(), quote=False).replace('"', "&quot;")
        token = {"level": int(level), "id": ident, "name": name, "html": name, "data-toc-label": "", "children": []}
        if int(level) == 1 or not tokens:
            tokens.append(token)
        else:
            tokens[-1]["children"].append(token)
    return tokens
