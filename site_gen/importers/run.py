"""`sitegen import`: one source format's importer run, its receipt checked and written."""
from __future__ import annotations

import importlib
from pathlib import Path

from site_gen.core.config import load_config
from site_gen.core.errors import SitegenError
from site_gen.importers import FORMATS
from site_gen.importers.common import check_output, stamp, write_receipt


def run_import(args) -> Path:
    """The receipt `args` (the command line's) ask for, written: its path. The config first: a wrong
    -o is refused before any source is read."""
    args.data_dir = load_config(args.config_file).data_dir
    out = Path(args.output)
    check_output(out, args.data_dir, args.force)
    module = importlib.import_module(FORMATS[args.format])
    if hasattr(module, "run_and_write"):  # vllm-bench, guidellm, lm-eval: checked and written by the importer
        return module.run_and_write(args)
    if not args.sources:
        raise SitegenError(f"the {args.format} format takes its source as SOURCE")
    for role in ("baseline", "candidate"):  # one run or arm each
        names = getattr(args, role)
        if names is not None and len(names) != 1:
            raise SitegenError(f"--{role} takes one name for the {args.format} format; got {len(names)}")
        setattr(args, role, names[0] if names else None)
    made = module.run(args)
    return write_receipt(stamp(made.doc, args), out, data_dir=args.data_dir, force=args.force, prov=made.prov, source=made.source)
