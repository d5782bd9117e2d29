"""Which build of the package the tests run on: pure Python, or the mypyc-compiled wheel.

The compiled build (``hatch_build.py``) ships some modules as extension modules beside
their sources; the pure-Python modules stay the one source of truth.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

import pytest

import agui_transcripts

ROOT = Path(__file__).resolve().parent.parent
# The package under test, with its sources (an installed build ships them beside its
# extension modules): what the tests that read the code read.
PACKAGE = Path(agui_transcripts.__file__).resolve().parent
# Set by CI's compiled leg: there a pure-Python install is a failure, not a skip.
EXPECT_COMPILED = os.environ.get("AGUI_TRANSCRIPTS_EXPECT_COMPILED") == "1"


def listed_for_compilation() -> list[str]:
    """The modules the build hook compiles, as ``pyproject.toml`` lists them."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("[tool.hatch.build.targets.wheel.hooks.custom]", 1)[1]
    listing = table.split("compile = [", 1)[1].split("]", 1)[0]
    return sorted(Path(path).stem for path in re.findall(r'"agui_transcripts/([^"]+)"', listing))


def compiled_modules() -> list[str]:
    """The package's modules imported from extension modules in this environment."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.stem == "__main__":  # importing it runs the command line
            continue
        if is_compiled(path.stem):
            found.append(path.stem)
    return found


def is_compiled(name: str) -> bool:
    """Whether ``agui_transcripts.<name>`` was imported from an extension module."""
    module = importlib.import_module(f"agui_transcripts.{name}")
    return not str(module.__file__).endswith(".py")


def requires_interpreted(reason: str) -> None:
    """Skip a test that patches the package's internals, which compiled code calls natively.

    Such tests check the pure-Python build (every leg but the compiled one); the compiled
    leg checks that its transcripts equal that build's on every corpus instead.
    """
    if is_compiled("collector"):
        pytest.skip(f"compiled build: {reason}")
