"""The drop-in on producers that restate history: it has no run input, so the user turn
and the results often exist only in snapshots, under ids of their own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ragas.dataset_schema import MultiTurnSample

from agui_transcripts import ragas as dropin

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _events(name: str) -> list[dict[str, Any]]:
    path = GOLDEN / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _render(messages: list[Any]) -> list[tuple[str, str, list[str]]]:
    return [
        (type(m).__name__, m.content, [call.name for call in getattr(m, "tool_calls", None) or []])
        for m in messages
    ]


@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        (
            "streams/history-snapshot-remints-every-id.jsonl",
            [
                ("HumanMessage", "Weather in Paris?", []),
                ("AIMessage", "Let me check", ["get_weather"]),
                ("ToolMessage", "sunny", []),
                ("AIMessage", "Sunny in Paris.", []),
            ],
        ),
        (
            "deviations/deviation-langgraph-subagent-no-input.jsonl",
            [
                ("HumanMessage", "Book me a flight", []),
                ("AIMessage", "", ["task"]),
                ("ToolMessage", "Found 3 flights", []),
                ("AIMessage", "", ["search"]),
                ("ToolMessage", "3 flights", []),
                ("AIMessage", "Found 3 flights", []),
                ("AIMessage", "I found 3 flights.", []),
            ],
        ),
    ],
    ids=["snapshot-remints-every-id", "langgraph-subagent"],
)
def test_the_dropin_reads_restated_history_as_one_conversation(
    stream: str, expected: list[tuple[str, str, list[str]]]
) -> None:
    messages = dropin.convert_to_ragas_messages(_events(stream))
    assert _render(messages) == expected
    MultiTurnSample(user_input=messages)  # ragas's own validation accepts it
