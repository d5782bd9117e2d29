"""Edges of the drop-in a ragas user meets in the first hour (issue 18, item 9).

Each is compared with ragas 0.4's own module where ragas has an answer.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock

import pytest
from ag_ui.core import (
    AssistantMessage as SDKAssistantMessage,
)
from ag_ui.core import (
    FunctionCall,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallChunkEvent,
)
from ag_ui.core import (
    ToolCall as SDKToolCall,
)
from ag_ui.core import (
    ToolMessage as SDKToolMessage,
)
from ag_ui.core import (
    UserMessage as SDKUserMessage,
)
from ragas.integrations import ag_ui as upstream
from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

from agui_transcripts import fold
from agui_transcripts import ragas as dropin
from tests.streams import RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS


def test_the_placeholders_are_ragas_own() -> None:
    assert dropin.MISSING_RESPONSE_PLACEHOLDER == upstream.MISSING_RESPONSE_PLACEHOLDER
    assert dropin.MISSING_CONTEXT_PLACEHOLDER == upstream.MISSING_CONTEXT_PLACEHOLDER
    assert {"MISSING_RESPONSE_PLACEHOLDER", "MISSING_CONTEXT_PLACEHOLDER"} <= set(dropin.__all__)


def _transcript() -> Any:
    return fold(
        [
            RS(),
            TMS("m1"),
            TMC("m1", "Checking. "),
            TCS("c1", "weather", "m1"),
            TCA("c1", '{"city": "Oslo"}'),
            TCE("c1"),
            TME("m1"),
            TCR("t1", "c1", "rain"),
            TMS("m2"),
            TMC("m2", "It rains."),
            TME("m2"),
            RF(),
        ]
    )


def _ragas_view() -> list[Any]:
    return [
        HumanMessage(content="Weather?"),
        AIMessage(
            content="Checking. ", tool_calls=[ToolCall(name="weather", args={"city": "Oslo"})]
        ),
        ToolMessage(content="rain"),
        AIMessage(content="It rains."),
    ]


def _sdk_view() -> list[Any]:
    call = SDKToolCall(
        id="c1",
        type="function",
        function=FunctionCall(name="weather", arguments='{"city": "Oslo"}'),
    )
    return [
        SDKUserMessage(id="u1", role="user", content="Weather?"),
        SDKAssistantMessage(id="m1", role="assistant", content="Checking. ", tool_calls=[call]),
        SDKToolMessage(id="t1", role="tool", content="rain", tool_call_id="c1"),
        SDKAssistantMessage(id="m2", role="assistant", content="It rains."),
    ]


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param(lambda: _transcript().messages, id="this-library's"),
        pytest.param(lambda: _transcript().to_dicts(), id="wire-dicts"),
        pytest.param(_sdk_view, id="ag_ui.core"),
    ],
)
def test_extractors_read_ag_ui_messages_as_ragas_messages(messages: Any) -> None:
    ragas = _ragas_view()
    given = messages()
    assert dropin.extract_response(given) == upstream.extract_response(ragas)
    assert dropin.extract_response(given) == "Checking. It rains."
    assert dropin.extract_tool_calls(given) == upstream.extract_tool_calls(ragas)
    assert dropin.extract_contexts(given) == upstream.extract_contexts(ragas) == ["rain"]


def test_ragas_own_messages_go_through_unchanged() -> None:
    ragas = _ragas_view()
    assert dropin.extract_response(ragas) == upstream.extract_response(ragas)
    assert dropin.extract_tool_calls(ragas) == upstream.extract_tool_calls(ragas)
    assert dropin.extract_contexts(ragas) == upstream.extract_contexts(ragas)
    assert dropin.extract_response([]) == ""


# A role or type that is a list or an object once raised "unhashable type" from a set.
_UNHASHABLE = [{"role": ["user"], "content": "x"}, {"role": {"a": 1}}, SimpleNamespace(type=[])]


@pytest.mark.parametrize("junk", ["plain text", 3, {"content": "no role"}, object(), *_UNHASHABLE])
def test_anything_else_is_a_type_error(junk: object) -> None:
    for extract in (dropin.extract_response, dropin.extract_tool_calls, dropin.extract_contexts):
        with pytest.raises(TypeError, match=f"{extract.__name__}\\(\\) takes ragas messages"):
            extract([AIMessage(content="fine"), junk])


def _chunk_events() -> dict[str, Any]:
    fields = {"tool_call_id": "tc-1", "tool_call_name": "search", "delta": {"query": "weather"}}
    mock = MagicMock()
    for name, value in fields.items():
        setattr(mock, name, value)
    return {
        "namespace": SimpleNamespace(**fields),
        "mock": mock,
        "sdk, built without validation": ToolCallChunkEvent.model_construct(
            tool_call_id="tc-1", tool_call_name="search", delta={"query": "weather"}
        ),
    }


@pytest.mark.parametrize("kind", list(_chunk_events()))
def test_a_dict_delta_chunk_attaches_to_the_next_text_message_as_in_ragas(kind: str) -> None:
    outputs = []
    for module in (upstream, dropin):
        collector = module.AGUIEventCollector()
        collector._handle_tool_call_chunk(_chunk_events()[kind])
        collector.process_event(TextMessageStartEvent(message_id="m1", role="assistant"))
        collector.process_event(TextMessageContentEvent(message_id="m1", delta="Searching."))
        collector.process_event(TextMessageEndEvent(message_id="m1"))
        outputs.append(collector.get_messages())
    ours, theirs = outputs[1], outputs[0]
    assert ours == theirs
    assert ours == [
        AIMessage(
            content="Searching.", tool_calls=[ToolCall(name="search", args={"query": "weather"})]
        )
    ]


# -- issue 33, item 8: duck-typed events whose fields live on their class -------------------


class _ClassChunk:
    """The shape of ragas's own dict-delta test, with the fields on the class."""

    type = "TOOL_CALL_CHUNK"
    tool_call_id = "tc-1"
    tool_call_name = "calculate"
    delta: Any = {"operation": "add", "values": [1, 2, 3]}  # noqa: RUF012


class _ClassText:
    type = "TEXT_MESSAGE_CHUNK"
    message_id = "msg-1"
    role = "assistant"
    delta = "Result is 6"


def _after_class_chunk(module: Any) -> list[Any]:
    collector = module.AGUIEventCollector()
    collector._handle_tool_call_chunk(_ClassChunk())
    for event in (
        TextMessageStartEvent(message_id="msg-2", role="assistant"),
        TextMessageContentEvent(message_id="msg-2", delta="Result is 6"),
        TextMessageEndEvent(message_id="msg-2"),
    ):
        collector.process_event(event)
    messages: list[Any] = collector.get_messages()
    return messages


def test_a_chunk_whose_fields_are_class_attributes_keeps_its_call() -> None:
    ours, theirs = _after_class_chunk(dropin), _after_class_chunk(upstream)
    assert [(type(m), m.content) for m in ours] == [(AIMessage, "Result is 6")]
    assert [(c.name, c.args) for c in ours[0].tool_calls] == [
        ("calculate", {"operation": "add", "values": [1, 2, 3]})
    ]
    assert ours == theirs


def test_class_attribute_events_convert_as_their_dicts_do() -> None:
    """Every entry of the drop-in reads such objects the way ragas does: by attribute."""
    converted = dropin.convert_to_ragas_messages([_ClassText()])
    assert [(type(m), m.content) for m in converted] == [(AIMessage, "Result is 6")]
    assert converted == upstream.convert_to_ragas_messages([_ClassText()])
