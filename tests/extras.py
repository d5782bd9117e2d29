"""The suites of optional extras: not collected without their framework, but reported.

Each ``tests/*_compat`` folder's conftest ignores its test files when the framework is
missing, all but ``test_extra_present.py``, whose one test then reports the whole suite as
skipped, with the extra that brings it. CI's legs install each extra and run its suite.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PRESENCE_TEST = "test_extra_present.py"


def ignored_without(module: str, folder: Path) -> list[str]:
    """The folder's test files to leave uncollected (none when ``module`` is installed)."""
    if importlib.util.find_spec(module) is not None:
        return []
    return sorted(p.name for p in folder.glob("test_*.py") if p.name != PRESENCE_TEST)


def require(module: str, extra: str, folder: Path) -> None:
    """Skip, naming the extra and what is left out, when ``module`` is missing."""
    left_out = ignored_without(module, folder)
    if left_out:
        pytest.skip(
            f"{module} is not installed (pip install -e '.[test,{extra}]'): the "
            f"{len(left_out)} test file(s) of tests/{folder.name} were not collected"
        )
