"""A template looked for in vain (a section's overview part, included `ignore missing`) is looked for
in the folders once a build, and found once it exists (the next build, or the watcher's word)."""
from __future__ import annotations

import os

import jinja2
import pytest

from site_gen.render import environment as envs


def test_a_missing_template_is_looked_for_once_a_build(tmp_path, monkeypatch):
    env = envs.environment(str(tmp_path))
    envs.refresh()
    looked: list[str] = []
    real = os.path.isfile

    def isfile(path):
        looked.append(str(path))
        return real(path)

    monkeypatch.setattr(os.path, "isfile", isfile)
    for _ in range(3):
        with pytest.raises(jinja2.TemplateNotFound):
            env.get_template("overview/not-a-section.html")
    folders = len(env.loader.searchpath)
    assert folders > 2
    assert len([p for p in looked if p.endswith("not-a-section.html")]) == folders  # once in each folder

    # Made since: found at the next build (`refresh`) ...
    (tmp_path / "overview").mkdir()
    (tmp_path / "overview" / "not-a-section.html").write_text("made")
    envs.refresh()
    assert env.get_template("overview/not-a-section.html").render() == "made"

    # ... or when the preview's watcher names it (`forget`).
    with pytest.raises(jinja2.TemplateNotFound):
        env.get_template("other.html")
    (tmp_path / "other.html").write_text("other")
    envs.forget({"other.html"})
    assert env.get_template("other.html").render() == "other"
