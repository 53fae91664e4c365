"""What a build reads besides receipts (issue 50, items 2 and 7): docs_dir's files only inside
docs_dir (a link leading out is refused by `sitegen build` and the preview's builder alike, and
nothing of it is published), custom_dir's only as regular files inside it of bounded size (a FIFO,
/proc, a 1.5 GB file: refused before anything is read), docs pages and files of bounded size."""
from __future__ import annotations

import contextlib
import os
import signal
import tracemalloc
from pathlib import Path

import pytest
from conftest import mkdocs_here, sitegen_here

from site_gen import api

SECRET = "sitegen-test-secret-0123456789"


@contextlib.contextmanager
def within(seconds: int):
    """Fails the test instead of hanging it (a blocking read of a FIFO or /proc/kmsg never returns)."""
    def hung(signum, frame):
        raise AssertionError(f"still running after {seconds} s: a read blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def site_text(site: Path) -> str:
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in site.rglob("*") if p.is_file()) if site.exists() else ""


def build(project: Path, site: Path):
    return sitegen_here("build", "-q", "-d", str(site), "--no-cache", cwd=project)


def one_error(r, *needles: str) -> str:
    assert r.returncode == 1, (r.returncode, r.stderr)
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "internal error" not in errors[0], r.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


# -- item 2: docs_dir ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, target", [("passwd", "/etc/passwd"), ("environ.md", "/proc/self/environ"),
                                          ("notes/secret.txt", "OUTSIDE")])
def test_a_docs_link_that_leads_out_is_refused_and_nothing_is_published(small_project, tmp_path, monkeypatch, name, target):
    """A link to /proc/self/environ published the builder's environment, /etc/passwd became passwd.html."""
    monkeypatch.setenv("SITEGEN_TEST_SECRET", SECRET)
    if target == "OUTSIDE":
        (tmp_path / "outside.txt").write_text(SECRET)
        target = str(tmp_path / "outside.txt")
    link = small_project / "docs" / name
    link.parent.mkdir(parents=True, exist_ok=True)
    site = tmp_path / "site"
    assert build(small_project, site).returncode == 0
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    link.symlink_to(target)
    line = one_error(build(small_project, site), name, "leads out of docs_dir", "copy the file in, or remove the link")
    assert SECRET not in line
    after = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before  # the previous site as it was
    assert SECRET not in site_text(site) and "root:x:0:0" not in site_text(site)


def test_the_preview_builder_refuses_a_docs_link_that_leads_out(small_project, tmp_path):
    (tmp_path / "outside.md").write_text(f"# {SECRET}\n")
    (small_project / "docs" / "linked.md").symlink_to(tmp_path / "outside.md")
    config = api.load_config(small_project / "mkdocs.yml", tmp_path / "site")
    with pytest.raises(api.SitegenError, match="leads out of docs_dir"):
        api.live_builder(config).build()


def test_a_docs_link_inside_docs_dir_is_followed(small_project, tmp_path):
    (small_project / "docs" / "shared").mkdir()
    (small_project / "docs" / "shared" / "about.md").write_text("# About\n\nShared words.\n")
    (small_project / "docs" / "about.md").symlink_to("shared/about.md")
    r = build(small_project, tmp_path / "site")
    assert r.returncode == 0, r.stderr
    assert "Shared words." in (tmp_path / "site" / "about.html").read_text()


def test_a_docs_dir_that_is_itself_a_link_builds(small_project, tmp_path):
    os.rename(small_project / "docs", tmp_path / "real-docs")
    (small_project / "docs").symlink_to(tmp_path / "real-docs")
    assert build(small_project, tmp_path / "site").returncode == 0


def _sparse(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)
    return path


@pytest.mark.parametrize("name, size, needle", [("big.md", 64 << 20, "docs page is 64.0 MB, over the 2 MB limit"),
                                                ("video.bin", 150 << 20, "docs file is 150.0 MB, over the 100 MB limit")])
def test_an_oversized_docs_file_is_refused_unread(small_project, tmp_path, name, size, needle):
    _sparse(small_project / "docs" / name, size)
    tracemalloc.start()
    try:
        r = build(small_project, tmp_path / "site")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    one_error(r, name, needle, "refused unread")
    assert peak < 16 << 20, f"{peak / 1048576:.1f} MB allocated"


# -- item 7: custom_dir ----------------------------------------------------------------------------

def with_custom_dir(project: Path, custom: str) -> None:
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("      data_dir: data\n", f"      data_dir: data\n      custom_dir: {custom}\n"))


def test_custom_dir_proc_is_refused_without_reading_it(small_project, tmp_path):
    """`custom_dir: /proc` hung on /proc/kmsg (killed after 450 s)."""
    with_custom_dir(small_project, "/proc")
    with within(60):
        one_error(build(small_project, tmp_path / "site"), "custom_dir")


def test_a_fifo_in_custom_dir_is_refused_without_blocking(small_project, tmp_path):
    (small_project / "theme").mkdir()
    os.mkfifo(small_project / "theme" / "base.html")
    with_custom_dir(small_project, "theme")
    with within(60):
        one_error(build(small_project, tmp_path / "site"), "base.html", "not a regular file")


def test_an_oversized_file_in_custom_dir_is_refused_unread(small_project, tmp_path):
    """A 1.5 GB file in custom_dir was read whole (3.1 GB RSS)."""
    _sparse(small_project / "theme" / "sitegen.css", 1536 << 20)
    with_custom_dir(small_project, "theme")
    tracemalloc.start()
    try:
        r = build(small_project, tmp_path / "site")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    one_error(r, "sitegen.css", "1536.0 MB, over the 16 MB limit", "refused unread")
    assert peak < 64 << 20, f"{peak / 1048576:.1f} MB allocated"


def test_a_custom_dir_link_that_leads_out_is_refused(small_project, tmp_path):
    (tmp_path / "outside.css").write_text(f"/* {SECRET} */")
    (small_project / "theme").mkdir()
    (small_project / "theme" / "sitegen.css").symlink_to(tmp_path / "outside.css")
    with_custom_dir(small_project, "theme")
    one_error(build(small_project, tmp_path / "site"), "sitegen.css", "leads out of custom_dir")
    assert SECRET not in site_text(tmp_path / "site")


def test_a_template_over_the_limit_is_refused_when_read(tmp_path):
    """The loader reads a template under the same rule, whoever asks for it (a preview's rebuild)."""
    from site_gen.render.environment import environment

    _sparse(tmp_path / "base.html", (16 << 20) + 1)  # custom_dir's limit, core/files.py MAX_CUSTOM_FILE_BYTES
    with pytest.raises(api.SitegenError, match="over the 16 MB limit"):
        environment(str(tmp_path)).get_template("base.html")


def test_the_plugin_refuses_the_same_custom_dir(small_project, tmp_path):
    (small_project / "theme").mkdir()
    os.mkfifo(small_project / "theme" / "base.html")
    with_custom_dir(small_project, "theme")
    with within(60):
        r = mkdocs_here("build", "-q", "-d", str(tmp_path / "site"), cwd=small_project)
    assert r.returncode == 1, r.stderr + r.stdout


def test_a_custom_dir_of_templates_builds(small_project, tmp_path):
    (small_project / "theme").mkdir()
    (small_project / "theme" / "sitegen.css").write_text(":root { --custom-mark: 1; }\n")
    with_custom_dir(small_project, "theme")
    r = build(small_project, tmp_path / "site")
    assert r.returncode == 0, r.stderr
    assert "--custom-mark" in site_text(tmp_path / "site" / "assets")
