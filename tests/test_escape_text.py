"""render/escaping.py writes what markupsafe writes, as plain text: the pages' bytes depend on it."""
from __future__ import annotations

from hypothesis import given, strategies as st
from markupsafe import Markup, escape

from site_gen.render.escaping import escape_str, escape_text
from site_gen.render.environment import environment
from site_gen.render.provenance import Fig, Parts


@given(st.text())
def test_text_is_escaped_as_markupsafe_escapes_it(text):
    assert escape_str(text) == str(escape(text)) == escape_text(text)
    assert type(escape_text(text)) is str


@given(st.one_of(st.integers(), st.floats(allow_nan=True), st.booleans(), st.none(), st.text().map(Markup)))
def test_other_values_too(value):
    assert escape_text(value) == str(escape(value))


def test_figures_and_their_parts_write_what_markupsafe_made_of_them():
    figs = [Fig("<1.2>", path="$.a['x&y']", date="2026-01-02"), Fig('"3"', how="a < b & c"),
            Fig("4'", how="m", dense=True), Fig("5", path="$.b", dense=True), Fig("<plain>")]
    for f in figs:
        assert escape_text(f) == f.__html__() == str(escape(f))
        assert "<1.2>" not in f.__html__() and "<plain>" not in f.__html__()
    parts = Parts([figs[0], " of <n> ", figs[1]])
    assert escape_text(parts) == str(escape(figs[0])) + " of &lt;n&gt; " + str(escape(figs[1]))


def test_a_template_writes_values_escaped_and_macros_and_blocks_stay_markup():
    env = environment(None)
    page = env.from_string('{% macro m(x) %}<b>{{ x }}</b>{% endmacro %}{% set y %}<i>{{ v }}</i>{% endset %}'
                           '{{ v }}|{{ m(v) }}|{{ y }}|{{ s }}|{{ n }}|{{ v ~ s }}')
    out = page.render(v="<a&'\">", s=Markup("<em>ok</em>"), n=3.5)
    assert out == ("&lt;a&amp;&#39;&#34;&gt;|<b>&lt;a&amp;&#39;&#34;&gt;</b>|<i>&lt;a&amp;&#39;&#34;&gt;</i>|"
                   "<em>ok</em>|3.5|&lt;a&amp;&#39;&#34;&gt;<em>ok</em>")
