"""Warnings and errors as one kind of record: a file, a place in it, a message.

A `Diagnostic` is text (`FILE: WHERE: MESSAGE`, the file as the user typed it, as `SitegenError`
prints it), so it prints, compares and sorts as the warnings always did, and it keeps its parts.
`warning()` is the one place where `--strict` is decided: under it the problem is raised as the
error it would be, otherwise its record is returned for the caller's list.
"""
from __future__ import annotations

from pathlib import Path

from site_gen.core.errors import SitegenError, located


class Diagnostic(str):
    """One warning: `file` (as given), `where` (a JSON path or `line N`), `message`; as text, located."""

    def __new__(cls, message: str, file: str | Path | None = None, where: str | None = None) -> Diagnostic:
        self = super().__new__(cls, located(message, file, where))
        self.message, self.file, self.where = message, str(file) if file is not None else None, where
        return self

    def __reduce__(self):  # to and from the build's worker processes
        return Diagnostic, (self.message, self.file, self.where)


def warning(message: str, file: str | Path | None = None, where: str | None = None, *, strict: bool) -> Diagnostic:
    """A problem that is a warning, or under `strict` an error: raises it, or returns its record."""
    if strict:
        raise SitegenError(message, file, where)
    return Diagnostic(message, file, where)
