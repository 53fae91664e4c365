"""What an importer reads (issue 50, items 1 and 10): only files inside the folders the user named,
never through a link leading out; a licence only from beside the sources, one above them named in a
warning that asks for --attribution and never read; every source's size asked of the file system
before a byte is read."""
from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from pathlib import Path

import pytest
from conftest import import_here, one_error_line
from test_import_serving_bad_input import lm, lmeval, refused, runs, samples_path, vllm  # noqa: F401

SECRET = "ghp_SECRETTOKEN0123456789"


def receipt_text(tmp_path: Path, out: str = "r") -> str:
    return (tmp_path / "data" / out / "SUMMARY.json").read_text()


def secret_file(tmp_path: Path, name: str = "credentials") -> Path:
    outside = tmp_path / "elsewhere"
    outside.mkdir(exist_ok=True)
    f = outside / name
    f.write_text(json.dumps({"client_command": f"vllm bench serve --token {SECRET}", "gpu_type": SECRET}) + "\n")
    return f


def test_a_sidecar_that_links_out_of_the_folder_is_refused(runs, tmp_path):  # noqa: F811
    """vLLM's `NAME.commands` beside `NAME.json` put its strings in the receipt's command and hardware."""
    target = secret_file(tmp_path)
    runs["cand"][0].with_suffix(".commands").symlink_to(target)
    line = refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, "run_qps_1.0.commands", "leads out of the source folder")
    assert SECRET not in line


def test_a_sidecar_inside_the_folder_is_read(runs, tmp_path):  # noqa: F811
    for side in ("base", "cand"):
        (runs[side][0].with_suffix(".commands")).write_text(json.dumps({"gpu_type": "NVIDIA H100"}) + "\n")
    r = vllm(tmp_path, runs["base"], runs["cand"])
    assert r.returncode == 0, r.stderr
    assert json.loads(receipt_text(tmp_path))["report"]["hardware"] == "NVIDIA H100"


def test_a_sidecar_link_inside_the_folder_is_followed(runs, tmp_path):  # noqa: F811
    for side in ("base", "cand"):
        real = runs[side][0].parent / "commands.json"
        real.write_text(json.dumps({"gpu_type": "NVIDIA L4"}) + "\n")
        runs[side][0].with_suffix(".commands").symlink_to(real.name)
    r = vllm(tmp_path, runs["base"], runs["cand"])
    assert r.returncode == 0, r.stderr
    assert json.loads(receipt_text(tmp_path))["report"]["hardware"] == "NVIDIA L4"


def test_a_licence_above_the_sources_is_never_read_nor_published(runs, tmp_path):  # noqa: F811
    """Without --attribution, a LICENSE up to five folders above was read and its first line published
    on every page: a credentials file put a token on 9 pages."""
    (tmp_path / "LICENSE").write_text(f"{SECRET}\nMIT License\n")
    r = vllm(tmp_path, runs["base"], runs["cand"])
    assert r.returncode == 0, r.stderr
    text = receipt_text(tmp_path)
    assert SECRET not in text and "attribution" not in json.loads(text)["report"]
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("WARNING")]
    assert len(warnings) == 1 and str(tmp_path / "LICENSE") in warnings[0] and "--attribution" in warnings[0], r.stderr
    assert SECRET not in r.stderr
    # With --attribution, the user's words, and no warning.
    shutil.rmtree(tmp_path / "data")
    r = vllm(tmp_path, runs["base"], runs["cand"], "--attribution", "Data from the lab, CC BY 4.0")
    assert r.returncode == 0 and "WARNING" not in r.stderr, r.stderr
    assert json.loads(receipt_text(tmp_path))["report"]["attribution"] == "Data from the lab, CC BY 4.0"


def test_a_licence_beside_the_sources_is_credited_in_its_own_words(runs, tmp_path):  # noqa: F811
    for side in ("base", "cand"):
        (runs[side][0].parent / "LICENSE").write_text("MIT License\n\nCopyright (c) 2026 The Lab\n\nPermission is ...\n")
    r = vllm(tmp_path, runs["base"], runs["cand"])
    assert r.returncode == 0, r.stderr
    credit = json.loads(receipt_text(tmp_path))["report"]["attribution"]
    assert credit == "MIT License; Copyright (c) 2026 The Lab (the source files' LICENSE)"


def test_a_licence_beside_the_sources_that_names_no_licence_is_not_credited(runs, tmp_path):  # noqa: F811
    for side in ("base", "cand"):
        (runs[side][0].parent / "LICENSE").write_text(f"{SECRET}\n")
    r = vllm(tmp_path, runs["base"], runs["cand"])
    assert r.returncode == 0, r.stderr
    assert SECRET not in receipt_text(tmp_path) and SECRET not in r.stderr
    assert "names no licence" in r.stderr and "--attribution" in r.stderr


def test_a_licence_beside_the_sources_that_links_out_is_refused(runs, tmp_path):  # noqa: F811
    target = secret_file(tmp_path)
    for side in ("base", "cand"):
        (runs[side][0].parent / "LICENSE").symlink_to(target)
    line = refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, "LICENSE", "leads out of the source folder")
    assert SECRET not in line


def test_an_lm_eval_samples_file_that_links_out_is_refused(lm, tmp_path):  # noqa: F811
    f = samples_path(lm, "candidate")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.move(f, outside / f.name)
    f.symlink_to(outside / f.name)
    refused(lmeval(tmp_path, lm), tmp_path, f.name, "leads out of the source folder")


def test_a_source_the_user_names_may_be_a_link(runs, tmp_path):  # noqa: F811
    """The user named it: a link they name is followed (its folder is the one they named)."""
    elsewhere = tmp_path / "named"
    elsewhere.mkdir()
    links = []
    for f in runs["cand"]:
        links.append(elsewhere / f.name)
        links[-1].symlink_to(f)
    r = vllm(tmp_path, runs["base"], links)
    assert r.returncode == 0, r.stderr


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)
    return path


@pytest.mark.parametrize("fmt", ["vllm-bench", "guidellm", "lm-eval"])
def test_an_oversized_source_is_refused_unread(tmp_path, fmt):
    """300 MB were read (291 MB RSS) before the 256 MB limit refused them: its size is asked first."""
    big = _sparse(tmp_path / "results_2026-01-01T00-00-00.json", 300 << 20)
    small = tmp_path / "other" / "results_2026-01-02T00-00-00.json"
    small.parent.mkdir()
    small.write_text("{}")
    tracemalloc.start()
    try:
        r = import_here("import", fmt, "--baseline", str(big), "--candidate", str(small), "-o", str(tmp_path / "data" / "r"), "-q")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    one_error_line(r.returncode, r.stderr, big.name, "300.0 MB, over the", "MB limit", "refused unread")
    assert peak < 8 << 20, f"{peak / 1048576:.1f} MB allocated"


def test_an_oversized_sidecar_is_refused_unread(runs, tmp_path):  # noqa: F811
    _sparse(runs["cand"][0].with_suffix(".commands"), 200 << 20)
    tracemalloc.start()
    try:
        r = vllm(tmp_path, runs["base"], runs["cand"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    refused(r, tmp_path, "run_qps_1.0.commands", "over the 1 MB limit")
    assert peak < 16 << 20, f"{peak / 1048576:.1f} MB allocated"


def test_a_fifo_beside_the_sources_is_refused_without_blocking(runs, tmp_path):  # noqa: F811
    os.mkfifo(runs["cand"][0].with_suffix(".commands"))
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, "run_qps_1.0.commands", "not a regular file")
