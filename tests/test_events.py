"""Intake: every accepted spelling of an event becomes the canonical wire dict."""

from __future__ import annotations

import dataclasses
import enum
import types
from typing import Any

import ag_ui.core as core
import pytest

from agui_transcripts import EVENT_TYPES, EventDecodeError, EventIntake, normalize_event
from agui_transcripts.diagnostics import DiagnosticSink, ProtocolError


def intake_all(items: list[Any], *, strict: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
    intake = EventIntake(strict=strict)
    events = [e for e in map(intake.normalize, items) if e is not None]
    return events, [d.code for d in intake.sink.diagnostics]


def test_the_31_event_types_of_ag_ui_1_0() -> None:
    assert len(EVENT_TYPES) == 31
    sdk_types = {member.value for member in core.EventType}
    retired = {t for t in sdk_types if t.startswith("THINKING_")}
    assert sdk_types - retired == EVENT_TYPES


def test_canonical_wire_dict_is_returned_as_is() -> None:
    event = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "timestamp": 1}
    intake = EventIntake()
    assert intake.normalize(event) is event
    assert intake.sink.diagnostics == []


def test_snake_case_dict_gets_wire_keys() -> None:
    event = normalize_event(
        {
            "type": "TOOL_CALL_START",
            "tool_call_id": "c1",
            "tool_call_name": "search",
            "parent_message_id": "m1",
            "raw_event": {"keep_me": 1},
        }
    )
    assert event == {
        "type": "TOOL_CALL_START",
        "toolCallId": "c1",
        "toolCallName": "search",
        "parentMessageId": "m1",
        "rawEvent": {"keep_me": 1},
    }


def test_nested_structures_get_wire_keys_but_open_objects_do_not() -> None:
    event = normalize_event(
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": "u1", "role": "user", "content": "hi", "name": None},
                {
                    "id": "a1",
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"snake_arg": 1}'},
                            "metadata": {"vendor_key": None},
                        }
                    ],
                },
                {"id": "t1", "role": "tool", "tool_call_id": "c1", "content": "ok"},
                {
                    "id": "x1",
                    "role": "activity",
                    "activity_type": "map",
                    "content": {"zoom_level": 3},
                },
            ],
        }
    )
    assert event is not None
    assert event["messages"] == [
        {"id": "u1", "role": "user", "content": "hi"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"snake_arg": 1}'},
                    "metadata": {"vendor_key": None},
                }
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok"},
        {"id": "x1", "role": "activity", "activityType": "map", "content": {"zoom_level": 3}},
    ]


def test_run_started_input_and_outcome_are_normalised() -> None:
    event = normalize_event(
        {
            "type": "RUN_STARTED",
            "thread_id": "t",
            "run_id": "r",
            "input": {
                "thread_id": "t",
                "run_id": "r",
                "messages": [],
                "tools": [{"name": "f", "description": "d", "parameters": {"type_hint": 1}}],
                "forwarded_props": {"a_b": 1},
                "state": {"x_y": None},
            },
        }
    )
    assert event == {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r",
        "input": {
            "threadId": "t",
            "runId": "r",
            "messages": [],
            "tools": [{"name": "f", "description": "d", "parameters": {"type_hint": 1}}],
            "forwardedProps": {"a_b": 1},
            "state": {"x_y": None},
        },
    }
    finished = normalize_event(
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r",
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "i1", "reason": "approve", "tool_call_id": "c1"}],
            },
        }
    )
    assert finished is not None
    assert finished["outcome"]["interrupts"] == [
        {"id": "i1", "reason": "approve", "toolCallId": "c1"}
    ]


def test_enum_type_becomes_plain_string() -> None:
    event = normalize_event({"type": core.EventType.TEXT_MESSAGE_END, "messageId": "m1"})
    assert event == {"type": "TEXT_MESSAGE_END", "messageId": "m1"}
    assert type(event["type"]) is str


def test_sdk_objects_of_the_installed_version() -> None:
    objects = [
        core.RunStartedEvent(thread_id="t", run_id="r"),
        core.TextMessageStartEvent(message_id="m1", role="assistant"),
        core.TextMessageContentEvent(message_id="m1", delta="Hello"),
        core.TextMessageEndEvent(message_id="m1"),
        core.TextMessageChunkEvent(message_id="m2", delta="x"),
        core.ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m1"),
        core.ToolCallArgsEvent(tool_call_id="c1", delta="{}"),
        core.ToolCallEndEvent(tool_call_id="c1"),
        core.ToolCallResultEvent(message_id="t1", tool_call_id="c1", content="ok"),
        core.StateSnapshotEvent(snapshot={"k": None}),
        core.CustomEvent(name="x", value=None),
        core.RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    events, codes = intake_all(objects)
    assert codes == []
    assert events == [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "x"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "f",
            "parentMessageId": "m1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "ok"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"k": None}},
        {"type": "CUSTOM", "name": "x", "value": None},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]


def test_sdk_messages_snapshot_and_run_input() -> None:
    snapshot = core.MessagesSnapshotEvent(
        messages=[
            core.UserMessage(id="u1", role="user", content="hi"),
            core.AssistantMessage(
                id="a1",
                role="assistant",
                tool_calls=[
                    core.ToolCall(
                        id="c1",
                        type="function",
                        function=core.FunctionCall(name="f", arguments="{}"),
                    )
                ],
            ),
            core.ToolMessage(id="t1", role="tool", tool_call_id="c1", content="ok"),
        ]
    )
    event = normalize_event(snapshot)
    assert event is not None
    assert event["messages"] == [
        {"id": "u1", "role": "user", "content": "hi"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok"},
    ]


def test_sdk_and_wire_spellings_agree() -> None:
    obj = core.ToolCallChunkEvent(
        tool_call_id="c1", tool_call_name="f", parent_message_id="m", delta="{"
    )
    wire = obj.model_dump_json(by_alias=True)
    assert normalize_event(obj) == normalize_event(wire) == normalize_event(wire.encode())


def test_duck_typed_objects() -> None:
    @dataclasses.dataclass
    class Chunk:
        type: str
        message_id: str
        delta: str | None = None

    class Kind(enum.Enum):
        END = "TEXT_MESSAGE_END"

    events, codes = intake_all(
        [
            Chunk("TEXT_MESSAGE_CHUNK", "m1", "hi"),
            Chunk("TEXT_MESSAGE_CHUNK", "m1"),
            types.SimpleNamespace(type=Kind.END, message_id="m1", _private=1),
        ]
    )
    assert codes == []
    assert events == [
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "hi"},
        # An object cannot tell absent from None; for objects None is absence.
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    ]


def test_json_text_in_str_and_bytes() -> None:
    text = '{"type":"RUN_ERROR","message":"boom","code":"E1"}'
    expected = {"type": "RUN_ERROR", "message": "boom", "code": "E1"}
    assert normalize_event(text) == expected
    assert normalize_event(text.encode()) == expected
    assert normalize_event(bytearray(text.encode())) == expected


def test_null_in_optional_position_reads_as_absent_with_a_warning() -> None:
    events, codes = intake_all(
        [{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "name": None}]
    )
    assert events == [{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
    assert codes == ["null-as-absent"]


def test_grandfathered_nulls_read_as_absent_silently() -> None:
    events, codes = intake_all(
        [
            {
                "type": "TOOL_CALL_START",
                "toolCallId": "c",
                "toolCallName": "f",
                "parentMessageId": None,
            },
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "parentMessageId": None, "delta": "x"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": None},
        ]
    )
    assert codes == []
    assert events == [
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "delta": "x"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]


def test_nulls_that_are_data_or_violations_are_kept() -> None:
    # STATE_SNAPSHOT null is data; delta: null (C6) and subagentRunId: null (C24) must
    # reach the verifier, never read as absent.
    items = [
        {"type": "STATE_SNAPSHOT", "snapshot": None},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": None},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "subagentRunId": None},
    ]
    events, codes = intake_all(items)
    assert events == items
    assert codes == []


def test_subagent_id_alias() -> None:
    events, codes = intake_all(
        [
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x", "subagentId": "s1"},
            {
                "type": "SUBAGENT_STARTED",
                "subagentRunId": "s2",
                "name": "n",
                "parentSubagentId": "s1",
            },
            {"type": "STEP_STARTED", "stepName": "a", "subagentId": "old", "subagentRunId": "new"},
        ]
    )
    assert events == [
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x", "subagentRunId": "s1"},
        {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": "s2",
            "name": "n",
            "parentSubagentRunId": "s1",
        },
        {"type": "STEP_STARTED", "stepName": "a", "subagentRunId": "new"},
    ]
    assert codes == ["legacy-field-alias", "legacy-field-alias"]


def test_thinking_events_are_translated_with_minted_ids() -> None:
    events, codes = intake_all(
        [
            {"type": "THINKING_START", "title": "pondering"},
            {"type": "THINKING_TEXT_MESSAGE_START"},
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "Let me check."},
            {"type": "THINKING_TEXT_MESSAGE_END"},
            {"type": "THINKING_END"},
        ]
    )
    span, message = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
    assert events == [
        {"type": "REASONING_START", "messageId": span},
        {"type": "REASONING_MESSAGE_START", "messageId": message, "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": message, "delta": "Let me check."},
        {"type": "REASONING_MESSAGE_END", "messageId": message},
        {"type": "REASONING_END", "messageId": span},
    ]
    assert codes == ["retired-field-dropped"] + ["retired-event-translated"] * 5


def test_thinking_content_without_start_keeps_its_text() -> None:
    events, _ = intake_all(
        [
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "a"},
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "b"},
        ]
    )
    minted = "00000000-0000-4000-8000-000000000001"
    assert events == [
        {"type": "REASONING_MESSAGE_CHUNK", "messageId": minted, "delta": "a"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": minted, "delta": "b"},
    ]


def test_sdk_thinking_objects_where_the_sdk_still_has_them() -> None:
    if not hasattr(core, "ThinkingStartEvent"):
        # 1.0 removed the classes; their wire form is covered above.
        assert "THINKING_START" not in {m.value for m in core.EventType}
        return
    events, _ = intake_all(
        [
            getattr(core, "ThinkingTextMessageStartEvent")(),  # noqa: B009 - absent in 1.0
            getattr(core, "ThinkingTextMessageContentEvent")(delta="hmm"),  # noqa: B009
        ]
    )
    assert [e["type"] for e in events] == ["REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT"]
    assert events[1]["delta"] == "hmm"


@pytest.mark.parametrize("role", ["assistant", "thinking"])
def test_legacy_reasoning_role_is_normalised_and_reported(role: str) -> None:
    events, codes = intake_all(
        [{"type": "REASONING_MESSAGE_START", "messageId": "r", "role": role}]
    )
    assert events == [{"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"}]
    assert codes == ["reasoning-role-invalid"]


def test_legacy_reasoning_role_is_rejected_in_strict_mode() -> None:
    intake = EventIntake(strict=True)
    with pytest.raises(ProtocolError, match='expected "reasoning"'):
        intake.normalize({"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "assistant"})


def test_missing_reasoning_role_is_filled() -> None:
    events, codes = intake_all([{"type": "REASONING_MESSAGE_START", "messageId": "r"}])
    assert events == [{"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"}]
    assert codes == ["reasoning-role-missing"]


def test_unknown_event_type_is_kept_out_with_an_info_diagnostic() -> None:
    intake = EventIntake()
    assert intake.normalize({"type": "FUTURE_EVENT", "somethingNew": True}) is None
    [diagnostic] = intake.sink.diagnostics
    assert (diagnostic.code, diagnostic.severity) == ("unknown-event-type", "info")
    assert "FUTURE_EVENT" in diagnostic.message


def test_unknown_fields_are_kept() -> None:
    event = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "vendorField": 1}
    assert normalize_event(event) == event


@pytest.mark.parametrize(
    ("item", "code"),
    [
        ("not json", "invalid-json"),
        (b"{", "invalid-json"),
        ("[1, 2]", "event-not-object"),
        ("42", "event-not-object"),
        ("null", "event-not-object"),
        ({"messageId": "m"}, "event-missing-type"),
        ({"type": 7}, "event-type-invalid"),
        ({"type": None}, "event-type-invalid"),
        (object(), "unsupported-input"),
    ],
)
def test_bad_input_is_reported_leniently_and_raised_strictly(item: object, code: str) -> None:
    intake = EventIntake()
    assert intake.normalize(item) is None
    [diagnostic] = intake.sink.diagnostics
    assert (diagnostic.code, diagnostic.severity, diagnostic.event_index) == (code, "error", 0)

    with pytest.raises(EventDecodeError) as raised:
        EventIntake(strict=True).normalize(item, line=12)
    assert raised.value.diagnostic.code == code
    assert "line 12" in str(raised.value)
    with pytest.raises(EventDecodeError):
        normalize_event(item)


def test_invalid_utf8_bytes_are_replaced_and_reported() -> None:
    intake = EventIntake()
    event = intake.normalize(b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"caf\xff"}')
    assert event == {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "caf\ufffd"}
    assert [d.code for d in intake.sink.diagnostics] == ["invalid-utf8"]


def test_event_index_counts_every_item() -> None:
    sink = DiagnosticSink()
    intake = EventIntake(sink)
    intake.normalize({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    intake.normalize("garbage")
    intake.normalize({"type": "NOPE"})
    assert [(d.code, d.event_index) for d in sink.diagnostics] == [
        ("invalid-json", 1),
        ("unknown-event-type", 2),
    ]
