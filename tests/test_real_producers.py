"""Streams the way producers nobody here wrote send them: each defect found on recorded runs.

Every test builds a stream of one shape seen in runs recorded by others from real models
(hand-written wrappers around provider APIs, framework adapters, recorders adding their
own keys) and holds the fold to what an evaluator must read from it: every result the
stream carries is a real result right after its call, every streamed text is kept or
named by a diagnostic, nothing is invented. ``tests/test_dialect_properties.py`` carries
the same shapes over generated streams.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agui_transcripts import ProtocolError, Transcript, afold, fold
from agui_transcripts.model import AssistantMessage, ToolMessage
from agui_transcripts.projection import is_synthetic
from agui_transcripts.schema import snake_case

from .producers import (
    BOOKING,
    FRANCE,
    OTHER_THREAD,
    RESUMED,
    WEATHER_ARGS,
    answer,
    approval_runs,
    booking_run,
    calculator_run,
    call,
    chatty_run,
    gemini_snapshot_runs,
    reused_thread_run,
    snapshot_first_runs,
    with_recorder_keys,
)
from .streams import MS, RF, RS, TCA, TCE, TCS, codes

Event = dict[str, Any]
HERE = Path(__file__).parent


def _sse(events: list[Event]) -> bytes:
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events).encode()


def _jsonl(events: list[Event]) -> bytes:
    return "".join(json.dumps(event) + "\n" for event in events).encode()


async def _lines(events: list[Event]) -> AsyncIterator[bytes]:
    for line in _jsonl(events).splitlines(keepends=True):
        yield line


def _class_object(event: Event) -> object:
    """An event as some callers hand it over: its fields on its class, snake_case."""
    fields = {snake_case(key): value for key, value in event.items()}
    return type("DuckEvent", (), fields)()


#: Every way a stream reaches the fold: event dicts, JSON text per event, duck-typed
#: objects (fields on the instance, or on the class as ragas's own tests write them), a
#: JSONL log, an SSE body and an async source of lines.
READERS: dict[str, Callable[..., Transcript]] = {
    "dicts": lambda events, **kw: fold(events, **kw),
    "json-text": lambda events, **kw: fold([json.dumps(e) for e in events], **kw),
    "objects": lambda events, **kw: fold([SimpleNamespace(**e) for e in events], **kw),
    "class-objects": lambda events, **kw: fold([_class_object(e) for e in events], **kw),
    "jsonl": lambda events, **kw: fold(_jsonl(events), **kw),
    "sse": lambda events, **kw: fold(_sse(events), **kw),
    "async-jsonl": lambda events, **kw: asyncio.run(afold(_lines(events), **kw)),
}


def conversation(transcript: Transcript) -> list[tuple[str, str, str | None, bool]]:
    """What an evaluator reads of ``ordered()``: role, text or call, answered id, synthetic."""
    out: list[tuple[str, str, str | None, bool]] = []
    for message in transcript.ordered():
        if isinstance(message, AssistantMessage) and message.tool_calls:
            for call in message.tool_calls:
                out.append(("call", f"{call.name} {call.arguments}", call.id, False))
        if isinstance(message, ToolMessage):
            out.append(("tool", message.text, message.tool_call_id, is_synthetic(message)))
        elif message.text:
            out.append((message.role, message.text, None, False))
    return out


# -- 1. a result under another field name ------------------------------------------------------


@pytest.mark.parametrize("reader", READERS)
def test_a_result_under_another_field_name_is_the_calls_result(reader: str) -> None:
    events = calculator_run({"type": "TOOL_CALL_RESULT", "toolCallId": "tc-1", "result": "714"})
    transcript = READERS[reader](events)
    assert conversation(transcript) == [
        ("call", 'calculator {"expression": "42 * 17"}', "tc-1", False),
        ("tool", "714", "tc-1", False),
        ("assistant", "42 times 17 is 714.", None, False),
    ]
    assert transcript.tool_calls["tc-1"].result_message_ids == ["tc-1-result"]
    assert transcript.tool_calls["tc-1"].state == "resolved_server"
    # The alias is a warning naming it; the minted id is said once; nothing is malformed.
    assert codes(transcript, "field-alias", "result-id-minted", "malformed-event") == [
        "field-alias",
        "result-id-minted",
    ]
    [alias] = [d for d in transcript.diagnostics if d.code == "field-alias"]
    assert "TOOL_CALL_RESULT.result read as 'content'" in alias.message


@pytest.mark.parametrize("reader", READERS)
def test_a_result_under_another_field_name_is_rejected_in_strict_mode(reader: str) -> None:
    events = calculator_run({"type": "TOOL_CALL_RESULT", "toolCallId": "tc-1", "result": "714"})
    with pytest.raises(ProtocolError, match=r"TOOL_CALL_RESULT\.messageId: Required"):
        READERS[reader](events, strict=True)


def test_aliases_and_minted_ids_are_reported_once_per_stream() -> None:
    events = [
        RS(),
        *[TCS(f"c{n}", "lookup", "m1") for n in range(3)],
        *[TCE(f"c{n}") for n in range(3)],
        *[{"type": "TOOL_CALL_RESULT", "toolCallId": f"c{n}", "result": f"r{n}"} for n in range(3)],
        RF(),
    ]
    transcript = fold(events)
    assert codes(transcript, "field-alias", "result-id-minted") == [
        "field-alias",
        "result-id-minted",
    ]
    assert [m.text for m in transcript.ordered() if isinstance(m, ToolMessage)] == [
        "r0",
        "r1",
        "r2",
    ]


def test_the_1_0_spelling_wins_over_the_alias() -> None:
    both = {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "tc-1"}
    transcript = fold(calculator_run({**both, "content": "714", "result": "ignored"}))
    assert [m.text for m in transcript.messages if isinstance(m, ToolMessage)] == ["714"]
    assert codes(transcript, "field-alias", "result-id-minted") == []


def test_the_alias_applies_to_its_own_event_type_only() -> None:
    """``result`` is RUN_FINISHED's own field: it stays the run's result there."""
    events = calculator_run(
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "tc-1", "content": "714"}
    )
    events[-1] = RF(result={"answer": 714})
    transcript = fold(events)
    assert transcript.runs[0].result == {"answer": 714}
    assert codes(transcript, "field-alias") == []


def test_a_result_without_message_id_is_kept_in_lenient_mode() -> None:
    events = calculator_run({"type": "TOOL_CALL_RESULT", "toolCallId": "tc-1", "content": "714"})
    transcript = fold(_jsonl(events))
    assert conversation(transcript)[1] == ("tool", "714", "tc-1", False)
    assert codes(transcript, "result-id-minted", "malformed-event") == ["result-id-minted"]
    with pytest.raises(ProtocolError, match="messageId: Required"):
        fold(_jsonl(events), strict=True)


# -- 9. a recorder's own keys on every event ---------------------------------------------------


def _same_fold(left: Transcript, right: Transcript) -> None:
    assert left.to_dicts() == right.to_dicts()
    assert [m.to_dict() for m in left.ordered()] == [m.to_dict() for m in right.ordered()]
    assert [r.to_dict() for r in left.runs] == [r.to_dict() for r in right.runs]
    assert {k: r.to_dict() for k, r in left.tool_calls.items()} == {
        k: r.to_dict() for k, r in right.tool_calls.items()
    }


@pytest.mark.parametrize("reader", READERS)
def test_a_recorders_keys_change_nothing_but_one_note_per_key(reader: str) -> None:
    events = chatty_run()
    plain, recorded = READERS[reader](events), READERS[reader](with_recorder_keys(events))
    _same_fold(recorded, plain)
    assert codes(plain) == ["owner-unknown"]  # tc-2 is unanswered, by whom is not said
    notes = [
        (d.code, d.severity, d.event_index, d.message)
        for d in recorded.diagnostics
        if d.code != "owner-unknown"
    ]
    usage = ("unknown-field", "info", 7)  # first seen on a TEXT_MESSAGE_END
    if reader in ("objects", "class-objects"):  # underscored attributes are the object's own
        assert [note[:3] for note in notes] == [usage]
    else:
        assert [note[:3] for note in notes] == [("unknown-field", "info", 0), usage]
        assert "'_timestamp', '_offset_ms', '_index'" in notes[0][3]
    assert "'usage_metadata'" in notes[-1][3]


def test_a_delta_with_a_recorders_keys_takes_the_delta_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from .lane import count_lane

    events = chatty_run()
    taken = count_lane(monkeypatch)
    fold(_jsonl(events))
    plainly = taken[0]
    taken[0] = 0
    fold(_jsonl(with_recorder_keys(events)))
    assert plainly >= 4  # the deltas and chunk continuations of this stream
    assert taken[0] == plainly


# -- 6. a producer's echo of the run input without the resume ---------------------------------


@pytest.mark.parametrize("strict", [False, True])
def test_an_echo_without_the_resume_does_not_replace_the_request(strict: bool) -> None:
    events, sent = approval_runs()
    transcript = fold(events, run_input=sent, strict=strict)
    assert codes(transcript, "resume-missing", "resume-unconfirmed") == []
    second = transcript.runs[1]
    assert second.resume == RESUMED
    assert second.input is not None
    assert second.input["resume"] == RESUMED
    assert second.input["context"] == []  # what the echo adds is kept
    assert transcript.tool_calls["c1"].state == "resolved_server_late"  # after approval
    assert transcript.continuation().status == "done"
    assert conversation(transcript) == [
        ("user", "Delete /tmp/report.txt", None, False),
        ("call", 'delete_file {"path": "/tmp/report.txt"}', "c1", False),
        ("tool", "deleted", "c1", False),
        ("assistant", "Done: the file is gone.", None, False),
    ]


def test_an_echo_alone_cannot_say_the_resume_is_missing() -> None:
    events, _ = approval_runs()
    transcript = fold(events, strict=True)  # the log alone: the reference accepts it
    assert codes(transcript, "resume-missing", "resume-unconfirmed") == ["resume-unconfirmed"]


def test_the_clients_own_input_without_resume_is_still_an_error() -> None:
    events, sent = approval_runs()
    del sent[1]["resume"]
    assert codes(fold(events, run_input=sent), "resume-missing") == ["resume-missing"]
    with pytest.raises(ProtocolError, match="not addressed by resume: int-1"):
        fold(events, run_input=sent, strict=True)


# -- 5. run inputs paired with runs, not positions ---------------------------------------------


def _turns(transcript: Transcript) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in transcript.ordered()]


@pytest.mark.parametrize("inputs_name_their_runs", [True, False])
def test_events_before_run_started_are_the_runs_own(inputs_name_their_runs: bool) -> None:
    events, inputs = snapshot_first_runs()
    if not inputs_name_their_runs:  # paired by the order of RUN_STARTED events instead
        inputs = [{k: v for k, v in i.items() if k != "runId"} for i in inputs]
    transcript = fold(events, run_input=inputs)
    assert _turns(transcript) == [
        ("user", "Capital of France?"),
        ("assistant", "Paris."),  # run 2's input landed on run 1: Italy came before Paris
        ("user", "And of Italy?"),
        ("assistant", "Rome."),
    ]
    assert [(r.run_id, r.announced, r.outcome) for r in transcript.runs] == [
        ("r1", True, "success"),
        ("r2", True, "success"),
    ]
    assert [r.input for r in transcript.runs] == inputs
    assert [r.first_event_index for r in transcript.runs] == [0, 6]  # the snapshots' own
    assert transcript.run_of(transcript.messages[-1]) is transcript.runs[1]
    assert codes(transcript, "run-already-active", "run-started-late") == [
        "run-started-late",
        "run-started-late",
    ]


def test_inputs_are_paired_by_run_id_whatever_their_order() -> None:
    events, inputs = snapshot_first_runs()
    transcript = fold(events, run_input=list(reversed(inputs)))
    assert [r.input["runId"] if r.input else None for r in transcript.runs] == ["r1", "r2"]
    assert _turns(transcript)[1] == ("assistant", "Paris.")


def test_an_input_the_stream_has_no_run_for_shifts_nothing() -> None:
    """The recording lost run r1's events; its input is left over, r2 takes its own."""
    events, inputs = snapshot_first_runs()
    transcript = fold(events[6:], run_input=inputs)
    assert [r.input["runId"] if r.input else None for r in transcript.runs] == ["r2"]


def test_events_before_run_started_read_as_the_reference_reads_the_runs_without_them() -> None:
    """The reference rejects the stream; without its events before each RUN_STARTED it
    defines the conversation, and the lenient fold of the whole stream is that one."""
    events, inputs = snapshot_first_runs(client_ids=False)
    golden = HERE / "golden" / "streams" / "producer-snapshot-before-run-started-stripped"
    expected = json.loads(golden.with_suffix(".expected.json").read_text(encoding="utf-8"))
    assert json.loads(golden.with_suffix(".input.json").read_text(encoding="utf-8")) == inputs
    assert fold(events, run_input=inputs).to_dicts() == expected["messages"]


def test_a_stream_that_opens_with_a_snapshot_is_rejected_in_strict_mode() -> None:
    events, inputs = snapshot_first_runs()
    with pytest.raises(ProtocolError, match="First event must be 'RUN_STARTED'"):
        fold(events, run_input=inputs, strict=True)


# -- 7. an input message whose content is an object -------------------------------------------


def test_an_object_as_input_content_is_kept_as_the_reference_keeps_it() -> None:
    events, run_input = booking_run()
    transcript = fold(events, run_input=run_input, strict=True)  # the reference accepts it
    assert transcript.to_dicts()[0] == {"id": "u1", "role": "user", "content": BOOKING}
    [note] = transcript.diagnostics
    assert (note.code, note.severity) == ("message-content-invalid", "warning")
    assert "input/messages/0/content is an object" in note.message
    # What reads text reads its JSON text; the wire form stays the object.
    user = transcript.messages[0]
    assert json.loads(user.text) == BOOKING
    assert transcript.ordered()[0].to_dict()["content"] == BOOKING


def _in_snapshot(content: Any) -> list[Event]:
    message = {"id": "u1", "role": "user", "content": content}
    return [RS(), {"type": "MESSAGES_SNAPSHOT", "messages": [message]}, RF()]


def _in_run_started_input(content: Any) -> list[Event]:
    message = {"id": "u1", "role": "user", "content": content}
    return [RS(input={"threadId": "t", "runId": "r1", "messages": [message]}), RF()]


@pytest.mark.parametrize("build", [_in_snapshot, _in_run_started_input])
def test_an_object_as_content_in_an_event_is_malformed_as_the_reference_says(
    build: Callable[[Any], list[Event]],
) -> None:
    events = build(BOOKING)
    transcript = fold(events)
    assert codes(transcript, "malformed-event", "message-content-invalid") == [
        "malformed-event",
        "message-content-invalid",
    ]
    assert transcript.to_dicts()[0]["content"] == BOOKING
    with pytest.raises(ProtocolError, match=r"messages\.0\.content: expected string or array"):
        fold(events, strict=True)


def test_sdk_models_cannot_hold_object_content_and_say_so() -> None:
    from agui_transcripts.adapters.agui import to_agui_models

    events, run_input = booking_run()
    found: list[Any] = []
    user = to_agui_models(fold(events, run_input=run_input), diagnostics=found)[0]
    assert json.loads(user.content) == BOOKING
    assert [(d.code, d.message_id) for d in found] == [("agui-model-degraded", "u1")]


# -- 4. a snapshot that leaves out what was streamed ------------------------------------------


@pytest.mark.parametrize("with_input", [True, False])
def test_a_snapshot_that_drops_streamed_messages_names_them(with_input: bool) -> None:
    events, run_input = reused_thread_run()
    transcript = fold(events, run_input=run_input if with_input else None, strict=True)
    assert transcript.to_dicts() == OTHER_THREAD  # the reference replaces the history
    assert _turns(transcript) == [(m["role"], m["content"]) for m in OTHER_THREAD]
    [dropped] = [d for d in transcript.diagnostics if d.code == "snapshot-dropped-messages"]
    assert dropped.severity == "warning"
    assert "'ans' (assistant, 31 characters)" in dropped.message
    if with_input:
        assert "'u1' (user, 18 characters)" in dropped.message
    assert [m.text for m in transcript.superseded][-1] == "The capital of France is Paris."


def test_a_snapshot_that_restates_under_new_ids_or_merged_drops_nothing() -> None:
    """llama-index merges the streamed text and its call into one message, re-minted."""
    events = [
        RS(),
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "Let me"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": " check."},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "weather", "delta": "{}"},
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {**FRANCE, "id": "fresh-1"},
                {
                    "id": "fresh-2",
                    "role": "assistant",
                    "content": "Let me check.",
                    "toolCalls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "weather", "arguments": "{}"},
                        }
                    ],
                },
            ],
        },
        RF(),
    ]
    transcript = fold(events, run_input={"threadId": "t", "runId": "r1", "messages": [FRANCE]})
    assert codes(transcript, "snapshot-dropped-messages") == []
    assert transcript.superseded == []


# -- 3. a snapshot that re-mints call ids while results keep the streamed ones ----------------


WEATHER_CONVERSATION = [
    ("system", "You are a travel assistant.", None, False),
    ("user", "Weather in Paris?", None, False),
    ("call", f"get_weather {WEATHER_ARGS}", "A", False),
    ("tool", "18°C and sunny", "A", False),
    ("assistant", "It is 18°C and sunny in Paris.", None, False),
]


@pytest.mark.parametrize("result_answers", ["A", "fresh"])
@pytest.mark.parametrize("with_input", [True, False])
def test_a_call_restated_under_fresh_ids_keeps_its_result(
    result_answers: str, with_input: bool
) -> None:
    run_input = {
        "threadId": "t",
        "runId": "r1",
        "messages": [FRANCE | {"content": "Weather in Paris?"}],
    }
    transcript = fold(
        gemini_snapshot_runs(result_answers), run_input=run_input if with_input else None
    )
    assert conversation(transcript) == WEATHER_CONVERSATION  # call, result, answer
    assert list(transcript.tool_calls) == ["A"]  # no phantom call per snapshot
    record = transcript.tool_calls["A"]
    assert (record.state, record.message_id) == ("resolved_server", "x3")
    assert transcript.tool_call("B3") is record
    assert transcript.call_aliases == {"B1": "A", "B2": "A", "B3": "A"}
    assert transcript.continuation().status == "done"
    assert codes(transcript, "orphan-result", "snapshot-dropped-messages") == []
    assert len(codes(transcript, "call-id-remapped")) == 3


def test_a_harness_answers_a_restated_call_by_either_id() -> None:
    from agui_transcripts import Collector

    events = [*gemini_snapshot_runs()[:3], RF()]  # the call; a snapshot re-mints it
    for asked in ("A", "B1"):
        collector = Collector()
        for event in events:
            collector.feed(event)
        collector.add_client_result(asked, "18°C and sunny")
        transcript = collector.transcript
        assert conversation(transcript)[-2:] == WEATHER_CONVERSATION[2:4]
        assert transcript.tool_calls["A"].state == "resolved_client"


# -- 2. no "not executed" for a call the stream answered, under any spelling or id ----------


def _answered_everywhere() -> dict[str, list[Event]]:
    """Streams that answer their one call, each in another way a producer does it."""
    called = [RS(), TCS("c1", "lookup", "m1"), TCA("c1", "{}"), TCE("c1")]
    result = {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "ok"}
    held_result = {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok"}
    held_call = {"id": "m1", "role": "assistant", "toolCalls": [call("c1", "lookup")]}
    restated = {"id": "m1-again", "role": "assistant", "toolCalls": [call("c9", "lookup")]}
    snake = {"type": "TOOL_CALL_RESULT", "message_id": "t1", "tool_call_id": "c1", "content": "ok"}
    return {
        "as-sent": [*called, result, RF()],
        "under-result": [
            *called,
            {"type": "TOOL_CALL_RESULT", "toolCallId": "c1", "result": "ok"},
            RF(),
        ],
        "snake-case": [*called, snake, RF()],
        "before-its-call": [RS(), result, *called[1:], RF()],
        "only-in-a-snapshot": [*called, MS(held_call, held_result), RF()],
        "snapshot-remints-call": [*called, result, MS(restated, held_result), RF()],
        "remints-and-result-follows": [
            *called,
            MS(restated),
            {**result, "toolCallId": "c9"},
            RF(),
        ],
        "with-recorder-keys": with_recorder_keys([*called, result, RF()]),
    }


@pytest.mark.parametrize("shape", list(_answered_everywhere()))
@pytest.mark.parametrize("reader", ["dicts", "jsonl", "sse"])
def test_an_answered_call_is_never_not_executed(shape: str, reader: str) -> None:
    transcript = READERS[reader](_answered_everywhere()[shape])
    ordered = transcript.ordered()
    assert not any(is_synthetic(m) for m in ordered)
    results = [m for m in ordered if isinstance(m, ToolMessage)]
    assert [(m.text, m.tool_call_id) for m in results] == [("ok", "c1")]
    position = ordered.index(results[0])
    before = ordered[position - 1]
    assert isinstance(before, AssistantMessage)
    assert [c.id for c in before.tool_calls or ()] == ["c1"]  # right after its call
    assert transcript.tool_calls["c1"].result_message_ids


@pytest.mark.parametrize("remints", [False, True])
def test_a_call_answered_in_the_next_runs_input_is_never_not_executed(remints: bool) -> None:
    """The client's answer arrives with the next request, its history perhaps re-minted."""
    first = [RS("r1"), TCS("c1", "lookup", "m1"), TCA("c1", "{}"), TCE("c1"), RF("r1")]
    call_id = "client-c1" if remints else "c1"
    history = [
        {
            "id": "m1-held" if remints else "m1",
            "role": "assistant",
            "toolCalls": [call(call_id, "lookup")],
        },
        {"id": "answer-1", "role": "tool", "toolCallId": call_id, "content": "ok"},
    ]
    inputs = [
        {"threadId": "t", "runId": "r1", "messages": [], "tools": [{"name": "lookup"}]},
        {"threadId": "t", "runId": "r2", "messages": history, "tools": [{"name": "lookup"}]},
    ]
    events = [*first, RS("r2"), *answer("a2", "Found it."), RF("r2")]
    transcript = fold(events, run_input=inputs)
    assert conversation(transcript) == [
        ("call", "lookup {}", "c1", False),
        ("tool", "ok", "c1", False),
        ("assistant", "Found it.", None, False),
    ]
    record = transcript.tool_calls["c1"]
    assert (record.state, record.delivered) == ("resolved_client", True)
    assert list(transcript.tool_calls) == ["c1"]
