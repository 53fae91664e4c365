"""The table of reports' rows as the theme's own macro draws them: each kept by its report's
receipt, in this process (a preview rebuild after one edit draws one row) and, for `sitegen build`
with its store, from one build to the next (at a thousand reports, drawing every row again was
~0.12 s of a build with one receipt changed)."""
from __future__ import annotations

import json

from markupsafe import Markup

from site_gen.building.assembly import changes_shown, row_changes, rows_of
from site_gen.building.store import Store
from site_gen.core.config import Config
from site_gen.core.records import content_hash
from site_gen.render import dashboard
from site_gen.render.pages import environment


class DashboardRows:
    """`rows(records)`: every report's row, each with its HTML (`row_html`) when the theme's own
    macro draws it. A custom_dir that overrides the macros is drawn whole by the page, as it may
    use the page's context."""

    def __init__(self, config: Config, templates, persist: Store):
        self.config, self.templates, self.persist = config, templates, persist
        self._macro: tuple | None = None     # (hash of _macros.html, its dashboard_row macro)
        self._html: dict[str, str] = {}      # "id\0receipt sha256[\0its changes' hash]" -> the row's HTML
        self._changes: tuple[str, dict[str, list[str]]] | None = None  # (the shown rows' hash, each row's changes)

    def __call__(self, records: list) -> list[dict]:
        changed = self.changes(records) if len(records) > 1 else {}
        rows = dashboard.tell_apart(rows_of(records, changed))
        if self.config.custom_dir and (self.config.custom_dir / "_macros.html").exists():
            return rows
        version = self.templates.record("_macros.html")[0]
        if self._macro is None or self._macro[0] != version:
            module = environment(None).get_template("_macros.html").module
            self._macro = (version, getattr(module, "dashboard_row", None))
            self._html = self._stored(version)
        macro = self._macro[1]
        if macro is None:
            return rows
        live, drawn = {}, False
        for r, row in zip(records, rows):
            key = (f"{r.id}\0{r.sha256}" + ("\0told apart" if row["told_apart"] else "")  # the row names its id
                   + (f"\0{content_hash(json.dumps(row['changes']))}" if row["changes"] else ""))
            html = self._html.get(key)
            if html is None:
                html, drawn = str(macro(row)), True
            live[key] = html
            row["row_html"] = Markup(html)  # the macro's own output (escaped there), or that kept
        self._html = live
        if drawn:
            self.persist.put("rows", json.dumps(live, sort_keys=True).encode("utf-8"), version)
        return rows

    def changes(self, records: list) -> dict[str, list[str]]:
        """Each report id -> the change points its row names (assembly.row_changes, as a host's
        dashboard block has them), found over the rows the History page shows. Kept in this process and in the store by those
        rows: a build whose edits leave them as they were never loads numpy or the detector."""
        shown = changes_shown(records)
        key = content_hash(json.dumps(shown, sort_keys=True, default=str))
        if self._changes is not None and self._changes[0] == key:
            return self._changes[1]
        found = _loaded(self.persist.get("changes", key))
        if found is None:
            found = row_changes(records, shown)
            self.persist.put("changes", json.dumps(found, sort_keys=True).encode("utf-8"), key)
        self._changes = (key, found)
        return found

    def _stored(self, version: str) -> dict[str, str]:
        """The rows the last build drew with this macro, from the store (signed, as every entry)."""
        data = self.persist.get("rows", version)
        try:
            found = json.loads(data) if data is not None else {}
        except ValueError:
            return {}
        ok = isinstance(found, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in found.items())
        return found if ok else {}


def _loaded(data: bytes | None) -> dict[str, list[str]] | None:
    try:
        found = json.loads(data) if data is not None else None
    except ValueError:
        return None
    ok = isinstance(found, dict) and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in found.values())
    return found if ok else None
