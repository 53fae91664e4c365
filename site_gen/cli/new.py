"""`sitegen new DIR`: a new site that builds and serves at once."""
from __future__ import annotations

import argparse
from pathlib import Path

from site_gen import api
from site_gen.cli.util import say

HELP = "Create a new site: mkdocs.yml, one small example receipt and a page."
EPILOG = """examples:
  sitegen new my-benchmarks && cd my-benchmarks && sitegen build
  sitegen new . --force          # into the current folder, over existing files
"""


def add_parser(sub) -> None:
    p = sub.add_parser("new", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("directory", metavar="DIR", help="folder to create (may exist if empty)")
    p.add_argument("--force", action="store_true", help="write over existing files")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(run=run)


def run(args) -> int:
    if not args.directory.strip():
        raise api.SitegenError("DIR is empty; name the folder to create ('.' for the current folder)")
    root = Path(args.directory)
    api.new_project(root, force=args.force)
    say(args, f"Created a new site in {root}. Next:\n  cd {root}\n  sitegen serve     # live preview at http://127.0.0.1:8000/\n"
              f"  sitegen build     # the site, in {root / 'site'}\n"
              f"Before the CI workflow's first run, read the first lines of {root / '.github' / 'workflows' / 'benchmarks.yml'}.")
    return 0
