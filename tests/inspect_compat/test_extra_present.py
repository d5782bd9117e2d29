"""Says whether this folder's suite ran: skipped, with the reason, without inspect_ai."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.extras import require

HERE = Path(__file__).parent


def test_the_suite_of_the_inspect_extra_runs() -> None:
    require("inspect_ai", "inspect", HERE)
    assert importlib.import_module("inspect_ai").__name__ == "inspect_ai"
    assert len(list(HERE.glob("test_*.py"))) > 1
