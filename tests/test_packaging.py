"""`pip install .` (not editable: the README's first command) installs every file sitegen runs from:
each package under site_gen/, the theme and every section's templates, the schema. A section added
as a folder is packaged with no edit of pyproject.toml."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile

from conftest import ROOT

BUILD = "from setuptools import build_meta; print(build_meta.build_wheel('dist'))"


def test_the_wheel_holds_every_file_of_site_gen_and_a_new_sections_folder(tmp_path):
    src = tmp_path / "src"
    # Without what an editable install generated in the checkout: the wheel's build makes its own.
    shutil.copytree(ROOT / "site_gen", src / "site_gen",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_compiled"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    # A section added as a folder, as tests/test_section_package.py adds it.
    shutil.copytree(ROOT / "tests" / "toy_section", src / "site_gen" / "sections" / "toy",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = subprocess.run([sys.executable, "-c", BUILD], cwd=src, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    wheel = src / "dist" / out.stdout.strip().splitlines()[-1]
    assert wheel.name.startswith("sitegen_bench-")  # the package index's `sitegen` is another project
    packed = {n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("site_gen/")}
    tree = {p.relative_to(src).as_posix() for p in (src / "site_gen").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}
    assert tree - packed == set()
    assert {"site_gen/templates/base.html", "site_gen/static/sitegen.css", "site_gen/sections/toy/templates/toy.html",
            "site_gen/sections/toy/templates/overview/toy.html", "site_gen/sections/serving/__init__.py"} <= packed
    # Every template compiled into the package (render/precompiled.py), the new section's included:
    # the index names each template's file and its module, and each module is packed.
    index = ast.parse(zipfile.ZipFile(wheel).read("site_gen/_compiled/__init__.py").decode())
    tables = {n.targets[0].id: ast.literal_eval(n.value) for n in index.body if isinstance(n, ast.Assign)}
    compiled = tables["TEMPLATES"]
    templates = {p.relative_to(src / "site_gen").as_posix() for p in (src / "site_gen").rglob("*.html")}
    assert set(compiled) == templates and "sections/toy/templates/toy.html" in compiled
    assert {f"site_gen/_compiled/{module}.py" for _, module in compiled.values()} <= packed
    # And the receipt checker of each published receipt schema (receipts/fastschema.py).
    schemas = list((src / "site_gen" / "schema").glob("summary-[0-9]*.schema.json"))
    assert len(tables["CHECKERS"]) == len(schemas) >= 3
    assert {f"site_gen/_compiled/{module}.py" for module, _ in tables["CHECKERS"].values()} <= packed
