"""When a build's processes collect cyclic garbage: between reports, shares and pages, not during them.

A build allocates millions of small objects and makes few reference cycles. A forked worker runs
with the collector off (build/workers.py), and so does the process of `sitegen build` and `sitegen
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

_settled = False  # whether this process has frozen what it made before its first report or page was done


def between(*, full: bool = False) -> None:
    """Called once a report, a share of reports or a page is done. With the collector off, collects
    when COLLECT_AFTER objects were allocated since the last collection. The first time, what the
    process made until then (its imported modules, the build's own state) is frozen instead
    (gc.freeze: never scanned again, as a worker's inherited objects are); after that, the two
    youngest generations are collected: what the reports and pages since made. `full`: every
    generation (a worker, which froze what it inherited when it started). A process whose collector
    is on (a caller's, the preview's) is left to it."""
    global _settled
    if gc.isenabled() or gc.get_count()[0] < COLLECT_AFTER:
        return
    if full:
        gc.collect()
    elif not _settled:
        _settled = True
        gc.freeze()
    else:
        gc.collect(1)
