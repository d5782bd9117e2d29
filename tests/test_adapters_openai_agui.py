"""The OpenAI Chat Completions and AG-UI adapters."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import Diagnostic, fold, is_synthetic
from agui_transcripts.adapters.agui import from_agui, to_agui_models, to_dicts
from agui_transcripts.adapters.openai import from_openai, to_openai
from tests.checkers import all_problems, openai_strict
from tests.golden import GOLDEN_STREAMS, fold_golden
from tests.streams import MS, RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS

GOLDEN = GOLDEN_STREAMS


def chat_of(*args: Any, **options: Any) -> list[Any]:
    """to_openai's messages, untyped for indexing in assertions."""
    return list(to_openai(*args, **options))


def openai_as_wire(messages: list[Any]) -> list[dict[str, Any]]:
    """Chat Completions dicts in the checkers' (AG-UI) spelling."""
    out = []
    for m in messages:
        wire: dict[str, Any] = {"role": m["role"], "content": m.get("content")}
        if m.get("tool_calls"):
            wire["toolCalls"] = m["tool_calls"]
        if m["role"] == "tool":
            wire["toolCallId"] = m["tool_call_id"]
        out.append(wire)
    return out


@pytest.mark.parametrize("stream", GOLDEN, ids=lambda p: p.name.removesuffix(".jsonl"))
def test_openai_output_is_strictly_valid_and_round_trips(stream: Path) -> None:
    transcript = fold_golden(stream)
    chat = chat_of(transcript)
    assert openai_strict(openai_as_wire(chat)) == []
    for message in chat:
        if message["role"] == "assistant":
            assert message["content"] is not None or message.get("tool_calls")
            for call in message.get("tool_calls", []):
                assert isinstance(call["function"]["arguments"], str)
    back = from_openai(chat)
    assert all_problems([m.to_dict() for m in back]) == []
    assert chat_of(back) == chat


def test_openai_rendering_rules() -> None:
    history: list[dict[str, Any]] = [
        {"id": "s", "role": "system", "content": "Be brief."},
        {"id": "d", "role": "developer", "content": "Use tools."},
        {
            "id": "u",
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "source": {"type": "url", "value": "https://x/y.png"}},
                {"type": "video", "source": {"type": "url", "value": "https://x/v.mp4"}},
            ],
        },
    ]
    transcript = fold(
        [
            RS(input={"threadId": "t", "runId": "r1", "messages": history}),
            {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "hmm"},
            TMS("a"),
            TMC("a", "Checking."),
            TME("a"),
            TCS("c1", "lookup", "a"),
            TCA("c1", "{not json"),
            TCE("c1"),
            RF(),
            RS("r2"),
            MS(
                *history,
                {
                    "id": "a",
                    "role": "assistant",
                    "content": "Checking.",
                    "toolCalls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "lookup", "arguments": "{not json"},
                        }
                    ],
                },
                {
                    "id": "t1",
                    "role": "tool",
                    "toolCallId": "c1",
                    "content": "",
                    "error": "lookup failed",
                },
            ),
            RF("r2"),
        ]
    )
    diagnostics: list[Diagnostic] = []
    chat = chat_of(transcript, diagnostics=diagnostics)
    assert [m["role"] for m in chat] == ["system", "developer", "user", "assistant", "tool"]
    assert chat[2]["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
    ]
    assert chat[3]["tool_calls"][0]["function"]["arguments"] == "{not json"
    assert chat[4] == {"role": "tool", "tool_call_id": "c1", "content": "Error: lookup failed"}
    assert sorted(d.code for d in diagnostics) == ["openai-dropped", "openai-dropped"]
    repaired = chat_of(transcript, repair=True, include_system=False)
    assert next(m["role"] for m in repaired) == "user"
    assert json.loads(repaired[1]["tool_calls"][0]["function"]["arguments"]) == {
        "_raw_arguments": "{not json"
    }


def test_openai_trailing_open_call_policies() -> None:
    transcript = fold([RS(), TCS("c1", "confirm"), TCE("c1"), RF()], client_tools=["confirm"])
    assert chat_of(transcript)[-1]["role"] == "tool"
    assert chat_of(transcript, policy="trim") == []
    assert chat_of(transcript, policy="keep")[-1]["tool_calls"][0]["id"] == "c1"


def test_from_openai_orders_what_it_reads() -> None:
    messages = from_openai(
        [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "c9", "content": "orphan"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "assistant", "content": "between"},
            {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        ]
    )
    assert [(m.role, m.text) for m in messages] == [
        ("user", "hi"),
        ("assistant", ""),
        ("tool", "r1"),
        ("assistant", "between"),
    ]
    assert len({m.id for m in messages}) == 4
    assert not any(is_synthetic(m) for m in messages)


@pytest.mark.parametrize("stream", GOLDEN[:30], ids=lambda p: p.name.removesuffix(".jsonl"))
def test_agui_dicts_and_models_round_trip(stream: Path) -> None:
    transcript = fold_golden(stream)
    wire = to_dicts(transcript)
    assert wire == transcript.to_dicts()
    assert [m.to_dict() for m in from_agui(wire)] == wire
    diagnostics: list[Diagnostic] = []
    models = to_agui_models(transcript, diagnostics=diagnostics)
    back = [m.to_dict() for m in from_agui(models)]
    if not diagnostics:
        assert back == wire
    else:  # tool content parts on 0.1.x; content neither text nor parts on any version
        objects = {m.id for m in transcript.messages if m.raw_content is not None}
        assert (
            importlib.metadata.version("ag-ui-protocol").startswith("0.")
            or {d.message_id for d in diagnostics} <= objects
        )
        assert len(back) == len(wire)


def test_agui_for_input_strips_activity_and_from_agui_reads_snake_case() -> None:
    transcript = fold(
        [
            RS(),
            {"type": "ACTIVITY_SNAPSHOT", "messageId": "x", "activityType": "t", "content": {}},
            TMS("a"),
            TMC("a", "hi"),
            TME("a"),
            RF(),
        ]
    )
    assert [m["id"] for m in to_dicts(transcript, for_input=True)] == ["a"]
    messages = from_agui(
        [{"id": "t1", "role": "tool", "tool_call_id": "c1", "content": "x", "error": None}]
    )
    assert messages[0].to_dict() == {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "x"}


def test_tool_parts_degrade_on_old_sdks() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "f"),
            TCE("c1"),
            TCR("t1", "c1", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
            RF(),
        ]
    )
    diagnostics: list[Diagnostic] = []
    models = to_agui_models(transcript, diagnostics=diagnostics)
    version = importlib.metadata.version("ag-ui-protocol")
    if version.startswith("0."):
        assert models[1].content == "a\nb"
        assert [d.code for d in diagnostics] == ["agui-model-degraded"]
    else:
        assert [p.text for p in models[1].content] == ["a", "b"]
        assert diagnostics == []
