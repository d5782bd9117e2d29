"""Says whether this folder's suite ran: skipped, with the reason, without Phoenix."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.extras import require

HERE = Path(__file__).parent


def test_the_suite_of_the_phoenix_backend_runs() -> None:
    require("phoenix", "test-phoenix", HERE)
    assert importlib.import_module("phoenix").__name__ == "phoenix"
    assert len(list(HERE.glob("test_*.py"))) > 1
