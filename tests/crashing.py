"""A unit of work whose worker dies on some sources, for the process pool's tests."""

from __future__ import annotations

import os
import signal


def echo_or_die(source: str) -> str:
    """``source`` back, or the process killed outright when the source says "die"."""
    if source.startswith("die"):
        os.kill(os.getpid(), signal.SIGKILL)
    return source
