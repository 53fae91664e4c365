"""Many reports in one site: the dashboard, history across releases, comparability, supersession."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import FORKED_REPORTS, ROOT, sitegen_here
from htmlutil import NS, cell_text, find_id, parse, tables

V4 = "cuteafd-v4.0.0"
V3 = "cuteafd-v3.0.1"


@pytest.mark.slow
def test_example_dashboard_shows_both_versions(example_site):
    doc = parse(example_site / "index.html")
    t = tables(doc)["reports"]
    titles = [r[0] for r in t[1:]]
    assert titles[0].startswith("CuteAFD v4.0.0 against") and titles[1].startswith("CuteAFD v3.0.1 against")
    assert t[1][5] == "1.22–1.40x" and t[2][5] == "0.32x"
    assert t[1][3].startswith("75 faster · 13 level · 0 slower")


def test_a_row_whose_sides_differ_in_what_the_source_calls_not_comparable_says_so(example_site):
    """The home table says on the row itself when the two sides differ in a field the source's rules
    call not comparable (the llm-k8s runs' hardware, allowed on import), with a link to the report's
    list of what differs; a row of comparable sides says nothing of it. Which rows: from the receipts."""
    doc = parse(example_site / "index.html")
    rows = {a.get("href").split("/")[1]: th for th in doc.iter(f"{NS}th") if th.get("scope") == "row"
            for a in th.iter(f"{NS}a") if a.get("href", "").endswith("/index.html")}
    for folder in sorted((ROOT / "data").iterdir()):
        if not (folder / "SUMMARY.json").is_file():
            continue
        meta = json.loads((folder / "SUMMARY.json").read_text())["report"]
        allowed = [d["field"] for d in meta.get("differs", []) if d.get("allowed")]
        text = cell_text(rows[folder.name])
        links = [a.get("href") for a in rows[folder.name].iter(f"{NS}a")]
        if allowed:
            assert f"the sides differ in {', '.join(allowed)}, not comparable by the source's rules" in text, folder.name
            assert f"reports/{folder.name}/index.html#differs" in links
        else:
            assert "not comparable" not in text and len(links) == 1, folder.name
    assert "vllm-tp4pp2-ib-aa" in rows and "hardware" in cell_text(rows["vllm-tp4pp2-ib-aa"])


def test_what_was_tested_names_each_side_alike_and_once(example_site):
    """The Engine and Against rows name each side the same way, from its receipt: its long name,
    and its label in parentheses only when the long name does not hold it already (an import's
    long name ends with its label: '… · 0-shot (0-shot)' said it twice)."""
    for folder in sorted((ROOT / "data").iterdir()):
        if not (folder / "SUMMARY.json").is_file():
            continue
        engines = json.loads((folder / "SUMMARY.json").read_text())["report"]["engines"]
        rows = {r[0]: r[1] for r in tables(parse(example_site / "reports" / folder.name / "index.html"))["tested-table"]}
        for role, head in (("candidate", "Engine"), ("baseline", "Against")):
            if role not in engines:
                continue
            e = engines[role]
            cell = rows[head].split(", image ")[0]
            assert cell.startswith(e.get("long_name") or e["name"]), (folder.name, head, cell)
            said, _, label = cell.partition(" (")
            assert not label or label.rstrip(")") not in said, (folder.name, head, cell)  # no label said twice


def test_history_shows_kv_and_precision_across_releases(example_site):
    doc = parse(example_site / "history.html")
    k4 = [tbl for fig_id, tbl in tables(doc).items() if fig_id and fig_id.startswith("history-kv")]
    rows = [r for tbl in k4 for r in tbl if r and r[0].startswith("CuteAFD v3.0.1")]
    assert rows == [["CuteAFD v3.0.1", "2026-11-20", "447,488", "1,377,179", "0.32x", "first build"]]
    # v4.0.0 holds 4.32x v3.0.1's KV pool on K4: beyond the noise band, marked and said (issue 31).
    v4 = [r for tbl in k4 for r in tbl if r and r[0].startswith("CuteAFD v4.0.0") and r[2] == "1,931,264"]
    assert v4[0][-1] == "▲ better than CuteAFD v3.0.1: 447,488 → 1,931,264 tokens (4.32x)"
    links = [a.get("href") for a in doc.iter(f"{NS}a") if (a.get("href") or "").startswith("reports/")]
    assert f"reports/{V3}/index.html" in links and f"reports/{V4}/index.html" in links
    # P-A on v3.0.1 is bit-identical to v4.0.0: the same measured difference in both releases.
    series = [tbl for fid, tbl in tables(doc).items() if fid and fid.startswith("history-precision")]
    first = series[0]
    assert first[1][1:3] == first[2][1:3]


def write_report(data_dir, name, receipt):
    folder = data_dir / name
    folder.mkdir(parents=True)
    (folder / "SUMMARY.json").write_text(json.dumps(receipt))


def base_receipt():
    return json.loads((ROOT / "data" / V3 / "SUMMARY.json").read_text())


def small_project(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nplugins:\n  - sitegen:\n      data_dir: data\n")
    (tmp_path / "data").mkdir()
    return tmp_path


def test_panels_that_differ_are_refused(tmp_path):
    project = small_project(tmp_path)
    receipt = base_receipt()
    # The candidate's rows for a P-A measure now come from panel P-B: not comparable.
    receipt["precision"]["results"][0]["candidate"]["rows"] = "pb-k325"
    write_report(project / "data", "r1", receipt)
    result = sitegen_here("build", cwd=project)
    assert result.returncode == 1
    assert "$.precision.results[0].candidate.rows" in result.stderr
    assert "different panels are not comparable" in result.stderr


def test_rows_that_differ_are_refused(tmp_path):
    project = small_project(tmp_path)
    receipt = base_receipt()
    receipt["precision"]["rows"]["pa-other"] = dict(receipt["precision"]["rows"]["pa-k325"], teacher="another teacher")
    receipt["precision"]["results"][0]["candidate"]["rows"] = "pa-other"
    write_report(project / "data", "r1", receipt)
    result = sitegen_here("build", cwd=project)
    assert result.returncode == 1 and "not comparable" in result.stderr and "teacher" in result.stderr


def test_history_keeps_incomparable_receipts_in_separate_series(tmp_path):
    project = small_project(tmp_path)
    a = base_receipt()
    b = base_receipt()
    b["report"]["date"] = "2026-12-01"
    b["report"]["engines"]["candidate"]["version"] = "3.0.2"
    # Same measure, but evaluated on other rows (a new plan): a new series, never a continuation.
    for _key, ident in b["precision"]["rows"].items():
        ident["plan"] = "fidelity-plan-4"
    write_report(project / "data", "a", a)
    write_report(project / "data", "b", b)
    assert sitegen_here("build", "-q", cwd=project).returncode == 0
    doc = parse(project / "site" / "history.html")
    captions = [cell_text(f) for f in doc.iter(f"{NS}figcaption")]
    kl = [c for c in captions if c.startswith("K3.25 · KL, P-A full vocabulary")]
    assert len(kl) == 2
    assert any("fidelity-plan-3" in c for c in kl) and any("fidelity-plan-4" in c for c in kl)


def test_supersedes_keeps_older_reachable(tmp_path):
    project = small_project(tmp_path)
    old = base_receipt()
    new = base_receipt()
    new["report"]["date"] = "2026-11-25"
    new["report"]["title"] = "CuteAFD v3.0.1 rerun"
    new["report"]["supersedes"] = "first"
    write_report(project / "data", "first", old)
    write_report(project / "data", "rerun", new)
    assert sitegen_here("build", "-q", cwd=project).returncode == 0
    doc = parse(project / "site" / "index.html")
    rows = tables(doc)["reports"][1:]
    assert [r[0].split(" CuteAFD")[0] for r in rows] == ["CuteAFD v3.0.1 rerun"]
    older = find_id(doc, "superseded")
    assert older is not None
    links = [a.get("href") for a in doc.iter(f"{NS}a")]
    assert "reports/first/index.html" in links
    assert (project / "site/reports/first/index.html").is_file()


def test_supersedes_unknown_report_is_an_error(tmp_path):
    project = small_project(tmp_path)
    receipt = base_receipt()
    receipt["report"]["supersedes"] = "nope"
    write_report(project / "data", "r1", receipt)
    result = sitegen_here("build", cwd=project)
    assert result.returncode == 1 and "$.report.supersedes" in result.stderr and "nope" in result.stderr


@pytest.mark.slow
def test_dashboard_sorts_and_filters_in_the_browser(example_site, page):
    page.goto((example_site / "index.html").as_uri())
    n = sum(1 for d in (ROOT / "data").iterdir() if (d / "SUMMARY.json").is_file())
    assert page.locator("#reports-count").inner_text() == f"{n} of {n} reports"
    page.fill("#reports-filter", "v3.0.1 against")  # v4.0.0's row names v3.0.1 too, in its versions verdict
    assert page.locator("#reports tbody tr:visible").count() == 1
    page.fill("#reports-filter", "")
    page.click("#reports thead th:nth-child(6) button")  # KV pool, ascending
    # Reports without a KV pool (the imported ones) have no value to sort by (the KV pool column is
    # the sixth; the serving reports' latency column comes after it).
    rows = page.locator("#reports tbody tr")
    first = next(rows.nth(i).inner_text() for i in range(rows.count())
                 if rows.nth(i).locator(":scope > :nth-child(6)").inner_text().strip() != "\u2014")
    assert "v3.0.1" in first
    page.click("#reports thead th:nth-child(6) button")  # descending
    assert "v4.0.0" in page.locator("#reports tbody tr").first.inner_text()
    assert page.errors == []


def many_reports(tmp_path, n):
    project = small_project(tmp_path)
    receipt = json.loads((ROOT / "data" / V4 / "SUMMARY.json").read_text())
    receipt["report"]["lede"] = "A copy."
    for i in range(n):
        receipt["report"]["title"] = f"Copy {i}"
        write_report(project / "data", f"r{i:03d}", receipt)
    return project


@pytest.mark.slow
def test_parallel_cold_build_equals_sequential(tmp_path, forked_builds):
    from site_gen.building.builder import Builder, made_by_workers
    from site_gen.core.config import load_config

    project = many_reports(tmp_path, FORKED_REPORTS)
    config = load_config(project / "mkdocs.yml")
    parallel = Builder(config)
    made_by_workers(config, parallel.store, None, None)
    assert len(parallel.store.reports.loaded) == FORKED_REPORTS  # the workers did the reports
    files = parallel.build().files
    assert parallel.stats.get("rendered", 0) <= 3  # only the site-wide pages were left to render
    import site_gen.building.builder as b
    saved = b.PARALLEL_MIN_REPORTS
    b.PARALLEL_MIN_REPORTS = 10 ** 9
    try:
        plain = Builder(config).build().files
    finally:
        b.PARALLEL_MIN_REPORTS = saved
    assert files == plain


def test_a_few_large_receipts_fork_as_many_small_ones_do_and_build_the_same(tmp_path, monkeypatch):
    """Reports are weighed by their receipt's bytes: three copies of the example's 225 kB receipt
    (1.7 reports each) do not reach the default threshold, but each is worth 225 reports when a
    report's unit is 1 kB, and they fork workers; the site equals a sequential build's; one report
    alone never forks."""
    from site_gen.building import workers
    from site_gen.building.builder import PARALLEL_MIN_REPORTS, Builder, made_by_workers
    from site_gen.core.config import load_config

    project = many_reports(tmp_path, 3)
    folders = sorted(p.parent for p in (project / "data").glob("*/SUMMARY.json"))
    sizes = [(f / "SUMMARY.json").stat().st_size for f in folders]
    assert workers.weights(folders) == [max(1.0, n / workers.REPORT_BYTES) for n in sizes]
    assert workers.weight(workers.weights(folders)) == sum(n / workers.REPORT_BYTES for n in sizes)
    assert workers.workers_for(workers.weight(workers.weights(folders)), PARALLEL_MIN_REPORTS) == 0  # not enough
    monkeypatch.setattr(workers, "REPORT_BYTES", 1024)
    assert workers.weight(workers.weights(folders)) >= PARALLEL_MIN_REPORTS
    assert workers.weight(workers.weights(folders[:1])) == 1.0
    config = load_config(project / "mkdocs.yml")
    parallel = Builder(config)
    made_by_workers(config, parallel.store, None, None)
    assert len(parallel.store.reports.loaded) == 3  # the workers did the reports
    files = parallel.build().files
    monkeypatch.setattr(workers, "REPORT_BYTES", 1 << 40)
    plain = Builder(config)
    made_by_workers(config, plain.store, None, None)
    assert not plain.store.reports.loaded  # weighed as one each: no workers
    assert files == plain.build().files


def test_parallel_build_reports_the_first_bad_receipt(tmp_path, forked_builds):
    project = many_reports(tmp_path, FORKED_REPORTS)
    # In shares of one (8 reports on 2 workers), r005's share may fail before r002's does, and it
    # is padded to weigh more, so it is given out first: the first in folder order is the one
    # reported, whichever worker finishes first.
    for name in ("r002", "r005"):
        path = project / "data" / name / "SUMMARY.json"
        data = json.loads(path.read_text())
        data["speed"]["cells"][2]["baseline"]["rate"] = 0
        path.write_text(json.dumps(data) + " " * (300_000 if name == "r005" else 0))
    result = sitegen_here("build", cwd=project)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "r002/SUMMARY.json: $.speed.cells[2].baseline.rate" in result.stderr


@pytest.mark.slow
def test_the_example_forks_by_default_heaviest_first_and_builds_what_one_process_builds(one_process_example):
    """The example's reports (6 kB to 267 kB) reach the default threshold by weight. The workers
    are given the largest receipts first (the last in folder order), and the site, links between
    reports included, is byte for byte the one a single process builds."""
    import os

    from site_gen.building import builder as b, workers
    from site_gen.receipts.load import report_folders
    from site_gen.core.config import load_config

    config = load_config(ROOT / "mkdocs.yml")
    folders = report_folders(config.data_dir)
    sizes = workers.weights(folders)
    n = len(folders)
    assert n >= 12 and b.PARALLEL_MIN_REPORTS <= workers.weight(sizes)
    cores = os.cpu_count() or 1
    assert workers.workers_for(workers.weight(sizes), b.PARALLEL_MIN_REPORTS) == (min(cores, 4) if cores >= 2 else 0)
    bytes_ = [(f / "SUMMARY.json").stat().st_size for f in folders]
    given = [i for share in workers.shares(folders, sizes, 2) for i, _ in share]
    assert given == sorted(range(n), key=lambda i: (-max(bytes_[i], workers.REPORT_BYTES), i))
    assert given[:4] == sorted(range(n), key=lambda i: -bytes_[i])[:4] != list(range(4))
    parallel = b.Builder(config)
    b.made_by_workers(config, parallel.store, None, None)
    assert len(parallel.store.reports.loaded) == (n if cores >= 2 else 0)  # one core: nothing to fork for
    files = parallel.build().files
    _, plain = one_process_example
    assert files == {name: data for name, data in plain.items() if name != ".sitegen-manifest"} and len(files) > 100


def _one_shot(config, site: Path, result: list | None = None):
    """A `sitegen build` of `config` into `site`, in this process: its builder, to look at (and
    its result appended to `result`)."""
    from site_gen.building import builder as b
    from site_gen.building.write import Staging

    made = b.Builder(config)
    with Staging(site) as out:
        built = made.build(out=out)
        out.commit()
    if result is not None:
        result.append(built)
    return made


def _tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def one_process_example(tmp_path_factory) -> tuple[dict, dict[str, bytes]]:
    """The example as one process builds it (`sitegen build`, no workers): its builder's stats and
    the site's files, the oracle of the tests of forked builds of the example (read, never written)."""
    from site_gen.building import builder as b
    from site_gen.core.config import load_config

    site = tmp_path_factory.mktemp("one-process") / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(b, "PARALLEL_MIN_REPORTS", 10 ** 9)
        made = _one_shot(load_config(ROOT / "mkdocs.yml", site_dir=site), site)
    return dict(made.stats), _tree(site)


@pytest.mark.slow
def test_a_forked_build_makes_the_reports_that_link_to_others_in_the_workers(tmp_path, one_process_example):
    """The example's version report (its receipt names the release before it) and that release's
    report (its markdown links a page of the first) link to each other. A worker makes each without
    the others; once every record is back, both are made again with their links, by the workers. The
    docs pages' own report comes back analysed. So the builder itself loads and analyses no report,
    and the site is byte for byte the one a single process writes."""
    import os

    from site_gen.core.config import load_config

    config = load_config(ROOT / "mkdocs.yml", site_dir=tmp_path / "forked")
    forked = _one_shot(config, config.site_dir)
    linked = {"cuteafd-v4.0.0", "cuteafd-v3.0.1"}
    assert linked <= set(forked.store.related)
    if (os.cpu_count() or 1) >= 2:
        assert forked.stats.get("loaded", 0) == 0 and forked.stats.get("analysed", 0) == 0, forked.stats
        assert forked.store.kept == {"cuteafd-v4.0.0"}  # named in docs/index.md and docs/highlights.md
    stats, plain = one_process_example
    assert stats["analysed"] >= 12
    tree = _tree(config.site_dir)
    assert tree == plain and len(tree) > 100


@pytest.mark.slow
def test_a_forked_build_says_each_warning_in_its_place_while_linked_reports_are_made_again(project, monkeypatch):
    """The reports made again with their links come back while the builder makes the site-wide
    pages; their pages' warnings still come in folder order among the others', as one process
    says them: two linked reports whose receipt markdown states a check that fails, and the other
    reports each with an unknown field in its receipt."""
    import os

    from site_gen.building import builder as b
    from site_gen.core.config import load_config

    data = project / "data"
    lede = data / "cuteafd-v4.0.0" / "lede.md"
    lede.write_text(lede.read_text().replace("{{ check looped_replies == 0 :", "{{ check looped_replies != 0 :"))
    older = json.loads((data / "cuteafd-v3.0.1" / "SUMMARY.json").read_text())
    older["report"]["lede"] = older["report"]["lede"].replace("precision_unresolved == 0", "precision_unresolved != 0")
    (data / "cuteafd-v3.0.1" / "SUMMARY.json").write_text(json.dumps(older))
    others = [name for name in sorted(p.name for p in data.iterdir() if (p / "SUMMARY.json").is_file())
              if name not in ("cuteafd-v3.0.1", "cuteafd-v4.0.0")]
    for name in others:
        other = json.loads((data / name / "SUMMARY.json").read_text())
        other["report"]["x_unknown"] = 1
        (data / name / "SUMMARY.json").write_text(json.dumps(other))
    config = load_config(project / "mkdocs.yml", site_dir=project / "forked")
    forked: list = []
    made = _one_shot(config, config.site_dir, forked)
    if (os.cpu_count() or 1) >= 2:
        assert made.stats.get("analysed", 0) == 0  # both made again by the workers
    monkeypatch.setattr(b, "PARALLEL_MIN_REPORTS", 10 ** 9)
    plain: list = []
    _one_shot(config, project / "plain", plain)
    said = [(str(w.message), str(w.file)) for w in forked[0].warnings]
    assert said == [(str(w.message), str(w.file)) for w in plain[0].warnings]
    failed = [i for i, (message, _) in enumerate(said) if "is contradicted by the data" in message]
    unknown = [i for i, (message, _) in enumerate(said) if "x_unknown" in message]
    # The linked reports are the first two in the list (the newest): their warnings come first,
    # though their pages came back after every other report's.
    assert len(unknown) == len(others) and len(failed) == 2 and max(failed) < min(unknown), said


@pytest.mark.slow
@pytest.mark.parametrize("docs_file, text, said", [
    ("index.md", "```sitegen\nblock: no-such-block\n```\n", "no-such-block"),  # while the pages are made
    ("reports/cuteafd-v4.0.0/extra.md", "# Extra\n", "would replace a file sitegen generates"),  # before
])
def test_a_docs_error_while_linked_reports_are_made_again_stops_the_workers(project, docs_file, text, said):
    """A docs page that fails while the workers' second round runs (its block, as the site-wide
    pages are made; or its place, found once the reports are known, before they are): the build
    says the page's error, and no worker is left running."""
    import multiprocessing

    from site_gen.core.config import load_config
    from site_gen.core.errors import SitegenError

    (project / "docs" / docs_file).parent.mkdir(parents=True, exist_ok=True)
    (project / "docs" / docs_file).write_text(text)
    config = load_config(project / "mkdocs.yml", site_dir=project / "site")
    with pytest.raises(SitegenError) as raised:
        _one_shot(config, config.site_dir)
    assert said in str(raised.value) and str(raised.value.file).endswith(docs_file.rsplit("/", 1)[-1])
    assert multiprocessing.active_children() == []
    assert not (project / "site").exists()


def _slow_task_with_a_large_result(path: str) -> tuple:
    """A stand-in for a worker's share: it takes a while, then says it ended and sends back more
    than a pipe holds (a share's records and light analyses can), so that it writes for as long as
    nobody reads."""
    import time

    time.sleep(0.3)
    Path(path).write_text("ended")
    return ("ok", [b"x" * (1 << 20)])


def test_a_round_stopped_for_bad_input_ends_before_its_pool_stops(tmp_path, monkeypatch):
    """workers.Pending.finish, as the build calls it when bad input turns up while the second round
    runs: the round's shares run to their end and send their results before the pool is stopped
    (Pool.terminate() while a worker writes its result can leave the result queue's lock held by
    the killed worker, and the pool's shutdown then waits for it for ever: seen once in a test
    run), and no worker is left."""
    import multiprocessing

    from site_gen.building import workers

    monkeypatch.setattr(workers, "_prefill_chunk", _slow_task_with_a_large_result)
    paths = [tmp_path / f"share-{i}" for i in range(4)]
    pool = multiprocessing.get_context("fork").Pool(2)
    pending = workers.Pending(pool, [str(p) for p in paths], [])
    pending.finish()
    assert [p.read_text() for p in paths] == ["ended"] * 4
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_a_docs_block_on_a_report_whose_files_came_from_the_store_builds(project, tmp_path, monkeypatch):
    """A forked build with its store: the second build takes the reports' files from the store, so
    no worker makes the docs page's report's views, and its light analysis cannot (tool calling
    reads the runs `lighten` drops). The docs page's block is then made from the report itself, and
    the site equals a one-process build's (a review found this crashed with a KeyError)."""
    import subprocess
    import sys

    (project / "docs" / "tools.md").write_text("---\nreport: cuteafd-v4.0.0\n---\n# Tools\n\n"
                                               "```sitegen\nblock: tool-calling\n```\n")
    env = {"SITEGEN_PARALLEL_MIN_REPORTS": "8"}
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for site in ("s1", "s2"):
        out = subprocess.run([sys.executable, "-m", "site_gen", "build", "-q", "-d", str(tmp_path / site), *cache],
                             cwd=project, capture_output=True, text=True, timeout=300,
                             env={**__import__("os").environ, **env})
        assert out.returncode == 0, out.stderr
    env["SITEGEN_PARALLEL_MIN_REPORTS"] = str(10 ** 9)
    out = subprocess.run([sys.executable, "-m", "site_gen", "build", "-q", "--no-cache", "-d", str(tmp_path / "plain")],
                         cwd=project, capture_output=True, text=True, timeout=300, env={**__import__("os").environ, **env})
    assert out.returncode == 0, out.stderr
    assert _tree(tmp_path / "s2") == _tree(tmp_path / "plain")


@pytest.mark.slow
def test_ctrl_c_while_the_first_round_is_taken_leaves_no_worker_running(project, monkeypatch):
    """Ctrl-C just after the workers' second round has started (as the builder takes the first
    round's items): the interrupt goes through, and the second round's workers are stopped with it."""
    import multiprocessing
    import os

    from site_gen.building import builder as b
    from site_gen.core.config import load_config

    from site_gen.building.buildstore import BuildStore

    running = []
    real_prefill = b.prefill

    def started(*args, **kwargs):
        items, pending = real_prefill(*args, **kwargs)
        running.append(pending)
        return items, pending

    def interrupted(self, items):
        raise KeyboardInterrupt

    monkeypatch.setattr(b, "prefill", started)
    monkeypatch.setattr(BuildStore, "adopt", interrupted)
    config = load_config(project / "mkdocs.yml", site_dir=project / "site")
    with pytest.raises(KeyboardInterrupt):
        _one_shot(config, config.site_dir)
    if (os.cpu_count() or 1) >= 2:
        assert running and running[0] is not None  # the second round was running when Ctrl-C came
    assert multiprocessing.active_children() == []
    assert not (project / "site").exists()


# A second-round worker's store entry, written slowly while the builder stops the workers (below).
_PARENT: list = []
_WRITING: list = []


def _in_second_round(args):
    """workers._prefill_chunk, telling the slow writer below which round this share is of."""
    _WRITING[1] = bool(args[5])  # a share of the second round carries its reports' links
    return _WRITING[2](args)


def _slow_mkstemp(*args, **kwargs):
    import os
    import time

    made = _WRITING[3](*args, **kwargs)
    if os.getpid() != _PARENT[0] and _WRITING[1] and str(kwargs.get("dir", "")).startswith(str(_WRITING[4])):
        _WRITING[0].touch()  # the entry's `.tmp-` file exists: the builder may stop the workers now
        time.sleep(1.5)
    return made


@pytest.mark.slow
def test_workers_stopped_while_they_write_the_store_leave_no_half_written_entry(project, tmp_path, monkeypatch):
    """A docs file that collides with a report's pages (found once the reports are known, before
    the site's pages) stops the workers while one of the second round writes a store entry: the
    entry is finished, and no `.tmp-` file of it is left in the cache folder (a review found one left
    when SIGTERM killed the worker between the file's creation and its rename)."""
    import multiprocessing
    import os
    import time

    from site_gen.building import builder as b, cache, workers
    from site_gen.building.store import Store
    from site_gen.core.config import load_config
    from site_gen.core.errors import SitegenError

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: the build forks no worker")
    (project / "docs" / "reports" / V4).mkdir(parents=True)
    (project / "docs" / "reports" / V4 / "extra.md").write_text("# Extra\n")
    _PARENT[:] = [os.getpid()]
    _WRITING[:] = [tmp_path / "writing", False, workers._prefill_chunk, cache.tempfile.mkstemp, tmp_path / "cache"]
    monkeypatch.setattr(workers, "_prefill_chunk", _in_second_round)
    monkeypatch.setattr(cache.tempfile, "mkstemp", _slow_mkstemp)
    from site_gen.building.buildstore import BuildStore

    real_docs = BuildStore.docs_for

    def docs_once_a_worker_writes(self, records):
        deadline = time.monotonic() + 30
        while not _WRITING[0].exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real_docs(self, records)  # the docs file collides: the build stops here, and the workers with it

    monkeypatch.setattr(BuildStore, "docs_for", docs_once_a_worker_writes)
    cache.configure(tmp_path / "cache")
    try:
        config = load_config(project / "mkdocs.yml", site_dir=project / "site")
        with pytest.raises(SitegenError, match="would replace a file sitegen generates"):
            b.build(config, persist=Store(config, enabled=True))
    finally:
        cache.configure(None)
    assert _WRITING[0].exists(), "no worker of the second round wrote the store"
    assert multiprocessing.active_children() == []
    assert sorted(p.name for p in (tmp_path / "cache").rglob(".tmp-*")) == []


def test_shares_are_runs_of_folders_heaviest_first_ties_in_folder_order():
    import random

    from site_gen.building import workers

    rng = random.Random(5)
    folders = [ROOT / f"f{i:03d}" for i in range(300)]
    sizes = [rng.choice([1.0, 1.0, 1.0, 2.5, 7.0]) for _ in folders]
    chunks = workers.shares(folders, sizes, 2)
    assert sorted(i for c in chunks for i, _ in c) == list(range(300))
    assert all(f == folders[i] for c in chunks for i, f in c)
    assert all([i for i, _ in c] == list(range(c[0][0], c[0][0] + len(c))) for c in chunks)
    assert sorted(len(c) for c in chunks) == [12] + [16] * 18  # 300 // (2 workers x 8), at most 16 a share
    weight = [sum(sizes[i] for i, _ in c) for c in chunks]
    keys = [(-w, c[0][0]) for w, c in zip(weight, chunks)]
    assert keys == sorted(keys) and weight[0] > weight[-1]


def test_the_largest_precision_gap_states_its_two_sizes_and_they_make_its_share(example_site):
    """"The largest is 38% of the gap between checkpoints" names the two sizes it divides, each read
    back here from the receipt: the largest resolved engine gap of that measure, and the spread of
    the candidate's values between the checkpoints (the Checkpoints page lists them)."""
    import html as html_module
    text = html_module.unescape(re.sub(r"<[^>]+>", "", (example_site / "reports" / V4 / "precision.html").read_text()))
    m = re.search(r"the largest is (\d+)% of the gap between checkpoints on the same measure, teacher and rows "
                  r"\((\d\.\d{4}) of (\d\.\d{4}), ([^;]+); each checkpoint's values: Checkpoints\)", " ".join(text.split()))
    assert m, "the sentence names no sizes"
    share, gap, spread, label = int(m[1]), float(m[2]), float(m[3]), m[4]
    p = json.loads((ROOT / "data" / V4 / "SUMMARY.json").read_text())["precision"]
    measure = next(k["id"] for k in p["measures"] if k["label"] == label)
    rows = [r for r in p["results"] if r["measure"] == measure and "baseline" in r]
    resolved = [abs(r["difference"]) for r in rows if r["interval"][0] > 0 or r["interval"][1] < 0]
    values = [r["candidate"]["value"] for r in rows]
    assert gap == round(max(resolved), 4) and spread == round(max(values) - min(values), 4)
    assert share == round(100 * max(resolved) / (max(values) - min(values)))
