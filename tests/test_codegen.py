"""sitegen's code generator (render/precompiled.py `CodeGenerator`) writes the same text as Jinja's
own: `x.name` looked up in place on a plain dict, and a block joined where its parent places it,
checked against stock Jinja (its own code generator, the same options) on varied values."""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from types import SimpleNamespace

import jinja2
import jinja2.compiler
import pytest
from markupsafe import Markup

from site_gen.render.environment import _Environment
from site_gen.render.precompiled import OPTIONS, CodeGenerator

TEMPLATES = {
    "base.html": (
        "<title>{% block title %}{{ page.title }}{% endblock %}</title>"
        "{% for item in nav %}{% block entry scoped %}<a href='{{ item.url }}'>{{ item.title }}</a>{% endblock %}{% endfor %}"
        "<main>{% block content %}base {{ page.title }}{% endblock %}</main>"
        "{% block footer %}{{ page.get('footer', 'none') }}{% endblock %}"),
    "_macros.html": (
        "{% macro cell(c) %}<td>{{ c.text }}{% if c.note is defined %} ({{ c.note }}){% endif %}</td>{% endmacro %}"
        "{% macro wrap() %}<div>{{ caller() }}</div>{% endmacro %}"),
    "child.html": (
        "{% extends 'base.html' %}{% from '_macros.html' import cell, wrap %}"
        "{% block title %}{{ super() }} · {{ report.title }}{% endblock %}"
        "{% block content %}{% block inner %}{{ report.size }}{% endblock %}"
        "{% for row in rows %}<tr>{% for c in row.cells %}{{ cell(c) }}{% endfor %}"
        "<td>{{ row.items }}|{{ row.keys }}|{{ row.a.b.c }}|{{ row.obj.value }}|{{ row.other.x }}</td></tr>{% endfor %}"
        "{% call wrap() %}{{ report.title }}{% endcall %}{% set seen = report.nested %}{{ seen.deep }}"
        "{% endblock %}"),
    "grandchild.html": "{% extends 'child.html' %}{% block inner %}[{{ super() }}]{% endblock %}",
}


@dataclass
class Value:
    value: object
    x: object = "attr"


class Mapping(OrderedDict):
    """A dict subclass: looked up as Jinja does, never in place."""


TEXTS = ["", "plain", "<b>&amp;\"'</b>", "née ☃ 測試", Markup("<i>safe</i>"), math.nan, -0.0, 12345678901234567890, None]


def _context(text) -> dict:
    nav = [{"url": f"/{i}?a=1&b=<2>", "title": text} for i in range(3)]
    row = {"cells": [{"text": text, "note": text}, {"text": text}], "items": text, "a": {"b": {"c": text}},
           "obj": Value(text), "other": Mapping(x=text)}
    return {"page": {"title": text, "footer": text}, "nav": nav, "report": {"title": text, "size": text, "nested": {"deep": text}},
            "rows": [row, {**row, "a": SimpleNamespace(b={"c": text})}, {**row, "a": {"b": SimpleNamespace(c=text)}}]}


def _environments() -> tuple[jinja2.Environment, jinja2.Environment]:
    ours = _Environment(loader=jinja2.DictLoader(TEMPLATES), **OPTIONS)
    stock = jinja2.Environment(loader=jinja2.DictLoader(TEMPLATES), **{**OPTIONS, "undefined": jinja2.StrictUndefined})
    assert ours.code_generator_class is CodeGenerator and stock.code_generator_class is jinja2.compiler.CodeGenerator
    return ours, stock


@pytest.mark.parametrize("text", TEXTS, ids=repr)
@pytest.mark.parametrize("name", ["base.html", "child.html", "grandchild.html"])
def test_pages_are_the_text_stock_jinja_writes(name, text):
    ours, stock = _environments()
    context = _context(text)
    assert ours.get_template(name).render(context) == stock.get_template(name).render(context)


def test_the_generated_code_looks_items_up_in_place_and_joins_blocks():
    """The two changes are there (a Jinja that writes other code would leave them out, silently)."""
    ours, _ = _environments()
    code = ours.compile(TEMPLATES["base.html"], "base.html", raw=True)
    assert "yield from context.blocks[" not in code and "yield environment.concat(context.blocks['content'][0](context))" in code
    assert "(_sg_x['title'] if type(_sg_x := " in code
    # A name that is a dict's method is looked up as Jinja looks it up: `d.get` is the method.
    assert "environment.getattr((undefined(name='page') if l_0_page is missing else l_0_page), 'get')" in code


def test_a_missing_key_is_undefined_as_jinja_has_it():
    ours, stock = _environments()
    for env in (ours, stock):
        with pytest.raises(jinja2.UndefinedError, match="has no attribute 'nope'"):
            env.from_string("{{ d.nope }}").render(d={"x": 1})
        assert env.from_string("{{ d.nope is defined }}|{{ d.items is defined }}").render(d={"nope": None}) == "True|True"
