"""What a file written in place of another (renamed over it when complete) is given."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["replacement_mode"]


def replacement_mode(target: Path) -> int:
    """The target's own permissions when it exists, else what the umask gives a new file.

    A temporary file is created private (0600); the file it becomes should not be.
    """
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
