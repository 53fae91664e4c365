"""The one Jinja environment of sitegen's templates (the author's custom_dir, the theme, each
section's own templates), compiled in memory."""
from __future__ import annotations

import json
import os
import posixpath
import threading
from functools import lru_cache
from typing import Any

import jinja2
from markupsafe import Markup

import site_gen
from site_gen.core.errors import SitegenError
from site_gen.core.files import MAX_CUSTOM_FILE_BYTES, read_limited
from site_gen.render import format as fmt
from site_gen.render.parts import dashboard_columns
from site_gen.render.precompiled import DICT_ATTRIBUTES, OPTIONS, Compiling, code_for
from site_gen.render.where import template_dirs




# The Jinja contexts made for the page being rendered (`rendered`): its own, and those of the
# templates it imports `with context`.
_rendering = threading.local()


class _Template(jinja2.Template):
    """Jinja's template, its imports made while a page is rendered (`rendered`) noted there."""

    def make_module(self, vars=None, shared=False, locals=None):
        ctx = self.new_context(vars, shared, locals)
        module = jinja2.environment.TemplateModule(self, ctx)
        made = getattr(_rendering, "contexts", None)
        if made is not None and vars is not None:  # made for this page (with vars), not Jinja's cached module
            made.append(ctx)
        return module


class _Environment(Compiling):
    """Jinja's environment, with `view.key` looked up as an item first on a plain dict whose
    attributes do not include `key`, where Jinja's own order (an attribute, then the item) can only
    end with the item: the same value, without the failed attribute lookup (thousands a page)."""

    template_class = _Template

    def _load_template(self, name, globals):
        # A template of custom_dir that does not compile, or is no text, is the user's input: one
        # error naming its file and line, as bad input is (jinja's own errors would be sitegen's).
        try:
            return super()._load_template(name, globals)
        except jinja2.TemplateSyntaxError as exc:
            raise SitegenError(f"template does not compile: {exc.message}", exc.filename or name,
                               f"line {exc.lineno}" if exc.lineno else None) from None
        except NotText as exc:
            raise SitegenError("is not UTF-8 text, so it cannot be a template (a template includes or extends it)",
                               exc.filename) from None

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def rendered(template: jinja2.Template, context: dict[str, Any]) -> str:
    """`template.render(context)`, the same text, leaving no reference cycle behind. A template's
    macros refer to its Jinja context, which holds them; the page's context, and that of each
    template it imports `with context`, refer to everything the page shows (thousands of figures),
    so each page left all of it to the cyclic garbage collector (one pass over ~200,000 objects
    every hundred reports). Emptied once the page is rendered, they are freed at once."""
    ctx = template.new_context(dict(context))
    outer = getattr(_rendering, "contexts", None)
    made: list = []
    _rendering.contexts = made
    try:
        return template.environment.concat(template.root_render_func(ctx))
    except Exception:
        template.environment.handle_exception()
        raise  # not reached: handle_exception raises the error, its traceback rewritten to the template
    finally:
        _rendering.contexts = outer
        for done in (ctx, *made):
            done.vars.clear()
            done.exported_vars.clear()


class NotText(jinja2.TemplateError):
    """A file where a template is looked for that is not UTF-8 text (an image in custom_dir): no template."""

    def __init__(self, name: str, filename: str):
        super().__init__(f"{name} is not UTF-8 text")
        self.name, self.filename = name, filename


class _Loader(jinja2.FileSystemLoader):
    """Templates are UTF-8 text: any other file found (custom_dir may hold images beside its
    templates) is refused as a template, never decoded as one. A template of the package itself is
    taken compiled from the package when it was compiled from this very text (render/precompiled.py)."""

    def __init__(self, searchpath, *args: Any, **kwargs: Any) -> None:
        super().__init__(searchpath, *args, **kwargs)
        # Names found in no folder since the build began (`refresh`): a report's overview includes
        # each section's part `ignore missing`, and each miss looked in every folder again.
        self.missing: set[str] = set()

    def load(self, environment, name, globals=None):
        source, filename, uptodate = self.get_source(environment, name)
        code = code_for(environment, name, filename, source)
        if code is None:
            code = environment.compile(source, name, filename)
        template = environment.template_class.from_code(environment, code, {} if globals is None else globals, uptodate)
        template.filename = filename  # the template's file, as compiled in memory, not the generated module's
        return template

    def get_source(self, environment, template):
        """FileSystemLoader's, reading a template as sitegen reads any file it did not write: a regular
        file only, never a blocking read, at most MAX_CUSTOM_FILE_BYTES (core/files.py)."""
        if template in self.missing:
            raise jinja2.TemplateNotFound(template)
        pieces = jinja2.loaders.split_template_path(template)
        for folder in self.searchpath:
            filename = posixpath.join(folder, *pieces)
            if os.path.isfile(filename):
                break
        else:
            self.missing.add(template)
            raise jinja2.TemplateNotFound(template)
        raw = read_limited(filename, MAX_CUSTOM_FILE_BYTES, "template", "a template is read whole")
        try:
            contents = raw.decode(self.encoding)
        except UnicodeDecodeError:
            raise NotText(template, filename) from None
        mtime = os.path.getmtime(filename)

        def uptodate() -> bool:
            try:
                return os.path.getmtime(filename) == mtime
            except OSError:
                return False

        return contents, os.path.normpath(filename), uptodate


@lru_cache(maxsize=8)
def environment(custom_dir: str | None) -> jinja2.Environment:
    paths = [str(p) for p in template_dirs(custom_dir)]
    # Compiled in memory, or taken from the package (precompiled.py): never a bytecode cache (Jinja's
    # bytecode is marshalled code, and code read from a cache folder is code whoever can write that
    # folder runs).
    env = _Environment(loader=_Loader(paths), **OPTIONS)
    env.filters.update(fmt.FILTERS)
    env.filters["json_attribute"] = json_attribute
    env.filters["css_string"] = css_string
    env.globals["version"] = site_gen.__version__
    env.globals["dashboard_columns"] = dashboard_columns  # each section's columns of the table of reports
    _made.append(env)
    return env


_made: list[jinja2.Environment] = []  # every environment made here (the page one, its content overlay)


def refresh() -> None:
    """Drops each compiled template whose file changed since it was compiled (Jinja's test: the
    file's modification time), in every environment: once per build, in place of Jinja's test on
    every lookup."""
    for env in _made:
        _forget_missing(env)
        if env.cache is not None:
            for key, template in list(env.cache.items()):
                if not template.is_up_to_date:
                    del env.cache[key]


def _forget_missing(env: jinja2.Environment) -> None:
    """A template looked for in vain may exist now: the loader looks again."""
    if isinstance(env.loader, _Loader):
        env.loader.missing.clear()


def forget(names: set[str]) -> None:
    """Drops these templates' compiled copies from every environment (the others stay compiled): the
    preview's watcher saw them change, which a modification time can miss (a second save within the
    file system's timestamp granularity)."""
    for env in _made:
        _forget_missing(env)
        if env.cache is not None:
            for key in list(env.cache.keys()):
                if isinstance(key, tuple) and key[-1] in names:
                    del env.cache[key]


def css_string(value: Any) -> Markup:
    """Text as a quoted CSS string (a printed page's running title in `@page`): every character but
    an ASCII letter, digit or space as a hex escape, so no text from data can end the string, the
    rule or the <style> element it sits in. Each escape ends with the one space CSS consumes after
    it, so a real space that follows survives."""
    out = []
    for char in str(value):
        out.append(char if char.isascii() and (char.isalnum() or char == " ") else f"\\{ord(char):x} ")
    return Markup('"' + "".join(out) + '"')


def json_attribute(value: Any) -> Markup:
    """JSON for a single-quoted HTML attribute (a chart's `data-spec`): no `'`, `&`, `<` or `>` in
    it, so the attribute needs no entity and JSON.parse reads it as it is; and JSON that JSON.parse
    accepts (a NaN would stop the chart, so it stops the build instead). The data sits on the element
    the chart draws into rather than in a `<script type="application/json">`: a host page that swaps
    its content and re-creates inline scripts (Material for MkDocs' instant navigation drops their
    type and id) would run such data as code; an attribute survives any copy, and no search index
    takes it for text."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    for char in "<>&'":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@lru_cache(maxsize=8)
def content_environment(custom_dir: str | None) -> jinja2.Environment:
    """The page templates with a bare `base.html`: a page renders as its `content` block only."""
    env = environment(custom_dir)
    bare = jinja2.DictLoader({"base.html": '{% include "_illustrative.html" %}{% block content %}{% endblock %}{% include "_legend.html" %}'})
    assert env.loader is not None
    overlay = env.overlay(loader=jinja2.ChoiceLoader([bare, env.loader]))
    _made.append(overlay)
    return overlay
