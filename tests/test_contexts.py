"""The page templates' contracts: a custom template can use the names the context records declare."""
from __future__ import annotations

from dataclasses import fields

import pytest

from site_gen.building.builder import build_files
from site_gen.core.config import load_config
from site_gen.render.contexts import BaseContext, DocsPageContext, HomeContext, NavItem


@pytest.mark.slow
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


@pytest.mark.slow
def test_each_declared_field_of_the_nav_docs_and_home_contexts_is_given(project):
    """Templates that print every field the records declare, by name: each must be given, with the
    value the project implies (its folders, its docs pages)."""
    custom = project / "overrides"
    custom.mkdir()
    nav_fields, docs_fields = [f.name for f in fields(NavItem)], [f.name for f in fields(DocsPageContext)]
    (custom / "page.html").write_text(
        "{% for item in site_nav %}" + "".join(f"{{{{ item.{n} is defined }}}}," for n in nav_fields) + "{{ item.url }};{% endfor %}|"
        + "".join(f"{{{{ {n} is defined }}}}," for n in docs_fields) + "|{{ doc.src }}|{{ 'sitegen-block' in content }}")
    (custom / "home.html").write_text("{% for r in reports %}{{ r.url }};{% endfor %}|"
                                      + "".join(f"{{{{ {f.name} is defined }}}}," for f in fields(HomeContext)))
    (project / "docs" / "index.md").unlink()  # the home page is then sitegen's own (home.html)
    text = (project / "mkdocs.yml").read_text()
    (project / "mkdocs.yml").write_text(text.replace("data_dir: data", "data_dir: data\n      custom_dir: overrides"))
    files = build_files(load_config(project / "mkdocs.yml")).files

    nav, docs, src, blocks = files["highlights.html"].decode().split("|")
    entries = [e for e in nav.split(";") if e]
    assert entries and all(e.split(",")[:-1] == ["True"] * len(nav_fields) for e in entries)
    assert docs == "True," * len(docs_fields) and src == "highlights.md"
    assert blocks == str("```sitegen" in (project / "docs" / "highlights.md").read_text())

    rows, home = files["index.html"].decode().split("|")
    folders = {p.name for p in (project / "data").iterdir() if (p / "SUMMARY.json").is_file()}
    assert sorted(u.split("/")[1] for u in rows.split(";") if u) == sorted(folders)
    assert home == "True," * len(fields(HomeContext))
