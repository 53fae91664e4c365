"""What every importer shares: reading source files (with their SHA-256 and line numbers), the
provenance record of each figure, a seeded paired bootstrap, and writing the receipt.

Bad input is refused as a `SitegenError` naming the source file and the line or JSON path.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterable
from urllib.parse import quote

import numpy as np

from site_gen.core.diagnostics import refuse
from site_gen.core.errors import SitegenError
from site_gen.core.files import check_inside
from site_gen.core.paths import resolve_path
from site_gen.importers import reading
from site_gen.receipts.load import SUMMARY, check_report_id, decode_text, validate_meaning, validate_schema
from site_gen.receipts.parse import first_problem, parse_text
from site_gen.importers.options import ImportOptions

MAX_SOURCE_BYTES = reading.MAX_SOURCE_BYTES
# What must also hold before a receipt is written, beyond the receipt itself: the data folder's
# reports with it (a series of one setup, a commit once: analysis/series.py `check`). The layer above
# (api.py) sets it for one import; it is called with the receipt's data and its target file.
ACCEPT: ContextVar[Callable[[dict, Path], None] | None] = ContextVar("ACCEPT", default=None)
# What an id of a source (a run, a comparison, a part of a config name) may be: a name, never a path.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


@dataclass
class Source:
    """One original file: its path as the receipt names it (relative to the source root) and SHA-256."""

    path: Path
    name: str
    sha256: str
    text: str
    raw: bytes = field(default=b"", repr=False)


def check_id(value: Any, what: str, file, where: str | None) -> str:
    """An id named by the user or a source (a run, a comparison): a name, never a path."""
    if not isinstance(value, str) or not _ID.fullmatch(value) or ".." in value:
        shown = json.dumps(value, ensure_ascii=False)[:80] if not isinstance(value, str) else repr(value[:80])
        raise SitegenError(f"{what} {shown} is not an id: ids start with a letter or digit and use only letters, "
                           "digits, '.', '_' and '-' (no '..', no slash, no space)", file, where)
    return value


def check_name(value: Any, what: str, file, where: str | None) -> str:
    """A name made of ids joined by '/' (a ledger's config `family/id`): never absolute, never `..`."""
    if not isinstance(value, str) or not value:
        raise SitegenError(f"{what} is not a name: expected text such as 'family/config-id'", file, where)
    for part in value.split("/"):
        if not isinstance(part, str) or not _ID.fullmatch(part) or ".." in part:
            raise SitegenError(f"{what} {value[:80]!r} is not a name of ids joined by '/' (each starting with a letter or "
                               "digit, using only letters, digits, '.', '_' and '-'); it may not lead out of its folder",
                               file, where)
    return value


def inside(path: Path, root: Path) -> Path:
    """`path` with every link followed, refused unless it lies inside `root` (its links followed too):
    an importer reads only what it was given (reading.py)."""
    return check_inside(path, root, "the source folder", "an importer reads only inside what it was given")


def read_source(path: Path, root: Path) -> Source:
    """A source file inside `root`, refused unread when over MAX_SOURCE_BYTES (its size is asked of
    the file system first: a sparse file of gigabytes is never read into memory): reading.read_found."""
    raw = reading.read_found(path, root, MAX_SOURCE_BYTES)
    real = resolve_path(path)
    name = real.relative_to(resolve_path(root)).as_posix() if real != resolve_path(root) else path.name
    return Source(path, name, hashlib.sha256(raw).hexdigest(), decode_text(raw, path), raw)


def parse_json(src: Source) -> Any:
    """The source's JSON, through sitegen's own careful parser: nesting, NaN, huge numbers, duplicate
    keys and characters that cannot be written are refused at their place."""
    if not src.text.strip():
        raise SitegenError("file is empty; expected JSON", src.path, "$")
    return parse_text(src.text, src.raw, src.path)


def parse_jsonl(src: Source) -> list[tuple[int, dict]]:
    """(line number, row) of every non-blank line; a line that does not parse is refused by number
    (the last one, cut short, as truncated)."""
    lines = src.text.split("\n")
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = parse_text(line, line.encode("utf-8", "surrogatepass"), src.path)
        except SitegenError as exc:
            last = n == len(lines) or all(not rest.strip() for rest in lines[n:])
            if exc.message.startswith("invalid JSON") and last and not src.text.endswith("\n"):
                raise SitegenError(f"truncated row (the file ends inside it): {exc.message}", src.path, f"line {n}") from None
            at = exc.where or ""
            at = at.replace("line 1 column", "column", 1) if at.startswith("line 1 column") else at
            raise SitegenError(f"row is not valid: {exc.message}" if exc.message.startswith("invalid JSON") else exc.message,
                               src.path, f"line {n}" + (f", {at}" if at and at != "$" else "")) from None
        if not isinstance(row, dict):
            raise SitegenError(f"expected a JSON object per line, got {type(row).__name__}", src.path, f"line {n}")
        out.append((n, row))
    if not out:
        raise SitegenError("no rows", src.path)
    return out


def field_of(row: dict, key: str, kind, src: Source, line: int, *, minimum: float | None = None,
             above: float | None = None):
    """A row's field, of the type the protocol defines and in its range, or a refusal naming the line."""
    if key not in row:
        raise SitegenError(f"row has no '{key}'", src.path, f"line {line}")
    value = row[key]
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise SitegenError(f"'{key}' is {json.dumps(value, ensure_ascii=False)[:40]}, not a {getattr(kind, '__name__', 'number')}",
                           src.path, f"line {line}")
    check_range(value, key, src.path, f"line {line}", minimum=minimum, above=above)
    return value


def check_range(value, key: str, file, where: str, *, minimum: float | None = None, above: float | None = None):
    """A number within its range (and finite), or a refusal at its place."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            raise SitegenError(f"'{key}' is {value}, not a finite number", file, where)
        if minimum is not None and value < minimum:
            raise SitegenError(f"'{key}' is {value}; it cannot be below {minimum:g}", file, where)
        if above is not None and value <= above:
            raise SitegenError(f"'{key}' is {value}; it must be above {above:g}", file, where)
    return value


NUMBER = (int, float)


def unique_rows(rows: Iterable[tuple[int, dict]], key, what: str, src: Source) -> None:
    seen: dict = {}
    for n, row in rows:
        k = key(row)
        if k in seen:
            raise SitegenError(f"duplicate row: {what} {k} again (first on line {seen[k]})", src.path, f"line {n}")
        seen[k] = n


def lines_text(numbers: Iterable[int]) -> str:
    """`lines 1-16, 49`: the lines a figure was computed from, as ranges."""
    nums = sorted(set(numbers))
    parts, start = [], None
    for i, n in enumerate(nums):
        if start is None:
            start = n
        if i + 1 == len(nums) or nums[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ("line " if len(nums) == 1 else "lines ") + ", ".join(parts)


@dataclass
class Imported:
    """What an importer made: the receipt, where each part of it came from, and the source named."""

    doc: dict
    prov: Provenance
    source: Path


@dataclass
class Provenance:
    """The receipt's `provenance` part: each source file once, each receipt path with its origin."""

    sources: list[dict] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)
    url: str | None = None  # where the source root is published, when known
    # Where each part of the receipt that is no figure came from (titles, dates, engines): not
    # written into the receipt, only used to name the source's file and place when sitegen
    # refuses the receipt the import made.
    origins: list[tuple[str, Path | None, str]] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)

    def cite(self, path: str, src: Source, at: str) -> None:
        """`path` of the receipt is the figure at `at` of `src`."""
        self.figures.append({"path": path, "source": self.source_id(src), "at": at})

    def source_id(self, src: Source) -> str:
        """The id of `src` among the sources, listed with its hash the first time: also for a file a
        figure is recomputed from beside the one it is cited to (its place names the other file)."""
        ids = {s["file"]: s["id"] for s in self.sources}
        if src.name not in ids:
            entry = {"id": f"s{len(self.sources) + 1}", "file": src.name, "sha256": src.sha256}
            if self.url:
                entry["url"] = (self.url.rstrip("/") + "/blob/HEAD/" + quote(src.name)) if "github.com" in self.url else self.url
            self.origins.append((f"$.provenance.sources[{len(self.sources)}]", src.path, "the file itself"))
            self.sources.append(entry)
            ids[src.name] = entry["id"]
        self.files[ids[src.name]] = src.path
        return ids[src.name]

    def note(self, path: str, file: Path | None, at: str) -> None:
        """`path` of the receipt was made from `file` at `at` (a JSON path or lines)."""
        self.origins.append((path, file, at))

    def origin(self, where: str | None) -> tuple[Path | None, str] | None:
        """The source file and place behind a receipt path: the longest cited or noted path that holds it."""
        if not where:
            return None
        best: tuple[int, Path | None, str] | None = None
        places = [(f["path"], self.files.get(f["source"]), f["at"]) for f in self.figures] + self.origins
        for path, file, at in places:
            if where == path or where.startswith(path) and where[len(path)] in ".[":
                if best is None or len(path) > best[0]:
                    best = (len(path), file, at)
        return (best[1], best[2]) if best else None

    def part(self) -> dict:
        return {"sources": self.sources, "figures": self.figures}


BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
BOOTSTRAP_METHOD = "paired bootstrap over the shared item ids, percentile interval"


def paired_bootstrap(baseline: np.ndarray, candidate: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                     seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """Mean paired difference (candidate − baseline, one value per shared item) and its 95%
    percentile interval from resampling items with replacement; seeded, so the same input gives
    the same interval."""
    d = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(d), size=(resamples, len(d)))
    means = np.sort(d[picks].mean(axis=1))
    low, high = np.quantile(means, [0.025, 0.975], method="lower")
    return float(d.mean()), float(low), float(high)


_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    """An id made of a label (`4bpw TR3 (Brandon)` -> `4bpw-TR3-Brandon`)."""
    out = _SLUG.sub("-", text).strip("-._")[:100]
    return out or "x"


def _new_file_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def check_receipt(doc: dict, target: Path, prov: Provenance | None, source: Path, text: str | None = None) -> str:
    """The receipt's text once it passes what `sitegen check --strict` checks of a receipt (its
    characters, schema, meaning and markdown bounds); a refusal is the source's error, named by
    the file and place the refused part was made from."""
    from site_gen.receipts import markdown_bounds as md
    from site_gen.receipts.markdown_bounds import receipt_texts

    def refused(message: str, where: str | None):
        found = prov.origin(where) if prov is not None else None
        file, at = found if found else (source, None)
        return SitegenError(f"{message} (in the receipt this source makes, at {where})" if where else message, file, at)

    bad = first_problem(doc)
    if bad:
        raise refused(bad[1], bad[0])
    text = text or json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    try:
        data = parse_text(text, text.encode("utf-8"), target)
        refuse(validate_schema(data, target))  # what an importer writes has no field sitegen would drop
        validate_meaning(data, target)
        meta = data["report"]
        report = type("Imported", (), {"lede": meta.get("lede", ""), "meta": meta, "data": data})()
        texts = list(receipt_texts(report))
        md.check_receipt_budget(texts, target)
        for where, value in texts:
            try:
                md.check_receipt_markdown(value)
            except md.InlineError as exc:
                raise SitegenError(str(exc), target, where) from None
    except SitegenError as exc:
        raise refused(exc.message, exc.where) from None
    return text


def check_output(out: Path, data_dir: Path, force: bool) -> Path:
    """OUT/SUMMARY.json, once OUT is a report folder directly in the data folder (not a link) and
    holds no receipt (unless `force`): checked before any source is read, and again before writing."""
    check_report_id(out.name, out, "-o")
    if resolve_path(out.parent) != resolve_path(data_dir):
        raise SitegenError(f"-o must name a report folder directly in the data folder {data_dir} "
                           f"(data_dir of the config), such as {data_dir / out.name}", out)
    if out.is_symlink():
        raise SitegenError("the report folder is a link; refused (-o names a folder of its own in the data folder)", out)
    target = out / SUMMARY
    if os.path.lexists(target) and not force:
        raise SitegenError("a receipt is already there; pass --force to replace it", target)
    if os.path.islink(target) or os.path.lexists(target) and not os.path.isfile(target):
        raise SitegenError("is not a plain file; refused", target)
    return target


def write_receipt(doc: dict, out: Path, *, data_dir: Path, force: bool = False, prov: Provenance | None = None,
                  source: Path | None = None, text: str | None = None) -> Path:
    """Writes OUT/SUMMARY.json atomically (mode 0644 under the usual umask), once it passes what
    `sitegen check --strict` checks. OUT must be a report folder directly in the data folder; a
    receipt already there is replaced only with `force`."""
    target = check_output(out, data_dir, force)
    text = check_receipt(doc, target, prov, source or out, text)  # `text`: the receipt as its importer laid it out
    accept = ACCEPT.get()
    if accept is not None:  # with the data folder's reports: what the next build would refuse, refused now
        accept(json.loads(text), target)
    out.mkdir(parents=True, exist_ok=True)  # its parent is the data folder, made if it is not there yet
    fd, tmp = tempfile.mkstemp(prefix=".import-", suffix=".json", dir=out)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            os.fchmod(f.fileno(), _new_file_mode())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


# -- a series and its commit (schema 1.3) ---------------------------------------------------------

SERIES_VERSION = 1.3


def stamp(doc: dict, opts: ImportOptions) -> dict:
    """The receipt with the series and commit the command line names (`--series`, `--commit`): both
    optional fields of `report`, schema 1.3 (which reads every receipt of 1, 1.1 and 1.2). Without
    them the receipt is as before: its series is then its setup, read from its files (engine, model,
    hardware, workload), and its point is named by the version its files record."""
    series, commit = opts.series, opts.commit
    if not series and not commit:
        return doc
    out = {**doc, "schema_version": max(SERIES_VERSION, doc["schema_version"]), "report": dict(doc["report"])}
    if series:
        out["report"]["series"] = series
    if commit:
        out["report"]["commit"] = commit
        # Reports of one series read alike but for their point: the title names it (search results,
        # a browser's tab and the dashboard then tell one night from the next).
        if commit not in out["report"]["title"]:
            out["report"]["title"] = f"{out['report']['title']} · {commit}"[:300]
    return out
