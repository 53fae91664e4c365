"""What each output of a build was made from, and which outputs a change of files makes stale.

As Sphinx's build environment records, for each document, the files it read, the builder records
for each output (a rendered page, a report's whole set of files, a docs page) a `Dependencies`:
the receipts and ledes it draws on by content hash, its template closure by content hash, the
docs page it was written from, and a hash of the site-wide things it shows (navigation, assets).
An output is up to date when the record made for it now equals the one kept with it; and
`DependencyIndex.invalidate`, the one routine the preview's watcher drives, drops every output
that names a changed file. The key (`Dependencies.key`) is a content hash, the same in every
process, so a persistent cache can be keyed on it.
"""
from __future__ import annotations

import os
import posixpath
from functools import lru_cache
from pathlib import Path

import jinja2

from site_gen.core.files import MAX_CUSTOM_FILE_BYTES, hash_limited
from site_gen.core.records import Dependencies, content_hash  # noqa: F401 (the records, kept low for the views)


class DependencyIndex:
    """Outputs by name with the record each was made from; `invalidate` finds them by file."""

    def __init__(self) -> None:
        self._records: dict[str, Dependencies] = {}
        self._by_file: dict[str, set[str]] = {}  # file -> outputs whose record named it (some since remade)

    def get(self, output: str) -> Dependencies | None:
        return self._records.get(output)

    def record(self, output: str, deps: Dependencies) -> None:
        old = self._records.get(output)
        self._records[output] = deps
        if old is None or old.files != deps.files:
            for file in deps.files:
                self._by_file.setdefault(file, set()).add(output)

    def forget(self, outputs) -> None:
        for output in outputs:
            self._records.pop(output, None)

    def outputs(self) -> list[str]:
        return list(self._records)

    def invalidate(self, paths) -> set[str]:
        """Drops, and returns, every output whose record names one of `paths` (or a file inside one)."""
        changed = {os.path.realpath(p) for p in paths}
        folders = tuple(c + os.sep for c in changed)  # a changed folder: every file inside it
        around = changed | {str(parent) for c in changed for parent in Path(c).parents}  # a record may name a folder
        stale = set()
        for file in [f for f in self._by_file if f in around or f.startswith(folders)]:
            for output in self._by_file.pop(file):
                deps = self._records.get(output)
                if deps is not None and file in deps.files:
                    stale.add(output)
        self.forget(stale)
        return stale


@lru_cache(maxsize=256)
def _references(source: str) -> tuple[str | None, ...]:
    """The templates a template's source names (render/precompiled.py `references`): as found when
    the package was made for its own templates, else kept by the source's hash in the persistent
    cache. Parsing is most of a small build's time, and every Builder (each `sitegen check`, each
    build of the plugin) asks for the same sources."""
    from site_gen.render.pages import environment
    from site_gen.render.precompiled import packaged_references, references as parsed
    from site_gen.building.template_cache import references

    env = environment(None)
    found = packaged_references(env, source)
    return found if found is not None else references(source, lambda: parsed(env, source))


class Templates:
    """The template side of the records: each template's closure, and the content hash of each file.

    Kept until `changed` names a template (the preview's watcher), then that template's closure and
    hash are found again; jinja's compiled copy of it is dropped too.
    """

    def __init__(self, custom_dir: Path | None) -> None:
        from site_gen.render.pages import environment, template_dirs

        self.custom_dir = custom_dir
        self.roots = template_dirs(custom_dir)
        self.env = environment(str(custom_dir) if custom_dir else None)
        self._closures: dict[str, tuple[str, ...]] = {}
        self._hashes: dict[str, tuple[str, str]] = {}  # name -> (content hash, file)
        self._records: dict[str, tuple[tuple[tuple[str, str], ...], frozenset[str]]] = {}
        self._listed: list[str] | None = None

    @property
    def loader(self) -> jinja2.BaseLoader:
        assert self.env.loader is not None  # sitegen's environments have their loader
        return self.env.loader

    def closure(self, name: str) -> tuple[str, ...]:
        """A template and every template it extends, includes or imports ("*": one named at render time)."""
        if name not in self._closures:
            seen: set[str] = set()
            todo = [name]
            while todo:
                n = todo.pop()
                if n in seen:
                    continue
                seen.add(n)
                if n.endswith("*") and n != "*":  # a name's fixed start: every template that starts so
                    todo.extend(self._named(n[:-1]))
                    continue
                try:
                    refs = _references(self.loader.get_source(self.env, n)[0])
                except jinja2.TemplateError:
                    continue
                todo.extend(ref if ref is not None else "*" for ref in refs)
            self._closures[name] = tuple(sorted(seen))
        return self._closures[name]

    def _named(self, prefix: str) -> list[str]:
        """The templates whose names start with `prefix`, in any template folder."""
        if self._listed is None:
            self._listed = sorted(self.env.list_templates())
        return [t for t in self._listed if t.startswith(prefix)]

    def _hash(self, name: str) -> tuple[str, str]:
        if name not in self._hashes:
            if name == "*":
                every = sorted(self.env.list_templates())
                self._hashes[name] = (content_hash("\0".join(f"{t}\0{self._hash(t)[0]}" for t in every)), "")
            elif name.endswith("*"):  # which templates start so: a new one changes the record
                self._hashes[name] = (content_hash("\0".join(self._named(name[:-1]))), "")
            else:
                from site_gen.render.environment import NotText

                try:
                    source, file, _ = self.loader.get_source(self.env, name)
                except NotText as exc:
                    # Not a template (an image beside the templates): its bytes, never decoded, stand for it.
                    digest = hash_limited(exc.filename, MAX_CUSTOM_FILE_BYTES, "template", "a template is read whole")
                    source, file = digest.hex(), exc.filename
                except jinja2.TemplateError:
                    source, file = "", ""
                self._hashes[name] = (content_hash(source), os.path.realpath(file) if file else "")
        return self._hashes[name]

    def hash(self, name: str) -> str:
        """The content hash of one template's source (of every template's, for "*")."""
        return self._hash(name)[0]

    def record(self, name: str) -> tuple[tuple[tuple[str, str], ...], frozenset[str]]:
        """(template, content hash) of a template's closure, and the files they are read from."""
        if name not in self._records:
            closure = self.closure(name)
            pairs = tuple((t, self._hash(t)[0]) for t in closure)
            files = frozenset(f for t in closure if (f := self._hash(t)[1]))
            for t in closure:  # a new template where a computed name may find it names the folder
                if t.endswith("*"):
                    files |= frozenset(os.path.realpath(r / posixpath.dirname(t)) for r in self.roots)
            self._records[name] = (pairs, files)
        return self._records[name]

    def changed(self, names: set[str]) -> None:
        """Templates the watcher named: forget their hashes and every closure that holds them."""
        if not names:
            return
        def touched(closure) -> bool:
            return bool(names & set(closure)) or any(t.endswith("*") and n.startswith(t[:-1]) for t in closure for n in names)
        self._hashes = {k: v for k, v in self._hashes.items() if k not in names and not k.endswith("*")}
        self._closures = {k: v for k, v in self._closures.items() if not touched(v)}
        self._records = {}
        self._listed = None
        from site_gen.render.environment import forget

        forget(names)


def tree_stamp(root: Path) -> tuple[tuple[str, str], ...]:
    """Every file under `root`, at any depth, with its size and time (docs_dir's pages are found again
    when this changes); reports.folder_stamp is one report folder's, one level deep."""
    if not root.is_dir():
        return ()
    out = []
    for path in sorted(root.rglob("*")):
        try:
            st = path.stat()
        except OSError:
            continue
        out.append((path.as_posix(), f"{st.st_mtime_ns}:{st.st_size}"))
    return tuple(out)
