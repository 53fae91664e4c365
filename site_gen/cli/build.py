"""`sitegen build`: the example site or yours, written atomically to site_dir."""
from __future__ import annotations

import argparse

from site_gen import api
from site_gen.cli.util import Progress, add_common, load, say, warn

HELP = "Build the site from the receipts."
EPILOG = """examples:
  sitegen build                      # mkdocs.yml in this folder, output to site/
  sitegen build -f docs/mkdocs.yml -d ../preview
  sitegen build --strict             # warnings (unknown fields, contradicted statements) fail the build
  sitegen build --clean              # also delete files in the site folder that no build wrote

A build replaces only what the last build wrote (listed in SITE_DIR/.sitegen-manifest) and keeps
the site folder's dot-files (.git, .well-known, .htaccess); it refuses a site folder holding other
files unless --clean, and one that is or lies inside a source (data, docs, custom_dir) or .git.
"""


def add_parser(sub) -> None:
    p = sub.add_parser("build", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("-d", "--site-dir", metavar="SITE_DIR", help="output folder (default: site_dir of the config, 'site')")
    p.add_argument("-s", "--strict", action="store_true", help="treat warnings as errors")
    p.add_argument("-c", "--clean", action="store_true",
                   help="delete files in the site folder that no build wrote (its dot-files are kept)")
    p.set_defaults(run=run, collect_between=True)  # cli `collector`


def run(args) -> int:
    config = load(args)
    # A cache inside what is published or read would ship with the site or the project.
    api.refuse_cache_inside([config.site_dir, config.data_dir, config.docs_dir,
                             *([config.custom_dir] if config.custom_dir else [])])
    # The store only in a process of its own: a caller in this process (the tests) may have patched the pipeline.
    reuse = getattr(args, "own_process", False) and not (args.clean or args.no_cache)
    progress = Progress(args)
    try:
        # --strict decided here, once, on every warning the build found, before the site is put in place.
        result = api.build(config, progress=progress, clean=args.clean, reuse=reuse,
                           accept=api.refuse_warnings if args.strict else None)
    finally:
        progress.done()
    for message in result.warnings:
        warn(message)
    say(args, f"Built {result.pages} pages from {result.reports} report{'s' if result.reports != 1 else ''} "
              f"into {config.site_dir} in {result.seconds:.2f} s"
              + (f" ({len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''})" if result.warnings else ""))
    return 0
