#!/usr/bin/env bash
# Installs what the tests need (a venv with sitegen and its test extras, Debian's chromium and its
# headless shell) and runs the whole suite. README's test command and .ci/run both call this script.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's chromium, and its headless shell (the same Blink, without the browser's window) that the
# browser tests drive: tests/conftest.py says why.
missing=""
command -v chromium >/dev/null 2>&1 || missing="chromium"
[ -x /usr/lib/chromium/chromium-headless-shell ] || missing="$missing chromium-headless-shell"
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  # shellcheck disable=SC2086 # one word per package
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
# uv (installed by pip into the venv) installs what pip would, the newest releases pyproject.toml
# allows, in ~14 s where pip takes 35-48 s on a fresh 2-core machine: it downloads and unpacks in
# parallel. pip is the fallback wherever uv cannot be had or fails. Neither compiles every module of
# every package (uv never does; pip is told --no-compile: plotly alone has thousands); the tests
# compile what they import, once (bytecode caches are kept below).
if ! { .venv/bin/python -m pip install -q --disable-pip-version-check uv >/dev/null 2>&1 &&
       .venv/bin/python -m uv pip install -q --python .venv/bin/python -e '.[test]'; }; then
  echo "uv unavailable or failed: installing with pip" >&2
  .venv/bin/python -m pip install -q --no-compile --disable-pip-version-check -e '.[test]'
fi
# The templates compiled into the checkout (site_gen/render/precompiled.py), as the install above
# does once: again here, so that the suite runs on what the templates say now (~0.5 s).
.venv/bin/python -m site_gen.render.precompiled
# Bytecode caches on (__pycache__, ignored by git and by sitegen's code hash): the suite starts
# ~100 interpreters and pytest rewrites every test module in each worker; with
# PYTHONDONTWRITEBYTECODE set, each compiles sitegen and the tests again (~0.3 s of CPU apiece).
unset PYTHONDONTWRITEBYTECODE
# --quick: the development loop (under 90 s on 2 cores): every test but those their own file marks
# slow (@pytest.mark.slow, or pytestmark for a whole file: long property and fuzz runs, browser
# passes, scale tests, the few that take seconds each).
# Workers: two, one a core. A third filled the browser tests' waits for Chromium on one 2-core host
# (~5% less time) but cost CI's ~18% more: the whole run's work is nearly all CPU.
workers="${SITEGEN_TEST_WORKERS:-2}"
if [ "${1:-}" = "--quick" ]; then
  shift
  set -- -m "not slow" "$@"
fi
# The linter and the type checker first, their configuration pyproject.toml's (ruff: under a second;
# mypy: a few seconds once its cache in .mypy_cache holds the unchanged modules).
.venv/bin/ruff check --quiet .
.venv/bin/mypy
set +e
# Whole files per worker (`workers` above), so a module's shared build is made once.
# conftest.py puts the longest files first; --no-loadscope-reorder keeps that order (by default
# xdist hands out the files with the most tests first, whatever they cost).
.venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
status=$?
set -e
# pytest's 5 means no test ran: that is a failure here, not a pass.
[ "$status" -eq 5 ] && { echo "no tests ran"; exit 1; }
exit "$status"
