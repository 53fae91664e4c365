"""Warnings as one kind of record, collected in one place, and `--strict` decided once.

A `Diagnostic` is text (`FILE: WHERE: MESSAGE`, the file as the user typed it, as `SitegenError`
prints it), so it prints, compares and sorts as the warnings always did, and it keeps its parts.
Every warning a build finds is such a record, and they all end in the one list its result carries
(`BuildResult.warnings`: the receipts' unknown fields, statements their data contradicts, links to
missing pages, docs files a generated page replaces, a previous site's copy that stays behind);
the store keeps them with their parts (`as_data`, `from_data`), and the build cache's own trouble
(`building/cache.py` `notes`) is said in the same records. Nothing below the front ends knows of
`--strict`: a front end that is strict turns the collected warnings into the error with `refuse`,
once, before anything is written (the MkDocs plugin hands them to MkDocs' logger instead, whose
own `--strict` counts them, as it counts its own).
"""
from __future__ import annotations

from pathlib import Path

from site_gen.core.errors import SitegenError, located

# What a warning of something left out says it becomes under --strict.
IGNORED = " (ignored; an error under --strict)"


class Diagnostic(str):
    """One warning: `file` (as given), `where` (a JSON path or `line N`), `message`; as text, located."""

    message: str
    file: str | None
    where: str | None

    def __new__(cls, message: str, file: str | Path | None = None, where: str | None = None) -> Diagnostic:
        self = super().__new__(cls, located(message, file, where))
        self.message, self.file, self.where = message, str(file) if file is not None else None, where
        return self

    def __reduce__(self):  # to and from the build's worker processes
        return Diagnostic, (self.message, self.file, self.where)

    def as_data(self) -> list[str | None]:
        """Its parts as JSON data (`[message, file, where]`), for a store entry: `from_data` reads it back."""
        return [self.message, self.file, self.where]

    @classmethod
    def from_data(cls, data: object) -> Diagnostic | None:
        """The diagnostic `as_data` wrote, or None when `data` is not such a list (an entry damaged)."""
        if (isinstance(data, list) and len(data) == 3 and isinstance(data[0], str)
                and all(part is None or isinstance(part, str) for part in data[1:])):
            return cls(data[0], data[1], data[2])
        return None


def from_data(items: object) -> list[Diagnostic] | None:
    """Diagnostics as a store entry keeps them (`Diagnostic.as_data` each), or None when one is not."""
    if not isinstance(items, list):
        return None
    out = [Diagnostic.from_data(item) for item in items]
    return None if any(d is None for d in out) else out  # type: ignore[return-value]


def refuse(warnings: list[Diagnostic]) -> None:
    """`--strict`: the first warning (of any) raised as the error it is, naming how many more there
    are; nothing when there is none."""
    if not warnings:
        return
    first = warnings[0]
    message = first.message.removesuffix(IGNORED)
    more = len(warnings) - 1
    if more:
        message += f" (and {more} more warning{'s' if more != 1 else ''}; warnings are errors under --strict)"
    raise SitegenError(message, first.file, first.where)
