"""Says whether this folder's suite ran: skipped, with the reason, without the agents."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.extras import require

HERE = Path(__file__).parent


def test_the_suite_of_the_agents_extra_runs() -> None:
    for module in ("pydantic_ai", "ag_ui_langgraph", "uvicorn"):
        require(module, "test-agents", HERE)
        assert importlib.import_module(module).__name__ == module
    assert len(list(HERE.glob("test_*.py"))) > 1
