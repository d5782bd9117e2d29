"""Says whether this folder's suite ran: skipped, with the reason, without ray."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.extras import require

HERE = Path(__file__).parent


def test_the_suite_of_the_ray_extra_runs() -> None:
    require("ray", "ray", HERE)
    assert importlib.import_module("ray").__name__ == "ray"
    assert len(list(HERE.glob("test_*.py"))) > 1
