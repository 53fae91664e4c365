"""`sitegen` command line: a thin front end over the pipeline; subcommands live in `commands/`."""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import threading
import traceback

import site_gen
from site_gen.cli_util import error
from site_gen.errors import SitegenError

COMMANDS = ["build", "serve", "check", "summary", "new", "import", "gh-deploy"]


_MODULES = {"import": "import_"}  # `import` is a Python keyword


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sitegen", description="Static report sites for LLM inference-engine benchmarks.")
    p.add_argument("--version", action="version", version=f"sitegen {site_gen.__version__}")
    p.add_argument("--traceback", action="store_true", help="show a Python traceback on errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"site_gen.commands.{_MODULES.get(name, name.replace('-', '_'))}").add_parser(sub)
    return p


class _Terminated(BaseException):
    """SIGTERM, raised where the main thread is, so that `finally` and `with` blocks run."""


def _terminate(signum, frame):
    raise _Terminated()


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if not getattr(args, "run", None):
        p.print_help()
        return 2
    show_traceback = getattr(args, "traceback", False) or bool(os.environ.get("SITEGEN_TRACEBACK"))
    # A stop asked for by the system (a CI job cancelled, `kill`) unwinds like Ctrl-C: a build's
    # staging folder is removed and its workers stopped, instead of being left behind.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        return args.run(args)
    except SitegenError as exc:
        if show_traceback:
            traceback.print_exc()
        error(str(exc))
        return 1
    except OSError as exc:
        # The machine or a path the user named (too long a name, no permission, a full disk): not a bug.
        if show_traceback:
            traceback.print_exc()
        error(str(SitegenError(exc.strerror or str(exc), exc.filename)) if exc.filename else f"{exc.strerror or exc}")
        return 1
    except KeyboardInterrupt:
        return 130
    except _Terminated:
        return 143
    except Exception as exc:  # a bug in sitegen, not in the input
        if show_traceback:
            traceback.print_exc()
        error(f"internal error: {type(exc).__name__}: {exc} (run with --traceback for details)")
        return 2
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
