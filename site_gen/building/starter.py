"""A new site that builds and serves at once: a config, one small receipt that shows every kind of
field by example, a page, a .gitignore (`sitegen new`)."""
from __future__ import annotations

import json
import os
import tempfile
from importlib import metadata
from pathlib import Path

from site_gen import DISTRIBUTION
from site_gen.building.write import PREFIX
from site_gen.core.config import PLUGIN_OPTIONS
from site_gen.core.errors import SitegenError

# The options a new config spells out, with their defaults (from the one option table).
_SHOWN = (("data_dir", "one folder per report, each holding SUMMARY.json"),
          ("noise_band", "|ratio - 1| <= band counts as level"),
          ("ratio_scale", "the fixed scale of every speed ratio bar"))


def _yaml(value) -> str:
    return f"[{', '.join(map(str, value))}]" if isinstance(value, tuple) else str(value)


CONFIG = """\
site_name: My engine benchmarks
site_description: Receipts-first comparisons of LLM inference engines.
docs_dir: docs
site_dir: site
plugins:
  - sitegen:
""" + "".join(f"      {f'{name}: {_yaml(PLUGIN_OPTIONS[name].default)}':<24}# {comment}\n" for name, comment in _SHOWN)

PAGE = """\
# About these benchmarks

Write the story around your reports here. Each report lives in `data/<id>/SUMMARY.json`;
`sitegen build` turns every receipt into its own pages and `sitegen serve` previews your edits
live. The receipt in `data/example-report/` shows every kind of field by example; its numbers
are made up — replace them with yours.
"""


def receipt() -> dict:
    """A complete, small receipt: each section present, every field filled with a plausible example."""
    cells = []
    for workload, inp, conc, base, cand in (("chat", 1024, 1, 60.0, 66.0), ("chat", 1024, 16, 610.0, 701.5),
                                            ("long-context", 32768, 1, 48.0, 62.4), ("long-context", 131072, 1, 31.0, 29.8)):
        for metric, scale in (("aggregate", 1.0), ("decode", 0.9)):
            cells.append({"checkpoint": "Q4", "workload": workload, "input_tokens": inp, "output_tokens": 512, "concurrency": conc,
                          "metric": metric, "unit": "tokens/s", "baseline": {"rate": round(base * scale, 2), "errors": 0},
                          "candidate": {"rate": round(cand * scale, 2), "errors": 0}})
    return {
        "schema_version": 1,
        "illustrative": "Every number in this example receipt is made up; replace them with your measurements.",
        "report": {
            "title": "NewEngine v1.0 against OldEngine v2.3",
            "date": "2026-01-15",
            "lede": "NewEngine v1.0 is {{ speed_verdict }} against OldEngine on one GPU, and holds {{ kv_ratio_range }} its KV pool.",
            "engines": {
                "candidate": {"name": "NewEngine", "version": "1.0", "image": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
                "baseline": {"name": "OldEngine", "version": "2.3"},
            },
            "hardware": "one GPU",
            "tested": [{"label": "Layout", "text": "One GPU, default settings on both engines."}],
            "checkpoints": [{"id": "Q4", "description": "A 4-bit quantised checkpoint"}],
            "not_covered": ["Multi-GPU layouts."],
        },
        "precision": {
            "reference": "BF16",
            "note": "Both engines on the same rows of the main panel.",
            "measures": [{"id": "kl_full", "label": "KL, full vocabulary", "panel": "main", "vocabulary": "full", "unit": "nats", "further": "higher"},
                         {"id": "top1", "label": "Top-1 agreement", "panel": "main", "vocabulary": "full", "unit": "percent", "further": "lower"}],
            "rows": {"pa-q4": {"panel": "main", "plan": "plan-1", "teacher": "BF16", "sha256": "ab" * 32}},
            "results": [
                {"checkpoint": "Q4", "measure": "kl_full", "baseline": {"value": 0.0312, "date": "2026-01-10", "rows": "pa-q4"},
                 "candidate": {"value": 0.0318, "date": "2026-01-14", "rows": "pa-q4"}, "difference": 0.0006, "interval": [-0.0002, 0.0014]},
                {"checkpoint": "Q4", "measure": "top1", "baseline": {"value": 94.1, "date": "2026-01-10", "rows": "pa-q4"},
                 "candidate": {"value": 94.0, "date": "2026-01-14", "rows": "pa-q4"}, "difference": -0.1, "interval": [-0.3, 0.1]},
            ],
        },
        "speed": {"cells": cells, "ttft": [{"checkpoint": "Q4", "input_tokens": 131072, "baseline": {"seconds": 30.2}, "candidate": {"seconds": 24.9}}]},
        "memory": {
            "kv_pool": [{"checkpoint": "Q4", "engine": "baseline", "tokens": 1000000}, {"checkpoint": "Q4", "engine": "candidate", "tokens": 1250000}],
            "startup": [{"checkpoint": "Q4", "engine": "baseline", "cold_s": 120.0, "warm_s": 95.0},
                        {"checkpoint": "Q4", "engine": "candidate", "cold_s": 80.0, "warm_s": 60.0}],
        },
    }


GITIGNORE = f"/site/\n{PREFIX}*/\n"  # the built site, and the staging folders of builds that were killed

# What the workflow installs while sitegen is known to come from nowhere it can be fetched again: this
# project, from its repository at one commit, which the user fills in. The package index's `sitegen` is
# another, unrelated project; this one's name there is DISTRIBUTION, not yet published.
PLACEHOLDER = f"{DISTRIBUTION} @ git+https://github.com/OWNER/REPO@COMMIT"


def install_requirement() -> str:
    """The pip requirement of the sitegen running now, from a source that cannot resolve to another
    project: its git repository at the commit it was installed from (PEP 610's record of a VCS
    install), or the exact version when it came from a package index under this project's name.
    Else (a checkout, a wheel file, an editable install) PLACEHOLDER, which the workflow refuses to
    install until the user names the repository and commit. Only an installed copy counts (one with
    an INSTALLER record): the metadata a build leaves in a checkout (`sitegen_bench.egg-info`, found
    first when sitegen runs from there) says nothing of where sitegen came from."""
    dist = next((d for d in metadata.distributions(name=DISTRIBUTION) if d.read_text("INSTALLER") is not None), None)
    if dist is None:
        return PLACEHOLDER
    direct = dist.read_text("direct_url.json")
    if direct is None:  # installed from an index, where this name is this project's
        return f"{DISTRIBUTION}=={dist.version}"
    try:
        info = json.loads(direct)
    except ValueError:
        return PLACEHOLDER
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    url, commit = (info.get("url"), vcs.get("commit_id")) if isinstance(vcs, dict) else (None, None)
    if (vcs or {}).get("vcs") == "git" and isinstance(url, str) and url.startswith("https://") \
            and isinstance(commit, str) and len(commit) == 40 and all(c in "0123456789abcdef" for c in commit):
        return f"{DISTRIBUTION} @ git+{url}@{commit}"
    return PLACEHOLDER


# The CI recipe (the guide's "Comparing and CI"): every push to main and every pull request runs the
# benchmark, imports it as a report and compares it with the newest report already in data/ (the
# last published one); a pull request gets the comparison as a comment, and the check fails on a
# change for the worse beyond noise; main keeps the report and publishes the site. tests/test_ci_recipe.py
# runs these steps' commands locally.
WORKFLOW = """\
# Benchmarks in CI with sitegen (its guide: "Comparing and CI").
# Every pull request and every push to main: run the benchmark, import the results as a report, and
# compare it with the newest report in data/ (the last one published). A pull request gets the
# comparison as a comment, and this check fails when a figure is worse beyond noise (FAIL_ON). On
# main the report is committed to data/ and the site is published to GitHub Pages (gh-pages branch).
#
# Before the first run: set SITEGEN (where sitegen is installed from) and the rest of `env:`, edit the
# "Run the benchmark" step for your engine, use a runner with your GPU (`runs-on`), and delete
# data/example-report/ (its numbers are made up, and a report of another setup is refused: sitegen
# compares a release only with the same model, hardware and workload).
name: benchmarks

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: write        # commit the report to main, push the site to gh-pages
  pull-requests: write   # the comparison as a comment

concurrency:
  group: benchmarks-${{ github.ref }}
  cancel-in-progress: false

env:
  # The sitegen this site was made with, from a source that cannot resolve to another project: this
  # project is %(name)s (the package index's `sitegen` is an unrelated one); until it is published
  # there, its repository at a pinned commit: "%(name)s @ git+https://github.com/OWNER/REPO@COMMIT".
  SITEGEN: "%(requirement)s"
  MODEL: your-org/your-model            # what the benchmark serves
  ENGINE: my-engine                     # the engine's name on every page
  ENGINE_VERSION: ""                    # its version, when the result files do not record it
  HARDWARE: ""                          # e.g. "one NVIDIA H100 80GB", when the result files do not record it
  FAIL_ON: worse                        # slower | worse | any | never: what fails the check

jobs:
  benchmark:
    runs-on: ubuntu-latest              # a runner with your GPU, e.g. [self-hosted, gpu]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install sitegen
        run: |
          case "$SITEGEN" in
            *OWNER/REPO*|*@COMMIT)
              echo "::error::Set SITEGEN in .github/workflows/benchmarks.yml to where sitegen is installed from: %(name)s @ git+https://github.com/<owner>/<repo>@<commit>"
              exit 1 ;;
            "%(name)s @ "*|"%(name)s=="*) ;;
            *)
              echo "::error::SITEGEN must name %(name)s, pinned (%(name)s @ git+https://...@<commit>, or %(name)s==<version>): the package index's sitegen is another project. Got: $SITEGEN"
              exit 1 ;;
          esac
          python -m pip install "$SITEGEN"
          python -c "import site_gen.api"   # this project's package: the index's sitegen has none
      - name: Run the benchmark
        # Your engine's server and its serving benchmark, writing one result file per load into
        # $RUNNER_TEMP/results (`vllm bench serve` shown; SGLang's bench_serving files import with the same
        # `sitegen import vllm-bench`, GuideLLM's with `sitegen import guidellm`).
        run: |
          mkdir -p "$RUNNER_TEMP/results"
          vllm serve "$MODEL" --port 8000 > "$RUNNER_TEMP/server.log" 2>&1 &
          timeout 1200 bash -c 'until curl -sf http://127.0.0.1:8000/health > /dev/null; do sleep 5; done'
          for rate in 1 4 16 inf; do
            vllm bench serve --model "$MODEL" --port 8000 --dataset-name random --random-input-len 1024 \\
              --random-output-len 256 --num-prompts 200 --seed 0 --request-rate "$rate" \\
              --save-result --save-detailed --result-dir "$RUNNER_TEMP/results" --result-filename "rate-$rate.json"
          done
      - name: Find the last published report
        run: |
          last=""
          if ls data/*/SUMMARY.json > /dev/null 2>&1; then
            last=$(sitegen summary --format json | python -c 'import json, sys; print(json.load(sys.stdin)["reports"][0]["report"])')
          fi
          echo "LAST=$last" >> "$GITHUB_ENV"
          echo "RUN=run-$(date -u +%%Y%%m%%d-%%H%%M%%S)-${GITHUB_SHA::7}" >> "$GITHUB_ENV"
      - name: Import the run
        run: |
          stated=()
          if [ -n "$ENGINE_VERSION" ]; then stated+=(--set-candidate "engine_version=$ENGINE_VERSION"); fi
          if [ -n "$HARDWARE" ]; then stated+=(--set-candidate "hardware=$HARDWARE"); fi
          sitegen import vllm-bench --candidate "$RUNNER_TEMP"/results/*.json --label-candidate "$ENGINE" "${stated[@]}" -o "data/$RUN"
      - name: Compare with the last published report
        id: compare
        run: |
          status=0
          if [ -z "$LAST" ]; then
            echo "No earlier report to compare with: $RUN is the first." > "$RUNNER_TEMP/comparison.md"
          else
            sitegen compare "$LAST" "$RUN" --format markdown --fail-on "$FAIL_ON" > "$RUNNER_TEMP/comparison.md" 2> "$RUNNER_TEMP/compare-error.txt" || status=$?
            if [ -s "$RUNNER_TEMP/compare-error.txt" ]; then
              { echo "**sitegen compare could not compare $RUN with $LAST**"; echo; sed 's/^/    /' "$RUNNER_TEMP/compare-error.txt"; } >> "$RUNNER_TEMP/comparison.md"
            fi
          fi
          cat "$RUNNER_TEMP/comparison.md" >> "$GITHUB_STEP_SUMMARY"
          echo "status=$status" >> "$GITHUB_OUTPUT"
      - name: Comment on the pull request
        if: github.event_name == 'pull_request'
        env:
          GH_TOKEN: ${{ github.token }}
          PR: ${{ github.event.pull_request.number }}
        run: gh pr comment "$PR" --body-file "$RUNNER_TEMP/comparison.md" --edit-last || gh pr comment "$PR" --body-file "$RUNNER_TEMP/comparison.md"
      - name: Keep the report and publish the site
        if: github.event_name == 'push' && github.ref == 'refs/heads/main'
        run: |
          git config user.name "github-actions[bot]"
          git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
          git add "data/$RUN"
          git commit -m "Benchmark report $RUN"
          git push
          sitegen gh-deploy
      - name: Fail on a change for the worse
        if: steps.compare.outputs.status != '0'
        run: |
          head -n 1 "$RUNNER_TEMP/comparison.md"
          exit 1
"""


def workflow(requirement: str) -> str:
    """The CI recipe, installing sitegen by `requirement` (a pip requirement of DISTRIBUTION)."""
    return WORKFLOW % {"name": DISTRIBUTION, "requirement": requirement}


def project_files() -> dict[str, str]:
    """Every file of a new site, by its path inside the site's folder."""
    return {
        "mkdocs.yml": CONFIG,
        "docs/index.md": PAGE,
        "data/example-report/SUMMARY.json": json.dumps(receipt(), indent=2) + "\n",
        ".gitignore": GITIGNORE,
        ".github/workflows/benchmarks.yml": workflow(install_requirement()),
    }


def write_project(root: Path, *, force: bool = False) -> list[str]:
    """A new site's files written into `root`, all or none (over existing ones only with `force`)."""
    files = project_files()
    check_target(root, files)
    if not force:
        clash = [name for name in files if (root / name).exists()]
        if clash:
            raise SitegenError(f"would overwrite {', '.join(clash)} (use --force)", root)
    write_all(root, files)
    return sorted(files)


def check_target(root: Path, files: dict[str, str]) -> None:
    """Refuses a DIR that is, or lies under, a file, and a file's place taken by a folder."""
    for path in [root, *root.parents]:
        if path.exists() or path.is_symlink():
            if not path.is_dir():
                raise SitegenError("is a file (or a broken link), not a folder; the new site needs a folder", path)
            break
    for name in files:
        if (root / name).is_dir():
            raise SitegenError("is a folder; the new site writes a file here", root / name)


def write_all(root: Path, files: dict[str, str]) -> None:
    """Writes every file or none: each goes to a temporary name first, and only once all are
    written do they take their names; on a failure what was made is removed again."""
    made: list[Path] = []  # folders created and temporary files, to remove on a failure
    try:
        for name in files:
            folder = (root / name).parent
            made += reversed([p for p in [folder, *folder.parents] if not p.exists()])
            folder.mkdir(parents=True, exist_ok=True)
        temps = {}
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=".sitegen-new-", dir=(root / name).parent)
            made.append(Path(tmp))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            temps[name] = tmp
        for name, tmp in temps.items():
            os.replace(tmp, root / name)
    except OSError as exc:
        for path in reversed(made):
            try:
                path.rmdir() if path.is_dir() else path.unlink()
            except OSError:
                pass
        raise SitegenError(f"cannot create the new site: {exc.strerror or exc}; nothing was written",
                           exc.filename or root) from None
