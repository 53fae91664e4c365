"""How a study's files are read and its receipt laid out: many files by forked workers, each run's
request rows on one line of the receipt (importers/serving_study.py makes the receipt)."""
from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path
from collections.abc import Callable

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc

# A study of this many files or more is read by forked workers, one file a task (a fork costs ~30 ms;
# a file of 1,000 requests takes ~50 ms to parse and check).
PARALLEL_FILES = 16
_reader: Callable | None = None


def read_all(read: Callable[[list[Path], Path], list], files: dict[str, list[Path]], root: Path) -> dict[str, list]:
    """Each setup's runs, its files read by `read` in order: in this process, or, for many files on
    more than one core, by forked workers (each file's runs sent back without its text and arrays,
    which the receipt no longer needs: the rows are in the run's repeat). The first file refused, in
    the order given, is the error either way."""
    flat = [p for ps in files.values() for p in ps]
    workers = min(os.cpu_count() or 1, 4, len(flat))
    if len(flat) < PARALLEL_FILES or workers < 2:
        return {n: read(ps, root) for n, ps in files.items()}
    import multiprocessing

    global _reader
    _reader = read
    pool = multiprocessing.get_context("fork").Pool(workers, initializer=_worker_start)
    try:
        done = pool.map(_read_one, [(p, root) for p in flat], chunksize=1)
        pool.close()
    finally:
        _reader = None
        pool.terminate()  # after close: the workers have ended; on an error or Ctrl-C, they stop now
        pool.join()
    for result in done:
        if result[0] == "error":
            raise SitegenError(result[1], result[2], result[3])
    it = iter(done)
    return {n: [r for _ in ps for r in next(it)[1]] for n, ps in files.items()}


def _worker_start() -> None:
    """A worker answers neither Ctrl-C nor the CLI's SIGTERM handler: the importing process does, and
    stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _read_one(task: tuple[Path, Path]) -> tuple:
    """In a forked worker: one file's runs, stripped of what is not sent back; or its refusal."""
    path, root = task
    try:
        runs = _reader([path], root) if _reader else []
    except SitegenError as exc:
        return ("error", exc.message, exc.file, exc.where)
    for r in runs:
        r.src = sc.Source(r.src.path, r.src.name, r.src.sha256, "", r.src.size)
        r.rec = {k: ({} if isinstance(v, dict) else v) for k, v in r.rec.items() if not isinstance(v, list)}
        if isinstance(r.repeat, dict) and "requests" in r.repeat:
            # Written here, in parallel, as receipt_text would write them; sent back as one string
            # rather than thousands of numbers.
            r.repeat["requests"] = RowsText(_rows_json(r.repeat["requests"]))
    return ("ok", runs)


class RowsText(str):
    """A run's request rows already written as JSON (by a worker): `receipt_text` places the text as
    it is. Nothing but `receipt_text` reads a study's rows before the receipt is written."""


def _rows_json(rows: object) -> str:
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def receipt_text(doc: dict) -> str:
    """The receipt indented by one space as every importer writes it, but each run's request rows on
    one line: a study holds hundreds of runs of thousands of rows, which indented would be a line a
    value (and written by Python's slow indenting encoder rather than its C one)."""
    rows: dict[str, str] = {}
    held = []
    for setup in doc["study"]["setups"]:
        for lp in setup["load_points"]:
            for rep in lp["repeats"]:
                if "requests" in rep:
                    token = f"@@rows-{len(rows)}@@"
                    value = rep["requests"]
                    rows[token] = str(value) if isinstance(value, RowsText) else _rows_json(value)
                    held.append((rep, rep["requests"]))
                    rep["requests"] = token
    try:
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    finally:
        for rep, value in held:
            rep["requests"] = value
    return re.sub(r'"(@@rows-[0-9]+@@)"', lambda m: rows[m.group(1)], text)
