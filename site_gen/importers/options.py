"""What `sitegen import` is asked, below the command line: a frozen options dataclass per kind of
format (`FORMAT_OPTIONS`). The front end makes one (`api.import_options`) from its arguments; the
importers read its fields. No argparse Namespace travels past the command line."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

from site_gen.core.diagnostics import Diagnostic


@dataclass(frozen=True)
class ImportOptions:
    """What every format is asked: the source's format, the report folder to write (`output`), the
    config that names the data folder, and the receipt's credit, series and commit."""
    format: str
    output: str
    config_file: str = "mkdocs.yml"
    sources: tuple[str, ...] = ()     # SOURCE: the ledger's folder, a study's comparison.json
    force: bool = False               # replace a receipt already in the report folder
    allow: tuple[str, ...] = ()       # differences between the sides to accept, by name
    attribution: str | None = None
    series: str | None = None         # report.series (schema 1.3)
    commit: str | None = None         # report.commit
    data_dir: Path | None = None      # the config's data folder, once run.py has read the config

    @property
    def data_folder(self) -> Path:
        """The config's data folder: run.py reads the config before any importer runs."""
        assert self.data_dir is not None
        return self.data_dir

    @classmethod
    def of(cls, format: str, given: Mapping[str, object]) -> ImportOptions:
        """The options of `format` from a front end's values by name (a list is kept as a tuple, and a
        name this kind of format has no field for is not one of its options)."""
        known = {f.name for f in fields(cls)} - {"format", "data_dir"}
        return cls(format=format, **{k: _frozen(v) for k, v in given.items() if k in known})  # type: ignore[arg-type]


@dataclass(frozen=True)
class ServingOptions(ImportOptions):
    """A format whose two sides are files or folders (vllm-bench, vllm-sweep, guidellm, llmperf, aiperf,
    genai-perf, lm-eval): each side's names, its name on the pages, the setup facts stated for it; or,
    with `setup`, a study of many setups (importers/serving_study.py)."""
    baseline: tuple[str, ...] | None = None
    candidate: tuple[str, ...] | None = None
    label_baseline: str | None = None
    label_candidate: str | None = None
    set_baseline: tuple[str, ...] = ()
    set_candidate: tuple[str, ...] = ()
    setup: tuple[tuple[str, ...], ...] = ()   # --setup NAME FILE…, each
    setup_label: tuple[str, ...] = ()
    setup_set: tuple[str, ...] = ()

    def side(self, role: str) -> tuple[str, ...]:
        """The names given for one side (`baseline` or `candidate`)."""
        return (self.baseline if role == "baseline" else self.candidate) or ()

    def stated(self, role: str) -> tuple[str, ...]:
        """The setup facts stated for one side (`--set-baseline`, `--set-candidate`)."""
        return self.set_baseline if role == "baseline" else self.set_candidate


@dataclass(frozen=True)
class NamedOptions(ImportOptions):
    """A format whose sides are named inside its one source (cuteafd-study): one name each at most."""
    baseline: tuple[str, ...] | None = None
    candidate: tuple[str, ...] | None = None


@dataclass(frozen=True)
class LedgerOptions(NamedOptions):
    """The ledger: a comparison of it, or two of its runs."""
    comparison: str | None = None


FORMAT_OPTIONS: dict[str, type[ImportOptions]] = {
    "ledger": LedgerOptions, "cuteafd-study": NamedOptions, "vllm-bench": ServingOptions, "guidellm": ServingOptions,
    "lm-eval": ServingOptions, "llmperf": ServingOptions, "aiperf": ServingOptions, "genai-perf": ServingOptions,
    "vllm-sweep": ServingOptions,
}


@dataclass(frozen=True)
class ImportResult:
    """What `sitegen import` did: the receipt it wrote, and what it says besides: `notes` (files a
    folder held that the format does not read, and why) and `warnings` (what it read and would not
    credit, or left unread, and what to do: importers/reading.py's notes)."""
    receipt: Path
    notes: tuple[str, ...] = ()
    warnings: tuple[Diagnostic, ...] = ()


def one(names: tuple[str, ...] | None) -> str | None:
    """The one name given (run.py has refused more), or None."""
    return names[0] if names else None


def _frozen(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value
