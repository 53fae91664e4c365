"""Importers: the files real benchmark harnesses write -> SUMMARY.json receipts (schema 1.1;
vllm-bench, vllm-sweep, guidellm, llmperf, aiperf, genai-perf and lm-eval write schema 1.2).

Each format is a module with `run(opts) -> Imported` (the receipt, checked and written by run.py) or
`run_and_write(opts) -> Path`, reading its options (`importers/options.py`, `FORMAT_OPTIONS`).
"""
from __future__ import annotations

FORMATS = {"ledger": "site_gen.importers.ledger_cli", "cuteafd-study": "site_gen.importers.study",
           "vllm-bench": "site_gen.importers.vllm_bench", "guidellm": "site_gen.importers.guidellm",
           "lm-eval": "site_gen.importers.lm_eval", "llmperf": "site_gen.importers.llmperf",
           "aiperf": "site_gen.importers.aiperf", "genai-perf": "site_gen.importers.aiperf",
           "vllm-sweep": "site_gen.importers.vllm_sweep"}
