"""The `ledger` format's command-line options."""
from __future__ import annotations

from pathlib import Path

from site_gen.core.errors import SitegenError
from site_gen.importers import ledger
from site_gen.importers.common import Imported

HELP = "a receipts ledger folder: a comparison (--comparison ID) or two runs (--baseline RUN --candidate RUN)"


def run(args) -> Imported:
    if len(args.sources) != 1:
        raise SitegenError(f"the ledger format takes one source, the ledger's folder; got {len(args.sources)}",
                           args.sources[-1] if args.sources else None)
    root = Path(args.sources[0])
    if not (root / "runs").is_dir():
        raise SitegenError("not a ledger: no runs/ folder", root)
    return ledger.run_import(root, comparison_id=args.comparison, baseline=args.baseline, candidate=args.candidate,
                             allow=set(args.allow), attribution=args.attribution)
