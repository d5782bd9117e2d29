"""Runs of plain deltas read from a file fold exactly as the deltas one by one.

A reader hands consecutive plain deltas of one item to the collector as one
:class:`~agui_transcripts.delta_runs.DeltaRun`, whose joined text is appended at once.
On every corpus stream, split into one-character deltas, decorated with a recorder's keys,
timestamps (good and bad), bad lines and tight limits, the transcript, the records and
every diagnostic (code, index, line, message) must be what the event-by-event fold gives,
and, in the pure-Python build, what the general path gives with no lane at all.
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Event
from pydantic import TypeAdapter, ValidationError

from agui_transcripts import Collector, Limits, ProtocolError, Transcript, _lines, fold, read_events
from agui_transcripts.collector import reading_collector
from agui_transcripts.delta_runs import DELTA_ID_KEYS, DeltaRun, ObjectRun
from agui_transcripts.events import EventIntake

from .builds import requires_interpreted
from .lane import without_lane
from .test_fast_paths import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from shapes import SHAPES

_DELTAS = frozenset(
    {
        "TEXT_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CONTENT",
        "TOOL_CALL_ARGS",
        "TEXT_MESSAGE_CHUNK",
        "REASONING_MESSAGE_CHUNK",
    }
)


def _tokenized(events: list[Any]) -> list[Any]:
    """Every text delta split into one-character deltas, as a model streams tokens."""
    out: list[Any] = []
    for event in events:
        delta = event.get("delta")
        if event.get("type") in _DELTAS and isinstance(delta, str) and len(delta) > 1:
            out.extend({**event, "delta": char} for char in delta)
        else:
            out.append(event)
    return out


def _recorded(events: list[Any], seed: int) -> list[Any]:
    """A recorder's keys on every event, and timestamps (a few of them odd)."""
    rng = random.Random(seed)
    out = []
    for n, event in enumerate(events):
        event = {**event, "_seq": n, "_at": f"10:00:{n % 60:02d}"}
        roll = rng.random()
        if roll < 0.8:
            event["timestamp"] = 1_700_000_000_000 + 10 * n
        elif roll < 0.85:
            event["timestamp"] = 1_700_000_000.5 + n  # seconds, as a float
        elif roll < 0.88:
            event["timestamp"] = "yesterday"
        out.append(event)
    return out


def _jsonl(events: list[Any], seed: int = 0, bad_lines: bool = False) -> bytes:
    rng = random.Random(seed)
    lines = []
    for event in events:
        lines.append(json.dumps(event))
        if bad_lines and rng.random() < 0.03:
            lines.append(rng.choice(("{not json", "[1, 2]", "", '{"type": "NOPE"}', "  ")))
    return ("\n".join(lines) + "\n").encode()


def _summary(transcript: Transcript) -> dict[str, Any]:
    return {
        "messages": transcript.to_dicts(),
        "runs": [dataclasses.asdict(run) for run in transcript.runs],
        "calls": {
            call_id: {**dataclasses.asdict(record), "call": record.call.to_dict()}
            for call_id, record in transcript.tool_calls.items()
        },
        "diagnostics": [(d.code, d.event_index, d.line, d.message) for d in transcript.diagnostics],
        "times": (transcript.times.messages, transcript.times.calls),
    }


def _event_by_event(data: bytes, limits: Limits | None = None, strict: bool = False) -> Transcript:
    """The fold of a file as it was before runs: each event fed on its own."""
    stream = read_events(data, limits=limits, strict=strict)
    collector = reading_collector(stream.reader, run_input=None, client_tools=None, strict=strict)
    for index, event in stream.indexed():
        collector.feed_canonical(event, index)
    return collector.finish()


def _variants(events: list[Any], seed: int) -> list[bytes]:
    tokens = _tokenized(events)
    return [
        _jsonl(tokens, seed),
        _jsonl(_recorded(tokens, seed), seed, bad_lines=True),
    ]


def _shape(name: str, size: int) -> list[Any]:
    return list(SHAPES[name](size))


SHAPE_STREAMS = [
    pytest.param(_shape(name, 1_500), id=f"shape-{name}")
    for name in (
        "per_token",
        "long_thread",
        "mixed",
        "chunks",
        "timed",
        "subagents",
        "snapshots",
        "reasoning",
    )
]
STREAMS = CORPUS + SHAPE_STREAMS


@pytest.mark.parametrize("events", STREAMS)
def test_runs_fold_as_the_events_one_by_one(events: list[Any]) -> None:
    for seed, data in enumerate(_variants(events, len(events))):
        assert _summary(fold(data)) == _summary(_event_by_event(data)), seed


@pytest.mark.parametrize("events", STREAMS[::4])
def test_runs_fold_as_the_general_path_folds(
    events: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    requires_interpreted("the general path is the lane patched out")
    for data in _variants(events, 7):
        fast = _summary(fold(data))
        with monkeypatch.context() as patch:
            without_lane(patch)
            assert fast == _summary(fold(data))


@pytest.mark.parametrize("max_text_chars", [1, 5, 12, 40])
@pytest.mark.parametrize("events", STREAMS[::9])
def test_a_run_crossing_the_text_limit_splits_where_the_limit_falls(
    events: list[Any], max_text_chars: int
) -> None:
    limits = Limits(max_text_chars=max_text_chars)
    for data in _variants(events, max_text_chars):
        assert _summary(fold(data, limits=limits)) == _summary(_event_by_event(data, limits))


@pytest.mark.parametrize("max_events", [1, 7, 30, 301])
def test_the_event_limit_stops_inside_a_run_at_the_same_event(max_events: int) -> None:
    data = _jsonl(_recorded(_tokenized(_shape("per_token", 400)), 3))
    limits = Limits(max_events=max_events)
    got = fold(data, limits=limits)
    assert _summary(got) == _summary(_event_by_event(data, limits))
    assert any(d.code == "event-limit" for d in got.diagnostics)


@pytest.mark.parametrize("block_size", [7, 64, 1 << 10])
@pytest.mark.parametrize("events", STREAMS[::25])
def test_runs_span_the_blocks_a_file_is_read_in(
    events: list[Any], block_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _variants(events, block_size)[1]
    expected = _summary(_event_by_event(data))
    monkeypatch.setattr(_lines, "_BLOCK_SIZE", block_size)
    assert _summary(fold(data)) == expected


def test_strict_mode_raises_at_the_same_delta() -> None:
    events = _tokenized(_shape("per_token", 400))
    # A delta for a message that was never started, in the middle of a run.
    events.insert(200, {**events[199], "messageId": "ghost"})
    data = _jsonl(events)
    with pytest.raises(ProtocolError) as by_event:
        _event_by_event(data, strict=True)
    with pytest.raises(ProtocolError) as by_run:
        fold(data, strict=True)
    assert str(by_run.value) == str(by_event.value)


def _with_nulls(data: bytes, seed: int) -> bytes:
    """Some lines given a null (read as absent: the intake rewrites those events)."""
    rng = random.Random(seed)
    lines = [
        line[:-1] + b', "_gone": null}' if line.endswith(b"}") and rng.random() < 0.2 else line
        for line in data.splitlines()
    ]
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("events", STREAMS[::2])
def test_the_intake_notes_exactly_the_lane_deltas_it_decodes(events: list[Any]) -> None:
    # What the JSONL loop asks instead of looking each event's type up: taken as it is,
    # rewritten, not JSON or dropped, the note is the lane's id key for its deltas only.
    for data in _variants(events, seed=5):
        for variant in (data, _with_nulls(data, seed=5)):
            intake = EventIntake()
            noted = set()
            for raw in variant.splitlines():
                event = intake.decode(raw)
                expected = "" if event is None else DELTA_ID_KEYS.get(event["type"], "")
                assert intake.lane_key == expected, raw
                noted.add(expected)
            deltas = {DELTA_ID_KEYS[e["type"]] for e in events if e.get("type") in DELTA_ID_KEYS}
            assert noted == deltas | {""}


def _runs(data: bytes) -> list[DeltaRun]:
    stream = read_events(data)
    return [
        item
        for item in stream.with_delta_runs(frozenset({"TEXT_MESSAGE_CONTENT"}))
        if isinstance(item, DeltaRun)
    ]


def test_runs_are_formed_where_deltas_follow_each_other() -> None:
    """Guard: the equalities above would hold as well if no run were ever formed."""
    events = _shape("per_token", 1_000)
    runs = _runs(_jsonl(events))
    texts = [e for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    # Timed text deltas form runs (they may: timed_kinds names them); timed argument
    # deltas do not (timed_kinds leaves them out), so each comes alone.
    assert {run.kind for run in runs} == {"TEXT_MESSAGE_CONTENT"}
    assert sum(len(run.events) for run in runs) == len(texts)
    assert all(len(run.events) == 150 for run in runs)


def test_a_run_breaks_at_other_keys_other_items_and_lines_that_are_not_deltas() -> None:
    def delta(item: str, text: str, **extra: Any) -> dict[str, Any]:
        return {"type": "TEXT_MESSAGE_CONTENT", "messageId": item, "delta": text, **extra}

    started = {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "_seq": 0}
    lines = [
        json.dumps(started),  # the first lines settle the format, one by one
        json.dumps(started),  # (and _seq is reported: from now on nobody reads it)
        json.dumps(delta("a", "1")),
        json.dumps(delta("a", "2")),
        json.dumps(delta("a", "3", _seq=1)),  # other keys: a new run
        json.dumps(delta("a", "4", _seq=2)),
        json.dumps(delta("b", "5", _seq=3)),  # another item
        json.dumps(delta("b", "6", _seq=4)),
        "{broken",  # not JSON: ends the run before its diagnostic
        json.dumps(delta("b", "7", _seq=5)),
        json.dumps(delta("b", "", _seq=6)),  # an empty delta is not plain
        json.dumps(delta("b", "8", _seq=7, metadata={"k": 1})),  # metadata is read
        json.dumps(delta("b", "9", _seq=8)),
        json.dumps(delta("b", "0", _seq=None)),  # a null: this line is rewritten
        json.dumps(delta("b", "x", _seq=9)),
    ]
    stream = read_events(("\n".join(lines) + "\n").encode())
    items = list(stream.with_delta_runs(frozenset()))
    shape = [
        [e["delta"] for e in item.events]
        if isinstance(item, DeltaRun)
        else item[1].get("delta", item[1]["type"])
        for item in items
    ]
    assert shape == [
        *("RUN_STARTED", "RUN_STARTED"),
        *(["1", "2"], ["3", "4"], ["5", "6"]),
        *("7", "", "8", "9"),
        ["0", "x"],  # a null read as absent: the event is rewritten, its keys stay plain
    ]
    assert [d.line for d in stream.diagnostics if d.code == "invalid-json"] == [9]


def test_a_run_over_the_event_limit_is_cut_where_the_limit_falls() -> None:
    started = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    delta = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "x"}
    stream = read_events(_jsonl([started] * 2 + [delta] * 10), limits=Limits(max_events=6))
    items = list(stream.with_delta_runs(frozenset()))
    assert [len(item.events) for item in items if isinstance(item, DeltaRun)] == [4]
    assert stream.reader.intake.count == 6
    assert [(d.code, d.event_index) for d in stream.diagnostics] == [("event-limit", 6)]


def test_a_collector_fed_runs_by_hand_folds_them_too() -> None:
    """``feed_stream`` is public: any collector built on a stream's reader may use it."""
    data = _jsonl(_tokenized(_shape("mixed", 300)))
    stream = read_events(io.BytesIO(data).getvalue())
    collector = reading_collector(stream.reader, run_input=None, client_tools=None, strict=False)
    assert isinstance(collector, Collector)
    collector.feed_stream(stream)
    assert _summary(collector.finish()) == _summary(_event_by_event(data))


# -- runs read from SDK event objects ----------------------------------------------------

_SDK_EVENT: TypeAdapter[Any] = TypeAdapter(Event)


def _objects(events: list[Any], seed: int) -> list[Any]:
    """Each event as an SDK object where the SDK validates it, a few with odd fields.

    The odd ones (set after validation, as code building objects by hand may) are what
    the intake does not take as it is, or a run may not continue with: an empty or
    non-text delta, an id of another type, a float or text timestamp, a raw event, an
    extra key with a null, a float or a structure.
    """
    rng = random.Random(seed)
    out: list[Any] = []
    for event in events:
        try:
            model = _SDK_EVENT.validate_python(event)
        except ValidationError:
            out.append(event)  # a dict among the objects
            continue
        if "delta" in model.__dict__ and rng.random() < 0.06:
            name, value = rng.choice(
                [
                    ("delta", ""),
                    ("delta", 7),
                    ("message_id" if "message_id" in model.__dict__ else "tool_call_id", 5),
                    ("timestamp", 1_700_000_000.5),
                    ("timestamp", "yesterday"),
                    ("raw_event", {"from": "a proxy"}),
                    ("extra", None),
                    ("extra", 2.5),
                    ("extra", {"n": 1}),
                    ("_note", "set on the object, no field of its class"),
                ]
            )
            if name == "extra":
                model.__pydantic_extra__["_seq"] = value
            else:
                setattr(model, name, value)
        out.append(model)
    return out


def _object_variants(events: list[Any], seed: int) -> list[list[Any]]:
    tokens = _tokenized(events)
    recorded = [
        {k: v for k, v in event.items() if type(v) is not float and v != "yesterday"}
        for event in _recorded(tokens, seed)
    ]
    return [
        _objects(tokens, seed),
        _objects(recorded, seed),
        _objects(_keyed_from_first_delta(tokens), seed),
    ]


def _keyed_from_first_delta(events: list[Any]) -> list[Any]:
    """A recorder's key first on a delta (said as that delta is read), then on every event."""
    out: list[Any] = []
    keyed = False
    for n, event in enumerate(events):
        keyed = keyed or event.get("type") in _DELTAS
        out.append({**event, "_seq": n} if keyed else event)
    return out


def _untimed(summary: dict[str, Any]) -> dict[str, Any]:
    """A fold's summary as it is without times: undated runs, no item times."""
    runs = [{**run, "started_at": None, "ended_at": None} for run in summary["runs"]]
    return {**summary, "runs": runs, "times": ({}, {})}


def _timed_and_not(fed: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    return _summary(fed(True)), _summary(fed(False))


@pytest.mark.parametrize("events", STREAMS)
def test_a_fold_without_times_differs_only_in_its_times(events: list[Any]) -> None:
    """``times=False`` loses the runs' and items' times and nothing else, runs included.

    Lines (the reader's runs) and SDK objects (the intake's), timestamps good and bad.
    """

    def from_lines(data: bytes) -> Any:
        def fed(times: bool) -> Transcript:
            stream = read_events(data)
            collector = reading_collector(
                stream.reader, run_input=None, client_tools=None, strict=False, times=times
            )
            collector.feed_stream(stream)
            return collector.finish()

        return fed

    def from_objects(items: list[Any]) -> Any:
        def fed(times: bool) -> Transcript:
            collector = Collector(times=times)
            collector.feed_items(items)
            return collector.finish()

        return fed

    folds = [from_lines(data) for data in _variants(events, len(events))]
    folds += [from_objects(items) for items in _object_variants(events, len(events))]
    for n, fed in enumerate(folds):
        with_times, without = _timed_and_not(fed)
        assert without == _untimed(with_times), n
    # Every event timed: each run the fold holds is dated, and only without times not.
    stamped = [{**e, "timestamp": 1_700_000_000_000 + n} for n, e in enumerate(events)]
    with_times, without = _timed_and_not(from_lines(_jsonl(stamped)))
    assert without == _untimed(with_times)
    assert all(run["started_at"] is not None for run in with_times["runs"])


class _Observed:
    """An observer that keeps a copy of every event it is shown."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: dict[str, Any]) -> None:
        self.events.append(dict(event))


_OBSERVERS: list[dict[str, Any]] = [
    {},
    {"observe_types": None},
    {"observe_types": frozenset({"TEXT_MESSAGE_START", "TEXT_MESSAGE_END"})},
    {"observe_types": frozenset({"TEXT_MESSAGE_CONTENT"}), "observe_timestamps": False},
]


def _fed(items: list[Any], by_run: bool, limits: Limits | None = None, **watch: Any) -> Any:
    """A collector's transcript and what its observer saw, fed item by item or by runs."""
    observed = _Observed() if watch else None
    if observed is not None:
        watch["observe"] = observed
    collector = Collector(limits=limits, **watch)
    if by_run:
        collector.feed_items(items)
    else:
        for item in items:
            collector.feed(item)
    return _summary(collector.finish()), observed.events if observed is not None else None


@pytest.mark.parametrize("events", STREAMS)
def test_runs_of_sdk_objects_fold_as_the_objects_one_by_one(events: list[Any]) -> None:
    for seed, items in enumerate(_object_variants(events, len(events))):
        expected = _fed(items, by_run=False)
        assert _summary(fold(items)) == expected[0], seed
        assert _fed(items, by_run=True) == expected, seed


@pytest.mark.parametrize("watch", _OBSERVERS[1:])
@pytest.mark.parametrize("events", STREAMS[::7])
def test_observers_see_the_same_events_from_runs_of_objects(
    events: list[Any], watch: dict[str, Any]
) -> None:
    for items in _object_variants(events, 11):
        assert _fed(items, True, **watch) == _fed(items, False, **watch)


@pytest.mark.parametrize(
    "limits",
    [Limits(max_text_chars=n) for n in (1, 12)] + [Limits(max_events=n) for n in (1, 7, 30, 301)],
)
@pytest.mark.parametrize("events", STREAMS[::9])
def test_runs_of_objects_meet_the_limits_where_the_objects_one_by_one_do(
    events: list[Any], limits: Limits
) -> None:
    for items in _object_variants(events, 5):
        expected = _fed(items, False, limits)
        assert _fed(items, True, limits) == expected
        assert _summary(fold(items, limits=limits)) == expected[0]


def test_strict_mode_raises_at_the_same_object() -> None:
    events = _tokenized(_shape("per_token", 400))
    events.insert(200, {**events[199], "messageId": "ghost"})
    items = _objects(events, 0)
    collector = Collector(strict=True)
    with pytest.raises(ProtocolError) as by_object:  # noqa: PT012  (the feeding raises)
        for item in items:
            collector.feed(item)
    with pytest.raises(ProtocolError) as by_run:
        fold(items, strict=True)
    assert str(by_run.value) == str(by_object.value)


def test_runs_are_formed_from_sdk_objects() -> None:
    """Guard: the equalities above would hold as well if no run were ever formed."""
    events = _shape("per_token", 1_000)
    items = [_SDK_EVENT.validate_python(event) for event in events]
    runs = [
        item
        for item in read_events(items).with_delta_runs(frozenset({"TEXT_MESSAGE_CONTENT"}))
        if isinstance(item, DeltaRun)
    ]
    assert all(isinstance(run, ObjectRun) for run in runs)
    assert [run.length() for run in runs] == [150] * len(runs)
    texts = [e for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert sum(run.length() for run in runs) == len(texts)
    assert runs[0].joined() == "".join(e["delta"] for e in texts[1:150])


@pytest.mark.parametrize("form", ["lines", "objects"])
def test_reasoning_deltas_form_runs_as_text_deltas_do(form: str) -> None:
    """Guard: a reasoning model's 200 thinking tokens a turn are one run, then 100 of text."""
    events = _shape("reasoning", 1_000)
    source: Any = (
        _jsonl(events) if form == "lines" else [_SDK_EVENT.validate_python(e) for e in events]
    )
    kinds = frozenset({"REASONING_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT"})
    runs = [
        item for item in read_events(source).with_delta_runs(kinds) if isinstance(item, DeltaRun)
    ]
    assert [(run.kind, run.length()) for run in runs] == [
        ("REASONING_MESSAGE_CONTENT", 200),
        ("TEXT_MESSAGE_CONTENT", 100),
    ] * (len(runs) // 2)
    assert len(runs) == 2 * sum(e["type"] == "RUN_STARTED" for e in events)
    thoughts = fold(source).to_dicts()[1::3]  # user, reasoning, answer
    assert [m["role"] for m in thoughts] == ["reasoning"] * len(thoughts)
    assert thoughts[0]["content"] == "".join(
        e["delta"]
        for e in events
        if e["type"] == "REASONING_MESSAGE_CONTENT" and e["messageId"] == "th1"
    )


def test_a_run_of_objects_breaks_where_an_object_differs() -> None:
    core_event = _SDK_EVENT.validate_python
    started = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}

    def delta(item: str, text: str, **extra: Any) -> Any:
        return core_event(
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": item, "delta": text, **extra}
        )

    odd = delta("b", "9")
    odd.raw_event = {"x": 1}
    items = [
        core_event({**started, "_seq": 0}),  # _seq is reported: from now on nobody reads it
        *(delta("a", "1"), delta("a", "2")),
        *(delta("a", "3", _seq=1), delta("a", "4", _seq=2)),  # other keys: a new run
        *(delta("b", "5", _seq=3), delta("b", "6", _seq=4)),  # another item
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "b", "delta": "7", "_seq": 5},  # a dict
        *(delta("b", "8", _seq=6, timestamp=1_700_000_000_000), odd, delta("b", "0")),
        *(delta("b", "x"), delta("b", "y", _seq=None)),  # an extra's null is not plain
    ]
    stream = read_events(items)
    found = list(stream.with_delta_runs(frozenset({"TEXT_MESSAGE_CONTENT"})))
    shape = [
        [item.events[0]["delta"], item.joined()]
        if isinstance(item, DeltaRun)
        else item[1].get("delta", item[1]["type"])
        for item in found
    ]
    assert shape == [
        "RUN_STARTED",
        ["1", "2"],
        ["3", "4"],
        ["5", "6"],
        "7",
        "8",
        "9",
        ["0", "x"],
        "y",
    ]


@pytest.mark.parametrize("form", ["lines", "objects"])
def test_the_delta_that_brings_a_recorders_key_opens_the_run(form: str) -> None:
    """The first delta to carry a key nobody said is reported, and its run still forms."""
    started = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    opened = {"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"}
    deltas = [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": text, "_seq": n}
        for n, text in enumerate("hello")
    ]
    events = [started, started, opened, *deltas]  # (two lines settle the format)
    source: Any = (
        _jsonl(events) if form == "lines" else [_SDK_EVENT.validate_python(e) for e in events]
    )
    stream = read_events(source)
    runs = [item for item in stream.with_delta_runs(frozenset()) if isinstance(item, DeltaRun)]
    assert [(run.index, run.length()) for run in runs] == [(3, 5)]
    assert [(d.code, d.event_index) for d in stream.diagnostics] == [("unknown-field", 3)]
    assert fold(source).to_dicts()[0]["content"] == "hello"
