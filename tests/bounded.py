"""Run a piece of hostile input in a child process under a memory cap and a time bound.

A bug that blows up memory or loops forever must fail its test, not take the test run
(or the machine) with it: the child gets ``RLIMIT_AS`` and a wall-clock timeout, and the
test reads back what it printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_PRELUDE = """
import resource, sys
limit = {memory} * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.path.insert(0, {root!r})
"""


@dataclass(frozen=True)
class Bounded:
    """What the child did: its exit code and the JSON value it printed last (if any)."""

    returncode: int
    output: Any
    stderr: str


def run_bounded(code: str, *, memory_mb: int = 512, seconds: float = 60) -> Bounded:
    """Run ``code`` (which prints one JSON value last) under the limits."""
    program = _PRELUDE.format(memory=memory_mb, root=str(ROOT)) + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=seconds,
        cwd=ROOT,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    output = json.loads(lines[-1]) if lines else None
    return Bounded(done.returncode, output, done.stderr)
