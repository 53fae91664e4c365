"""`sitegen` command line: a thin front end over the pipeline; subcommands live beside it (`cli/<command>.py`).

Exit status, every command alike (EXIT_STATUS, shown by `sitegen --help`): 0 done; 1 refused: a bad
command line (an unknown option, a value not among its choices), a bad config, a bad receipt, source
or page, or `compare` finding what --fail-on names; 2 an internal error, a bug in sitegen (a
traceback with --traceback); 120 the output could not be written; 130 interrupted (Ctrl-C); 143
stopped (SIGTERM). A command line is input like any other: refused with exit 1 and one `Error:` line.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
import threading
import traceback

from site_gen import api
from site_gen.cli.util import error, warn

COMMANDS = ["build", "serve", "check", "summary", "compare", "history", "new", "import", "gh-deploy"]
USAGE_ERROR = 1  # a bad command line is bad input: exit 1, as any refused input
INTERNAL_ERROR = 2
EXIT_STATUS = """exit status (every command):
  0    done
  1    refused: a bad command line, config, receipt, source or page (one Error: line says
       which and where), or `compare` found what --fail-on names
  2    an internal error: a bug in sitegen (--traceback shows where)
  120  the output could not be written; 130 interrupted (Ctrl-C); 143 stopped (SIGTERM)"""


_MODULES = {"import": "import_"}  # `import` is a Python keyword


class Parser(argparse.ArgumentParser):
    """argparse's parser, a bad command line ending with exit 1 (argparse's own is 2, the code of an
    internal error here) and one `Error:` line after the usage, as any refused input; every
    command's parser is one (argparse makes subparsers of the parser's class)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        error(f"{self.prog}: {message} (see {self.prog} --help)")
        self.exit(USAGE_ERROR)


def parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. Given the arguments, only the named command's module is imported
    (the others' help is never shown then): a warm `sitegen build` needs no pandas."""
    p = Parser(prog="sitegen", description="Static report sites for LLM inference-engine benchmarks.", epilog=EXIT_STATUS,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"sitegen {api.__version__}")
    p.add_argument("--traceback", action="store_true", help="show a Python traceback on errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    named = next((a for a in argv or () if not a.startswith("-")), None)
    version_only = named is None and "--version" in (argv or ())
    for name in COMMANDS:
        if version_only or (named in COMMANDS and name != named):
            sub.add_parser(name)
        else:
            importlib.import_module(f"site_gen.cli.{_MODULES.get(name, name.replace('-', '_'))}").add_parser(sub)
    return p


class _Terminated(BaseException):
    """SIGTERM, raised where the main thread is, so that `finally` and `with` blocks run."""


def _terminate(signum, frame):
    raise _Terminated()


def entry() -> None:
    """The `sitegen` command and `python -m site_gen`: the process's own command line, run; then the
    process ends (`_leave`)."""
    _leave(main())


def _leave(code: int):
    """Ends sitegen's own process now, with `code`. The interpreter's shutdown would free every
    object one by one, which an exiting process need not do: ~160 ms after a one-changed build of a
    thousand reports (of 2.4 s). Nothing is left to close: every file sitegen writes is written
    through `with`, its workers are stopped and the previous site's removal has its own process by
    then; only the standard streams are flushed. One that cannot be (a full disk, a pipe its reader
    closed) ends the process with 120, as Python's own shutdown does: the output did not all arrive."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except ValueError:
            pass  # closed already: nothing was left in it
        except OSError as exc:
            if not isinstance(exc, BrokenPipeError):  # its reader stopped reading: nobody to tell
                try:
                    os.write(2, f"Error: the output could not be written: {exc.strerror or exc}\n".encode())
                except OSError:
                    pass
            code = 120
    os._exit(code)


def collector(args) -> None:
    """The cyclic garbage collector of sitegen's own process (never a caller's: a caller's collector
    is the caller's), decided once the command is known. A build allocates millions of small objects
    and makes few cycles. A command that builds a site (`collect_between` in its parser's defaults)
    runs with the collector off and collects between reports and pages (core/collector.py), as the
    forked workers do: its passes over the modules being imported cost ~50 ms of a cold build of the
    example. Any other command, the preview among them (it runs for hours), keeps it on, with a pass
    every 50,000 allocations rather than 700 (252 passes in a cold build in one process, 18 so)."""
    if getattr(args, "collect_between", False):
        api.collect_between_pages()
    else:
        gc.set_threshold(50_000, *gc.get_threshold()[1:])
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    own_process = argv is None
    if own_process:
        gc.disable()  # while the command's modules are imported; `collector` decides what follows
    p = parser(sys.argv[1:]) if argv is None else parser()  # a caller in this process may want every command
    args, extra = p.parse_known_args(argv)
    if extra:  # said by the command's own parser: `sitegen build: unrecognized arguments: --nope`
        commands = next((a.choices for a in p._actions if isinstance(a, argparse._SubParsersAction)), {})
        commands.get(getattr(args, "command", None) or "", p).error(f"unrecognized arguments: {' '.join(extra)}")
    if own_process:
        collector(args)
    if not getattr(args, "run", None):
        p.print_help(sys.stderr)
        error("name a command (sitegen COMMAND --help for its options)")
        return USAGE_ERROR
    show_traceback = getattr(args, "traceback", False) or bool(os.environ.get("SITEGEN_TRACEBACK"))
    # A stop asked for by the system (a CI job cancelled, `kill`) unwinds like Ctrl-C: a build's
    # staging folder is removed and its workers stopped, instead of being left behind.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    # The process's own command line (not a caller's list): the previous site is removed after the
    # command, by a process of its own, so the command returns as soon as the new site is in place.
    if own_process:
        api.defer_removal()
    args.own_process = own_process
    try:
        return args.run(args)
    except api.SitegenError as exc:
        if show_traceback:
            traceback.print_exc()
        error(str(exc))
        return 1
    except OSError as exc:
        # The machine or a path the user named (too long a name, no permission, a full disk): not a bug.
        if show_traceback:
            traceback.print_exc()
        error(str(api.SitegenError(exc.strerror or str(exc), exc.filename)) if exc.filename else f"{exc.strerror or exc}")
        return 1
    except KeyboardInterrupt:
        return 130
    except _Terminated:
        return 143
    except Exception as exc:  # a bug in sitegen, not in the input
        if show_traceback:
            traceback.print_exc()
        error(f"internal error: {type(exc).__name__}: {exc} (run with --traceback for details)")
        return INTERNAL_ERROR
    finally:
        for note in api.cache_notes():  # the build cache's own trouble (not yours, not usable): said once
            warn(note)
        api.configure_cache()  # a later caller in this process (the tests) starts from the default
        if own_process:
            api.remove_aside(detach=True)
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
