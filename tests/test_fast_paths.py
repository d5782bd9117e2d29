"""The fast paths are invisible: they give exactly what the general path gives.

The collector's delta lane, the reader's JSONL loop and the reading of flat SDK models
are shortcuts for the common case. On every stream of the test corpora, and on random
streams with events dropped, repeated, swapped and decorated, the transcript, the run
records, the tool-call records, the projection and the diagnostics must be the same
with the shortcuts as without them.
"""

from __future__ import annotations

import dataclasses
import datetime
import gc
import io
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError, field_serializer

from agui_transcripts import (
    AssistantMessage,
    Collector,
    EventReader,
    Limits,
    ProtocolError,
    ToolMessage,
    Transcript,
    _lines,
    fold,
    message_list,
    read_events,
)
from agui_transcripts.events import EventIntake, _sdk_event_fields
from agui_transcripts.message_list import MessageList
from agui_transcripts.reduce import Reducer
from agui_transcripts.text_budget import DeltaRoute

from .builds import requires_interpreted
from .generate import random_stream
from .lane import count_lane, without_lane
from .streams import (
    RF,
    RMC,
    RME,
    RMK,
    RMS,
    RS,
    RZE,
    RZS,
    TCA,
    TCE,
    TCK,
    TCR,
    TCS,
    TMC,
    TME,
    TMK,
    TMS,
)

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden" / "streams").glob("*.jsonl")) + sorted(
    (HERE / "golden" / "reference-cases").glob("*.jsonl")
)
SPEC = sorted((HERE / "conformance" / "ag-ui-spec" / "streams").glob("*.json"))


def _golden_events(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _spec_events(path: Path) -> list[Any]:
    events: list[Any] = json.loads(path.read_text(encoding="utf-8"))["stream"]
    return events


def _decorated(seed: int) -> list[Any]:
    """A random stream with its deltas and neighbours disturbed."""
    events, _ = random_stream(seed)
    rng = random.Random(seed)
    events = [dict(e) for e in events]
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(events))
        action = rng.choice(
            (
                "drop",
                "repeat",
                "swap",
                "timestamp",
                "bad-stamp",
                "stamp-all",
                "tag",
                "null-tag",
                "meta",
                "no-id",
                "recorder",
            )
        )
        if action == "drop":
            del events[i]
        elif action == "repeat":
            events.insert(i, dict(events[i]))
        elif action == "swap" and i + 1 < len(events):
            events[i], events[i + 1] = events[i + 1], events[i]
        elif action == "timestamp":
            events[i]["timestamp"] = 1700000000000 + i
        elif action == "bad-stamp":
            events[i]["timestamp"] = "yesterday"
        elif action == "stamp-all":  # a timed stream: every delta carries its time
            for n, event in enumerate(events):
                event["timestamp"] = 1700000000000 + 10 * n
        elif action == "tag":
            events[i]["subagentRunId"] = rng.choice(("sub-1", "sub-2"))
        elif action == "null-tag":
            events[i]["subagentRunId"] = None
        elif action == "no-id":
            events[i].pop("messageId", None)
            events[i].pop("toolCallId", None)
        elif action == "meta":
            events[i]["metadata"] = {"k": i}
        elif action == "recorder":  # a recorder's own keys on every event
            for n, event in enumerate(events):
                event["_seq"] = n
    return events


def _summary(transcript: Transcript) -> dict[str, Any]:
    return {
        "messages": transcript.to_dicts(),
        "ordered": [m.to_dict() for m in transcript.ordered()],
        "runs": [dataclasses.asdict(run) for run in transcript.runs],
        "calls": {
            call_id: {**dataclasses.asdict(record), "call": record.call.to_dict()}
            for call_id, record in transcript.tool_calls.items()
        },
        "state": transcript.state,
        "diagnostics": [(d.code, d.event_index, d.message) for d in transcript.diagnostics],
        "times": (transcript.times.messages, transcript.times.calls),
    }


def _general_fold(
    events: list[Any], monkeypatch: pytest.MonkeyPatch, limits: Limits | None = None
) -> Transcript:
    with monkeypatch.context() as patch:
        without_lane(patch)
        return fold([dict(e) for e in events], limits=limits)


CORPUS = (
    [pytest.param(_golden_events(p), id=p.stem) for p in GOLDEN]
    + [pytest.param(_spec_events(p), id=p.stem) for p in SPEC]
    + [pytest.param(_decorated(seed), id=f"decorated-{seed}") for seed in range(300)]
)


@pytest.mark.parametrize("events", CORPUS)
def test_the_delta_lane_changes_nothing(events: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = fold([dict(e) for e in events])
    assert _summary(fast) == _summary(_general_fold(events, monkeypatch))


def _walk_to_run_end(self: MessageList, owner: Any) -> Any:
    """MessageList.after_results without its memory: the plain walk."""
    anchor = owner
    while anchor.next is not self._head and isinstance(anchor.next.message, ToolMessage):
        anchor = anchor.next
    return anchor


def _parallel_calls_with_orphans() -> list[Any]:
    events: list[Any] = [RS(), TCR("early", "c7", "before its call")]  # an orphan
    events += [TMS("m1", "assistant"), TME("m1")]
    for i in range(12):
        events += [TCS(f"c{i}", "f", "m1"), TCA(f"c{i}", "{}"), TCE(f"c{i}")]
        if i % 3 == 0:
            events.append(TCR(f"r{i}", f"c{i}"))
    events += [TCR(f"r{i}", f"c{i}") for i in range(12) if i % 3 and i != 7]
    events.append(
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "r4", "activityType": "x", "content": {}}
    )
    events += [TCR("late", "c11", "again"), RF()]
    return events


def _orphan_moved_out_of_a_run() -> list[Any]:
    """An orphan result sits in another message's run of results, then moves to its call."""
    return [
        RS(),
        TMS("b", "assistant"),
        TME("b"),
        TCS("cb1", "f", "b"),
        TCE("cb1"),
        TCS("cb2", "f", "b"),
        TCE("cb2"),
        TCS("cb3", "f", "b"),
        TCE("cb3"),
        TCR("rb1", "cb1"),
        TCR("orphan", "late", "before its call"),  # lands at the end: in b's run
        TCR("rb2", "cb2"),  # placed after the orphan
        TMS("a", "assistant"),
        TME("a"),
        TCS("late", "f", "a"),  # the orphan moves after a
        TCR("rb3", "cb3"),  # must join b's run, not a's
        RF(),
    ]


@pytest.mark.parametrize(
    "events",
    [
        pytest.param(_parallel_calls_with_orphans(), id="parallel-calls"),
        pytest.param(_orphan_moved_out_of_a_run(), id="orphan-moved"),
        *CORPUS,
    ],
)
def test_remembered_run_ends_place_results_as_the_walk_does(
    events: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    remembered = fold([dict(e) for e in events])
    with monkeypatch.context() as patch:
        patch.setattr(MessageList, "after_results", _walk_to_run_end)
        walked = fold([dict(e) for e in events])
    assert _summary(remembered) == _summary(walked)


def _many_parallel_calls_with_a_reused_id() -> list[Any]:
    events: list[Any] = [RS(), TMS("m1", "assistant"), TME("m1")]
    for i in range(20):
        events += [TCS(f"c{i}", "f", "m1"), TCA(f"c{i}", f'{{"i": {i}}}'), TCE(f"c{i}")]
    events += [TCR(f"r{i}", f"c{i}") for i in range(20)]
    events.append(RF())
    # The next run declares c3 again in the same message: a new call reusing the id.
    events += [RS("r2"), TCS("c3", "f", "m1"), TCA("c3", '{"again": 1}'), TCE("c3"), RF("r2")]
    return events


@pytest.mark.parametrize(
    "events",
    [pytest.param(_many_parallel_calls_with_a_reused_id(), id="parallel-reused"), *CORPUS],
)
def test_indexed_call_lookup_finds_what_a_scan_finds(
    events: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(message_list, "_SCANNED_CALLS", 0)  # every list indexed
        indexed = fold([dict(e) for e in events])
    with monkeypatch.context() as patch:
        patch.setattr(message_list, "_SCANNED_CALLS", sys.maxsize)  # every list scanned
        scanned = fold([dict(e) for e in events])
    assert _summary(indexed) == _summary(scanned)


@pytest.mark.parametrize("seed", range(0, 300, 3))
def test_the_delta_lane_keeps_the_text_limit_as_the_general_path_does(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a text limit the streams cross, the lane, the routes and the general path agree."""
    events = _decorated(seed)
    tight = Limits(max_text_chars=12)
    fast = fold([dict(e) for e in events], limits=tight)
    assert _summary(fast) == _summary(_general_fold(events, monkeypatch, tight))


def test_the_delta_lane_is_taken_on_plain_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard against a lane that silently never fires (it would still pass the above)."""
    taken = count_lane(monkeypatch)
    events = [
        RS(),
        TMS("m1", "assistant"),
        TMC("m1", "Hel"),
        TMC("m1", "lo", timestamp=1),
        TMC("m1", "!", metadata={"k": 1}),  # metadata: the general path
        TCS("c1", "f", "m1"),
        TCA("c1", "{}"),
        TCE("c1"),
        TME("m1"),
        TMK("m2", "Go"),  # opens a chunk stream: the general path
        TMK(delta="od"),
        TMK("m2", "bye"),
        RF(),
    ]
    transcript = fold(events)
    assert taken[0] == 5
    assert [m["content"] for m in transcript.to_dicts()] == ["Hello!", "Goodbye"]


@pytest.mark.parametrize("events", CORPUS[:60])
def test_the_jsonl_loop_reads_what_line_feeding_reads(events: list[Any]) -> None:
    text = "".join(json.dumps(e) + "\n" for e in events)
    data = ("\n" + text.replace("\n", "\r\n", 3) + "  \n").encode()
    by_line = EventReader()
    expected = [pair for raw in io.BytesIO(data) for pair in by_line.feed_line(raw)]
    expected += by_line.close()
    looped = EventReader()
    got = list(looped.feed_lines(io.BytesIO(data))) + looped.close()
    assert got == expected
    assert [(d.code, d.line, d.event_index) for d in looped.diagnostics] == [
        (d.code, d.line, d.event_index) for d in by_line.diagnostics
    ]


def _log_with_crs_and_nulls(events: list[Any], seed: int) -> bytes:
    """A JSONL log whose CRs and nulls fall anywhere: CRLF ends, CR-only ends, null values."""
    rng = random.Random(seed)
    out = []
    for event in events:
        if rng.random() < 0.1:
            event = {**event, "parentMessageId": None}  # a legacy null, read as absent
        elif rng.random() < 0.1 and isinstance(event.get("delta"), str):
            event = {**event, "delta": event["delta"] + " nullable"}  # the bytes, not a null
        end = rng.choice(("\n",) * 8 + ("\r\n", "\r"))
        out.append(json.dumps(event) + end)
    return "".join(out).encode()


@pytest.mark.parametrize("block_size", [5, 64, 1 << 10])
@pytest.mark.parametrize("seed", range(40))
def test_reading_in_blocks_reads_what_line_feeding_reads(
    seed: int, block_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks without a CR or a null skip both per-line checks; no other line may differ."""
    events = CORPUS[seed * len(CORPUS) // 40].values[0]  # golden, spec and decorated
    assert isinstance(events, list)
    data = _log_with_crs_and_nulls(events, seed)
    by_line = EventReader()
    expected = [pair for raw in io.BytesIO(data) for pair in by_line.feed_line(raw)]
    expected += by_line.close()
    monkeypatch.setattr(_lines, "_BLOCK_SIZE", block_size)
    stream = read_events(data)
    got = list(stream.indexed()) + stream.reader.close()
    assert got == expected
    assert [(d.code, d.line, d.event_index) for d in stream.reader.diagnostics] == [
        (d.code, d.line, d.event_index) for d in by_line.diagnostics
    ]


@pytest.mark.parametrize("block_size", [1, 3, 4, 7, 64])
@pytest.mark.parametrize("seed", range(30))
def test_a_plain_block_holds_no_cr_and_no_null(
    seed: int, block_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    pieces = (b"{}", b"null", b"nu", b"ll", b"\r", b"\n", b"\r\n", b"x" * 9, b" ")
    data = b'{"k": 1}\n' * 20 + b"".join(rng.choice(pieces) for _ in range(200))
    whole = list(_lines.bounded_blocks(io.BytesIO(b'{"a": 1}\n{"b": 2}\n'), 100))
    assert whole == [([b'{"a": 1}', b'{"b": 2}'], True)]
    monkeypatch.setattr(_lines, "_BLOCK_SIZE", block_size)
    blocks = list(_lines.bounded_blocks(io.BytesIO(data), 12))
    for lines, plain in blocks:
        if plain:
            assert not any(b"\r" in line or b"null" in line for line in lines)
    assert [line for lines, _ in blocks for line in lines] == list(
        _lines.bounded_lines(io.BytesIO(data), 12)
    )
    assert any(plain for _, plain in blocks)  # the flag is not simply always False


@pytest.mark.parametrize("block_size", [None, 5, 64])
@pytest.mark.parametrize("seed", range(20))
def test_no_line_is_held_longer_than_the_limit_allows(
    seed: int, block_size: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line comes out cut to ``limit + 1``, in the first block as in any other."""
    rng = random.Random(seed)
    limit = 12
    lines = [b"x" * rng.randint(1, 3 * limit) for _ in range(rng.randint(1, 40))]
    data = b"\n".join(lines) + b"\n"
    if block_size is not None:  # (None: the default block, which holds all of it)
        monkeypatch.setattr(_lines, "_BLOCK_SIZE", block_size)
    read = list(_lines.bounded_lines(io.BytesIO(data), limit))
    assert read == [line[: limit + 1] for line in lines]


def _sdk_models(events: list[Any]) -> Iterator[Any]:
    core = pytest.importorskip("ag_ui.core")
    adapter: TypeAdapter[Any] = TypeAdapter(core.Event)
    for event in events:
        try:
            yield adapter.validate_python(event)
        except ValidationError:
            continue


@pytest.mark.parametrize("events", CORPUS[: len(GOLDEN)])
def test_flat_models_read_as_model_dump_reads_them(events: list[Any]) -> None:
    for model in _sdk_models(events):
        fast, general = EventIntake(), EventIntake()
        assert fast.normalize(model) == general._from_object(model, 0, None)
        assert [d.code for d in fast.sink.diagnostics] == [d.code for d in general.sink.diagnostics]


def test_sdk_reading_takes_the_shortcut_where_it_can() -> None:
    """Guard for the test above: the shortcut must actually fire where it can."""
    core = pytest.importorskip("ag_ui.core")
    plain = core.ToolCallResultEvent(message_id="r1", tool_call_id="c1", content="18C")
    assert _sdk_event_fields(plain) == (
        {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c1", "content": "18C"},
        True,
        None,
    )
    # A recorder's keys on a flat event are read too, for the intake to judge.
    extra = core.TextMessageContentEvent.model_validate(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "_seq": 3}
    )
    assert _sdk_event_fields(extra) == (
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "_seq": 3},
        True,
        {"_seq": 3},
    )
    started = core.RunStartedEvent(
        thread_id="t",
        run_id="r1",
        input=core.RunAgentInput(
            thread_id="t",
            run_id="r1",
            state={"k": [1, 2.5, True, None]},
            messages=[core.UserMessage(id="u1", content="hi")],
            tools=[],
            context=[],
            forwarded_props={},
        ),
    )
    read = _sdk_event_fields(started)
    assert read is not None
    assert read[1] is False  # nested structures: rewritten on the full path
    dumped = started.model_dump(by_alias=True, mode="json")
    assert read[0]["input"] == dumped["input"]
    if hasattr(core, "TextPart"):  # ag-ui-protocol 1.0: content may be parts
        parts = [core.TextPart(text="18C")]
        structured = core.ToolCallResultEvent(message_id="r1", tool_call_id="c1", content=parts)
        read = _sdk_event_fields(structured)
        assert read is not None
        assert read[0]["content"] == structured.model_dump(by_alias=True, mode="json")["content"]
    if hasattr(core, "ReasoningMessageStartEvent"):
        reasoning = core.ReasoningMessageStartEvent(message_id="m1", role="reasoning")
        read = _sdk_event_fields(reasoning)
        assert read is not None
        assert read[1] is False  # its role is checked on the full path


def _with_extras(events: list[Any]) -> list[Any]:
    """The events as recorders leave them: keys of their own on every event, some null,
    some nested, some another spelling of a field."""
    out = []
    for n, event in enumerate(events):
        extra: dict[str, Any] = {"_seq": n, "_timestamp": f"2026-12-04T10:00:{n % 60:02d}Z"}
        if n % 7 == 3:
            extra["_trace"] = {"span": [n, None]}
        if n % 11 == 5:
            extra["_note"] = None
        if n % 13 == 4:
            extra["parent_message_id"] = "m-other"
        out.append({**event, **extra})
    return out


@pytest.mark.parametrize("events", CORPUS[: len(GOLDEN)])
def test_lines_with_recorders_keys_read_as_the_full_rewrite_reads_them(events: list[Any]) -> None:
    """A flat event's line holding keys already said unknown skips the full rewrite and
    reads exactly as it would, diagnostics included."""
    fast, general = EventIntake(), EventIntake()
    for n, event in enumerate(_with_extras(events)):
        line = json.dumps(event).encode()
        expected = general._from_mapping(json.loads(line), n, n + 1, from_object=False)
        general.count += 1
        assert fast.decode(line, n + 1) == expected
    assert [(d.message, d.line) for d in fast.sink.diagnostics] == [
        (d.message, d.line) for d in general.sink.diagnostics
    ]


def test_the_intake_skips_the_rewrite_once_a_recorders_keys_are_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Guard for the test above: the shortcut fires from the second such line on."""
    requires_interpreted("the intake's rewrite is called natively: it cannot be counted")
    intake = EventIntake()
    rewrites = [0]
    original = EventIntake._from_mapping

    def counting(self: EventIntake, *args: Any, **kwargs: Any) -> Any:
        rewrites[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(EventIntake, "_from_mapping", counting)
    for n in range(5):
        line = json.dumps({**TMC("m", "hi"), "_seq": n, "timestamp": n}).encode()
        assert intake.decode(line) == {**TMC("m", "hi"), "_seq": n, "timestamp": n}
    assert rewrites[0] == 1
    assert [d.code for d in intake.sink.diagnostics] == ["unknown-field"]


@pytest.mark.parametrize("events", CORPUS[: len(GOLDEN)])
def test_models_with_extra_keys_read_as_model_dump_reads_them(events: list[Any]) -> None:
    """SDK models carrying keys of their own (extras) take the shortcut once those keys
    are said, and read exactly as the full path reads them, diagnostics included."""
    models = _sdk_models(_with_extras(events))
    fast, general = EventIntake(), EventIntake()
    for model in models:
        assert fast.normalize(model) == general._from_object(model, 0, None)
    assert [d.message for d in fast.sink.diagnostics] == [
        d.message for d in general.sink.diagnostics
    ]


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _input_with_state(core: Any, state: Any) -> Any:
    return core.RunStartedEvent(
        thread_id="t",
        run_id="r1",
        input=core.RunAgentInput(
            thread_id="t",
            run_id="r1",
            state=state,
            messages=[],
            tools=[],
            context=[],
            forwarded_props={},
        ),
    )


def test_values_the_shortcut_cannot_vouch_for_go_through_model_dump() -> None:
    core = pytest.importorskip("ag_ui.core")

    class Stamped(core.TextMessageContentEvent):  # type: ignore[misc,name-defined]
        @field_serializer("delta")
        def _shout(self, value: str) -> str:
            return value.upper()

    when = datetime.datetime(2026, 1, 2, 3, 4, 5)
    odd = [
        Stamped(message_id="m1", delta="hi"),  # a serializer of its own
        _input_with_state(core, {"when": when}),  # a value JSON has no type for
        _input_with_state(core, {"x": float("nan")}),
        _input_with_state(core, {1: "int key"}),
        _input_with_state(core, _nested(100)),
    ]
    for model in odd:
        assert _sdk_event_fields(model) is None
        fast, general = EventIntake(), EventIntake()
        assert fast.normalize(model) == general._from_object(model, 0, None)
    assert EventIntake().normalize(odd[0])["delta"] == "HI"  # type: ignore[index]
    assert EventIntake().normalize(odd[1])["input"]["state"] == {"when": "2026-01-02T03:04:05"}  # type: ignore[index]


class _WatchedLog(io.BytesIO):
    """A log that notes whether the garbage collector ran while it was read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.collector_enabled: list[bool] = []

    def read(self, size: int | None = -1, /) -> bytes:
        self.collector_enabled.append(gc.isenabled())
        return super().read(size)


def test_fold_holds_the_collector_for_local_sources_and_restores_it() -> None:
    events, _ = random_stream(1)
    log = _WatchedLog("".join(json.dumps(e) + "\n" for e in events).encode())
    assert gc.isenabled()
    fold(log)
    assert log.collector_enabled
    assert not any(log.collector_enabled)
    assert gc.isenabled()


def test_per_run_rows_hold_the_collector_and_give_the_folds_transcript(tmp_path: Path) -> None:
    from agui_transcripts.logs import fold_log

    events, _ = random_stream(4)
    log = tmp_path / "runs.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    seen: list[tuple[bool, int]] = []
    transcript, count = fold_log(
        str(log), at_run_end=lambda view, n: seen.append((gc.isenabled(), len(view(0).runs)))
    )
    assert seen  # the stream ends at least one run
    assert not any(enabled for enabled, _ in seen)
    assert gc.isenabled()
    assert count == len(events)
    folded = fold(str(log))
    assert [m.to_dict() for m in transcript.messages] == [m.to_dict() for m in folded.messages]
    assert [r.outcome for r in transcript.runs] == [r.outcome for r in folded.runs]
    assert transcript.diagnostics == folded.diagnostics


def test_fold_restores_the_collector_when_strict_mode_raises() -> None:
    with pytest.raises(ProtocolError):
        fold([{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}], strict=True)
    assert gc.isenabled()


def test_fold_leaves_the_collector_alone_for_live_sources() -> None:
    seen: list[bool] = []

    def live() -> Iterator[dict[str, Any]]:
        for event in random_stream(2)[0]:
            seen.append(gc.isenabled())
            yield event

    fold(live())
    assert seen
    assert all(seen)


def _generation_of(target: object) -> int | None:
    for generation in range(3):
        if any(item is target for item in gc.get_objects(generation)):
            return generation
    return None


def test_what_a_held_fold_built_is_left_in_the_oldest_generation() -> None:
    # Not in the youngest: the first collection after the fold would walk all of it.
    gc.collect()
    transcript = fold(random_stream(3)[0])
    assert _generation_of(transcript.messages) == 2
    assert gc.get_freeze_count() == 0


def test_a_held_fold_leaves_what_others_froze_frozen() -> None:
    theirs = [[index] for index in range(3)]  # containers someone else froze
    gc.collect()
    gc.freeze()
    try:
        transcript = fold(random_stream(3)[0])
        # Still frozen (in no generation), so the fold did not unfreeze; and it made do
        # with the plain hold, which leaves what it built in the youngest generation.
        assert all(gc.is_tracked(item) and _generation_of(item) is None for item in theirs)
        assert _generation_of(transcript.messages) == 0
    finally:
        gc.unfreeze()


def test_fold_keeps_a_collector_the_caller_disabled_disabled() -> None:
    gc.disable()
    try:
        fold(random_stream(1)[0])
        assert not gc.isenabled()
    finally:
        gc.enable()


def _long_transcript(turns: int = 300) -> Transcript:
    events: list[Any] = []
    for turn in range(turns):
        run, answer = f"r{turn}", f"a{turn}"
        events += [RS(run), TMS(answer, "assistant"), TMC(answer, "Let me see."), TME(answer)]
        for k in range(2):
            call = f"c{turn}-{k}"
            events += [TCS(call, "lookup", answer), TCA(call, '{"q": 1}'), TCE(call)]
            events.append(TCR(f"t{turn}-{k}", call, "found"))
        events.append(RF(run))
    return fold(events)


def _collections_during(work: Callable[[], object]) -> int:
    started = 0

    def watch(phase: str, info: dict[str, Any]) -> None:
        nonlocal started
        started += phase == "start"

    gc.collect()  # counts start from zero: the call's own first allocations trigger none
    gc.callbacks.append(watch)
    try:
        work()
    finally:
        gc.callbacks.remove(watch)
    return started


def _builders() -> list[Any]:
    from agui_transcripts.adapters.agui import to_agui_models
    from agui_transcripts.adapters.langchain import to_langchain
    from agui_transcripts.adapters.openai import to_openai
    from agui_transcripts.adapters.responses import to_responses
    from agui_transcripts.projection import project

    return [project, to_openai, to_responses, to_agui_models, to_langchain]


@pytest.mark.slow
@pytest.mark.parametrize("build", _builders(), ids=lambda build: build.__name__)
def test_projection_and_adapters_build_without_collections(build: Any) -> None:
    """They return every object they make: a collection could only walk the heap."""
    transcript = _long_transcript()
    assert gc.isenabled()
    held = _collections_during(lambda: build(transcript))
    assert gc.isenabled()
    unheld = _collections_during(lambda: build.__wrapped__(transcript))
    assert held <= 1  # at most the one that catches up once the collector is back
    assert unheld >= 3  # the control: the same work without the hold


def test_the_collector_comes_back_when_a_held_call_raises() -> None:
    from agui_transcripts.adapters.openai import to_openai

    with pytest.raises(TypeError):
        to_openai(42)  # type: ignore[arg-type]
    assert gc.isenabled()


def test_record_copies_hold_every_field_and_their_own_results() -> None:
    transcript = fold(random_stream(5)[0])
    assert transcript.runs
    assert transcript.tool_calls
    for run in transcript.runs:
        assert dataclasses.asdict(run.copy()) == dataclasses.asdict(run)
    for record in transcript.tool_calls.values():
        copied = record.copy()
        assert {**dataclasses.asdict(copied), "call": None} == {
            **dataclasses.asdict(record),
            "call": None,
        }
        assert copied.call is record.call
        assert copied.results is not record.results


def test_the_following_deltas_of_an_item_skip_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the lane takes an item's second delta, its next plain deltas go straight to
    the text (the route is made at the second: most calls' arguments are one delta)."""
    entered = count_lane(monkeypatch, routes=False)
    taken = count_lane(monkeypatch)
    events = [
        RS(),
        TMS("m1", "assistant"),
        TMC("m1", "a"),  # the lane
        TMC("m1", "b"),  # the lane, which makes m1's route
        TCS("c1", "f", "m1"),  # any other event: the next deltas take the lane again
        TCA("c1", '{"x"'),  # the lane
        TMC("m1", "c"),  # the lane (the call came between), m1's route again
        TCA("c1", ": 1"),  # the lane, c1's route (each delta type keeps its last item)
        TMC("m1", "d"),
        TCA("c1", "}"),
        TCE("c1"),
        TME("m1"),
        RF(),
    ]
    transcript = fold(events)
    assert entered[0] == 5
    assert taken[0] == 7  # "d" and "}" by the routes
    message = transcript.to_dicts()[0]
    assert message["content"] == "abcd"
    assert message["toolCalls"][0]["function"]["arguments"] == '{"x": 1}'
    assert [d.code for d in transcript.diagnostics] == ["owner-unknown"]  # c1 unanswered


def test_an_item_with_one_delta_makes_no_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """A route is made for an item's next deltas only once a second one comes."""
    made: list[tuple[str, str]] = []
    original = Reducer.delta_route

    def counted(self: Reducer, kind: str, item_id: str) -> DeltaRoute | None:
        made.append((kind, item_id))
        return original(self, kind, item_id)

    requires_interpreted("the reducer's routes are made natively")
    monkeypatch.setattr(Reducer, "delta_route", counted)
    events = [RS()]
    for n in range(3):
        events += [TCS(f"c{n}", "f"), TCA(f"c{n}", '{"n": 1}'), TCE(f"c{n}")]
    events += [TMS("m1", "assistant"), TMC("m1", "a"), TMC("m1", "b"), TMC("m1", "c"), RF()]
    transcript = fold(events)
    assert made == [("TEXT_MESSAGE_CONTENT", "m1")]  # at "b"; "c" took it
    assert transcript.to_dicts()[-1]["content"] == "abc"


def test_the_delta_lane_takes_reasoning_deltas(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reasoning model streams its thinking a token at a time: that is the lane's too."""
    events = [
        RS(),
        RZS("t1"),
        RMS("t1"),
        RMC("t1", "thin"),  # the lane
        RMC("t1", "k"),  # its route
        RMC("t1", "ing", timestamp=1_700_000_000_000),  # timed: the route, time noted
        RMC("t1", "!", metadata={"k": 1}),  # metadata: the general path
        RME("t1"),
        RZE("t1"),
        RMK("t2", "Chunk"),  # opens a chunk stream: the general path
        RMK(delta="ed"),  # continues it: the lane
        RMK("t2", " too"),  # the lane
        RF(),
    ]
    with monkeypatch.context() as patch:
        taken = count_lane(patch)
        fast = fold([dict(e) for e in events])
    assert taken[0] == 5
    assert [m["content"] for m in fast.to_dicts()] == ["thinking!", "Chunked too"]
    assert fast.times.messages["t1"] == [1_700_000_000_000.0] * 2
    assert _summary(fast) == _summary(_general_fold(events, monkeypatch))


def _live_reasoning(content: Any) -> dict[str, Any]:
    """Reasoning deltas fed around an edit of the live message's content."""
    collector = Collector()
    for event in [RS(), RMS("t1"), RMC("t1", "a"), RMC("t1", "b")]:
        collector.feed(event)
    collector.transcript.messages[0].content = content  # type: ignore[attr-defined]
    collector.feed(RMC("t1", "c"))
    collector.feed(RMC("t1", "d"))
    collector.feed(RF())
    final = collector.close()
    return {"messages": final.to_dicts(), "codes": [d.code for d in final.diagnostics]}


@pytest.mark.parametrize(
    ("content", "expected"),
    [("edited ", "edited cd"), ([{"type": "text", "text": "plan"}], "cd")],
    ids=["text", "parts"],
)
def test_editing_a_live_reasoning_message_between_deltas_loses_nothing(
    content: Any, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text set on it takes the next deltas; parts set on it become text, as is said."""
    fast = _live_reasoning(content)
    assert fast["messages"][0]["content"] == expected
    assert ("content-parts-replaced" in fast["codes"]) is isinstance(content, list)
    with monkeypatch.context() as patch:
        without_lane(patch)
        assert _live_reasoning(content) == fast


def _live_session() -> dict[str, Any]:
    """Deltas fed around reads and edits of the live transcript, as a notebook does."""
    collector = Collector()
    for event in [RS(), TMS("m1", "assistant"), TMC("m1", "a")]:
        collector.feed(event)
    message = collector.transcript.messages[0]  # held: its text keeps growing
    assert isinstance(message, AssistantMessage)
    collector.feed(TMC("m1", "b"))
    collector.feed(TMC("m1", "b"))
    seen = [message.content]  # joins the text so far, between two deltas
    collector.feed(TMC("m1", "c"))
    collector.feed(TCS("c1", "f", "m1"))
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    collector.feed(TCA("c1", '{"x"'))
    collector.feed(TCA("c1", ": 1"))
    call.arguments = '{"y"'  # an edit of the live call, between two deltas
    collector.feed(TCA("c1", ": 2}"))
    collector.feed(TCE("c1"))
    collector.feed(TMC("m1", "d"))
    collector.feed(TMC("m1", "e"))
    seen.append(collector.transcript.to_dicts()[0]["content"])
    collector.feed(TME("m1"))
    collector.feed(RF())
    final = collector.close()
    return {
        "seen": seen,
        "messages": final.to_dicts(),
        "codes": [d.code for d in final.diagnostics],
    }


def test_reading_or_editing_the_live_transcript_between_deltas_loses_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fast = _live_session()
    assert fast["seen"] == ["abb", "abbcde"]
    assert fast["messages"][0]["content"] == "abbcde"
    assert fast["messages"][0]["toolCalls"][0]["function"]["arguments"] == '{"y": 2}'
    with monkeypatch.context() as patch:
        without_lane(patch)
        assert _live_session() == fast


def _containers(value: Any) -> Iterator[Any]:
    """Every dict and list in a JSON value."""
    if isinstance(value, (dict, list)):
        yield value
        for item in value.values() if isinstance(value, dict) else value:
            yield from _containers(item)


def test_a_callers_events_are_never_shared_with_the_transcript() -> None:
    """Folding a caller's dicts copies what it keeps: editing them later changes nothing."""
    user = {"id": "u1", "role": "user", "content": [{"type": "text", "text": "hi"}]}
    given: list[dict[str, Any]] = [
        RS(input={"threadId": "t", "runId": "r1", "messages": [user]}),
        {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "a1", "role": "assistant"}]},
        RF(usage={"tokens": {"input": 1}}),
    ]
    transcript = fold(given)
    before = _summary(transcript)
    for container in [c for event in given for c in _containers(event)]:
        if isinstance(container, dict):
            container["id"] = "edited"
            container.setdefault("extra", []).append(1)
        else:
            container.append({"edited": True})
    assert _summary(transcript) == before


def test_an_attribute_set_on_an_sdk_object_is_no_field_and_no_crash() -> None:
    """Pydantic keeps an underscored attribute set on a model in its ``__dict__``."""
    core = pytest.importorskip("ag_ui.core")
    model = core.TextMessageContentEvent(message_id="m", delta="hi")
    model._note = "set by a recorder"
    assert _sdk_event_fields(model) is None  # not read field by field: model_dump reads it
    intake = EventIntake()
    assert intake.normalize(model) == {
        "type": "TEXT_MESSAGE_CONTENT",
        "messageId": "m",
        "delta": "hi",
    }
    assert intake.sink.diagnostics == []


def test_an_attribute_set_on_a_nested_sdk_model_is_no_field_and_no_crash() -> None:
    """The same in a model inside an event: a snapshot's message, read by ``_dump``."""
    core = pytest.importorskip("ag_ui.core")
    message = core.UserMessage(id="u1", content="hi")
    message._note = "set by a recorder"
    snapshot = core.MessagesSnapshotEvent(messages=[message])
    assert _sdk_event_fields(snapshot) is None  # model_dump reads it
    intake = EventIntake()
    event = intake.normalize(snapshot)
    assert event is not None
    assert event["messages"] == [{"id": "u1", "role": "user", "content": "hi"}]


def test_interleaved_subagent_lanes_keep_a_chunk_route_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Subagents stream chunks in turn: each lane's continuations go straight to its text."""
    entered = count_lane(monkeypatch, routes=False)
    taken = count_lane(monkeypatch)
    lanes = ("sub-a", "sub-b", "sub-c")
    events: list[dict[str, Any]] = [RS()]
    for lane in lanes:
        events.append(TMK(f"{lane}-m", "<", subagentRunId=lane))  # opens: the general path
    for piece in ("a", "b", "c"):
        for lane in lanes:
            events.append(TMK(delta=piece, subagentRunId=lane))  # the lane, then routes
    events.append(TMK(delta="!", subagentRunId="sub-b", timestamp=1))  # timed: general
    events.append(TMK(delta="?", subagentRunId="sub-a"))  # the lane again
    events.append(TMK("sub-c-m", ">", subagentRunId="sub-c"))  # id and lane: the lane
    events.append(TMK("sub-c-m", ">"))  # the id alone: the lane (another key)
    events.append(TMK("sub-c-m", ">"))  # its route
    events.append(RF())
    transcript = fold(events)
    assert entered[0] == 3 + 1 + 2
    assert taken[0] == 9 + 1 + 3
    contents = {m["id"]: m["content"] for m in transcript.to_dicts()}
    assert contents == {"sub-a-m": "<abc?", "sub-b-m": "<abc!", "sub-c-m": "<abc>>>"}


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(TCK(delta='{"x": 1}', subagentRunId="sub"), id="another-type"),
        pytest.param(TMK("m2", '{"x": 1}', subagentRunId="sub"), id="another-id"),
    ],
)
def test_a_lane_s_chunk_route_is_taken_only_by_the_name_that_made_it(
    other: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lane's text route, then a chunk on that lane naming another type or id: not its text.

    A lane holds one chunk route; a continuation that names something else goes to the
    chunk layer, which decides what it continues (here, it opens a stream), as the
    general path does.
    """
    events: list[dict[str, Any]] = [RS(), TMK("m", "a", subagentRunId="sub")]
    events += [TMK(delta=piece, subagentRunId="sub") for piece in "bc"]  # the route made
    events += [other, RF()]
    taken = count_lane(monkeypatch)
    fast = fold([dict(e) for e in events])
    assert taken[0] == 2  # "b" by the lane, "c" by the route
    assert fast.to_dicts()[0]["content"] == "abc"
    assert _summary(fast) == _summary(_general_fold(events, monkeypatch))
