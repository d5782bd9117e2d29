"""The general ragas adapter: every emitted transcript validates; the examples run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ragas.dataset_schema import MultiTurnSample
from ragas.messages import ToolCall

from agui_transcripts import fold
from agui_transcripts.adapters.ragas import build_sample, to_ragas
from agui_transcripts.ragas import convert_to_ragas_messages
from tests.golden import GOLDEN_STREAMS, fold_golden

ROOT = Path(__file__).resolve().parent.parent.parent
GOLDEN = GOLDEN_STREAMS


@pytest.mark.parametrize("stream", GOLDEN, ids=lambda p: p.name.removesuffix(".jsonl"))
def test_every_emitted_transcript_validates(stream: Path) -> None:
    transcript = fold_golden(stream)
    for policy in ("synthesize", "keep"):
        messages = to_ragas(transcript, metadata=True, policy=policy)
        assert MultiTurnSample(user_input=messages).user_input == messages  # ragas validates
    compat = convert_to_ragas_messages(stream.read_text().splitlines())
    assert MultiTurnSample(user_input=compat).user_input == compat


def test_ids_travel_in_metadata_and_samples_build() -> None:
    transcript = fold(ROOT / "examples" / "runs" / "pydantic-ai-weather.sse")
    messages = to_ragas(transcript, metadata=True)
    human, ai, tool = messages[:3]  # the user turn comes from the run inputs beside the log
    assert human.content.startswith("What's the weather in Paris?")
    assert ai.metadata["tool_call_ids"] == ["call_weather_1", "call_map_1"]
    assert tool.metadata["tool_call_id"] == "call_weather_1"
    assert tool.metadata["run_id"] == "run-1"
    sample = build_sample(
        transcript, reference_tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}}]
    )
    assert sample.reference_tool_calls == [ToolCall(name="get_weather", args={"city": "Paris"})]


def test_ragas_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "ragas_tool_accuracy.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "ToolCallF1: 1.0"
