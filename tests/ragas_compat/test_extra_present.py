"""Says whether this folder's suite ran: skipped, with the reason, without ragas."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.extras import require

HERE = Path(__file__).parent


def test_the_suite_of_the_ragas_extra_runs() -> None:
    require("ragas", "ragas", HERE)
    assert importlib.import_module("ragas").__name__ == "ragas"
    assert len(list(HERE.glob("test_*.py"))) > 1
