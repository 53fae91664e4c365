"""A warm `sitegen build` (site_gen/building/site_cache.py): nothing changed, nothing done; the output is
still byte for byte a cold build's, and a damaged entry or a hand-edited site is never trusted."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from site_gen.building import cache, site_cache
from site_gen.building.builder import build_files
from site_gen.core.config import load_config
from site_gen.building.write import MANIFEST

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

# A build in a process of its own (as the `sitegen` command runs), saying whether it had to load
# the pipeline (pandas): a site found already built does not.
SCRIPT = ("import sys; sys.argv = ['sitegen', 'build', '-q', '--cache-dir', sys.argv[1], '-d', sys.argv[2]]\n"
          "from site_gen.cli import main\n"
          "code = main()\n"
          "print('full' if 'pandas' in sys.modules else 'reused')\n"
          "raise SystemExit(code)\n")


def tree(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def build(project: Path, cache_dir: Path, site: Path) -> str:
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(cache_dir), str(site)], cwd=project,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_warm_build_reuses_and_equals_a_cold_build_and_distrusts_damage(small_project, tmp_path, monkeypatch):
    # Two of the example's reports, one linking to the other (what is kept and when does not depend on
    # how many). One process: forked workers make each report's entry without the others, so a report
    # that links to another has a second entry, of its files with the links (made after them, by the builder).
    monkeypatch.setenv("SITEGEN_PARALLEL_MIN_REPORTS", str(10 ** 9))
    project, cache_dir, site = small_project, tmp_path / "cache", tmp_path / "site"
    config = load_config(project / "mkdocs.yml", site)
    cold = {name: hashlib.sha256(data).hexdigest() for name, data in build_files(config).files.items()}
    assert build(project, cache_dir, site) == "full"
    assert build(project, cache_dir, site) == "reused"
    assert {n: h for n, h in tree(site).items() if n != MANIFEST} == cold
    # A damaged entry (one byte of its list of files) is not used, nor one whose site folder was
    # edited by hand: the build would run in full (as the edits below show it does).
    key = site_cache.inputs_key(config)
    cache.configure(cache_dir)
    try:
        assert site_cache.unchanged(config, key) is not None
        page = site / "index.html"
        page.write_bytes(page.read_bytes().replace(b"<title>", b"<title>edited "))
        assert site_cache.unchanged(config, key) is None
        page.write_bytes(page.read_bytes().replace(b"<title>edited ", b"<title>"))
        entry = next(p for p in (cache_dir / "sites").rglob("*") if p.is_file())
        blob = bytearray(entry.read_bytes())
        blob[-2] ^= 0x01
        entry.write_bytes(bytes(blob))
        assert site_cache.unchanged(config, key) is None
    finally:
        cache.configure()

    # One report's prose changed: the other report's files come from its entry (not made again, so
    # not written again), and the site is what a build without any cache makes.
    reports = {p: p.stat().st_ino for p in (cache_dir / "files").rglob("*") if p.is_file()}
    assert len(reports) == len(list(project.glob("data/*/SUMMARY.json")))  # one entry a report
    lede = sorted(project.glob("data/*/lede.md"))[0]
    lede.write_text(lede.read_text() + "\nOne more line.\n")
    assert build(project, cache_dir, site) == "full"
    reference = {name: hashlib.sha256(data).hexdigest() for name, data in build_files(config).files.items()}
    assert {n: h for n, h in tree(site).items() if n != MANIFEST} == reference != cold
    assert {p: p.stat().st_ino for p in reports} == reports  # kept as they were: the unchanged one was used
    # Damaged report entries (their files, and the list of them a build links from the previous
    # site by) are made again, not used.
    for path in [*(cache_dir / "files").rglob("*"), *(cache_dir / "files-index").rglob("*")]:
        if path.is_file():
            blob = bytearray(path.read_bytes())
            blob[len(blob) // 2] ^= 0x01
            path.write_bytes(bytes(blob))
    lede.write_text(lede.read_text() + "\nAnd another.\n")
    made = tree(site)
    assert build(project, cache_dir, site) == "full"
    reference = {name: hashlib.sha256(data).hexdigest() for name, data in build_files(config).files.items()}
    assert {n: h for n, h in tree(site).items() if n != MANIFEST} == reference and tree(site) != made
    assert any(p.stat().st_ino != ino for p, ino in reports.items())  # the unchanged report's, made again


def test_every_input_is_in_the_key(project, tmp_path):
    cache.configure(tmp_path / "cache")
    try:
        config = load_config(project / "mkdocs.yml")
        first = site_cache.inputs_key(config)
        assert first and first == site_cache.inputs_key(config)
        lede = next(project.glob("data/*/lede.md"))
        lede.write_text(lede.read_text() + "\nOne more line.\n")
        second = site_cache.inputs_key(config)
        page = next(project.glob("docs/*.md"))
        page.write_text(page.read_text() + "\n")
        third = site_cache.inputs_key(config)
        (project / "mkdocs.yml").write_text((project / "mkdocs.yml").read_text().replace("site_name:", "site_name: X"))
        fourth = site_cache.inputs_key(load_config(project / "mkdocs.yml"))
        assert len({first, second, third, fourth}) == 4
        # An input the key cannot follow (a symbolic link) turns the warm path off, never on.
        (project / "data" / "link").symlink_to(lede)
        assert site_cache.inputs_key(config) is None
    finally:
        cache.configure()


# A build in a process of its own that says which reports it analysed (the others' records and
# files came from the persistent store, site_gen/building/store.py).
COUNTING = ("import sys; sys.argv = ['sitegen', 'build', '-q', '--cache-dir', sys.argv[1], '-d', sys.argv[2]]\n"
            "import site_gen.building.reports as store\n"
            "analyse, seen = store.analyse, []\n"
            "store.analyse = lambda report, *a, **k: (seen.append(report.id), analyse(report, *a, **k))[1]\n"
            "from site_gen.cli import main\n"
            "code = main()\n"
            "print(' '.join(sorted(seen)))\n"
            "raise SystemExit(code)\n")
SMALL_REPORTS = ("cuteafd-v3.0.1", "ledger-gpqa-k4-v080-v090", "ledger-serving-probe-kpoolfix")


def analysed(project: Path, cache_dir: Path, site: Path) -> list[str]:
    out = subprocess.run([sys.executable, "-c", COUNTING, str(cache_dir), str(site)], cwd=project,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_one_receipt_changed_analyses_that_report_only_and_equals_a_cold_build(tmp_path):
    from conftest import ROOT
    project, cache_dir, site = tmp_path / "project", tmp_path / "cache", tmp_path / "site"
    for rid in SMALL_REPORTS:
        shutil.copytree(ROOT / "data" / rid, project / "data" / rid)
    (project / "mkdocs.yml").write_text("site_name: Cached\nplugins:\n  - sitegen:\n      data_dir: data\n")
    config = load_config(project / "mkdocs.yml", site)

    def edit(rid: str, text: str) -> None:
        receipt = project / "data" / rid / "SUMMARY.json"
        receipt.write_text(receipt.read_text().replace('"title": "', f'"title": "{text} ', 1))

    def same_as_cold() -> bool:
        cold = {name: hashlib.sha256(data).hexdigest() for name, data in build_files(config).files.items()}
        return {n: h for n, h in tree(site).items() if n != MANIFEST} == cold

    assert analysed(project, cache_dir, site) == sorted(SMALL_REPORTS)
    edit(SMALL_REPORTS[1], "Edited")
    assert analysed(project, cache_dir, site) == [SMALL_REPORTS[1]] and same_as_cold()


# As COUNTING, in a forked build: each report analysed (by a worker or the main process), one line
# per analysis, appended to the file sys.argv[3] names.
ANALYSING = ("import os, sys; sys.argv, seen = ['sitegen', 'build', '-q', '--cache-dir', sys.argv[1], '-d', sys.argv[2]], sys.argv[3]\n"
             "import site_gen.building.reports as store\n"
             "analyse = store.analyse\n"
             "def counted(report, *a, **k):\n"
             "    with open(seen, 'a') as f: f.write(report.id + '\\n')\n"
             "    return analyse(report, *a, **k)\n"
             "store.analyse = counted\n"
             "from site_gen.cli import main\n"
             "raise SystemExit(main())\n")


def test_a_forked_build_with_one_receipt_changed_analyses_that_report_only(tmp_path, forked_builds):
    """Each unchanged report's record (its dashboard and history rows, its links) and files come
    from the store, so neither the workers nor the main process parse or analyse it; the site is
    still a cold build's."""
    from conftest import ROOT
    project, cache_dir, site, reads = tmp_path / "project", tmp_path / "cache", tmp_path / "site", tmp_path / "reads"
    receipt = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text())
    for i in range(forked_builds + 2):
        receipt["report"]["title"], receipt["report"]["date"] = f"Copy {i}", f"2026-01-{i + 1:02d}"
        shutil.copytree(ROOT / "data" / "cuteafd-v4.0.0", project / "data" / f"copy-{i}", ignore=shutil.ignore_patterns("*.py"))
        (project / "data" / f"copy-{i}" / "SUMMARY.json").write_text(json.dumps(receipt))
    (project / "mkdocs.yml").write_text("site_name: Forked\nsite_url: https://example.org/x/\nplugins:\n  - sitegen:\n      data_dir: data\n")

    def build_analysing() -> list[str]:
        reads.write_text("")
        out = subprocess.run([sys.executable, "-c", ANALYSING, str(cache_dir), str(site), str(reads)], cwd=project,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return sorted(reads.read_text().split())

    assert build_analysing() == sorted(f"copy-{i}" for i in range(forked_builds + 2))
    edited = project / "data" / "copy-3" / "SUMMARY.json"
    edited.write_text(edited.read_text().replace('"title": "Copy 3"', '"title": "Copy 3, edited"'))
    assert build_analysing() == ["copy-3"]
    cold = {name: hashlib.sha256(data).hexdigest() for name, data in build_files(load_config(project / "mkdocs.yml", site)).files.items()}
    assert {n: h for n, h in tree(site).items() if n != MANIFEST} == cold
    assert "Copy 3, edited" in (site / "reports" / "copy-3" / "index.html").read_text()


@pytest.mark.parametrize("forked", [False, True])
def test_a_build_lists_what_it_swapped_in_as_reading_the_folder_back_would(tmp_path, forked, monkeypatch):
    """The build cache records the site by each file's hash, from the bytes the build (and its
    workers) wrote, not by reading 9,000 files back: the same listing, first build and second (whose
    unchanged files are linked from the first), beside a dot entry of the host's."""
    from conftest import ROOT, FORKED_REPORTS
    import site_gen.building.builder as build_module

    if forked:
        monkeypatch.setattr(build_module, "PARALLEL_MIN_REPORTS", FORKED_REPORTS)
        monkeypatch.setattr(build_module, "PARALLEL_MIN_WARM_REPORTS", FORKED_REPORTS)
    project, site = tmp_path / "project", tmp_path / "site"
    receipt = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text())
    for i in range(FORKED_REPORTS if forked else 2):
        receipt["report"]["title"], receipt["report"]["date"] = f"Copy {i}", f"2026-01-{i + 1:02d}"
        shutil.copytree(ROOT / "data" / "cuteafd-v4.0.0", project / "data" / f"copy-{i}", ignore=shutil.ignore_patterns("*.py"))
        (project / "data" / f"copy-{i}" / "SUMMARY.json").write_text(json.dumps(receipt))
    (project / "docs").mkdir()
    (project / "docs" / "notes.md").write_text("# Notes\n\nA page of the author's own.\n")
    (project / "mkdocs.yml").write_text("site_name: Listed\nsite_url: https://example.org/x/\nplugins:\n  - sitegen:\n      data_dir: data\n")
    config = load_config(project / "mkdocs.yml", site)
    for edit in ("", "Copy 1, edited"):
        if edit:
            (site / ".well-known").mkdir()
            (site / ".well-known" / "security.txt").write_text("Contact: x\n")
            path = project / "data" / "copy-1" / "SUMMARY.json"
            path.write_text(path.read_text().replace('"title": "Copy 1"', f'"title": "{edit}"'))
        result = build_module.build(config)
        assert result.listing is not None and result.listing == site_cache._listing(site)
    assert (site / ".well-known" / "security.txt").exists() and ".well-known/security.txt" not in result.listing


def test_a_warm_build_links_an_unchanged_reports_files_unread_and_never_a_file_edited_by_hand(project, tmp_path, monkeypatch):
    """With its store, a build links each unchanged report's files from the previous site by their
    recorded hash and signature, without reading them (site_gen/building/listing.py, write.py `link_previous`); a
    file edited in the site since (same size, other bytes) is never linked, and the site is still
    what a build without any cache makes."""
    from site_gen.building import listing
    from site_gen.building.builder import build as build_site
    from site_gen.building.store import Store

    monkeypatch.setattr(listing, "_RACY_NS", 0)  # the files were written moments ago: trust them anyway
    cache.configure(tmp_path / "cache")
    try:
        config = load_config(project / "mkdocs.yml", tmp_path / "site")
        build_site(config, persist=Store(config, enabled=True))
        ledes = sorted(project.glob("data/*/lede.md"))
        changed, other = ledes[0].parent.name, "sglang-llama-3.3-70b-sweep"  # a report that links to no other
        folder = tmp_path / "site" / "reports" / other
        inodes = {p: p.stat().st_ino for p in folder.rglob("*") if p.is_file()}
        read = []
        files = Store.files
        monkeypatch.setattr(Store, "files", lambda self, *inputs: read.append(inputs[0]) or files(self, *inputs))

        ledes[0].write_text(ledes[0].read_text() + "\nOne more line.\n")
        build_site(config, persist=Store(config, enabled=True))
        assert read == [changed]  # the other report's files: linked, their bytes never read
        assert {p: p.stat().st_ino for p in inodes} == inodes
        reference = build_files(config).files
        assert {n: h for n, h in tree(tmp_path / "site").items() if n != MANIFEST} == {
            n: hashlib.sha256(d).hexdigest() for n, d in reference.items()}

        page = sorted(folder.glob("*.html"))[0]
        data = page.read_bytes()
        page.write_bytes(data.replace(b"<title>", b"<titlE>", 1))  # same size, other bytes
        read.clear()
        ledes[0].write_text(ledes[0].read_text() + "\nAnd another.\n")
        build_site(config, persist=Store(config, enabled=True))
        assert sorted(read) == sorted([changed, other])  # the edited report's files taken by bytes
        assert page.read_bytes() == data == reference[f"reports/{other}/{page.name}"]
        assert page.stat().st_ino != inodes[page]
        assert all(p.stat().st_ino == ino for p, ino in inodes.items() if p != page)  # the same bytes: linked
    finally:
        cache.configure()


def test_a_build_counts_as_warm_only_when_the_store_holds_most_of_its_reports(tmp_path):
    """ReportStore.mostly_stored, which decides whether a build beside a previous site forks as a warm
    one (from 48 reports) or as a cold one (from 8 reports' worth): a sample of the first, middle and
    last reports' records, as they are now. One receipt edited keeps it warm; an edited config, under
    which every entry misses, makes it cold."""
    from conftest import ROOT
    from site_gen.building.builder import Builder, build as build_site
    from site_gen.building.store import Store
    from site_gen.receipts.load import report_folders

    project = tmp_path / "project"
    for rid in SMALL_REPORTS:
        shutil.copytree(ROOT / "data" / rid, project / "data" / rid)
    (project / "mkdocs.yml").write_text("site_name: Sampled\nplugins:\n  - sitegen:\n      data_dir: data\n")

    def stored() -> bool:
        config = load_config(project / "mkdocs.yml", tmp_path / "site")
        return Builder(config, persist=Store(config, enabled=True)).store.reports.mostly_stored(report_folders(config.data_dir))

    cache.configure(tmp_path / "cache")
    try:
        assert not stored()  # nothing built yet
        config = load_config(project / "mkdocs.yml", tmp_path / "site")
        build_site(config, persist=Store(config, enabled=True))
        assert stored()
        receipt = project / "data" / SMALL_REPORTS[0] / "SUMMARY.json"
        receipt.write_text(receipt.read_text().replace('"title": "', '"title": "Edited ', 1))
        assert stored()  # two of the three sampled as they were
        receipt = project / "data" / SMALL_REPORTS[2] / "SUMMARY.json"
        receipt.write_text(receipt.read_text().replace('"title": "', '"title": "Edited ', 1))
        assert not stored()  # one of three
        (project / "mkdocs.yml").write_text("site_name: Renamed\nplugins:\n  - sitegen:\n      data_dir: data\n")
        config = load_config(project / "mkdocs.yml", tmp_path / "site")
        build_site(config, persist=Store(config, enabled=True))
        assert stored()
        (project / "mkdocs.yml").write_text("site_name: Sampled again\nplugins:\n  - sitegen:\n      data_dir: data\n")
        assert not stored()  # another config: every entry misses
    finally:
        cache.configure()


def test_the_previous_sites_listing_reads_back_as_written_and_a_bad_one_as_nothing(tmp_path, monkeypatch):
    """listing.py keeps each file's sha256 and signature in one entry of flat lists: read back, each
    name has its own digest and its own five numbers, a file written too close to the listing is
    left out (its bytes are compared instead), and an entry of any other shape reads as nothing."""
    import time

    from site_gen.building import listing

    site = tmp_path / "site"
    site.mkdir()
    now = time.time_ns()
    names = [f"reports/r{i}/page{i}.html" for i in range(50)] + ["index.html"]
    shas = {n: hashlib.sha256(n.encode()).hexdigest() for n in names}
    stats = {n: (100 + i, now - 10 ** 12 + i, 5000 + i, 42, now - 10 ** 12 + i) for i, n in enumerate(names)}
    stats["index.html"] = (7, now, 1, 42, now)  # written just now: racy
    cache.configure(tmp_path / "cache")
    try:
        listing.remember_files(site, {**shas, MANIFEST: "0" * 64}, stats)
        got = listing.previous_files(site)
        assert got == {n: (shas[n], stats[n]) for n in names if n != "index.html"}
        # A file without its signature: the listing is not kept at all (a name could not be linked).
        listing.remember_files(site, {**shas, "extra.html": "1" * 64}, stats)
        assert listing.previous_files(site) == got
        entry_path = next(p for p in (tmp_path / "cache" / "site-files").rglob("*") if p.is_file())
        good = json.loads(entry_path.read_bytes().split(b"\n", 2)[2])
        for bad in ({**good, "signatures": good["signatures"][:-1]},                    # one number short
                    {**good, "signatures": [True] + good["signatures"][1:]},           # not an integer
                    {**good, "sha256": good["sha256"][:-1]},                             # one digit short
                    {**good, "names": ["../outside.html"] + good["names"][1:]},         # a name outside the site
                    {k: v for k, v in good.items() if k != "at"}):                        # a field missing
            cache.write("site-files", entry_path.name, json.dumps(bad).encode())
            assert listing.previous_files(site) == {}, bad
    finally:
        cache.configure()


def test_a_listings_digest_is_of_its_names_and_hashes_whatever_their_order():
    from site_gen.building.listing import listing_digest

    files = {f"p{i}.html": hashlib.sha256(bytes([i])).hexdigest() for i in range(20)}
    same = dict(reversed(list(files.items())))
    assert listing_digest(files) == listing_digest(same)
    # Independently: the sorted "name NUL sha256 newline" lines, hashed.
    text = "".join(f"{n}\0{files[n]}\n" for n in sorted(files))
    assert listing_digest(files) == hashlib.sha256(text.encode()).hexdigest()
    for changed in ({**files, "p3.html": "0" * 64}, {k: v for k, v in files.items() if k != "p0.html"},
                    {**files, "p20.html": files["p0.html"]}, {("x" + k if k == "p1.html" else k): v for k, v in files.items()}):
        assert listing_digest(changed) != listing_digest(files)
