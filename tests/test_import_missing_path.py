"""A source path that does not exist is "not found", in every import format's words, whatever its
shape (SOURCE, --baseline/--candidate, --setup): one error line naming the path, exit 1, nothing
written."""
from __future__ import annotations

from pathlib import Path

import pytest

from site_gen import api
from site_gen.cli import main as sitegen

FORMATS = sorted(api.import_formats())


def _args(fmt: str, missing: str) -> list[list[str]]:
    if fmt == "ledger":
        return [[missing, "--comparison", "c"], [missing, "--baseline", "a", "--candidate", "b"]]
    if fmt == "cuteafd-study":
        return [[missing]]
    shapes = [["--candidate", missing], ["--baseline", missing, "--candidate", missing]]
    if fmt in ("vllm-bench", "guidellm", "lm-eval"):
        shapes.append(["--setup", "a", missing, "--setup", "b", missing])
    return shapes


def test_every_format_is_asked():
    assert {"ledger", "cuteafd-study", "vllm-bench", "lm-eval"} <= set(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_path_that_does_not_exist_is_not_found(fmt, tmp_path, capsys):
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - sitegen:\n      data_dir: data\n", encoding="utf-8")
    (tmp_path / "data").mkdir()
    missing = str(tmp_path / "nope")
    for shape in _args(fmt, missing):
        code = sitegen(["import", fmt, *shape, "-f", str(tmp_path / "mkdocs.yml"), "-o", str(tmp_path / "data" / "out")])
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 1 and len(lines) == 1, (shape, err)
        assert lines[0].startswith(f"Error: {missing}") and "not found" in lines[0], (shape, err)
        assert not Path(tmp_path / "data" / "out").exists()
