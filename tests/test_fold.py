"""The fold's API: every input form, sync and async, run inputs, strict mode, chunks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import ag_ui.core as core
import pytest

from agui_transcripts import (
    Collector,
    ProtocolError,
    afold,
    fold,
)
from tests.streams import (
    RF,
    RS,
    TCE,
    TCR,
    TCS,
    TMC,
    TME,
    TMK,
    TMS,
    codes,
    user,
)

# -- the API ---------------------------------------------------------------------------------


def test_fold_accepts_every_event_form(tmp_path: Any) -> None:
    events = [RS(), TMS("m1"), TMC("m1", "hi"), TME("m1"), RF()]
    sdk = [
        core.RunStartedEvent(thread_id="t", run_id="r1"),
        core.TextMessageStartEvent(message_id="m1", role="assistant"),
        core.TextMessageContentEvent(message_id="m1", delta="hi"),
        core.TextMessageEndEvent(message_id="m1"),
        core.RunFinishedEvent(thread_id="t", run_id="r1"),
    ]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    expected = [{"id": "m1", "role": "assistant", "content": "hi"}]
    for source in (events, sdk, path, str(path), path.read_bytes()):
        assert fold(source).to_dicts() == expected


def test_collector_is_incremental_and_clearable() -> None:
    collector = Collector()
    collector.feed(RS())
    collector.feed(TMK("m1", "Hel"))
    assert collector.transcript.to_dicts() == [{"id": "m1", "role": "assistant", "content": "Hel"}]
    collector.feed('{"type":"TEXT_MESSAGE_CHUNK","delta":"lo"}')
    collector.feed(RF())
    final = collector.close()
    assert final.to_dicts() == [{"id": "m1", "role": "assistant", "content": "Hello"}]
    assert final.runs[0].outcome == "success"
    collector.clear()
    assert collector.transcript.messages == []
    assert collector.transcript.runs == []


def test_afold() -> None:
    async def events() -> AsyncIterator[bytes]:
        for line in (
            b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n',
            b'data: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"hi"}\n\n',
        ):
            yield line

    transcript = asyncio.run(afold(events()))
    assert transcript.to_dicts() == [{"id": "m", "role": "assistant", "content": "hi"}]
    assert transcript.runs[0].outcome == "truncated"


def test_run_input_objects_and_lists() -> None:
    first = core.RunAgentInput(
        thread_id="t",
        run_id="r1",
        state={},
        messages=[core.UserMessage(id="u1", role="user", content="Book it")],
        tools=[core.Tool(name="confirm", description="Ask the user", parameters={})],
        context=[],
        forwarded_props={},
    )
    second = {
        "threadId": "t",
        "runId": "r2",
        "messages": [user("u1", "Book it"), user("u2", "Yes")],
        "tools": [],
    }
    transcript = fold(
        [
            RS("r1"),
            TCS("c1", "confirm"),
            TCE("c1"),
            RF("r1"),
            RS("r2"),
            TMS("m2"),
            TMC("m2", "Booked."),
            TME("m2"),
            RF("r2"),
        ],
        run_input=[first, second],
    )
    assert [m["id"] for m in transcript.to_dicts()] == ["u1", "c1", "u2", "m2"]
    assert transcript.runs[0].tool_names == frozenset({"confirm"})
    assert transcript.runs[1].tool_names == frozenset()
    assert transcript.runs[0].pending_tool_call_ids == ["c1"]


def test_strict_mode_raises_where_the_reference_rejects() -> None:
    with pytest.raises(ProtocolError, match="No active text message found with ID 'm9'"):
        fold([RS(), TMC("m9", "x"), RF()], strict=True)
    # Lenient: the text is kept, with a diagnostic for the violation and for the repair.
    transcript = fold([RS(), TMC("m9", "x"), RF()])
    assert transcript.to_dicts() == [{"id": "m9", "role": "assistant", "content": "x"}]
    assert codes(transcript) == ["text-not-active", "message-opened-for-content"]


def test_resume_must_cover_interrupts() -> None:
    interrupt = {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "approve", "toolCallId": "c1"}],
    }
    events = [
        RS("r1"),
        TCS("c1", "pay"),
        TCE("c1"),
        RF("r1", outcome=interrupt),
        RS("r2"),
        RF("r2"),
    ]
    missing = [
        {"threadId": "t", "runId": "r1", "messages": []},
        {"threadId": "t", "runId": "r2", "messages": []},
    ]
    with pytest.raises(ProtocolError, match="Thread has 1 pending interrupt"):
        fold(events, run_input=missing, strict=True)
    resumed = [missing[0], {**missing[1], "resume": [{"interruptId": "i1", "status": "resolved"}]}]
    assert fold(events, run_input=resumed, strict=True).runs[0].interrupts[0]["id"] == "i1"


# -- the seed PR's stale-chunk table, at transcript level -------------------------------------


def test_seed_stale_chunk_after_tool_call_and_result() -> None:
    transcript = fold(
        [
            RS(),
            TMK("m1", "Checking."),
            TCS("c1", "weather", "m1"),
            TCE("c1"),
            TCR("t1", "c1", "sunny"),
            TMK(delta="It is sunny."),
            RF(),
        ]
    )
    dicts = transcript.to_dicts()
    assert [(d["role"], d.get("content")) for d in dicts] == [
        ("assistant", "Checking."),
        ("tool", "sunny"),
        ("assistant", "It is sunny."),
    ]
    assert dicts[0]["toolCalls"][0]["id"] == "c1"
    assert codes(transcript) == ["chunk-missing-id"]


def test_seed_chunked_run_boundary_does_not_merge() -> None:
    transcript = fold(
        [RS("r1"), TMK("m1", "run one"), RF("r1"), RS("r2"), TMK(delta="run two"), RF("r2")]
    )
    assert [d["content"] for d in transcript.to_dicts()] == ["run one", "run two"]
    assert transcript.messages[1].id != "m1"


def test_observe_sees_each_explicit_event_and_the_ends_owed_at_close() -> None:
    seen: list[dict[str, Any]] = []
    collector = Collector(observe=seen.append)
    for event in [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "assistant", "delta": "a"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "c", "timestamp": 5},
    ]:
        collector.feed(event)
    transcript = collector.close()
    kinds = [event["type"] for event in seen]
    # The chunks expanded; the timed delta shown (a watcher may want its timestamp); the
    # END the open chunk stream was owed, at close.
    assert kinds[0] == "RUN_STARTED"
    assert kinds[1:3] == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "c", "timestamp": 5} in seen
    assert kinds[-1] == "TEXT_MESSAGE_END"
    assert transcript.messages[0].to_dict()["content"] == "abc"


def test_observe_types_shows_only_those_types_and_the_ends_owed_at_close() -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "STEP_STARTED", "stepName": "s"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "assistant", "delta": "a"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
    ]
    everything: list[dict[str, Any]] = []
    some: list[dict[str, Any]] = []
    watched = {"TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "TOOL_CALL_START"}
    full = Collector(observe=everything.append)
    filtered = Collector(observe=some.append, observe_types=watched)
    for event in events:
        full.feed(event)
        filtered.feed(event)
    assert [event["type"] for event in some] == ["TOOL_CALL_START", "TEXT_MESSAGE_START"]
    assert filtered.close().to_dicts() == full.close().to_dicts()
    # The chunk stream's END is owed at close, and shown then.
    assert [event["type"] for event in some][-1] == "TEXT_MESSAGE_END"
    assert some == [event for event in everything if event["type"] in watched]
    assert len(everything) > len(some)


def test_a_timed_delta_is_shown_only_to_a_watcher_that_reads_its_timestamp() -> None:
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b", "timestamp": 5},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": " ", "timestamp": 6},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    timed = [event for event in events if "timestamp" in event]

    def shown(**options: Any) -> list[dict[str, Any]]:
        seen: list[dict[str, Any]] = []
        collector = Collector(observe=seen.append, **options)
        for event in events:
            collector.feed(event)
        assert collector.close().to_dicts() == fold(events).to_dicts()
        return [event for event in seen if "timestamp" in event]

    assert shown() == timed
    assert shown(observe_timestamps=False) == []
    # A watcher of text only reads the text delta's timestamp, not the argument's.
    text_only = {"TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START"}
    assert shown(observe_types=text_only) == timed[:1]
