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


class Node:
    """An object in a reference cycle: refcounting alone never frees it."""

    def __init__(self):
        self.me = self


@pytest.fixture
def collector_state(monkeypatch):
    """The process's collector as the test found it, whatever the test did to it."""
    enabled, threshold = gc.isenabled(), gc.get_threshold()
    monkeypatch.setattr(collector, "_settled", False)
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


def allocate(n: int) -> list:
    return [[] for _ in range(n)]  # lists are tracked by the collector: each one counts


def cycle_alive() -> weakref.ref:
    ref = weakref.ref(Node())
    assert ref() is not None  # kept alive by its own cycle
    return ref


def test_off_it_collects_only_once_many_objects_were_allocated(collector_state):
    gc.collect()
    gc.disable()
    collector._settled = True  # past the first call (which freezes): see the next test
    ref = cycle_alive()
    collector.between()  # a few objects since the last collection: left for later
    assert ref() is not None
    kept = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert ref() is None, "the cycle made since the last collection is freed"
    assert gc.get_count()[0] < 100
    del kept


def test_the_first_time_it_freezes_what_the_process_made_until_then(collector_state):
    gc.collect()
    gc.disable()
    frozen = gc.get_freeze_count()
    ref = cycle_alive()
    kept = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert gc.get_freeze_count() >= frozen + collector.COLLECT_AFTER  # the imported modules, the state
    assert ref() is not None  # frozen, not collected: nothing the process made before is scanned again
    later = cycle_alive()
    more = allocate(collector.COLLECT_AFTER)
    collector.between()
    assert later() is None, "what was made after the first call is collected"
    del kept, more


def test_a_worker_collects_every_generation(collector_state):
    gc.collect()
    gc.disable()
    collector._settled = True
    old = cycle_alive()
    gc.collect(0)  # one collection survived: an older generation
    ref = cycle_alive()
    kept = allocate(collector.COLLECT_AFTER)
    collector.between(full=True)
    assert ref() is None and old() is None
    del kept


def test_a_process_whose_collector_is_on_is_left_to_it(collector_state):
    gc.enable()
    gc.set_threshold(10 ** 9)  # so that the collector itself does not run during the test
    gc.collect()
    ref = cycle_alive()
    kept = allocate(collector.COLLECT_AFTER)
    frozen = gc.get_freeze_count()
    collector.between()
    assert ref() is not None and gc.get_freeze_count() == frozen
    del kept


@pytest.mark.parametrize("command, off", [("build", True), ("check", True), ("gh-deploy", True),
                                          ("serve", False), ("summary", False), ("compare", False),
                                          ("import", False), ("new", False)])
def test_each_command_s_own_process(collector_state, command, off):
    """What `main` decides for sitegen's own process once the command is known."""
    defaults = cli.parser([command])._subparsers._group_actions[0].choices[command]._defaults
    gc.disable()
    cli.collector(argparse.Namespace(**defaults))
    assert gc.isenabled() is not off
    if not off:
        assert gc.get_threshold()[0] == 50_000


def test_the_command_s_own_process_builds_with_it_off(small_project, tmp_path):
    """A real `sitegen build` process: the collector is off while it builds, and between reports
    its first collection froze what it made before (the build's sections are called in order)."""
    probe = ("import gc, sys\n"
             "from site_gen.core import collector\n"
             "seen = []\n"
             "real = collector.between\n"
             "def between(**kw):\n"
             "    seen.append(gc.isenabled())\n"
             "    real(**kw)\n"
             "collector.between = between\n"
             "from site_gen.cli import main\n"
             f"sys.argv = ['sitegen', 'build', '-q', '--no-cache', '-f', {str(small_project / 'mkdocs.yml')!r},"
             f" '-d', {str(tmp_path / 'site')!r}]\n"
             "code = main()\n"
             "print(code, len(seen), any(seen), gc.isenabled(), gc.get_freeze_count() > 0)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    code, calls, any_on, on_after, frozen = out.stdout.split()
    assert code == "0" and int(calls) >= 2 and any_on == "False" and on_after == "False" and frozen == "True"
