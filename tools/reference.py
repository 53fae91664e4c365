"""The guide's reference parts, generated from where each thing is defined, so that they cannot drift:
the command line from its argument parser (site_gen/cli/), the configuration from its tables
(SITE_SETTINGS, PLUGIN_OPTIONS and the objectives' keys in site_gen/core/config.py), the blocks and
figures a page may use from their registries (site_gen/render/blocks.py, site_gen/analysis/figures.py).

The guide's pages call these from cog markers (`<!-- [[[cog ... ]]] -->`); `tools/refresh_docs.py`
runs them, and `tools/refresh_docs.py --check` (tests/test_docs_guide.py) fails when a page differs.
Each function returns markdown.
"""
from __future__ import annotations

import argparse
import os
from html import escape

os.environ["COLUMNS"] = "100"  # argparse wraps usage lines to the terminal: the same width everywhere


def _text(text: str) -> str:
    """Plain text for a page (raw HTML passes through an author's markdown): <, > and & as entities."""
    return escape(" ".join(str(text).split()), quote=False)


def _cell(text: str) -> str:
    """Markdown for a table cell: whitespace one space, pipes escaped (`text` is markdown already)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else f"`` {text} ``"


def _commands() -> dict[str, argparse.ArgumentParser]:
    from site_gen.cli import COMMANDS, parser

    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {name: sub.choices[name] for name in COMMANDS}


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return _code(str(action.metavar or action.dest))
    value = ""
    if action.nargs != 0:
        meta = action.metavar or (("{" + ",".join(action.choices) + "}") if action.choices else action.dest.upper())
        value = f" {meta}" + (" …" if action.nargs in ("+", "*") else "")
    return ", ".join(_code(f"{flag}{value}") for flag in action.option_strings)


def _what(action: argparse.Action) -> str:
    parts = [_text(action.help)] if action.help else []
    if action.choices:
        parts.append("one of " + ", ".join(_code(str(c)) for c in action.choices))
    if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS) \
            and "default" not in (action.help or ""):
        parts.append(f"default {_code(str(action.default))}")
    if action.required and action.option_strings:
        parts.append("required")
    if isinstance(action, argparse._AppendAction) and "repeatable" not in (action.help or ""):
        parts.append("may be given more than once")
    return _cell("; ".join(parts))


def cli() -> str:
    """Every command: what it does, its usage, each argument and option, its examples."""
    from site_gen.cli import parser

    top = [a for a in parser()._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]
    out = ["Before any command: " + "; ".join(f"{_code(a.option_strings[0])}, {_text(a.help or '')}" for a in top) + ".\n"]
    for name, p in _commands().items():
        out.append(f"## sitegen {name}\n")
        out.append(f"{_text(p.description or '')}\n")
        out.append("```text\n" + p.format_usage().strip() + "\n```\n")
        rows = [a for a in p._actions if not isinstance(a, argparse._HelpAction) and a.help != argparse.SUPPRESS]
        if rows:
            out.append("| argument or option | what it does |\n|---|---|\n"
                       + "".join(f"| {_flags(a)} | {_what(a)} |\n" for a in rows))
        if p.epilog:
            examples, _, notes = p.epilog.partition("\n\n")
            out.append("```sh\n" + "\n".join(line.strip() for line in examples.splitlines()[1:]) + "\n```\n")
            for para in notes.split("\n\n"):
                if para.strip():
                    out.append(_text(para) + "\n")
    return "\n" + "\n".join(out)


def _yaml(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _num(x: float) -> str:
    return f"{int(x):,}" if x == int(x) else f"{x:g}"


def _allowed(option) -> str:
    kind = option.kind
    if kind == "folder":
        return "a folder, relative to mkdocs.yml"
    if kind == "number":
        return f"a number from {_num(option.low)} to {_num(option.high)}"
    if kind == "choice":
        return "one of " + ", ".join(_code(c) for c in option.choices)
    if kind == "scale":
        return f"[low, high] with low < 1 < high, each from {_num(option.low)} to {_num(option.high)}"
    if kind == "window":
        return f"null, or [low, high] whole numbers from {_num(option.low)} to {_num(option.high)}"
    if kind == "objectives":
        return "null, or a mapping of objectives (below)"
    return kind


def site_settings() -> str:
    """The keys of mkdocs.yml itself that sitegen reads, with their defaults, and the others it accepts."""
    from site_gen.core.config import MKDOCS_KEYS, SITE_SETTINGS

    rows = "".join(f"| {_code(key)} | {_code(_yaml(default)) if default not in (None, '') else ''} | {_cell(_text(what))} |\n"
                   for key, (default, what) in SITE_SETTINGS.items())
    rest = sorted(MKDOCS_KEYS - set(SITE_SETTINGS), key=str.lower)
    return ("\n| key | default | what it does |\n|---|---|---|\n" + rows
            + "\nAccepted and left to MkDocs (a config shared with `mkdocs build` is not refused for them): "
            + ", ".join(_code(k) for k in rest) + ". Any other key is refused, with the nearest known one suggested.\n")


def plugin_options() -> str:
    """The `sitegen` plugin entry's options: default, what each accepts, what it does."""
    from site_gen.core.config import PLUGIN_OPTIONS

    rows = "".join(f"| {_code(name)} | {_code(_yaml(o.default))} | {_cell(_text(_allowed(o)))} | {_cell(_text(o.help))} |\n"
                   for name, o in PLUGIN_OPTIONS.items())
    return "\n| option | default | accepts | what it does |\n|---|---|---|---|\n" + rows


def example_config() -> str:
    """A mkdocs.yml with every plugin option at its default, each with what it does."""
    from site_gen.core.config import PLUGIN_OPTIONS, SITE_SETTINGS

    lines = ["site_name: Inference engine benchmarks",
             f"docs_dir: {SITE_SETTINGS['docs_dir'][0]}",
             f"site_dir: {SITE_SETTINGS['site_dir'][0]}",
             "plugins:", "  - sitegen:"]
    for name, o in PLUGIN_OPTIONS.items():
        lines.append(f"      {f'{name}: {_yaml(o.default)}':<28}# {o.help}")
    return "\n```yaml\n" + "\n".join(lines) + "\n```\n"


def objectives() -> str:
    """The keys `slo:` accepts."""
    from site_gen.core.config import SLO_METRICS, SLO_PERCENTILES

    keys = [f"{m}_p{p}_ms" for m in SLO_METRICS for p in SLO_PERCENTILES]
    return ("\n`METRIC_pNN_ms: limit`, METRIC one of " + ", ".join(_code(m) for m in SLO_METRICS)
            + ", NN one of " + ", ".join(_code(str(p)) for p in SLO_PERCENTILES)
            + f": {len(keys)} keys, {_code(keys[0])} to {_code(keys[-1])}; each limit in milliseconds, above 0.\n")


def limits() -> str:
    """The bounds on what mkdocs.yml may hold."""
    from site_gen.core.yaml_safe import MAX_DEPTH, MAX_VALUES

    return (f"\nmkdocs.yml may nest at most {MAX_DEPTH} levels and hold at most {MAX_VALUES:,} values with its "
            "aliases expanded; keys are names (not numbers or null).\n")


def blocks() -> str:
    """Every block a page may place, with its options."""
    from site_gen.render.blocks import COMMON_OPTIONS, all_blocks

    rows = "".join(f"| {_code(name)} | {', '.join(_code(o) for o in spec.options) or '—'} | "
                   f"{_cell(_text(spec.doc))} |\n" for name, spec in all_blocks().items())
    return ("\n| block | its options | what it shows |\n|---|---|---|\n" + rows
            + "\nEvery block also takes " + ", ".join(_code(o) for o in COMMON_OPTIONS if o != "block")
            + " (the report, when the page names none or several; the block's HTML id).\n")


def figures() -> str:
    """Every figure a sentence may cite, with its arguments."""
    from site_gen.analysis import figures as figs

    rows = []
    for name, (_, doc) in figs.registry().items():
        args = figs.arguments(name)
        shown = ", ".join(_code(a) + ("" if required else " (optional)") for a, required in args.items()) or "—"
        rows.append(f"| {_code(name)} | {shown} | {_cell(_text(doc))} |\n")
    return "\n| figure | arguments | what it gives |\n|---|---|---|\n" + "".join(rows)


def import_formats() -> str:
    """The formats `sitegen import` reads."""
    from site_gen import api

    return "\n" + ", ".join(_code(f) for f in sorted(api.import_formats())) + "\n"


def compare_example(old: str = "cuteafd-v3.0.1", new: str = "cuteafd-v4.0.0", lines: int = 12) -> str:
    """`sitegen compare OLD NEW` of two of the example's reports: its first lines, as text."""
    from pathlib import Path

    from site_gen import api

    config = api.load_config(Path(__file__).resolve().parent.parent / "mkdocs.yml")
    shown = api.compare(config, old, new).text.rstrip("\n").split("\n")
    more = len(shown) - lines
    return ("\n```text\n$ sitegen compare " + f"{old} {new}\n" + "\n".join(shown[:lines])
            + (f"\n… ({more} more lines)" if more > 0 else "") + "\n```\n")


def receipt_markdown() -> str:
    """The bounds on markdown inside a receipt."""
    from site_gen.receipts import markdown_bounds as b

    return (f"\nAt most {b.RECEIPT_MAX_CHARS:,} characters a text, {b.RECEIPT_MAX_PARAGRAPH:,} in one paragraph and "
            f"{b.RECEIPT_MAX_BRACKETS} `[`; lists and quotes nested at most {b.RECEIPT_MAX_DEPTH} deep; and all of a "
            f"receipt's markdown together (lede, tested, not covered, notes) at most {b.RECEIPT_MAX_TOTAL:,} characters.\n")


def schemas() -> str:
    """The JSON Schemas shipped inside the package."""
    from importlib import resources

    names = sorted(p.name for p in resources.files("site_gen.schema").iterdir() if p.name.endswith(".schema.json"))
    return "\n" + "".join(f"- {_code('site_gen/schema/' + n)}\n" for n in names)


__all__ = ["blocks", "cli", "compare_example", "example_config", "figures", "import_formats", "limits", "objectives", "plugin_options",
           "receipt_markdown", "schemas", "site_settings"]
