"""OpenAI Responses items and chat turns, on every golden stream.

Responses items are validated with the ``openai`` package's own TypedDicts (extra keys
forbidden), paired by ``call_id`` and read back; chat turns alternate and say what the
tools did.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from agui_transcripts import ReasoningMessage, ToolMessage, fold
from agui_transcripts.adapters.chat_turns import to_chat_turns
from agui_transcripts.adapters.responses import from_responses, to_responses

from .golden.corpus import STREAMS, fold_golden
from .streams import RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS


def _types() -> dict[str, Any]:
    pytest.importorskip("openai")
    from openai.types.responses import (
        EasyInputMessageParam,
        ResponseFunctionToolCallParam,
        ResponseOutputMessageParam,
        ResponseReasoningItemParam,
    )
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    return {
        "input": EasyInputMessageParam,
        "output": ResponseOutputMessageParam,
        "function_call": ResponseFunctionToolCallParam,
        "function_call_output": FunctionCallOutput,
        "reasoning": ResponseReasoningItemParam,
    }


def validate(item: dict[str, Any], types: dict[str, Any]) -> None:
    """Validate one item with the openai TypedDict for its kind; no key of our own."""
    kind = item["type"]
    if kind == "message":
        kind = "output" if item["role"] == "assistant" else "input"
    typed = types[kind]
    TypeAdapter(typed).validate_python(item)
    assert set(item) <= typed.__required_keys__ | typed.__optional_keys__
    assert typed.__required_keys__ <= set(item)


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.stem)
def test_responses_items_validate_and_pair(stream: Path) -> None:
    types = _types()
    transcript = fold_golden(stream)
    items = to_responses(transcript)
    for item in items:
        validate(item, types)
    calls = [i["call_id"] for i in items if i["type"] == "function_call"]
    outputs = [i["call_id"] for i in items if i["type"] == "function_call_output"]
    assert sorted(calls) == sorted(outputs)
    for call_id in calls:  # each output after its call
        kinds = [(i["type"], i.get("call_id")) for i in items]
        assert kinds.index(("function_call", call_id)) < kinds.index(
            ("function_call_output", call_id)
        )
    ordered = transcript.ordered()
    expected_reasoning = [m.id for m in ordered if isinstance(m, ReasoningMessage)]
    assert [i["id"] for i in items if i["type"] == "reasoning"] == expected_reasoning


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.stem)
def test_responses_items_read_back(stream: Path) -> None:
    transcript = fold_golden(stream)
    back = from_responses(to_responses(transcript))
    again = to_responses(back)
    assert again == to_responses(from_responses(again))  # a fixed point after one trip
    ordered = transcript.ordered()
    results = [(m.tool_call_id) for m in ordered if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in back if isinstance(m, ToolMessage)] == results


HISTORY = [
    {"id": "u1", "role": "user", "content": "Look it up"},
    {"id": "r1", "role": "reasoning", "content": "think", "encryptedValue": "opaque=="},
    {
        "id": "m1",
        "role": "assistant",
        "content": "Checking",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "lookup", "arguments": "not json"},
            }
        ],
    },
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "boom", "error": "timeout"},
]


def test_reasoning_errors_and_arguments_keep_their_slots() -> None:
    transcript = fold([RS(input={"threadId": "t", "runId": "r1", "messages": HISTORY}), RF()])
    items = to_responses(transcript)
    assert [i["type"] for i in items] == [
        "message",
        "reasoning",
        "message",
        "function_call",
        "function_call_output",
    ]
    reasoning = items[1]
    assert reasoning["summary"] == [{"type": "summary_text", "text": "think"}]
    assert reasoning["encrypted_content"] == "opaque=="
    assert items[3]["arguments"] == "not json"
    assert items[4]["output"] == "Error: timeout\nboom"
    back = from_responses(items)
    [thought] = [m for m in back if isinstance(m, ReasoningMessage)]
    assert (thought.text, thought.encrypted_value) == ("think", "opaque==")
    assert [m.role for m in back] == ["user", "reasoning", "assistant", "tool"]
    assert "reasoning" not in [i["type"] for i in to_responses(transcript, include_reasoning=False)]


def test_unsupported_parts_are_reported() -> None:
    user = {
        "id": "u1",
        "role": "user",
        "content": [
            {"type": "text", "text": "Look"},
            {"type": "audio", "source": {"type": "data", "value": "AAA", "mimeType": "audio/wav"}},
        ],
    }
    found: list[Any] = []
    items = to_responses(
        fold([RS(input={"threadId": "t", "runId": "r1", "messages": [user]}), RF()]),
        diagnostics=found,
    )
    assert items[0]["content"] == [{"type": "input_text", "text": "Look"}]
    assert [d.code for d in found] == ["responses-dropped"]


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.stem)
def test_chat_turns_alternate(stream: Path) -> None:
    turns = to_chat_turns(fold_golden(stream), include_system=True)
    roles = [t["role"] for t in turns]
    assert all(a != b for a, b in itertools.pairwise(roles))
    assert all(isinstance(t["content"], str) and t["content"] for t in turns)


def test_chat_turns_summarize_or_drop_tools() -> None:
    history = [{"id": "s", "role": "system", "content": "Be brief"}, *HISTORY]
    events = [
        RS(input={"threadId": "t", "runId": "r1", "messages": history}),
        TMS("m2"),
        TMC("m2", "Trying again."),
        TME("m2"),
        TCS("c2", "get_weather", "m2"),
        TCA("c2", '{"city": "Paris"}'),
        TCE("c2"),
        TCR("t2", "c2", "18C"),
        TMS("m3"),
        TMC("m3", "Sunny."),
        TME("m3"),
        RF(),
    ]
    transcript = fold(events)
    found: list[Any] = []
    assert to_chat_turns(transcript, diagnostics=found) == [
        {"role": "user", "content": "Look it up"},
        {
            "role": "assistant",
            "content": "Checking\n[tool lookup(not json) -> error: timeout]\nTrying again.\n"
            '[tool get_weather({"city": "Paris"}) -> 18C]\nSunny.',
        },
    ]
    assert sorted(d.code for d in found) == ["chat-turns-dropped"] * 2  # system, reasoning
    assert to_chat_turns(transcript, tools="drop", include_system=True) == [
        {"role": "system", "content": "Be brief"},
        {"role": "user", "content": "Look it up"},
        {"role": "assistant", "content": "Checking\nTrying again.\nSunny."},
    ]
