"""Paths as the operating system sees them: links followed, loops refused as bad input."""
from __future__ import annotations

import errno
import os
from pathlib import Path

from site_gen.core.errors import SitegenError


def link_loop(path: Path) -> SitegenError:
    return SitegenError("is a symbolic link loop (following it leads back to it); refused", path)


def resolve_path(path: Path) -> Path:
    """The path with every link followed; a link that leads back to itself is refused.

    A loop raises RuntimeError before Python 3.13 and is passed over silently after, so it is
    asked of the operating system (ELOOP) first.
    """
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_loop(path) from None
    try:
        return path.resolve()
    except RuntimeError:
        raise link_loop(path) from None
