"""Says whether this folder's suite ran: skipped, with the reason, without deepeval."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.extras import require

HERE = Path(__file__).parent


def test_the_suite_of_the_deepeval_extra_runs() -> None:
    require("deepeval", "deepeval", HERE)
    assert importlib.import_module("deepeval").__name__ == "deepeval"
    assert len(list(HERE.glob("test_*.py"))) > 1
