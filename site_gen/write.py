"""Atomic output: a build lands whole or not at all."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from site_gen.errors import SitegenError


def check_site_dir(site_dir: Path, protected: list[Path]) -> None:
    """Refuse a site folder that would replace the project's sources on the next build."""
    site = site_dir.resolve()
    for path in protected:
        path = path.resolve()
        if site == path or site in path.parents:
            raise SitegenError(f"site_dir would contain or replace {path}; choose another output folder", site_dir)


def write_tree(files: dict[str, bytes], root: Path) -> None:
    for rel in sorted(files):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[rel])


def write_site(files: dict[str, bytes], site_dir: Path) -> None:
    """Writes into a fresh folder beside site_dir, then swaps it in.

    A failure before the swap leaves the previous site byte for byte as it was; files of
    removed reports do not survive, since the new tree replaces the old one whole.
    """
    site_dir = site_dir.resolve()
    parent = site_dir.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}.new-", dir=parent))
    try:
        write_tree(files, staging)
        os.chmod(staging, 0o755)
        if site_dir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}.old-", dir=parent))
            old.rmdir()
            os.rename(site_dir, old)
            os.rename(staging, site_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, site_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
