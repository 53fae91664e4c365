"""The `ledger` format's command-line options."""
from __future__ import annotations

import os
from pathlib import Path

from site_gen.core.errors import SitegenError
from site_gen.importers import ledger
from site_gen.importers.common import Imported
from site_gen.importers.options import LedgerOptions, one

HELP = "a receipts ledger folder: a comparison (--comparison ID) or two runs (--baseline RUN --candidate RUN)"


def run(opts: LedgerOptions) -> Imported:
    if len(opts.sources) != 1:
        raise SitegenError(f"the ledger format takes one source, the ledger's folder; got {len(opts.sources)}",
                           opts.sources[-1] if opts.sources else None)
    root = Path(opts.sources[0])
    if not os.path.lexists(root):
        raise SitegenError("not found (expected a ledger's folder, holding runs/)", root)
    if not root.is_dir():
        raise SitegenError("not a folder (expected a ledger's folder, holding runs/)", root)
    if not (root / "runs").is_dir():
        raise SitegenError("not a ledger: no runs/ folder", root)
    return ledger.run_import(root, comparison_id=opts.comparison, baseline=one(opts.baseline), candidate=one(opts.candidate),
                             allow=set(opts.allow), attribution=opts.attribution)
