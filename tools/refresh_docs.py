"""Regenerates the parts of the guide made from the code (the CLI and configuration references, the
tables of blocks and figures: tools/reference.py), in every markdown file of docs/ that holds cog
markers (`<!-- [[[cog ... ]]] -->` … `<!-- [[[end]]] -->`).

    .venv/bin/python tools/refresh_docs.py           # rewrite them
    .venv/bin/python tools/refresh_docs.py --check   # exit 1, with a diff, when one would change

Run it after changing a command's options, a configuration option, a block or a figure;
tests/test_docs_guide.py runs the check.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cogapp import Cog

ROOT = Path(__file__).resolve().parent.parent
COMMAND = ".venv/bin/python tools/refresh_docs.py"


def pages(root: Path = ROOT) -> list[Path]:
    """Every markdown file of `root`/docs with cog markers, in path order."""
    return sorted(p for p in (root / "docs").rglob("*.md") if "[[[cog" in p.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 when a page would change")
    args = p.parse_args(argv)
    files = [str(f) for f in pages(root)]
    mode = ["--check", "--diff", f"--check-fail-msg=run `{COMMAND}`"] if args.check else ["-r"]
    # The generators run with this checkout's site_gen and tools/ importable.
    for path in (str(ROOT / "tools"), str(ROOT)):
        if path not in sys.path:
            sys.path.insert(0, path)
    return Cog().main(["cog", *mode, "-U", "--verbosity=1", "-I", str(ROOT / "tools"), *files])


if __name__ == "__main__":
    raise SystemExit(main())
