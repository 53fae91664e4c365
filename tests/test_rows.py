"""The table of reports' rows (site_gen/building/rows.py): each drawn once per receipt, and kept in the
build's store from one `sitegen build` to the next."""
from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import ROOT
from site_gen.building import cache
from site_gen.building.builder import Builder
from site_gen.building.rows import DashboardRows
from site_gen.building.store import Store
from site_gen.core.config import load_config
from site_gen.render.pages import environment


def _counting(store: Store) -> list:
    """The kinds `store` is asked to put, as they come."""
    puts: list = []
    put = store.put

    def counted(kind, *args):
        puts.append(kind)
        return put(kind, *args)

    store.put = counted
    return puts


@pytest.fixture
def built(tmp_path):
    """The example's builder after a build, with a build store in a folder of the test's own."""
    cache.configure(tmp_path / "cache")
    try:
        made = Builder(load_config(ROOT / "mkdocs.yml"))
        made.build()
        yield made
    finally:
        cache.configure()


def test_rows_are_kept_in_the_store_from_one_build_to_the_next(built):
    config, records = built.config, list(built.store.env.values())
    first = DashboardRows(config, built.store.templates, Store(config, enabled=True))(records)
    # Each row is what the theme's macro draws from it, called here directly.
    macro = environment(None).get_template("_macros.html").module.dashboard_row
    assert all(str(r["row_html"]) == str(macro({k: v for k, v in r.items() if k != "row_html"})) for r in first)
    # A later build (a new process: a new DashboardRows) takes them all from the store: none drawn,
    # nothing written.
    store = Store(config, enabled=True)
    puts = _counting(store)
    rows = DashboardRows(config, built.store.templates, store)
    again = rows(records)
    assert puts == [] and [str(r["row_html"]) for r in again] == [str(r["row_html"]) for r in first]
    # A report whose receipt changed has its row drawn again (its text escaped by the macro).
    changed = dataclasses.replace(records[0], sha256="0" * 64,
                                  dashboard={**records[0].dashboard, "title": "<b>Changed</b>"})
    third = rows([changed, *records[1:]])
    assert puts == ["rows"] and "&lt;b&gt;Changed" in str(third[0]["row_html"])
    assert [str(r["row_html"]) for r in third[1:]] == [str(r["row_html"]) for r in first[1:]]


def test_a_stored_entry_of_another_shape_is_not_used(built):
    config, records = built.config, list(built.store.env.values())
    store = Store(config, enabled=True)
    version = built.store.templates.record("_macros.html")[0]
    key = f"{records[0].id}\0{records[0].sha256}"
    for bad in (b"not json", json.dumps([key]).encode(), json.dumps({key: 1}).encode()):
        store.put("rows", bad, version)
        rows = DashboardRows(config, built.store.templates, store)(records)
        assert "<tr" in str(rows[0]["row_html"])  # drawn, not taken
    # One of the right shape is taken as it is: the store's entries are signed by this user.
    store.put("rows", json.dumps({key: "<tr><td>kept</td></tr>"}).encode(), version)
    assert str(DashboardRows(config, built.store.templates, store)(records)[0]["row_html"]) == "<tr><td>kept</td></tr>"
