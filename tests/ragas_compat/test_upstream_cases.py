"""The 49 cases of ragas's own AG-UI integration tests, against the drop-in module.

Written from the requirements table of the targets document (section 2.7): 43 cases of
ragas's ``tests/unit/integrations/test_ag_ui.py`` and 6 from open pull requests.
"""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar
from unittest.mock import patch

import pytest
from ag_ui.core import (
    AssistantMessage,
    EventType,
    FunctionCall,
    MessagesSnapshotEvent,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)
from ragas.dataset_schema import MultiTurnSample, SingleTurnSample
from ragas.messages import AIMessage, HumanMessage, ToolMessage
from ragas.messages import ToolCall as RagasToolCall

from agui_transcripts import ragas as ag_ui


def text(mid: str, *deltas: str, role: Any = "assistant") -> list[Any]:
    return [
        TextMessageStartEvent(message_id=mid, role=role),
        *(TextMessageContentEvent(message_id=mid, delta=d) for d in deltas),
        TextMessageEndEvent(message_id=mid),
    ]


def F1() -> list[Any]:
    return [
        RunStartedEvent(run_id="run-123", thread_id="thread-456"),
        *text("msg-1", "Hello", " world"),
        *text("msg-2", "Hi", " there!"),
    ]


def F2() -> list[Any]:
    return [
        *text("msg-1", "Let me check the weather"),
        ToolCallStartEvent(
            tool_call_id="tc-1", tool_call_name="get_weather", parent_message_id="msg-1"
        ),
        ToolCallArgsEvent(tool_call_id="tc-1", delta='{"city": "San Francisco"'),
        ToolCallArgsEvent(tool_call_id="tc-1", delta=', "units": "fahrenheit"}'),
        ToolCallEndEvent(tool_call_id="tc-1"),
        ToolCallResultEvent(
            tool_call_id="tc-1",
            message_id="result-1",
            content="Temperature: 72°F, Conditions: Sunny",
        ),
        *text("msg-2", "It's sunny and 72°F in San Francisco"),
    ]


class Mock:
    """A plain event-like object, as ragas's tests use."""

    def __init__(self, type: Any, **fields: Any) -> None:
        self.type = type
        self.timestamp = 1
        self.__dict__.update(fields)


def test_01_import_error() -> None:
    real_import = builtins.__import__

    def hide(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("ag_ui"):
            raise ImportError("no ag_ui")
        return real_import(name, *args, **kwargs)

    with (
        patch("builtins.__import__", hide),
        pytest.raises(ImportError, match="AG-UI integration requires the ag-ui-protocol package"),
    ):
        ag_ui._import_ag_ui_core()


def test_02_basic_text() -> None:
    messages = ag_ui.convert_to_ragas_messages(F1())
    assert [(type(m), m.content) for m in messages] == [
        (AIMessage, "Hello world"),
        (AIMessage, "Hi there!"),
    ]


def test_03_04_metadata() -> None:
    with_md = ag_ui.convert_to_ragas_messages(F1(), metadata=True)
    assert with_md[0].metadata["message_id"] == "msg-1"
    assert with_md[0].metadata["run_id"] == "run-123"
    assert with_md[0].metadata["thread_id"] == "thread-456"
    assert ag_ui.convert_to_ragas_messages(F1())[0].metadata is None


def test_05_tool_call_conversion() -> None:
    messages = ag_ui.convert_to_ragas_messages(F2())
    assert len(messages) == 3
    assert isinstance(messages[0], AIMessage)
    assert messages[0].content == "Let me check the weather"
    assert [c.name for c in messages[0].tool_calls or []] == ["get_weather"]
    assert isinstance(messages[1], ToolMessage)
    assert "72°F" in messages[1].content
    assert isinstance(messages[2], AIMessage)
    assert "sunny" in messages[2].content


def test_06_tool_call_with_metadata() -> None:
    messages = ag_ui.convert_to_ragas_messages(F2(), metadata=True)
    tool = next(m for m in messages if isinstance(m, ToolMessage))
    assert (tool.metadata or {})["tool_call_id"] == "tc-1"


def test_07_step_context() -> None:
    events = [
        RunStartedEvent(run_id="r", thread_id="t"),
        StepStartedEvent(step_name="analyze_query"),
        *text("msg-1", "Processing..."),
        StepFinishedEvent(step_name="analyze_query"),
    ]
    [message] = ag_ui.convert_to_ragas_messages(events, metadata=True)
    assert message.metadata["step_name"] == "analyze_query"


SNAPSHOT = MessagesSnapshotEvent(
    messages=[
        UserMessage(id="msg-1", role="user", content="What's 2+2?"),
        AssistantMessage(id="msg-2", role="assistant", content="4"),
        UserMessage(id="msg-3", role="user", content="Thanks!"),
    ]
)


def test_08_09_snapshot() -> None:
    messages = ag_ui.convert_messages_snapshot(SNAPSHOT)
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, HumanMessage]
    assert (
        ag_ui.convert_messages_snapshot(SNAPSHOT, metadata=True)[0].metadata["message_id"]
        == "msg-1"
    )


def test_10_non_message_events_filtered() -> None:
    events = [
        RunStartedEvent(run_id="r", thread_id="t"),
        Mock(EventType.STATE_SNAPSHOT),
        *text("msg-1", "Hello"),
        Mock("RUN_FINISHED"),
    ]
    assert len(ag_ui.convert_to_ragas_messages(events)) == 1


def test_11_incomplete_message_stream() -> None:
    events = [
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta="Hello"),
    ]
    assert ag_ui.convert_to_ragas_messages(events) == []


def test_12_orphaned_content() -> None:
    assert (
        ag_ui.convert_to_ragas_messages(
            [TextMessageContentEvent(message_id="msg-unknown", delta="x")]
        )
        == []
    )


def test_13_argument_parsing_error() -> None:
    events = [
        ToolCallStartEvent(tool_call_id="tc", tool_call_name="broken_tool"),
        ToolCallArgsEvent(tool_call_id="tc", delta="{invalid json"),
        ToolCallEndEvent(tool_call_id="tc"),
    ]
    calls = ag_ui.extract_tool_calls(ag_ui.convert_to_ragas_messages(events))
    assert [(c.name, c.args["raw_args"]) for c in calls] == [("broken_tool", "{invalid json")]


def test_14_retroactive_attachment() -> None:
    events = [
        *text("msg-1", "Let me search"),
        ToolCallStartEvent(tool_call_id="tc", tool_call_name="search_tool"),
        ToolCallEndEvent(tool_call_id="tc"),
        ToolCallResultEvent(tool_call_id="tc", message_id="r", content="Sunny, 75F"),
    ]
    messages = ag_ui.convert_to_ragas_messages(events)
    assert len(messages) == 2
    assert messages[0].tool_calls[0].name in ("search_tool", "unknown_tool")
    assert isinstance(messages[1], ToolMessage)
    assert messages[1].content == "Sunny, 75F"


def test_15_collector_reuse() -> None:
    collector = ag_ui.AGUIEventCollector()
    for event in F1()[:5]:
        collector.process_event(event)
    first = collector.get_messages()
    collector.clear()
    for event in F1()[5:]:
        collector.process_event(event)
    second = collector.get_messages()
    assert len(first) == len(second) == 1
    assert first[0].content != second[0].content


def test_16_multiple_tool_calls_in_sequence() -> None:
    events = [
        ToolCallStartEvent(tool_call_id="t1", tool_call_name="tool1"),
        ToolCallEndEvent(tool_call_id="t1"),
        ToolCallStartEvent(tool_call_id="t2", tool_call_name="tool2"),
        ToolCallEndEvent(tool_call_id="t2"),
        *text("msg-1", "Done"),
    ]
    [message] = ag_ui.convert_to_ragas_messages(events)
    assert message.content == "Done"
    assert [c.name for c in message.tool_calls] == ["tool1", "tool2"]


def test_17_empty_event_list() -> None:
    assert ag_ui.convert_to_ragas_messages([]) == []


def test_18_wrong_snapshot_type() -> None:
    with pytest.raises(TypeError, match="Expected MessagesSnapshotEvent"):
        ag_ui.convert_messages_snapshot(Mock("WRONG_TYPE"))


def test_19_role_mapping() -> None:
    messages = ag_ui.convert_to_ragas_messages([*text("u", "Hi", role="user"), *text("a", "Hello")])
    assert [type(m) for m in messages] == [HumanMessage, AIMessage]


def test_20_complex_flow() -> None:
    events = [
        RunStartedEvent(run_id="run-1", thread_id="thread-1"),
        *text("msg-1", "What's the weather?", role="user"),
        *text("msg-2", "Let me check"),
        ToolCallStartEvent(tool_call_id="tc-1", tool_call_name="get_weather"),
        ToolCallArgsEvent(tool_call_id="tc-1", delta='{"city": "SF"}'),
        ToolCallEndEvent(tool_call_id="tc-1"),
        ToolCallResultEvent(tool_call_id="tc-1", message_id="result-1", content="Sunny"),
        *text("msg-3", "It's sunny"),
        *text("msg-4", "Thanks", role="user"),
    ]
    messages = ag_ui.convert_to_ragas_messages(events, metadata=True)
    assert [type(m) for m in messages] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
        AIMessage,
        HumanMessage,
    ]
    assert all(m.metadata["run_id"] == "run-1" for m in messages)


def test_21_text_message_chunk() -> None:
    messages = ag_ui.convert_to_ragas_messages(
        [TextMessageChunkEvent(message_id="msg-1", role="assistant", delta="Complete message")]
    )
    assert [(type(m), m.content) for m in messages] == [(AIMessage, "Complete message")]


def test_22_tool_call_chunk() -> None:
    events = [
        ToolCallChunkEvent(tool_call_id="tc-1", tool_call_name="search", delta='{"query": "test"}'),
        *text("msg-1", "Done"),
    ]
    [message] = ag_ui.convert_to_ragas_messages(events)
    assert message.content == "Done"
    assert [(c.name, c.args) for c in message.tool_calls] == [("search", {"query": "test"})]


def test_23_tool_call_chunk_dict_delta() -> None:
    collector = ag_ui.AGUIEventCollector()
    chunk = Mock(
        EventType.TOOL_CALL_CHUNK,
        tool_call_id="tc-1",
        tool_call_name="calculate",
        delta={"operation": "add", "values": [1, 2, 3]},
    )
    collector._handle_tool_call_chunk(chunk)
    for event in text("msg-1", "Result is 6"):
        collector.process_event(event)
    [message] = collector.get_messages()
    assert [(c.name, c.args) for c in message.tool_calls] == [
        ("calculate", {"operation": "add", "values": [1, 2, 3]})
    ]


# -- the endpoint ---------------------------------------------------------------------------


class FakeResponse:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def raise_for_status(self) -> None:
        return None

    async def aiter_lines(self) -> AsyncIterator[str]:
        for line in self.lines:
            yield line

    async def __aenter__(self) -> FakeResponse:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class FakeClient:
    last: ClassVar[dict[str, Any]] = {}

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def __call__(self, *args: Any, **kwargs: Any) -> FakeClient:
        return self

    async def __aenter__(self) -> FakeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def stream(self, method: str, url: str, **kwargs: Any) -> FakeResponse:
        FakeClient.last = {"method": method, "url": url, **kwargs}
        return FakeResponse(self.lines)


def sse(*events: dict[str, Any]) -> list[str]:
    lines = []
    for event in events:
        lines += [f"data: {json.dumps(event)}", ""]
    return lines


SNAKE_STREAM = sse(
    {"type": "RUN_STARTED", "thread_id": "my-thread", "run_id": "r", "timestamp": 1},
    {"type": "TEXT_MESSAGE_START", "message_id": "m", "role": "assistant", "timestamp": 2},
    {"type": "TEXT_MESSAGE_CONTENT", "message_id": "m", "delta": "Hi", "timestamp": 3},
    {"type": "TEXT_MESSAGE_END", "message_id": "m", "timestamp": 4},
    {"type": "RUN_FINISHED", "thread_id": "my-thread", "run_id": "r", "timestamp": 5},
)


def test_24_call_endpoint() -> None:
    with patch("httpx.AsyncClient", FakeClient(SNAKE_STREAM)):
        events = asyncio.run(ag_ui.call_ag_ui_endpoint("http://agent/run", "Hello"))
    assert [e.type for e in events] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    body = FakeClient.last["json"]
    assert body["messages"] == [{"id": "1", "role": "user", "content": "Hello"}]
    assert "forwardedProps" in body
    assert "threadId" in body


def test_25_with_config() -> None:
    lines = sse(
        {"type": "RUN_STARTED", "threadId": "my-thread", "runId": "r"},
        {"type": "RUN_FINISHED", "threadId": "my-thread", "runId": "r"},
    )
    with patch("httpx.AsyncClient", FakeClient(lines)):
        events = asyncio.run(
            ag_ui.call_ag_ui_endpoint(
                "http://agent/run", "Hi", thread_id="my-thread", agent_config={"temperature": 0.7}
            )
        )
    assert len(events) == 2
    assert events[0].thread_id == "my-thread"
    assert FakeClient.last["json"]["forwardedProps"] == {"temperature": 0.7}


def test_26_malformed_json() -> None:
    lines = [
        *sse({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        "data: {invalid json}",
        "",
        *sse({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]
    with patch("httpx.AsyncClient", FakeClient(lines)):
        assert len(asyncio.run(ag_ui.call_ag_ui_endpoint("http://agent/run", "Hi"))) == 2


def test_27_convert_messages_to_ag_ui() -> None:
    messages = ag_ui.convert_messages_to_ag_ui(
        [
            HumanMessage(content="Weather?"),
            AIMessage(
                content="Let me check",
                tool_calls=[RagasToolCall(name="get-weather", args={"location": "SF"})],
            ),
            HumanMessage(content="Thanks"),
        ]
    )
    assert [m.id for m in messages] == ["1", "2", "3"]
    [call] = messages[1].tool_calls
    assert call.function.name == "get-weather"
    assert '"location": "SF"' in call.function.arguments


def test_28_29_extract_response() -> None:
    assert (
        ag_ui.extract_response(
            [AIMessage(content="Hi there! "), AIMessage(content="How can I help?")]
        )
        == "Hi there! How can I help?"
    )
    assert ag_ui.extract_response([HumanMessage(content="x"), ToolMessage(content="y")]) == ""


def test_30_31_extract_tool_calls() -> None:
    calls = [RagasToolCall(name=n, args={}) for n in ("a", "b", "c")]
    assert (
        ag_ui.extract_tool_calls(
            [
                AIMessage(content="", tool_calls=calls[:2]),
                AIMessage(content="", tool_calls=calls[2:]),
            ]
        )
        == calls
    )
    assert ag_ui.extract_tool_calls([AIMessage(content="x")]) == []


def test_32_33_extract_contexts() -> None:
    assert ag_ui.extract_contexts(
        [ToolMessage(content="first"), AIMessage(content="x"), ToolMessage(content="second")]
    ) == ["first", "second"]
    assert ag_ui.extract_contexts([AIMessage(content="x")]) == []


def test_34_build_sample_single_turn() -> None:
    sample = ag_ui.build_sample(
        "What is the answer?", [AIMessage(content="The answer is 42.")], reference="42"
    )
    assert isinstance(sample, SingleTurnSample)
    assert (sample.response, sample.reference) == ("The answer is 42.", "42")


def test_35_build_sample_list_input() -> None:
    conversation = [
        HumanMessage(content="Hi"),
        AIMessage(content="Hello"),
        HumanMessage(content="Weather?"),
    ]
    sample = ag_ui.build_sample(conversation, [AIMessage(content="It's sunny!")])
    assert isinstance(sample, MultiTurnSample)
    assert len(sample.user_input) == 4


def test_36_build_sample_tool_calls() -> None:
    reference = [RagasToolCall(name="get_weather", args={"city": "SF"})]
    sample = ag_ui.build_sample(
        "Weather?", [AIMessage(content="", tool_calls=reference)], reference_tool_calls=reference
    )
    assert isinstance(sample, MultiTurnSample)
    assert sample.reference_tool_calls == reference


# -- run_ag_ui_row ---------------------------------------------------------------------------

WEATHER_EVENTS = [
    RunStartedEvent(run_id="r", thread_id="t"),
    *text("m1", "Checking"),
    ToolCallStartEvent(tool_call_id="tc", tool_call_name="get_weather", parent_message_id="m1"),
    ToolCallArgsEvent(tool_call_id="tc", delta='{"city": "SF"}'),
    ToolCallEndEvent(tool_call_id="tc"),
    ToolCallResultEvent(tool_call_id="tc", message_id="t1", content="Sunny, 72F"),
    *text("m2", "It's sunny!"),
]


def run_row(
    row: dict[str, Any], events: list[Any] | None = None, error: Exception | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []

    async def fake(endpoint_url: str, user_input: Any, **kwargs: Any) -> list[Any]:
        calls.append({"user_input": user_input, **kwargs})
        if error is not None:
            raise error
        return list(events or [])

    with patch.object(ag_ui, "call_ag_ui_endpoint", fake):
        result = asyncio.run(
            ag_ui.run_ag_ui_row(
                row, "http://agent/run", extra_headers={"Authorization": "Bearer test-token"}
            )
        )
    return result, calls


def test_37_run_row_processes_row() -> None:
    result, _ = run_row({"user_input": "Hi", "reference": "Hello"}, [*text("m", "Hello")])
    assert {"user_input", "response", "messages", "tool_calls", "contexts", "reference"} <= set(
        result
    )
    assert len(result["messages"]) == 1


def test_38_extracts_tool_results() -> None:
    result, _ = run_row({"user_input": "Weather?"}, WEATHER_EVENTS)
    assert "Sunny, 72F" in result["contexts"][0]
    assert [c.name for c in result["tool_calls"]] == ["get_weather"]


def test_39_empty_user_input_still_calls() -> None:
    result, calls = run_row({"user_input": ""}, [])
    assert len(calls) == 1
    assert result["response"] == ag_ui.MISSING_RESPONSE_PLACEHOLDER
    assert result["user_input"] == ""


def test_40_none_user_input_never_calls() -> None:
    result, calls = run_row({"reference": "x"})
    assert calls == []
    assert result["response"] == ag_ui.MISSING_RESPONSE_PLACEHOLDER
    assert result.get("user_input") is None


def test_41_multi_turn_input() -> None:
    conversation = [
        HumanMessage(content="Hi"),
        AIMessage(content="Hello"),
        HumanMessage(content="Weather?"),
    ]
    result, _ = run_row({"user_input": conversation}, WEATHER_EVENTS)
    assert result["response"].endswith("It's sunny!")
    assert len(result["user_input"]) == 3


def test_42_extra_headers() -> None:
    _, calls = run_row({"user_input": "Hi"}, [])
    assert calls[0]["extra_headers"] == {"Authorization": "Bearer test-token"}


def test_43_endpoint_failure() -> None:
    result, _ = run_row({"user_input": "Hi", "reference": "r"}, error=ConnectionError("down"))
    assert result["response"] == ag_ui.MISSING_RESPONSE_PLACEHOLDER
    assert result["contexts"] == [ag_ui.MISSING_CONTEXT_PLACEHOLDER]
    assert (result["messages"], result["tool_calls"]) == ([], [])
    assert (result["user_input"], result["reference"]) == ("Hi", "r")
    assert result["error"] == "ConnectionError: down"


# -- cases from open pull requests ----------------------------------------------------------


def test_44_chunk_continuations_repeating_the_id() -> None:
    events = [
        TextMessageChunkEvent(message_id="msg-1", role="assistant", delta="The weather "),
        TextMessageChunkEvent(message_id="msg-1", delta="in SF is "),
        TextMessageChunkEvent(message_id="msg-1", delta="sunny, 72F."),
    ]
    messages = ag_ui.convert_to_ragas_messages(events)
    assert [m.content for m in messages] == ["The weather in SF is sunny, 72F."]
    assert ag_ui.extract_response(messages) == "The weather in SF is sunny, 72F."


def test_45_chunk_continuations_without_ids() -> None:
    events = [
        TextMessageChunkEvent(role="assistant", delta="Hello"),
        TextMessageChunkEvent(delta=" world"),
    ]
    assert [m.content for m in ag_ui.convert_to_ragas_messages(events)] == ["Hello world"]


def test_46_user_chunks() -> None:
    events = [
        TextMessageChunkEvent(message_id="msg-1", role="user", delta="What is "),
        TextMessageChunkEvent(message_id="msg-1", delta="the weather?"),
    ]
    messages = ag_ui.convert_to_ragas_messages(events)
    assert [(type(m), m.content) for m in messages] == [(HumanMessage, "What is the weather?")]


def test_47_snapshot_tool_calls() -> None:
    event = MessagesSnapshotEvent(
        messages=[
            AssistantMessage(
                id="a",
                role="assistant",
                tool_calls=[
                    ToolCall(
                        id="tc-1",
                        type="function",
                        function=FunctionCall(name="get_weather", arguments='{"city": "SF"}'),
                    )
                ],
            )
        ]
    )
    [message] = ag_ui.convert_messages_snapshot(event)
    assert message.tool_calls == [RagasToolCall(name="get_weather", args={"city": "SF"})]


def test_48_snapshot_assistant_without_content() -> None:
    event = MessagesSnapshotEvent(messages=[AssistantMessage(id="a", role="assistant")])
    assert [m.content for m in ag_ui.convert_messages_snapshot(event)] == [""]


def test_49_snapshot_user_text_parts() -> None:
    event = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {
                "id": "u",
                "role": "user",
                "content": [{"type": "text", "text": "What is in this screenshot?"}],
            }
        ],
    }
    assert [m.content for m in ag_ui.convert_messages_snapshot(event)] == [
        "What is in this screenshot?"
    ]


def test_accepts_wire_dicts_and_sdk_objects_alike() -> None:
    wire = [e.model_dump(by_alias=True, exclude_none=True, mode="json") for e in F2()]
    assert ag_ui.convert_to_ragas_messages(wire) == ag_ui.convert_to_ragas_messages(F2())


def test_run_error_is_reported_not_hidden() -> None:
    from ag_ui.core import RunErrorEvent

    result, _ = run_row(
        {"user_input": "Hi"},
        [RunStartedEvent(run_id="r", thread_id="t"), RunErrorEvent(message="model down")],
    )
    assert result["error"] == "model down"
    assert result["response"] == ag_ui.MISSING_RESPONSE_PLACEHOLDER


def test_emitted_conversations_validate(monkeypatch: pytest.MonkeyPatch) -> None:
    for events in (F1(), F2(), WEATHER_EVENTS):
        messages = ag_ui.convert_to_ragas_messages(events, metadata=True)
        sample = MultiTurnSample(user_input=messages)  # ragas validates the conversation
        assert sample.user_input == messages
        assert messages  # each has a turn to score
