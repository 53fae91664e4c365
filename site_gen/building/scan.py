"""One folder's entries as os.walk classifies them, for the walks that list a site or hash inputs
with one `scandir` a folder (manifest.site_files, store.hash_tree)."""
from __future__ import annotations

import os


def entries(folder: str, *, follow_symlinks: bool) -> list[tuple[str, bool, bool]] | None:
    """(name, is a folder, is a link) of each entry; None when the folder cannot be listed (os.walk
    then adds nothing of it). An entry whose kind cannot be told (a link to itself, a link through a
    file, a file system that does not record kinds and a folder that cannot be entered) is not a
    folder, as os.walk takes it: listed as a name, never descended into nor passed over."""
    out = []
    try:
        with os.scandir(folder) as found:
            for e in found:
                try:
                    is_dir = e.is_dir(follow_symlinks=follow_symlinks)
                except OSError:
                    is_dir = False
                try:
                    is_link = e.is_symlink()
                except OSError:
                    is_link = False
                out.append((e.name, is_dir, is_link))
    except OSError:
        return None
    return out
