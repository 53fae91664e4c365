"""`sitegen import`: one source format's importer run, its receipt checked and written."""
from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from pathlib import Path

from site_gen.core.config import load_config
from site_gen.core.errors import SitegenError
from site_gen.importers import FORMATS, reading
from site_gen.importers.common import ACCEPT, check_output, stamp, write_receipt
from site_gen.importers.options import ImportOptions, ImportResult, NamedOptions


def run_import(opts: ImportOptions, accept: Callable[[dict, Path], None] | None = None) -> ImportResult:
    """The receipt `opts` ask for, written, with what the reading noticed (`reading.NOTES`, this
    import's only). The config first: a wrong -o is refused before any source is read. `accept`:
    what must hold, with the data folder's reports, before the receipt is written (a SitegenError
    otherwise; common.ACCEPT)."""
    reading.NOTES.clear()
    token = ACCEPT.set(accept)
    try:
        done = _run_import(opts)
    finally:
        ACCEPT.reset(token)
    return dataclasses.replace(done, warnings=tuple(reading.NOTES))


def _run_import(opts: ImportOptions) -> ImportResult:
    opts = dataclasses.replace(opts, data_dir=load_config(Path(opts.config_file)).data_dir)
    assert opts.data_dir is not None
    out = Path(opts.output)
    check_output(out, opts.data_dir, opts.force)
    module = importlib.import_module(FORMATS[opts.format])
    if hasattr(module, "run_and_write"):  # vllm-bench, guidellm, lm-eval: checked and written by the importer
        return module.run_and_write(opts)
    if not opts.sources:
        raise SitegenError(f"the {opts.format} format takes its source as SOURCE")
    assert isinstance(opts, NamedOptions)
    for role, names in (("baseline", opts.baseline), ("candidate", opts.candidate)):  # one run or arm each
        if names is not None and len(names) != 1:
            raise SitegenError(f"--{role} takes one name for the {opts.format} format; got {len(names)}")
    made = module.run(opts)
    return ImportResult(write_receipt(stamp(made.doc, opts), out, data_dir=opts.data_dir, force=opts.force, prov=made.prov,
                                      source=made.source))
