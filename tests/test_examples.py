"""The shipped examples run and say what the recorded runs hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_read_recorded_run_example(examples_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(examples_dir / "read_recorded_run.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[0] == "pydantic-ai-weather.sse: 22 events (sse)"
    counts = dict(line.split() for line in lines[1:])
    assert counts["TEXT_MESSAGE_CONTENT"] == "6"
    assert counts["TOOL_CALL_RESULT"] == "1"
    assert counts["RUN_STARTED"] == counts["RUN_FINISHED"] == "2"
