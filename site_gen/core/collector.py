"""When a build's processes collect cyclic garbage: between reports, shares and pages, not during them.

A build allocates millions of small objects and makes few reference cycles. A forked worker runs
with the collector off (building/workers.py), and so does the process of `sitegen build` and `sitegen
check` (the command line decides it, once: cli `collector`). The collector's passes while that
process imports pandas, Jinja and markdown scan objects that all stay alive: ~50 ms of a cold build
of the example (~0.9 s) for nothing. What one report's or one page's work leaves in cycles (a docs
page's markdown converter refers to itself through its processors) is collected once it is done
(`between`), when many objects were allocated since the last collection, so that a site of many
pages cannot pile it up.
"""
from __future__ import annotations

import gc

# Objects allocated since the last collection before one is worth its pass: a report's pages allocate
# a few hundred thousand; a share whose reports were all taken from the store, a few thousand (a
# collection each share was 6% of the workers' time in a build of a thousand reports with one changed).
COLLECT_AFTER = 50_000

_owned = False  # whether sitegen itself turned the collector off in this process (`take_over`)
_settled = False  # whether this process has frozen what it made before its first report or page was done


def take_over(*, settled: bool = False) -> None:
    """Turns the collector off in a process of sitegen's own: the command line's (cli `collector`)
    or a forked worker's. Only there does `between` collect; a caller's process, whatever its
    collector does, is left as it is. `settled`: what the process holds now is frozen already (a
    worker freezes what it inherited)."""
    global _owned, _settled
    gc.disable()
    _owned, _settled = True, settled


def between(*, full: bool = False) -> None:
    """Called once a report, a share of reports or a page is done. In a process whose collector
    sitegen turned off (`take_over`), collects when COLLECT_AFTER objects were allocated since the
    last collection. The first time, what the process made until then (its imported modules, the
    build's own state) is frozen instead (gc.freeze: never scanned again, as a worker's inherited
    objects are): a full collection there would cost what the collector's passes while importing
    did (~50 ms), so what the build's steps before their first report or page make must not be
    garbage in cycles (render/frontmatter.py reuses its converter for that). After that, the two
    youngest generations are collected: what the reports and pages since made. `full`: every
    generation (a worker, which froze what it inherited when it started)."""
    global _settled
    if not _owned or gc.isenabled() or gc.get_count()[0] < COLLECT_AFTER:
        return
    if full:
        gc.collect()
    elif not _settled:
        _settled = True
        gc.freeze()
    else:
        gc.collect(1)
