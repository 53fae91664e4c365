"""A valid receipt of more than 50 MB (a quarter of a million long-output replies) builds, within
a generous memory bound, and its figures are computed from every record."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import threading

import pytest

from test_bad_inputs import EXAMPLE, write_config

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

TARGET = 50 * 1024 * 1024
MAX_RSS_MB = 2048


def make_receipt(folder) -> int:
    """The example receipt with its replies repeated under new prompt names until it passes 50 MB."""
    doc = json.loads((EXAMPLE / "SUMMARY.json").read_text(encoding="utf-8"))
    replies = doc["long_outputs"]["replies"]
    base_size = len(json.dumps(doc).encode())
    per_reply = len(json.dumps(replies).encode()) / len(replies) + len("-r0000000")
    copies = int((TARGET - base_size) / per_reply * 1.02)
    grown = list(replies)
    for k in range(copies):
        r = dict(replies[k % len(replies)])
        r["prompt"] = f"{r['prompt']}-r{k:07d}"
        grown.append(r)
    doc["long_outputs"]["replies"] = grown
    folder.mkdir(parents=True)
    data = json.dumps(doc).encode()
    (folder / "SUMMARY.json").write_bytes(data)
    (folder / "lede.md").write_bytes((EXAMPLE / "lede.md").read_bytes())
    assert len(data) > TARGET
    return len(grown)


def run_measured(args, cwd, timeout: float = 300) -> tuple[int, str, float]:
    """Runs a child to its end; returns (exit status, stderr, its own peak RSS in MB).

    os.wait4 reports the resource use of exactly that child, not of every child this process ran.
    """
    with open(cwd / "stderr.txt", "wb") as errf:
        proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errf)
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, (cwd / "stderr.txt").read_text(), usage.ru_maxrss / 1024  # KB on Linux


def test_fifty_megabyte_receipt_builds_in_bounded_memory(tmp_path):
    root = tmp_path / "project"
    replies = make_receipt(root / "data" / "large")
    write_config(root, {"max_receipt_mb": 100})
    code, err, peak_mb = run_measured([sys.executable, "-m", "site_gen", "build", "-q"], root)
    assert code == 0, err
    assert peak_mb < MAX_RSS_MB, f"peak RSS {peak_mb:.0f} MB"
    site = root / "site" / "reports" / "large"
    assert (site / "SUMMARY.json").stat().st_size > TARGET
    rows = list(csv.DictReader(io.StringIO((site / "csv" / "long-outputs.csv").read_text(encoding="utf-8"))))
    assert sum(int(r["replies"]) for r in rows) == replies


def test_same_receipt_over_the_default_limit_is_refused(tmp_path):
    """Without the raised limit the same file is refused, by size, before parsing."""
    root = tmp_path / "project"
    make_receipt(root / "data" / "large")
    write_config(root, {"max_receipt_mb": 40})
    code, err, _ = run_measured([sys.executable, "-m", "site_gen", "build"], root)
    assert code == 1 and "Traceback" not in err
    assert "over the 40 MB limit (raise plugins.sitegen.max_receipt_mb to accept it)" in err
