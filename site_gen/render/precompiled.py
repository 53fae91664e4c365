"""The theme's and the sections' templates compiled when sitegen is packaged, not on every run.

Compiling the ~50 templates a build uses is Jinja's parser and code generator in pure Python:
~0.5 s of CPU in every process that builds (a quarter of the example site's cold build). The
package's own templates are the same in every run, so the packaging step (setup.py's build_py, for
a wheel and for an editable install alike) writes each one's generated Python into the package,
beside the code it belongs to (`site_gen/_compiled/`), and a run takes a template from
there when, and only when, it was generated from the very text the loader just read (its SHA-256,
with the template's name and everything of Jinja and of this environment that shapes the code).
Anything else (a template edited since, one of custom_dir, another Jinja) is compiled as before.

The same step writes the receipt checker of each published receipt schema (receipts/fastschema.py)
into that package, for the same reason (~50 ms of a cold build's processes).

Nothing here reads code from a cache: the modules are part of the installed package, found by
Python's import system inside it, as trusted as sitegen's own `.py` files (and bytecode-cached by
Python as those are). This module imports Jinja alone, so the packaging step can run it without
sitegen's dependencies.
"""
from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import jinja2
import jinja2.compiler

# The package of generated modules, and the version of what is generated: raised when the code a
# template compiles to changes in any way the fingerprint below cannot see.
PACKAGE = "_compiled"
FORMAT = "2"

# Each `{{ value }}` of a compiled template is written through `escape`: markupsafe's makes a Markup
# object of every value (thousands a page, ~13% of rendering). Jinja joins what a page, a macro or a
# block writes and makes the result Markup itself, so plain escaped text does: the same bytes
# (markupsafe's own escaping), without the objects. (`_generate` is Jinja's own step from template
# to Python source, the same in Jinja 3.x; its first line is the runtime import, which this import
# follows and so replaces.)
ESCAPE_IMPORT = "from site_gen.render.escaping import escape_text as escape"

# optimized=False: Jinja's optimizer folds constant expressions at compile time, ~10% of the compile
# time of every template, for expressions this theme barely has. auto_reload=False: Jinja's own
# check stats a template's file each time it is asked for, and a page asks ~10 times (includes,
# imports): ~13% of a cold build's time. A build asks once, at its start (`environment.refresh`),
# and the preview's watcher drops what it saw change (Templates.changed).
OPTIONS: dict[str, Any] = dict(autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, optimized=False,
               auto_reload=False, undefined=jinja2.StrictUndefined)


# What `x.name` finds on a plain dict before its items: its methods (`d.get`, `d.items`).
DICT_ATTRIBUTES = frozenset(dir(dict))


class CodeGenerator(jinja2.compiler.CodeGenerator):
    """Jinja's code generator, writing code that makes the same text with less work (a report's
    nine pages write ~13,000 values, ~11,000 of them read as `x.name`):

    - `x.name`, where `name` is no attribute of a dict, is the item `x["name"]` in place when `x`
      is a plain dict that holds it, and `environment.getattr(x, "name")` otherwise: what Jinja's
      own lookup (an attribute, then the item) and sitegen's (environment.py) give for such a
      name, without a call for each (the templates read views, which are dicts).
    - A block is rendered to one string where its parent template places it, rather than each of
      its thousands of pieces passing through the generators of the parent and of every template
      that extends it on its way to the page.
    """

    def visit_Getattr(self, node, frame) -> None:
        if self.environment.is_async or node.attr in DICT_ATTRIBUTES:
            super().visit_Getattr(node, frame)
            return
        name = repr(node.attr)
        # `_sg_x` holds the value looked into (no template variable starts so: Jinja's are `l_`, `t_`).
        self.write(f"(_sg_x[{name}] if type(_sg_x := ")
        self.visit(node.node, frame)
        self.write(f") is dict and {name} in _sg_x else environment.getattr(_sg_x, {name}))")

    def writeline(self, x: str, node=None, extra: int = 0) -> None:
        block = "yield from context.blocks["  # visit_Block's call of a block, outside a macro
        if x.startswith(block):
            x = f"yield environment.concat({x[len('yield from '):]})"
        super().writeline(x, node, extra)


class Compiling(jinja2.Environment):
    """Jinja's environment with sitegen's changes to the code a template compiles to: its code
    generator, and the escaping of each value written."""

    code_generator_class = CodeGenerator

    def _generate(self, source, name, filename, defer_init=False):
        code = super()._generate(source, name, filename, defer_init=defer_init)
        head, newline, rest = code.partition("\n")
        return f"{head}\n{ESCAPE_IMPORT}{newline}{rest}"


def fingerprint(env: jinja2.Environment) -> str | None:
    """Everything besides a template's name and text that shapes the code it compiles to: Jinja's
    version, the syntax and whitespace options, autoescape, the optimizer, the extensions, the
    filters and tests that take a context (their calls compile differently), and this module's
    change to the code. None for an environment of another kind (its code is not ours)."""
    if (not isinstance(env, Compiling) or type(env)._generate is not Compiling._generate
            or env.code_generator_class is not CodeGenerator):
        return None
    if callable(env.autoescape) or env.is_async:
        return None
    passing = sorted((kind, name, repr(getattr(f, "jinja_pass_arg", None)))
                     for kind, table in (("filter", env.filters), ("test", env.tests))
                     for name, f in table.items() if getattr(f, "jinja_pass_arg", None) is not None)
    parts = (jinja2.__version__, FORMAT, ESCAPE_IMPORT, env.block_start_string, env.block_end_string,
             env.variable_start_string, env.variable_end_string, env.comment_start_string, env.comment_end_string,
             env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks,
             env.newline_sequence, env.keep_trailing_newline, env.autoescape, env.optimized,
             sorted(env.extensions), passing)
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def key_of(print_: str, name: str, source: str) -> str:
    """The key a template's generated code is kept under: its environment, name and exact text."""
    return hashlib.sha256(f"{print_}\0{name}\0".encode() + source.encode("utf-8", "surrogatepass")).hexdigest()


def _package_dir() -> Path:
    return Path(__file__).resolve().parent.parent


# -- what a template names ---------------------------------------------------------------------------

# The version of the rule below: raised when it changes, so that no run takes what an older rule found.
REFERENCES_RULE = "references:2"


def references(env: jinja2.Environment, source: str) -> tuple[str | None, ...]:
    """The templates a template's source names (extends, include, import); `prefix*` for a name
    computed from a fixed start (`"overview/" ~ key ~ ".html"`), None for one computed whole."""
    from jinja2 import nodes

    out: list[str | None] = []
    for node in env.parse(source).find_all((nodes.Extends, nodes.FromImport, nodes.Import, nodes.Include)):
        assert isinstance(node, (nodes.Extends, nodes.FromImport, nodes.Import, nodes.Include))
        name = node.template
        if isinstance(name, nodes.Const) and isinstance(name.value, str):
            out.append(name.value)
        elif isinstance(name, (nodes.Tuple, nodes.List)) and all(isinstance(n, nodes.Const) for n in name.items):
            out.extend(str(n.value) for n in name.items if isinstance(n, nodes.Const))
        elif isinstance(name, nodes.Concat) and isinstance(name.nodes[0], nodes.Const) and name.nodes[0].value:
            out.append(f"{name.nodes[0].value}*")
        else:
            out.append(None)
    return tuple(out)


# -- at run time -----------------------------------------------------------------------------------

_index: dict[str, tuple[str, str]] | None = None  # template file (relative to the package) -> (key, module)
_references: dict[str, tuple[str | None, ...]] = {}  # key of a template's text -> what it names


def _the_index() -> dict[str, tuple[str, str]]:
    global _index, _references
    if _index is None:
        try:
            module = importlib.import_module(f"site_gen.{PACKAGE}")
            _index = dict(getattr(module, "TEMPLATES", {}))
            _references = dict(getattr(module, "REFERENCES", {}))
        except ImportError:  # not generated (a checkout never installed): every template is compiled
            _index = {}
    return _index


def packaged_references(env: jinja2.Environment, source: str) -> tuple[str | None, ...] | None:
    """What `references` found in this very text when the package was made (parsing the templates a
    build reads only to list what they name was ~20 ms of a cold build), or None."""
    _the_index()
    print_ = _print_of(env)
    return _references.get(key_of(print_, REFERENCES_RULE, source)) if print_ else None


def _print_of(env: jinja2.Environment) -> str | None:
    print_ = getattr(env, "_sitegen_fingerprint", False)
    if print_ is False:
        print_ = fingerprint(env)
        setattr(env, "_sitegen_fingerprint", print_)  # noqa: B010 (kept on the environment it is of)
    return print_ if isinstance(print_, str) else None


def code_for(env: jinja2.Environment, name: str, filename: str | None, source: str):
    """The code object the package holds for this template, or None: none generated, or not from
    this exact text, name and environment (it is then compiled as Jinja always does)."""
    index = _the_index()
    if not index or not filename:
        return None
    try:
        relative = Path(filename).resolve().relative_to(_package_dir()).as_posix()
    except ValueError:  # not a file of the package (custom_dir)
        return None
    entry = index.get(relative)
    if entry is None:
        return None
    print_ = _print_of(env)
    if print_ is None or entry[0] != key_of(print_, name, source):
        return None
    spec = importlib.util.find_spec(f"site_gen.{PACKAGE}.{entry[1]}")
    if spec is None or spec.loader is None:
        return None
    # The module's code, not the module: each environment runs it in a namespace of its own (Jinja
    # binds `environment` there), as a template compiled in memory is. Python's own bytecode cache
    # of the package serves it when there is one.
    return spec.loader.get_code(spec.name) if isinstance(spec.loader, importlib.abc.InspectLoader) else None


# -- when packaged ---------------------------------------------------------------------------------

class _AnyFilter(dict):
    """The filters and tests at packaging time: sitegen's own (render/format.py and the rest) need
    pandas, which packaging does not have. Compiling asks only whether a name exists and whether its
    function takes a context; none of sitegen's does (the fingerprint checks it at run time), so any
    name not Jinja's own is a plain function here."""

    def get(self, name, default=None):
        return super().get(name, _plain)


def _plain(value, *args, **kwargs):  # pragma: no cover - never called, only looked up
    return value


def template_files(package: Path) -> list[tuple[str, Path]]:
    """(name, file) of every template of the theme and of each section, as the loader names them."""
    roots = [package / "templates"] + sorted(p / "templates" for p in (package / "sections").iterdir()
                                             if (p / "templates").is_dir())
    out = []
    for root in roots:
        if root.is_dir():
            for path in sorted(root.rglob("*.html")):
                out.append((path.relative_to(root).as_posix(), path))
    return out


def generate(package: Path) -> int:
    """Writes `package`/_compiled/: one module of generated code per template and the
    index of their keys. Returns how many. A template Jinja cannot compile is left out (a run
    compiles it, and says what is wrong)."""
    env = Compiling(**OPTIONS)
    env.filters = _AnyFilter(env.filters)
    env.tests = _AnyFilter(env.tests)
    print_ = fingerprint(env)
    assert print_ is not None  # a Compiling environment of sitegen's options has its fingerprint
    out = package / PACKAGE
    out.mkdir(exist_ok=True)
    index, named, written = {}, {}, set()
    for name, path in template_files(package):
        source = path.read_text("utf-8")
        try:
            code = env.compile(source, name, str(path), raw=True)
            named[key_of(print_, REFERENCES_RULE, source)] = references(env, source)
        except jinja2.TemplateError:
            continue
        relative = path.relative_to(package).as_posix()
        module = "t_" + hashlib.sha256(relative.encode()).hexdigest()[:16]
        _write(out / f"{module}.py", f"# Generated from site_gen/{relative} by site_gen/render/precompiled.py.\n{code}")
        written.add(f"{module}.py")
        index[relative] = (key_of(print_, name, source), module)
    lines = ['"""Generated by site_gen/render/precompiled.py when sitegen was packaged: each template\'s',
             'compiled code, with the key of the text it was compiled from; and what each text names."""',
             "TEMPLATES = {"]
    lines += [f"    {rel!r}: {entry!r}," for rel, entry in sorted(index.items())]
    lines += ["}", "REFERENCES = {"] + [f"    {key!r}: {refs!r}," for key, refs in sorted(named.items())]
    checkers = _checkers(package, out, written)
    lines += ["}", "CHECKERS = {"] + [f"    {key!r}: {entry!r}," for key, entry in sorted(checkers.items())]
    _write(out / "__init__.py", "\n".join(lines + ["}", ""]))
    for stale in [*out.glob("t_*.py"), *out.glob("c_*.py")]:
        if stale.name not in written:
            stale.unlink()
    return len(index)


# The formats the receipt schemas' checkers are written for (receipts/validate.py gives `is_date`).
CHECKER_FORMATS = ("date",)


def _checkers(package: Path, out: Path, written: set[str]) -> dict[str, tuple[str, str]]:
    """The receipt checker of each published receipt schema (`schema/summary-VERSION.schema.json`),
    one module each (receipts/fastschema.py writes it; it needs only the standard library): key of
    the schema -> (module, its checking function)."""
    import json

    from site_gen.receipts import fastschema

    found = {}
    for path in sorted((package / "schema").glob("summary-[0-9]*.schema.json")):
        schema = fastschema.python_patterns(json.loads(path.read_text("utf-8")))
        made = fastschema.module_of(schema, CHECKER_FORMATS)
        if made is None:
            continue
        module = "c_" + hashlib.sha256(path.name.encode()).hexdigest()[:16]
        _write(out / f"{module}.py", f"# Generated from site_gen/schema/{path.name} by site_gen/receipts/fastschema.py.\n"
                                      + made[0])
        written.add(f"{module}.py")
        found[fastschema.key_of(schema, CHECKER_FORMATS)] = (module, made[1])
    return found


def _write(path: Path, text: str) -> None:
    """Written whole or not at all (a process reading the package meanwhile sees one or the other)."""
    if path.exists() and path.read_text("utf-8") == text:
        return  # unchanged: its modification time (and Python's bytecode of it) stays valid
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


if __name__ == "__main__":  # python -m site_gen.render.precompiled: generate again (a checkout)
    print(f"{generate(_package_dir())} templates compiled into site_gen/{PACKAGE}/", file=sys.stderr)
