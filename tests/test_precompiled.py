"""Templates compiled when sitegen is packaged (site_gen/render/precompiled.py): a run takes a
template's code from the package only when it was generated from the very text, name and
environment the run has, and that code is what the run would have compiled itself."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

from conftest import ROOT
from site_gen.render import precompiled
from site_gen.render.environment import content_environment, environment

PACKAGE = ROOT / "site_gen"
NOT_GENERATED = "nothing generated in site_gen/_compiled/: tests/run.sh (or pip install -e .) generates it"


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A copy of the package's templates, compiled by the packaging step into the copy (never into
    the checkout, whatever an editable install put there)."""
    copy = tmp_path_factory.mktemp("pkg") / "site_gen"
    shutil.copytree(PACKAGE / "templates", copy / "templates")
    for folder in sorted((PACKAGE / "sections").iterdir()):
        if (folder / "templates").is_dir():
            shutil.copytree(folder / "templates", copy / "sections" / folder.name / "templates")
    precompiled.generate(copy)
    return copy


def _index(package: Path) -> dict[str, tuple[str, str]]:
    namespace: dict = {}
    exec((package / precompiled.PACKAGE / "__init__.py").read_text(), namespace)  # our own generated file
    return namespace["TEMPLATES"]


def test_each_template_compiles_at_packaging_to_the_code_a_run_compiles(generated):
    """The generated module of each template is, line for line after its header, what the run's own
    environment makes of that template; and the packaging step's key is the run's key, so each is used."""
    env = environment(None)
    index = _index(generated)
    files = precompiled.template_files(generated)
    assert len(files) >= 40 and len(index) == len(files)
    run_print = precompiled.fingerprint(env)
    assert run_print is not None
    for name, path in files:
        relative = path.relative_to(generated).as_posix()
        key, module = index[relative]
        source = path.read_text("utf-8")
        assert key == precompiled.key_of(run_print, name, source), relative
        code = (generated / precompiled.PACKAGE / f"{module}.py").read_text("utf-8")
        header, _, body = code.partition("\n")
        assert header.startswith("# Generated from") and body == env.compile(source, name, str(path), raw=True), relative
    # The page templates' bare overlay (a page as its content block) shares the run's fingerprint.
    assert precompiled.fingerprint(content_environment(None)) == run_print


def _references(package: Path) -> dict[str, tuple]:
    namespace: dict = {}
    exec((package / precompiled.PACKAGE / "__init__.py").read_text(), namespace)  # our own generated file
    return namespace["REFERENCES"]


def test_what_each_template_names_is_found_at_packaging_as_a_run_finds_it(generated):
    """The packaging step lists what each template names (extends, include, import: the closures a
    page's record holds) under the key of its text, and a run takes that list only for that very
    text: checked against the names read straight off each template's source, and against the
    run's own parse."""
    import re

    env = environment(None)
    named = _references(generated)
    files = precompiled.template_files(generated)
    assert len(named) == len({path.read_text("utf-8") for _, path in files})
    tag = r"{%-?\s*(?:extends|include|import|from)\s+\"([^\"]+)\""
    literal, started = re.compile(tag + r"(?!\s*~)"), re.compile(tag + r"\s*~")
    for name, path in files:
        source = path.read_text("utf-8")
        key = precompiled.key_of(precompiled.fingerprint(env), precompiled.REFERENCES_RULE, source)
        assert named[key] == precompiled.references(env, source), name
        # Every name written as a quoted string in a tag is there, and every one computed from one.
        assert [n for n in named[key] if n and not n.endswith("*")] == literal.findall(source), name
        assert [n for n in named[key] if n and n.endswith("*")] == [f"{x}*" for x in started.findall(source)], name
    assert any(n.endswith("*") for refs in named.values() for n in refs if n)  # "overview/" ~ key ~ ".html"
    source = (PACKAGE / "templates" / "overview.html").read_text("utf-8")
    assert precompiled._the_index(), NOT_GENERATED
    assert precompiled.packaged_references(env, source) == precompiled.references(env, source)
    assert precompiled.packaged_references(env, source + "{% include 'x.html' %}") is None  # edited since
    assert precompiled.packaged_references(jinja2.Environment(), source) is None  # another environment


def test_code_is_taken_only_for_the_same_text_name_and_file():
    env = environment(None)
    path = PACKAGE / "templates" / "base.html"
    source = path.read_text("utf-8")
    assert precompiled._the_index(), NOT_GENERATED
    assert precompiled.code_for(env, "base.html", str(path), source) is not None
    assert precompiled.code_for(env, "base.html", str(path), source + " ") is None  # edited since
    assert precompiled.code_for(env, "page.html", str(path), source) is None  # another name
    assert precompiled.code_for(env, "base.html", None, source) is None


def test_a_custom_dir_template_with_the_packages_text_is_compiled_not_taken(tmp_path):
    """custom_dir is the author's: even a byte-identical copy of a theme template is never served
    from the package's generated code (its key would match; its place does not)."""
    (tmp_path / "base.html").write_bytes((PACKAGE / "templates" / "base.html").read_bytes())
    env = environment(str(tmp_path))
    source, filename, _ = env.loader.get_source(env, "base.html")
    assert Path(filename).parent == tmp_path
    assert precompiled.code_for(env, "base.html", filename, source) is None


def test_another_environment_is_never_given_sitegens_code():
    plain = jinja2.Environment(**dict(precompiled.OPTIONS.items()))
    assert precompiled.fingerprint(plain) is None
    path = PACKAGE / "templates" / "base.html"
    assert precompiled.code_for(plain, "base.html", str(path), path.read_text("utf-8")) is None


def test_a_filter_that_takes_a_context_changes_the_fingerprint():
    """Such a filter's calls compile differently: code generated without it must not be used."""
    env = environment(None).overlay()
    before = precompiled.fingerprint(env)
    env.filters = {**env.filters, "fixed": jinja2.pass_context(lambda ctx, v: v)}
    assert precompiled.fingerprint(env) != before


def test_generate_skips_what_does_not_compile_and_removes_stale_modules(tmp_path):
    package = tmp_path / "site_gen"
    (package / "templates").mkdir(parents=True)
    (package / "sections" / "x" / "templates" / "overview").mkdir(parents=True)
    (package / "templates" / "ok.html").write_text("{{ a }}")
    (package / "templates" / "bad.html").write_text("{% if %}")
    (package / "sections" / "x" / "templates" / "overview" / "x.html").write_text("{{ b | fixed }}")
    stale = package / precompiled.PACKAGE / "t_0000000000000000.py"
    stale.parent.mkdir()
    stale.write_text("raise SystemExit")
    assert precompiled.generate(package) == 2
    index = _index(package)
    assert set(index) == {"templates/ok.html", "sections/x/templates/overview/x.html"}
    assert not stale.exists()
    before = {p.name: p.stat().st_mtime_ns for p in (package / precompiled.PACKAGE).iterdir()}
    assert precompiled.generate(package) == 2  # again, unchanged: nothing rewritten
    assert {p.name: p.stat().st_mtime_ns for p in (package / precompiled.PACKAGE).iterdir()} == before


COUNT = """
import json, sys, jinja2
compiled = []
original = jinja2.Environment.compile
def compile(self, source, name=None, filename=None, *args, **kwargs):
    compiled.append(name)
    return original(self, source, name, filename, *args, **kwargs)
jinja2.Environment.compile = compile
parsed = []
original_parse = jinja2.Environment.parse
def parse(self, source, *args, **kwargs):
    parsed.append(source[:60])
    return original_parse(self, source, *args, **kwargs)
jinja2.Environment.parse = parse
from site_gen.cli import main
try:
    main(["build", "-q", "-d", sys.argv[1], "--no-cache"])
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps([compiled, parsed]))
"""


@pytest.mark.slow
def test_a_build_compiles_none_of_the_packages_templates(tmp_path):
    """Installed (tests/run.sh installs sitegen, editable), a build of the example site compiles only
    the blocks written as strings in code: every file template comes from the package, and the site
    is the one a build compiling everything makes (tests/test_determinism.py and the rest check
    those bytes). Nor does it parse one to list what it names: that too comes from the package."""
    assert precompiled._the_index(), NOT_GENERATED
    out = subprocess.run([sys.executable, "-c", COUNT, str(tmp_path / "site")], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    names, parsed = json.loads(out.stdout.strip().splitlines()[-1])
    assert names and all(n is None for n in names), names
    assert parsed == [], parsed
