"""The shipped examples run, and the shipped recording folds as the reference client folds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agui_transcripts import fold

GOLDEN = Path(__file__).parent / "golden" / "examples"


def test_judge_views_example(examples_dir: Path) -> None:
    lines = run_example(sys.executable, str(examples_dir / "judge_views.py"))
    assert lines[:7] == [
        "Responses items:",
        "  message: user",
        "  reasoning: reasoning-1",
        "  message: assistant",
        "  function_call: confirm_booking",
        "  function_call_output: call_confirm_1",
        "  message: assistant",
    ]
    assert "  valid as openai ResponseInputParam" in lines
    assert lines[lines.index("Chat turns:") + 1] == (
        "  user: Book me a table for two tonight at Chez Marie."
    )
    assert any(line.startswith("[tool confirm_booking(") for line in lines)


def test_fold_recorded_run_example(examples_dir: Path) -> None:
    lines = run_example(sys.executable, str(examples_dir / "fold_recorded_run.py"))
    assert lines[0] == "pydantic-ai-weather.sse: 5 messages, 2 runs"
    assert "  run run-1: success, pending ['call_map_1']" in lines
    assert lines[-1] == "  response: It is 18°C and sunny in Paris; the map is on your screen."


@pytest.mark.parametrize(
    ("log", "name"),
    [
        ("pydantic-ai-weather.sse", "pydantic-ai-weather"),
        ("booking-frontend-tool.jsonl", "booking-frontend-tool"),
    ],
)
def test_recordings_match_the_reference_client(examples_dir: Path, log: str, name: str) -> None:
    runs = examples_dir / "runs"
    expected = json.loads((GOLDEN / f"{name}.expected.json").read_text(encoding="utf-8"))
    run_input = json.loads((runs / f"{name}.input.json").read_text(encoding="utf-8"))
    transcript = fold(runs / log, run_input=run_input, strict=True)
    assert transcript.to_dicts() == expected["messages"]
    assert [r.pending_tool_call_ids for r in transcript.runs] == [
        r["outcome"]["pendingToolCallIds"] for r in expected["runs"]
    ]


def run_example(*command: str, env: dict[str, str] | None = None) -> list[str]:
    result = subprocess.run(
        command, capture_output=True, text=True, check=True, env=env, encoding="utf-8"
    )
    return result.stdout.splitlines()


def test_continue_frontend_tool_example(examples_dir: Path) -> None:
    lines = run_example(sys.executable, str(examples_dir / "continue_frontend_tool.py"))
    assert lines == [
        "after run-1: awaiting_client, client calls ['call_confirm_1']",
        "  the app runs confirm_booking({'restaurant': 'Chez Marie', 'time': '19:30',"
        " 'guests': 2}) [client]",
        "undelivered results: ['call_confirm_1']",
        "next run input: ['user', 'reasoning', 'assistant', 'tool']",
        "same as the recorded request: True",
        "after run-2: done",
        "response: Booked: Chez Marie, tonight at 19:30, a table for two.",
    ]


def test_langchain_trajectory_example(examples_dir: Path) -> None:
    pytest.importorskip("langchain_core")
    lines = run_example(sys.executable, str(examples_dir / "langchain_trajectory.py"))
    assert [line.split()[0] for line in lines[:5]] == ["human", "ai", "tool", "tool", "ai"]
    assert lines[1].endswith(
        "-> get_weather({'city': 'Paris'}), show_map({'city': 'Paris', 'zoom': 11})"
    )
    assert lines[2].endswith("(answers call_weather_1)")
    assert lines[5:] == [
        "strict trajectory match: True",
        "openai roles: ['user', 'assistant', 'tool', 'tool', 'assistant']",
    ]


def test_convert_folder_example(examples_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "transcripts.jsonl"
    env = {**os.environ, "AGUI_TRANSCRIPTS": f"{sys.executable} -m agui_transcripts"}
    script = str(examples_dir / "convert_folder.sh")
    lines = run_example("bash", script, str(examples_dir / "runs"), str(out), env=env)
    assert lines[-1] == f"wrote 2 transcripts to {out}"
    assert all(line.startswith("ok ") for line in lines[:-1])
    transcripts = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [Path(t["source"]).name for t in transcripts] == [
        "booking-frontend-tool.jsonl",
        "pydantic-ai-weather.sse",
    ]
    booking = transcripts[0]["messages"]
    assert [m["role"] for m in booking] == ["user", "assistant", "tool", "assistant"]
    assert booking[1]["tool_calls"][0]["id"] == booking[2]["tool_call_id"] == "call_confirm_1"
