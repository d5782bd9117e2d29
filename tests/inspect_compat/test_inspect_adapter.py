"""The Inspect AI adapter against the real inspect-ai package (its own CI leg).

On every golden stream Inspect constructs and validates every message; ids, calls,
results and errors keep their native slots; and the messages agree with what Inspect's
own ``messages_from_openai`` makes of our OpenAI rendering of the same transcript.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import inspect_ai.model as model
import pytest

from agui_transcripts import ToolMessage, fold
from agui_transcripts.adapters.inspect import to_inspect
from agui_transcripts.adapters.openai import to_openai
from tests.golden.corpus import STREAMS, fold_golden
from tests.streams import RF, RS
from tests.test_examples import run_example


def _calls(messages: list[Any]) -> list[Any]:
    return [c for m in messages for c in getattr(m, "tool_calls", None) or ()]


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.stem)
def test_messages_validate_and_agree_with_inspects_openai_reader(stream: Path) -> None:
    transcript = fold_golden(stream)
    ours = to_inspect(transcript, include_reasoning=False)
    ordered = [m for m in transcript.ordered() if m.role not in ("activity", "reasoning")]
    assert [m.id for m in ours] == [m.id for m in ordered]
    # Inspect's own reading of the same conversation, through our OpenAI rendering.
    theirs = asyncio.run(model.messages_from_openai(to_openai(transcript)))
    ours_calls, their_calls = _calls(ours), _calls(theirs)
    assert [(c.id, c.function) for c in ours_calls] == [(c.id, c.function) for c in their_calls]
    for mine, other in zip(ours_calls, their_calls, strict=True):
        if mine.parse_error is None:  # Inspect's reader reads some invalid text as {}
            assert mine.arguments == other.arguments
    results = [m for m in ours if m.role == "tool"]
    assert [m.tool_call_id for m in results] == [m.tool_call_id for m in theirs if m.role == "tool"]
    ours_texts = {m.text for m in ours if m.text}
    assert {m.text for m in theirs if m.text and m.role != "tool"} <= ours_texts
    for message, source in zip(ours, ordered, strict=True):
        if isinstance(source, ToolMessage) and source.error is not None:
            assert message.error.message == source.error  # a native slot, not a prefix
            assert message.text == source.text


def test_native_slots() -> None:
    history = [
        {"id": "d", "role": "developer", "content": "Use tools"},
        {"id": "u1", "role": "user", "content": "Find it"},
        {"id": "r1", "role": "reasoning", "content": "think", "encryptedValue": "sig=="},
        {
            "id": "m1",
            "role": "assistant",
            "content": "Looking",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "[1]"}}
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "", "error": "timeout"},
    ]
    transcript = fold(
        [RS("r", input={"threadId": "t", "runId": "r", "messages": history}), RF("r")]
    )
    system, user, assistant, tool = to_inspect(transcript)
    assert (system.role, system.metadata) == ("system", {"agui_role": "developer"})
    assert (user.id, user.text) == ("u1", "Find it")
    thought, text = assistant.content
    assert (thought.reasoning, thought.signature, text.text) == ("think", "sig==", "Looking")
    [call] = assistant.tool_calls
    assert (call.id, call.function, call.arguments) == ("c1", "f", {})
    assert call.parse_error == "Arguments are not a JSON object: [1]"
    assert (tool.tool_call_id, tool.function, tool.error.message) == ("c1", "f", "timeout")


def test_the_inspect_example_prints_the_messages(examples_dir: Path) -> None:
    lines = run_example(sys.executable, str(examples_dir / "inspect_messages.py"))
    assert lines[0] == "ChatMessageUser user-1: 'Book me a table for two tonight at Chez Marie.'"
    assert lines[1].endswith("['reasoning', 'text']")
    assert "  answers call_confirm_1 (confirm_booking)" in lines
