"""One public API (issue 27): the command line, the live preview and the MkDocs plugin use
site_gen/api.py and nothing else of sitegen; the API itself is light to import."""
from __future__ import annotations

import json
import subprocess
import sys

import imports_graph as graph
import pytest

from conftest import ROOT

FRONT_ENDS = ("site_gen.cli", "site_gen.preview", "site_gen.mkdocs_plugin", "site_gen.__main__")


def _front_end(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FRONT_ENDS)


@pytest.mark.slow
def test_front_ends_import_only_the_public_api():
    g = graph.imports(graph.modules())
    front = {m: targets for m, targets in g.items() if _front_end(m)}
    assert {"site_gen.cli", "site_gen.cli.build", "site_gen.preview.serve", "site_gen.mkdocs_plugin"} <= set(front)
    beyond = {m: sorted(t for t in targets if not (_front_end(t) or t in ("site_gen.api", "site_gen")))
              for m, targets in front.items()}
    assert {m: t for m, t in beyond.items() if t} == {}
    assert all("site_gen.api" in g[m] for m in ("site_gen.cli", "site_gen.cli.build", "site_gen.preview.serve",
                                                "site_gen.mkdocs_plugin"))


def test_the_api_imports_nothing_heavy():
    """A warm `sitegen build`, the plugin's fixed cost and `--help` start from it: no pandas, Jinja or
    the pipeline at import."""
    code = ("import sys, json\nimport site_gen.api\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numpy', 'jinja2', 'markdown', 'plotly'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []
