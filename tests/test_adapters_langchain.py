"""The LangChain adapter, against the real langchain-core."""

from __future__ import annotations

from pathlib import Path

import pytest

from agui_transcripts import ActivityMessage, Diagnostic, fold, is_synthetic
from agui_transcripts.adapters.langchain import from_langchain, to_langchain
from tests.checkers import all_problems
from tests.golden import GOLDEN_STREAMS, fold_golden
from tests.streams import RF, RMC, RME, RMS, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS

lc = pytest.importorskip(
    "langchain_core.messages", reason="the [langchain] extra is part of [test]"
)

GOLDEN = GOLDEN_STREAMS


@pytest.mark.parametrize("stream", GOLDEN, ids=lambda p: p.name.removesuffix(".jsonl"))
def test_round_trips_on_golden_streams(stream: Path) -> None:
    transcript = fold_golden(stream)
    messages = to_langchain(transcript)
    assert lc.messages_from_dict(lc.messages_to_dict(messages)) == messages
    back = [m.to_dict() for m in from_langchain(messages)]
    # Content that is neither text nor parts comes back as its JSON text (the table's row).
    expected = [
        m.to_dict() if m.raw_content is None else {**m.to_dict(), "content": m.content}
        for m in transcript.ordered()
        if not isinstance(m, ActivityMessage)
    ]
    assert back == expected
    assert all_problems(back) == []


def test_rendering_rules() -> None:
    transcript = fold(
        [
            RS(
                input={
                    "threadId": "t",
                    "runId": "r1",
                    "messages": [
                        {"id": "d", "role": "developer", "content": "Use tools."},
                        {
                            "id": "u",
                            "role": "user",
                            "content": [
                                {"type": "text", "text": "Look:"},
                                {
                                    "type": "image",
                                    "source": {
                                        "type": "data",
                                        "value": "AAAA",
                                        "mimeType": "image/png",
                                    },
                                },
                            ],
                        },
                    ],
                }
            ),
            RMS("r"),
            RMC("r", "thinking"),
            RME("r"),
            {
                "type": "REASONING_ENCRYPTED_VALUE",
                "subtype": "message",
                "entityId": "r",
                "encryptedValue": "sig",
            },
            TMS("a"),
            TMC("a", "Checking."),
            TME("a"),
            TCS("c1", "good", "a"),
            TCA("c1", '{"q": 1}'),
            TCE("c1"),
            TCS("c2", "bad", "a"),
            TCA("c2", "[1, 2]"),
            TCE("c2"),
            TCR("t1", "c1", "ok"),
            RF(
                usage=[
                    {
                        "provider": "p",
                        "model": "m",
                        "inputTokens": 10,
                        "outputTokens": 5,
                        "cachedInputTokens": 4,
                        "reasoningTokens": 2,
                    }
                ]
            ),
        ],
        client_tools=[],
    )
    diagnostics: list[Diagnostic] = []
    out = to_langchain(transcript, diagnostics=diagnostics)
    system, human, ai, tool_ok, tool_missing = out
    assert system.additional_kwargs["__openai_role__"] == "developer"
    assert human.content == [
        {"type": "text", "text": "Look:"},
        {"type": "image", "base64": "AAAA", "mime_type": "image/png"},
    ]
    assert ai.content == [
        {
            "type": "reasoning",
            "reasoning": "thinking",
            "id": "r",
            "extras": {"encrypted_value": "sig"},
        },
        {"type": "text", "text": "Checking."},
    ]
    assert ai.tool_calls == [{"name": "good", "args": {"q": 1}, "id": "c1", "type": "tool_call"}]
    assert [(c["id"], c["args"]) for c in ai.invalid_tool_calls] == [("c2", "[1, 2]")]
    assert ai.usage_metadata == {
        "input_tokens": 10,
        "output_tokens": 5,
        "total_tokens": 15,
        "input_token_details": {"cache_read": 4, "cache_creation": 0},
        "output_token_details": {"reasoning": 2},
    }
    assert (tool_ok.tool_call_id, tool_ok.status) == ("c1", "success")
    assert (tool_missing.tool_call_id, tool_missing.status) == ("c2", "error")
    assert tool_missing.additional_kwargs["synthetic"] is True
    back = from_langchain(out)
    assert is_synthetic(back[-1])
    assert [m.role for m in back] == ["developer", "user", "reasoning", "assistant", "tool", "tool"]


def test_tool_errors_stay_failures() -> None:
    transcript = fold([RS(), TCS("c1", "f"), TCE("c1"), RF()])
    messages = to_langchain(transcript, policy="trim")
    assert messages == []
    sources = [
        lc.AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": "c1"}], id="a"),
        lc.ToolMessage(content="boom", tool_call_id="c1", status="error", id="t"),
    ]
    back = from_langchain(sources)
    assert back[1].to_dict() == {
        "id": "t",
        "role": "tool",
        "content": "",
        "toolCallId": "c1",
        "error": "boom",
    }


def test_standard_tool_calls_are_read_not_only_provider_kwargs() -> None:
    # ragas's LangGraph converter reads only additional_kwargs["tool_calls"] (LG1).
    back = from_langchain(
        [
            lc.AIMessage(
                content="", id="a", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}]
            ),
            lc.ToolMessage(content=[{"type": "text", "text": "done"}], tool_call_id="c1", id="t"),
        ]
    )
    assert back[0].to_dict()["toolCalls"][0]["function"] == {"name": "f", "arguments": '{"x": 1}'}
    assert back[1].to_dict()["content"] == "done"
