"""The builder's reports: each folder's record (site_gen/building/environment.py), its loaded receipt
and its analysis, kept between builds until the folder changes.

A folder is looked at again when the preview's watcher names it (`changed`) or, without a
watcher, when its files' names, sizes or times differ; a changed SUMMARY.json reloads the
receipt, a changed file beside it rereads just the lede. With the persistent store on, a folder
whose content an earlier build saw is known by its record alone: its receipt is parsed, checked
and analysed only if its files must be made again (or an author block shows it).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from site_gen.analysis.report import Analysis, Piece, analyse
from site_gen.building.environment import ReportRecord, collect
from site_gen.building.store import Store, folder_hash
from site_gen.core.config import Config
from site_gen.receipts.load import SUMMARY, Report, load_report, load_reports, read_lede, report_folders


def folder_stamp(folder: Path) -> tuple:
    """Names, sizes and modification times of a report folder's files: a changed receipt or prose file changes it."""
    out = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return ()
    for entry in entries:
        try:
            st = entry.stat()
        except OSError:
            continue
        out.append((entry.name, st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(out)


def _has_links(folder: Path) -> bool:
    """Whether a report folder is, or holds, a symbolic link."""
    if os.path.islink(folder):
        return True
    try:
        with os.scandir(folder) as entries:
            return any(e.is_symlink() for e in entries)
    except OSError:
        return False


@dataclass
class Loaded:
    report: Report | None           # None: known by its record alone, loaded when needed
    stamp: tuple
    summary: tuple                  # the SUMMARY.json part of `stamp`
    record: ReportRecord | None = None
    content: str | None = None      # the folder's content hash (the store's name for its record)

    @classmethod
    def of(cls, report: Report | None, stamp: tuple, record: ReportRecord | None = None,
           content: str | None = None) -> Loaded:
        return cls(report, stamp, tuple(s for s in stamp if s[0] == SUMMARY), record, content)


class ReportStore:
    """Reports by folder and analyses by report id, each reused while its receipt is unchanged."""

    def __init__(self, config: Config, *, watched: bool, stats: dict[str, int], persist: Store | None = None):
        self.config = config
        self.persist = persist or Store(config)  # the persistent store (off unless the front end turns it on)
        # Watched (the preview): every change under data_dir is reported through `changed()`, so a
        # rebuild looks only at the report folders it names instead of every folder of the site.
        self.watched = watched
        self.stats = stats
        self.folders: list[Path] | None = None  # report folders as last listed
        self._linked: set[Path] = set()          # ... those that are, or hold, a symbolic link
        self._rescan = True
        self.loaded: dict[Path, Loaded] = {}
        self._reload: set[Path] = set()      # report folders whose SUMMARY.json changed
        self._reprose: set[Path] = set()     # report folders where another file changed
        self.analyses: dict[str, tuple[str, Analysis]] = {}  # report id -> (sha256, analysis)
        self.pieces: dict[str, dict[str, Piece]] = {}  # report id -> each section's analysis (watched only)

    def changed(self, path: Path) -> None:
        """A path under data_dir changed (the data folder itself: list the folders again)."""
        data = self.config.data_dir.resolve()
        if path == data:
            self._rescan = True
            return
        parts = path.relative_to(data).parts
        folder = self.config.data_dir / parts[0]
        (self._reload if len(parts) == 1 or parts[1] == SUMMARY else self._reprose).add(folder)

    def _report_folders(self) -> tuple[list[Path], set[Path] | None]:
        """The report folders, and which of them may have changed (None: any of them)."""
        if not self.watched or self.folders is None or self._rescan:
            self._rescan = False
            self.folders = report_folders(self.config.data_dir)
            self._linked = {f for f in self.folders if _has_links(f)}
            return self.folders, None
        named = self._reload | self._reprose
        listed = set(self.folders)
        for folder in named:
            # A folder the watcher named may have gained or lost its receipt, or come or gone whole.
            if os.path.isdir(folder) and os.path.lexists(folder / SUMMARY):
                listed.add(folder)
            else:
                listed.discard(folder)
            (self._linked.add if _has_links(folder) else self._linked.discard)(folder)
        if len(listed) != len(self.folders) or not listed.issuperset(self.folders):
            self.folders = sorted(listed, key=lambda f: f.name)
        # The watcher names a link's target, never the link: a folder that is or holds a link is
        # looked at on every build (by its files' sizes and times).
        return self.folders, named | self._linked

    def entries(self) -> list[Loaded]:
        """Every report folder's entry, in folder order, each looked at again if it may have changed."""
        folders, named = self._report_folders()
        if not folders:
            load_reports(self.config.data_dir, max_bytes=self.config.max_receipt_bytes)  # says why
        out = []
        for folder in folders:
            cached = self.loaded.get(folder)
            if named is not None and cached is not None and folder not in named:
                out.append(cached)  # the watcher said nothing of it: unchanged
                continue
            out.append(self._entry(folder, cached))
        # Every folder listed has its entry now, so a size that differs means some entry is of a folder
        # gone. Keyed again by this listing's own folder objects after each full listing: a lookup by
        # the same object is an identity test, by an equal one (a forked worker's, unpickled, or an
        # earlier listing's) pathlib's comparison of parts (~3 ms a rebuild at a thousand reports).
        if named is None or len(self.loaded) != len(folders):
            self.loaded = {folder: self.loaded[folder] for folder in folders}
        return out

    def reports(self) -> list[Report]:
        """Every report, loaded (its receipt parsed and checked)."""
        return [self.report_of(e) for e in self.entries()]

    def _entry(self, folder: Path, cached: Loaded | None) -> Loaded:
        stamp = folder_stamp(folder)
        summary = tuple(s for s in stamp if s[0] == SUMMARY)
        # A folder leaves _reload / _reprose only once it loaded: one that failed stays marked,
        # so the next build tries it again (and fails again) however few folders the watcher names.
        if cached and folder not in self._reload and cached.summary == summary:
            if cached.stamp != stamp or folder in self._reprose:
                if cached.report is None:  # known by its record: the folder's content says whether it holds
                    return self.known(folder, stamp)
                report = self._reread_prose(cached.report)
                keep = cached.record if report is cached.report else None
                cached = self.loaded[folder] = Loaded.of(report, stamp, keep, cached.content)
                self._reprose.discard(folder)
            return cached
        return self.known(folder, stamp)

    def mostly_stored(self, folders: list[Path]) -> bool:
        """Whether the store holds the records of most of the first, middle and last folders as they
        are now: a sample that tells a build whose reports are mostly unchanged (most of its work is
        a few links a report) from one that finds a previous site but whose every entry misses (a
        config edited, another sitegen)."""
        if not self.persist.on or not folders:
            return False
        sample = {folders[0], folders[len(folders) // 2], folders[-1]}
        return 2 * sum(self.persist.record(f, folder_hash(f)) is not None for f in sample) > len(sample)

    def known(self, folder: Path, stamp: tuple) -> Loaded:
        """A folder's entry: its record from the persistent store when an earlier build saw this
        content, else its receipt loaded now."""
        content = folder_hash(folder) if self.persist.on else None
        record = self.persist.record(folder, content)
        if record is not None and record.id == folder.name:
            self.stats["from store"] = self.stats.get("from store", 0) + 1
            entry = Loaded.of(None, stamp, record, content)
        else:
            entry = Loaded.of(self.load(folder), stamp, None, content)
        self._reload.discard(folder)
        self._reprose.discard(folder)
        self.loaded[folder] = entry
        return entry

    def report_of(self, entry: Loaded) -> Report:
        """The entry's report, its receipt loaded now if only its record was known."""
        if entry.report is None:
            assert entry.record is not None  # an entry knows its report or its record
            entry.report = self.load(self.config.data_dir / entry.record.id)
        return entry.report

    def record_of(self, entry: Loaded) -> ReportRecord:
        """The entry's record, made from its analysis if the store had none (and kept there)."""
        if entry.record is None or (entry.report is not None and entry.record.sha256 != entry.report.sha256):
            report = self.report_of(entry)  # the entry's own: one without a record has its report
            entry.record = collect(self.analysis(report))
            folder = report.folder
            if self.persist.on:
                entry.content = entry.content or folder_hash(folder)
                self.persist.put_record(folder, entry.content, entry.record)
        return entry.record

    def analysis_of(self, report_id: str) -> Analysis:
        """A report's analysis by its id (its receipt loaded first if need be)."""
        entry = self.loaded.get(self.config.data_dir / report_id)
        if entry is None:
            raise KeyError(report_id)
        return self.analysis(self.report_of(entry))

    def load(self, folder: Path) -> Report:
        """The folder's report, read and checked."""
        self.stats["loaded"] = self.stats.get("loaded", 0) + 1
        return load_report(folder, self.config.data_dir, max_bytes=self.config.max_receipt_bytes)

    def _reread_prose(self, report: Report) -> Report:
        """Only a file beside SUMMARY.json changed: reread the lede, keep the parsed receipt."""
        lede = read_lede(report.folder, report.meta.get("lede", ""), self.config.data_dir, self.config.max_receipt_bytes)
        return report if lede == report.lede else dataclasses.replace(report, lede=lede)

    def analysis(self, report: Report) -> Analysis:
        cached = self.analyses.get(report.id)
        if cached and cached[0] == report.sha256:
            a = cached[1]
            if a.report is not report:
                a = dataclasses.replace(a, report=report)
                self.analyses[report.id] = (report.sha256, a)
            return a
        # Watched (the preview), each section's piece is kept: after an edit only the sections whose
        # part (or the report part) changed are analysed again, and their views and tables remade.
        pieces = self.pieces.setdefault(report.id, {}) if self.watched else None
        before = dict(pieces or {})
        a = analyse(report, self.config.noise_band, self.config.ratio_scale, self.config.headline_input, pieces, self.config.slo)
        self.stats["analysed"] = self.stats.get("analysed", 0) + 1
        if cached and pieces:
            kept = {name for name, piece in pieces.items() if before.get(name) is piece}
            self.stats["sections kept"] = self.stats.get("sections kept", 0) + len(kept)
            _carry(cached[1], a, kept)
        self.analyses[report.id] = (report.sha256, a)
        return a

    def keep(self, a: Analysis) -> None:
        """Keeps `a` (a lighter copy of a report's analysis) in place of the one it was made from, and
        its report as the folder's (one known by its record alone too: a worker's)."""
        self.analyses[a.report.id] = (a.report.sha256, a)
        loaded = self.loaded.get(a.report.folder)
        known = (loaded.report or loaded.record) if loaded is not None else None
        if loaded is not None and known is not None and known.sha256 == a.report.sha256:
            loaded.report = a.report

    def drop(self, report_id: str) -> None:
        """Forgets a report's analysis and loaded receipt (its record stays): a one-shot build that
        has written a report's files needs nothing more of it."""
        self.analyses.pop(report_id, None)
        entry = self.loaded.get(self.config.data_dir / report_id)
        if entry is not None and entry.record is not None:
            entry.report = None

    def forget(self, ids: set[str]) -> None:
        """Drops the analyses of reports no longer in the site."""
        for rid in set(self.analyses) - ids:
            del self.analyses[rid]
        for rid in set(self.pieces) - ids:
            del self.pieces[rid]


def _carry(old: Analysis, new: Analysis, kept: set[str]) -> None:
    """The display data (view, CSV tables and files) of each section whose piece `new` took from `old`:
    each is made from that section's own part of the analysis only (render/parts.py `own_part`)."""
    from site_gen.sections import all_sections

    for s in all_sections():
        if s.name in kept:
            for key in (s.view_key, ("csv", s.key), ("csv bytes", s.key)):
                if key in old.displayed:
                    new.displayed[key] = old.displayed[key]
