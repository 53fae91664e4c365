"""`sitegen serve`: live preview that follows every edit to receipts, pages, templates and config."""
from __future__ import annotations

import argparse
import os
import signal
import threading

from site_gen.cli.util import add_common, error, say, warn

HELP = "Serve the site and rebuild it as you edit."
EPILOG = """examples:
  sitegen serve                      # http://127.0.0.1:8000/ (dev_addr of the config)
  sitegen serve -a 127.0.0.1:8080 --open
  sitegen serve -a 0.0.0.0:8000      # reachable from other machines: only when you say so

Edits to receipts, markdown pages, templates/ and static/ (yours and, in a source checkout, the
theme's) and the config file rebuild what they touch and update open pages in place. A failed
build keeps serving the last good pages and shows the error over them until the file is fixed.
"""


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("-a", "--dev-addr", metavar="IP:PORT",
                   help="address to serve on (default: dev_addr of the config, 127.0.0.1:8000)")
    p.add_argument("-o", "--open", action="store_true", help="open the site in a browser once it is served")
    p.add_argument("-s", "--strict", action="store_true", help="treat warnings as errors")
    p.set_defaults(run=run)


def run(args) -> int:
    # Here, not above: `sitegen build` imports every command's module for its options only.
    import webbrowser

    from site_gen.preview.serve import Preview
    from site_gen.preview.server import is_loopback, parse_addr

    stop = threading.Event()
    preview = Preview(args.config_file, dev_addr=args.dev_addr, strict=args.strict,
                      out=lambda m: say(args, m), warn=lambda d: warn(str(d)), err=error, log_requests=args.verbose,
                      show_traceback=getattr(args, "traceback", False) or bool(os.environ.get("SITEGEN_TRACEBACK")))
    preview.start()
    try:
        assert preview.dev_addr is not None  # start() has settled it
        host, _ = parse_addr(preview.dev_addr)
        if not is_loopback(host):
            warn(f"serving on {host}, not a loopback address: anyone who can reach this machine can read the preview")
        say(args, f"Serving on {preview.url} (Ctrl-C to stop)")
        if args.open:
            webbrowser.open(preview.url)
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(0.5):
                pass
        finally:
            signal.signal(signal.SIGTERM, previous)
    except KeyboardInterrupt:
        pass
    finally:
        preview.stop()
    say(args, "Stopped.")
    return 0
