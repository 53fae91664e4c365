"""What an import checks with the data folder's reports before it writes (`importers/common.py`
`ACCEPT`, set by `api.import_receipt`): a receipt naming a series joins it only as `sitegen build`
would accept it (`series.check`: one setup, a commit once, dates in version order)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from site_gen.core.config import load_config
from site_gen.core.errors import SitegenError


def series_accepts(config_file: Path) -> Callable[[dict, Path], None]:
    """The check of a receipt (its data, and the SUMMARY.json it is to become) against the reports of
    the config's data folder that name its series; a SitegenError with the build's words."""

    def accept(data: dict, target: Path) -> None:
        name = data["report"].get("series")
        if not name:
            return
        from site_gen.analysis import series as ser
        from site_gen.analysis.history import report_rows
        from site_gen.analysis.report import analyse
        from site_gen.receipts.load import Report, load_report, report_folders

        config = load_config(config_file)
        others = []
        for folder in report_folders(config.data_dir) if config.data_dir.is_dir() else []:
            if folder.name == target.parent.name:  # the receipt this import replaces (--force)
                continue
            try:
                report = load_report(folder, config.data_dir, max_bytes=config.max_receipt_bytes, lede=False)
            except SitegenError:  # a receipt the build refuses on its own: not this import's to judge
                continue
            if report.meta.get("series") == name:
                others.append(report)
        if not others:
            return
        new = Report(id=target.parent.name, folder=target.parent, file=target, data=data, sha256="", size=0)
        records = [SimpleNamespace(id=r.id, file=str(r.file),
                                   history=report_rows(analyse(r, config.noise_band, config.ratio_scale,
                                                               config.headline_input, slo=config.slo)))
                   for r in [*others, new]]
        ser.check(records, new=new.id)

    return accept
