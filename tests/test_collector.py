"""The cyclic garbage collector of sitegen's own process (core/collector.py, cli `collector`): a command
that builds a site runs with it off and collects between reports and pages; any other command, the
preview among them, keeps it on; a caller's process is left as it was."""
from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import weakref

import pytest

from site_gen import cli
from site_gen.core import collector
from site_gen.render.frontmatter import title_of


class Node:
    """An object in a reference cycle: refcounting alone never frees it."""

    def __init__(self):
        self.me = self


@pytest.fixture
def collector_state(monkeypatch):
    """The process's collector as the test found it, whatever the test did to it."""
    enabled, threshold, frozen = gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()
    monkeypatch.setattr(collector, "_owned", False)
    monkeypatch.setattr(collector, "_settled", False)
    gc.unfreeze()
    gc.collect()
    yield
    gc.unfreeze()
    if frozen:
        gc.freeze()  # frozen again (with what the test left: no garbage, collected first)
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


def allocate(n: int) -> list:
    return [[] for _ in range(n)]  # lists are tracked by the collector: each one counts


def cycle_alive() -> weakref.ref:
    ref = weakref.ref(Node())
    assert ref() is not None  # kept alive by its own cycle
    return ref


def garbage_in(generation: int) -> weakref.ref:
    """A cycle that became garbage after surviving into `generation` (0, 1 or 2) while reachable."""
    holder = [Node()]
    if generation:
        gc.collect(generation - 1)  # what survives a collection of generations 0..g-1 moves to g
    ref = weakref.ref(holder.pop())
    assert ref() is not None
    return ref


def test_off_it_collects_only_once_many_objects_were_allocated(collector_state):
    collector.take_over(settled=True)  # past the first call (which freezes): see the next test
    ref = cycle_alive()
    collector.between()  # a few objects since the last collection: left for later
    assert ref() is not None
    kept = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert ref() is None, "the cycle made since the last collection is freed"
    assert gc.get_count()[0] < 100
    del kept


def test_the_first_time_it_freezes_what_the_process_made_until_then(collector_state):
    collector.take_over()
    kept = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert gc.get_freeze_count() >= collector.COLLECT_AFTER  # the imported modules, the build's state
    later = cycle_alive()
    more = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert later() is None, "what was made after the first call is collected"
    del kept, more


def test_between_pages_the_two_youngest_generations(collector_state):
    """What a report or a page left in cycles is young; what survived two collections is the
    build's own state, collected only by a worker's full collection."""
    collector.take_over(settled=True)
    oldest = garbage_in(2)  # oldest first: a collection to age one frees the younger garbage made before
    older = garbage_in(1)
    young = garbage_in(0)
    kept = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert young() is None and older() is None
    assert oldest() is not None
    del kept


def test_a_worker_collects_every_generation(collector_state):
    collector.take_over(settled=True)
    oldest = garbage_in(2)
    kept = allocate(collector.COLLECT_AFTER)
    collector.between(full=True)
    assert oldest() is None
    del kept


@pytest.mark.parametrize("enabled", [True, False])
def test_a_caller_s_process_is_left_as_it_is(collector_state, enabled):
    """Whether the caller's collector is on or off: sitegen did not turn it off, so nothing is
    collected or frozen here (the MkDocs plugin, the tests)."""
    gc.set_threshold(10 ** 9)  # so that the collector itself does not run during the test
    (gc.enable if enabled else gc.disable)()
    ref = cycle_alive()
    kept = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert ref() is not None and gc.get_freeze_count() == 0
    del kept


@pytest.mark.parametrize("command, off", [("build", True), ("check", True), ("gh-deploy", True),
                                          ("serve", False), ("summary", False), ("compare", False),
                                          ("import", False), ("new", False)])
def test_each_command_s_own_process(collector_state, command, off):
    """What `main` decides for sitegen's own process once the command is known."""
    defaults = cli.parser([command])._subparsers._group_actions[0].choices[command]._defaults
    gc.disable()
    cli.collector(argparse.Namespace(**defaults))
    assert gc.isenabled() is not off and collector._owned is off
    if not off:
        assert gc.get_threshold()[0] == 50_000


def test_a_docs_page_s_title_leaves_no_converter_behind(collector_state):
    """Docs pages are read before the first report is done, so before the first collection freezes
    what the process holds: reading their titles must not leave a markdown converter (~27 kB, in
    cycles through its processors) for only the collector to free."""
    import markdown

    gc.disable()
    title_of({}, "# A *page*\n\ntext\n", "fallback")  # the converter made once
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds is kept in gc.garbage, to be looked at
    try:
        for i in range(50):
            assert title_of({}, f"# Page *{i}*\n\ntext\n", "fallback") == f"Page {i}"
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, markdown.Markdown)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()
    assert not left, f"{len(left)} converters left in cycles by 50 titles"


def test_the_command_s_own_process_builds_with_it_off(small_project, tmp_path):
    """A real `sitegen build` process: the collector is off from the start of `main` (no automatic
    pass while the command's modules are imported), and the build collects after each report, each
    docs page and each page rendered."""
    probe = ("import gc, sys\n"
             "from site_gen.core import collector\n"
             "seen, calls = [], set()\n"
             "real = collector.between\n"
             "def between(**kw):\n"
             "    seen.append(gc.isenabled())\n"
             "    calls.add(sys._getframe(1).f_code.co_name)\n"
             "    real(**kw)\n"
             "collector.between = between\n"
             "from site_gen.cli import main\n"
             f"sys.argv = ['sitegen', 'build', '-q', '--no-cache', '-f', {str(small_project / 'mkdocs.yml')!r},"
             f" '-d', {str(tmp_path / 'site')!r}]\n"
             "automatic = gc.get_stats()[0]['collections']\n"
             "code = main()\n"
             "print(code, len(seen), any(seen), gc.isenabled(), gc.get_freeze_count() > 0,\n"
             "      gc.get_stats()[0]['collections'] - automatic, ','.join(sorted(calls)))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    code, calls, any_on, on_after, frozen, passes, where = out.stdout.split()
    assert code == "0" and int(calls) >= 2 and any_on == "False" and on_after == "False" and frozen == "True"
    assert passes == "0", "the collector passed over the objects of the modules being imported"
    assert where.split(",") == ["pages", "render", "report_files"]  # docs pages, every page, reports
