"""The page templates' contracts: a custom template can use the names the context records declare."""
from __future__ import annotations

from dataclasses import fields

from site_gen.build.builder import build_files
from site_gen.core.config import load_config
from site_gen.render.contexts import BaseContext, DocsPageContext, HomeContext, NavItem


def test_a_custom_template_sees_the_declared_contract(project):
    custom = project / "overrides"
    custom.mkdir()
    base = [f.name for f in fields(BaseContext)]
    # A page.html that prints each declared field it is given: the docs pages render through it.
    (custom / "page.html").write_text(
        "{{ page.title }}|{{ page.url }}|{{ site.name }}|{{ site.home }}|{{ doc.src }}|{{ dashboard }}|"
        "{% for item in site_nav %}{{ item.title }}={{ item.url }}:{{ item.current }};{% endfor %}|"
        "{{ [" + ", ".join(f"{name} is defined" for name in base) + "] | select | list | length }}")
    text = (project / "mkdocs.yml").read_text()
    (project / "mkdocs.yml").write_text(text.replace("data_dir: data", "data_dir: data\n      custom_dir: overrides"))
    config = load_config(project / "mkdocs.yml")
    html = build_files(config).files["highlights.html"].decode()
    title, url, site, home, src, dashboard, nav, defined = html.split("|")
    assert (url, site, home, src, dashboard) == ("highlights.html", config.site_name, "index.html", "highlights.md", "False")
    assert "highlights.html:True;" in nav and int(defined) == len(base)
    assert {f.name for f in fields(NavItem)} == {"title", "url", "report", "current"}
    assert [f.name for f in fields(DocsPageContext)] == ["content", "doc", "dashboard"]
    assert [f.name for f in fields(HomeContext)] == ["reports"]
