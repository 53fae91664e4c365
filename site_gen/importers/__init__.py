"""Importers: the files real benchmark harnesses write -> schema 1.1 SUMMARY.json receipts.

Each format is a module with `add_arguments(parser)` and `run(args) -> dict` (the receipt).
"""
from __future__ import annotations

FORMATS = {"ledger": "site_gen.importers.ledger_cli", "cuteafd-study": "site_gen.importers.study"}
