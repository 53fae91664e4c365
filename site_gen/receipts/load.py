"""Receipt folders -> validated `Report` objects: the loading step of the pipeline.

Bad input of any kind becomes one `SitegenError` naming the file and the JSON path (or line) at
fault. The steps have their own modules: `parse` (bytes and JSON), `validate` (the schema),
`meaning` (what the schema cannot say); this one finds the folders and makes the `Report`s.
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_gen.core.diagnostics import IGNORED, Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.core.names import UNRECORDED, engine_label, version_text
from site_gen.receipts.meaning import anchor_key, require, unique_ids, validate_meaning
from site_gen.receipts.parse import BAD_CHAR, read_limited, decode_text, parse_json
from site_gen.core.paths import link_loop, resolve_path
from site_gen.receipts.validate import (SCHEMA_VERSION, fast_validator, validator, is_date, schema, schema_changed,
                               validate_schema)

# The checks are re-exported: sections and tests reach them through this module.
__all__ = ["SUMMARY", "SCHEMA_VERSION", "Engine", "engine_label", "version_text", "Report", "anchor_key", "check_report_id", "decode_text", "is_date",
           "load_report", "load_reports", "parse_json", "read_lede", "report_folders", "require", "schema",
           "schema_changed", "unique_ids", "validate_meaning", "validate_schema", "fast_validator", "validator"]

SUMMARY = "SUMMARY.json"
_FOLDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Engine:
    name: str
    version: str
    image: str = ""
    long_name: str = ""

    @property
    def label(self) -> str:
        return engine_label(self.name, self.version)

    @property
    def version_label(self) -> str:
        return version_text(self.version)


@dataclass
class Report:
    """One report folder: its receipt, validated, plus what the pages need to cite it."""

    id: str
    folder: Path
    file: Path
    data: dict[str, Any]
    sha256: str
    size: int
    lede: str = ""
    warnings: list[Diagnostic] = field(default_factory=list)
    # The receipt's bytes as read and hashed: the site publishes these, not a second read.
    raw: bytes = field(default=b"", repr=False, compare=False)

    @property
    def meta(self) -> dict[str, Any]:
        return self.data["report"]

    @property
    def title(self) -> str:
        return self.meta["title"]

    @property
    def date(self) -> str:
        return self.meta["date"]

    @property
    def baseline(self) -> Engine:
        # A one-setup report (schema 1.2) has no baseline: the pages name its absence.
        if "baseline" not in self.meta["engines"]:
            return Engine(name="no baseline", version=UNRECORDED, long_name="none: a one-setup report")
        return Engine(**self.meta["engines"]["baseline"])

    @property
    def candidate(self) -> Engine:
        return Engine(**self.meta["engines"]["candidate"])

    @property
    def checkpoints(self) -> list[str]:
        return [c["id"] for c in self.meta["checkpoints"]]

    def section(self, name: str) -> dict[str, Any] | None:
        return self.data.get(name)


# -- folders and files ------------------------------------------------------------------------

def check_report_id(name: str, file: str | Path | None = None, where: str | None = None) -> str:
    """A report id is its folder name and its URL (`reports/<id>/`): nothing that could name
    another folder, hide, or escape the data or site folder. Returns the name, or raises."""
    problem = None
    if "/" in name or "\\" in name:
        problem = "contains a slash"
    elif ".." in name:
        problem = "contains '..'"
    elif name.startswith("."):
        problem = "starts with a dot"
    elif not _FOLDER_NAME.fullmatch(name):
        problem = "is not allowed"
    if problem:
        raise SitegenError(f"report folder name {name!r} {problem}: report names start with a letter or digit "
                           "and use only letters, digits, '.', '_' and '-'", file, where)
    return name


def _inside(path: Path, data_dir: Path) -> bool:
    return resolve_path(data_dir) in resolve_path(path).parents


def _safe_folder(folder: Path, data_dir: Path) -> None:
    check_report_id(folder.name, folder)
    if not _inside(folder, data_dir):
        raise SitegenError("report folder is a link that points outside the data folder; refused", folder)


def read_lede(folder: Path, value: str, data_dir: Path, max_bytes: int) -> str:
    """The report's lede: `value` itself, or the text of the markdown file beside SUMMARY.json it names."""
    if value.endswith(".md") and "\n" not in value:
        path = folder / value
        if "/" in value or "\\" in value or value.startswith("."):
            raise SitegenError("lede file must sit beside SUMMARY.json", folder / SUMMARY, "$.report.lede")
        inside = _inside(path, data_dir)  # first: a link loop is no file either, but says so
        if not path.is_file():
            raise SitegenError(f"lede file '{value}' not found beside SUMMARY.json", folder / SUMMARY, "$.report.lede")
        if not inside:
            raise SitegenError("lede file is a link that points outside the data folder; refused", path)
        text = decode_text(read_limited(path, max_bytes, "lede file"), path)
        if m := BAD_CHAR.search(text):
            raise SitegenError(f"text holds the character U+{ord(m.group()):04X}, which a receipt must not contain",
                               path, f"line {text.count(chr(10), 0, m.start()) + 1}")
        return text
    return value


def receipt_file(folder: Path, data_dir: Path) -> Path:
    """The folder's SUMMARY.json, refused when the folder or the file leads out of the data folder."""
    _safe_folder(folder, data_dir)
    file = folder / SUMMARY
    if not _inside(file, data_dir):
        raise SitegenError("SUMMARY.json is a link that points outside the data folder; refused", file)
    return file


def read_receipt(file: Path, max_bytes: int) -> bytes:
    """A receipt's bytes, refused unread when over the size limit."""
    return read_limited(file, max_bytes)


def load_report(folder: Path, data_dir: Path, *, max_bytes: int = 64 << 20, lede: bool = True) -> Report:
    """One report folder, validated. Without `lede`, its prose file is not read (`sitegen compare`
    reads figures only, and a published site's report folder holds the receipt without it)."""
    file = receipt_file(folder, data_dir)
    data, raw = parse_json(file, max_bytes)
    found = validate_schema(data, file)
    try:
        validate_meaning(data, file)
    except SitegenError as exc:
        if not found:
            raise
        # A part dropped as unknown can be why the rest no longer holds together: say so.
        first = found[0]
        raise SitegenError(f"{exc.message} (after dropping the receipt's {first.message.removesuffix(IGNORED)} at "
                           f"{first.where})", exc.file, exc.where) from None
    text = read_lede(folder, data["report"].get("lede", ""), data_dir, max_bytes) if lede else ""
    return Report(id=folder.name, folder=folder, file=file, data=data, sha256=hashlib.sha256(raw).hexdigest(),
                  size=len(raw), lede=text, warnings=found, raw=raw)


def report_folders(data_dir: Path) -> list[Path]:
    """Folders under data_dir that hold a SUMMARY.json, sorted by name for a stable order."""
    resolve_path(data_dir)
    if not data_dir.is_dir():
        raise SitegenError("receipts folder not found (plugins.sitegen.data_dir)", data_dir)
    folders = []
    for entry in sorted(os.scandir(data_dir), key=lambda e: e.name):
        path = Path(entry.path)
        if _is_folder(entry) and os.path.lexists(path / SUMMARY):
            folders.append(path)
    return folders


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError as exc:  # a link loop (ELOOP) or an unreadable link
        if exc.errno == errno.ELOOP:
            raise link_loop(Path(entry.path)) from None
        raise SitegenError(f"cannot read: {exc.strerror}", Path(entry.path)) from None


def load_reports(data_dir: Path, *, max_bytes: int = 64 << 20) -> list[Report]:
    folders = report_folders(data_dir)
    if not folders:
        raise SitegenError(f"no report found: expected folders holding {SUMMARY}", data_dir)
    return [load_report(f, data_dir, max_bytes=max_bytes) for f in folders]


def named_report(data_dir: Path, name: str, *, max_bytes: int = 64 << 20) -> Report:
    """The report `name` names (`sitegen compare OLD NEW`): a report id of `data_dir`, else a folder
    holding SUMMARY.json (another checkout's report, a published site's `reports/<id>/`), or that
    SUMMARY.json itself. Its figures only: its prose file is not read."""
    is_id = "/" not in name and "\\" not in name and name not in ("", ".", "..")
    if is_id and (data_dir / name / SUMMARY).exists():
        return load_report(data_dir / name, data_dir, max_bytes=max_bytes, lede=False)
    path = Path(name)
    folder = path.parent if path.name == SUMMARY and path.is_file() else path
    if name and (folder / SUMMARY).is_file():
        folder = Path(os.path.abspath(folder))
        return load_report(folder, folder.parent, max_bytes=max_bytes, lede=False)
    known = ", ".join(f.name for f in report_folders(data_dir)) if data_dir.is_dir() else "none"
    raise SitegenError(f"no report {name!r}: expected a report id of the data folder ({known}) or a folder holding "
                       f"{SUMMARY}", data_dir)
