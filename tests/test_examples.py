"""The shipped examples run, and the shipped recording folds as the reference client folds it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agui_transcripts import fold

GOLDEN = Path(__file__).parent / "golden" / "examples"


def test_fold_recorded_run_example(examples_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(examples_dir / "fold_recorded_run.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[0] == "pydantic-ai-weather.sse: 5 messages, 2 runs"
    assert "  run run-1: success, pending ['call_map_1']" in lines
    assert lines[-1] == "  response: It is 18°C and sunny in Paris; the map is on your screen."


def test_recording_matches_the_reference_client(examples_dir: Path) -> None:
    runs = examples_dir / "runs"
    expected = json.loads(
        (GOLDEN / "pydantic-ai-weather.expected.json").read_text(encoding="utf-8")
    )
    run_input = json.loads((runs / "pydantic-ai-weather.input.json").read_text(encoding="utf-8"))
    transcript = fold(runs / "pydantic-ai-weather.sse", run_input=run_input, strict=True)
    assert transcript.to_dicts() == expected["messages"]
    assert [r.pending_tool_call_ids for r in transcript.runs] == [
        r["outcome"]["pendingToolCallIds"] for r in expected["runs"]
    ]
