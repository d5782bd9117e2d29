"""Each resource limit: crossing it is reported (raised in strict mode), what came before
is kept, and the memory held stays bounded."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import (
    DEFAULT_LIMITS,
    UNLIMITED,
    EventReader,
    LimitExceeded,
    Limits,
    ProtocolError,
    SSEDecoder,
    fold,
    read_events,
)
from agui_transcripts.sse import LineSplitter

from .streams import RF, RS, TCA, TCE, TCS, TMC, TME, TMS, codes


def jsonl(events: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def test_limits_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="max_events"):
        Limits(max_events=0)
    with pytest.raises(ValueError, match="max_text_chars"):
        Limits(max_text_chars=-1)
    assert UNLIMITED.max_event_bytes is None
    assert DEFAULT_LIMITS.max_event_bytes == 32 << 20


# -- the size of one event -------------------------------------------------------------


def test_an_oversized_line_is_skipped_and_reported_and_the_rest_is_read() -> None:
    big = TMC("m1", "x" * 500)
    data = jsonl([RS(), TMS("m1"), big, TMC("m1", "kept"), TME("m1"), RF()])
    transcript = fold(data, limits=Limits(max_event_bytes=200))
    assert transcript.to_dicts()[0]["content"] == "kept"
    too_large = [d for d in transcript.diagnostics if d.code == "event-too-large"]
    assert [(d.line, d.event_index) for d in too_large] == [(3, 2)]
    assert "200 bytes" in too_large[0].message


def test_strict_mode_raises_limit_exceeded() -> None:
    data = jsonl([RS(), TMS("m1"), TMC("m1", "x" * 500), TME("m1"), RF()])
    with pytest.raises(LimitExceeded, match="event size limit") as raised:
        fold(data, strict=True, limits=Limits(max_event_bytes=200))
    assert isinstance(raised.value, ProtocolError)


def test_a_100_mb_line_in_a_file_is_read_past_without_being_held(tmp_path: Path) -> None:
    log = tmp_path / "huge.jsonl"
    with log.open("wb") as out:
        out.write(jsonl([RS(), TMS("m1")]))
        out.write(b'{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "')
        chunk = b"y" * (1 << 20)
        for _ in range(100):
            out.write(chunk)
        out.write(b'"}\n')
        out.write(jsonl([TMC("m1", "after"), TME("m1"), RF()]))
    tracemalloc.start()
    try:
        transcript = fold(log, limits=Limits(max_event_bytes=1 << 20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # the line is never held whole (it is 100 MiB)
    assert transcript.to_dicts()[0]["content"] == "after"
    assert codes(transcript).count("event-too-large") == 1
    assert transcript.runs[0].outcome == "success"


def test_a_long_line_arriving_in_chunks_is_cut_as_it_comes() -> None:
    splitter = LineSplitter(max_line=100)
    lines: list[bytes] = []
    for _ in range(50):
        lines += splitter.feed(b"z" * 64)
        assert splitter._pending_size <= 101  # bounded while the line goes on
    lines += splitter.feed(b"zz\nnext\n")
    assert [len(line) for line in lines] == [101, 4]
    assert lines[1] == b"next"


def test_an_oversized_line_in_a_byte_stream_is_reported_and_the_next_event_kept() -> None:
    reader = EventReader(limits=Limits(max_event_bytes=100))
    body = jsonl([RS(), TMS("m1"), TMC("m1", "w" * 300), TMC("m1", "ok")])
    found = []
    for start in range(0, len(body), 7):
        found += reader.feed_bytes(body[start : start + 7])
    found += reader.close()
    assert [event["type"] for _, event in found] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
    ]
    assert found[-1] == (3, TMC("m1", "ok"))
    assert [d.code for d in reader.diagnostics] == ["event-too-large"]


def test_an_sse_event_spread_over_many_data_lines_is_bounded() -> None:
    decoder = SSEDecoder(max_data=100)
    events = decoder.feed(b"data: {\n" + b'data: "x": "' + b"a" * 80 + b'",\n' * 3)
    events += decoder.feed(b"data: }\n\ndata: {}\n\n")
    assert [(e.oversized, e.data) for e in events] == [(True, ""), (False, "{}")]
    reader = EventReader(limits=Limits(max_event_bytes=100))
    sse = b"data: " + json.dumps(TMC("m1", "b" * 200)).encode() + b"\n\n"
    sse += b"data: " + json.dumps(RF()).encode() + b"\n\n"
    found = reader.feed_bytes(sse) + reader.close()
    assert [event["type"] for _, event in found] == ["RUN_FINISHED"]
    assert [d.code for d in reader.diagnostics] == ["event-too-large"]


def test_a_json_document_larger_than_the_document_limit_is_not_read() -> None:
    document = json.dumps([RS(), TMS("m1"), TMC("m1", "x" * 400), TME("m1"), RF()], indent=1)
    transcript = fold(document.encode(), limits=Limits(max_document_bytes=300))
    assert transcript.to_dicts() == []
    assert codes(transcript) == ["document-too-large"]
    assert fold(document.encode(), limits=Limits(max_document_bytes=2000)).to_dicts()


# -- the number of events --------------------------------------------------------------


def test_reading_stops_at_the_event_limit_and_keeps_what_came_before() -> None:
    events = [RS(), TMS("m1"), *(TMC("m1", str(i)) for i in range(10)), TME("m1"), RF()]
    transcript = fold(jsonl(events), limits=Limits(max_events=7))
    assert transcript.to_dicts()[0]["content"] == "01234"
    limit = [d for d in transcript.diagnostics if d.code == "event-limit"]
    assert [d.event_index for d in limit] == [7]
    assert transcript.runs[0].outcome == "truncated"
    with pytest.raises(LimitExceeded, match="event limit"):
        fold(events, strict=True, limits=Limits(max_events=7))


def test_an_endless_source_stops_at_the_event_limit() -> None:
    def endless() -> Iterator[dict[str, Any]]:
        yield RS()
        yield TMS("m1")
        while True:
            yield TMC("m1", "a")

    transcript = fold(endless(), limits=Limits(max_events=5000))
    assert len(transcript.to_dicts()[0]["content"]) == 4998
    assert codes(transcript).count("event-limit") == 1


def test_an_endless_byte_stream_stops_at_the_event_limit() -> None:
    line = json.dumps(TMC("m1", "a")).encode() + b"\n"

    def chunks() -> Iterator[bytes]:
        yield jsonl([RS(), TMS("m1")])
        while True:
            yield line * 10

    stream = read_events(chunks(), limits=Limits(max_events=100))
    assert sum(1 for _ in stream) == 100
    assert stream.reader.stopped


# -- the text of one message or call ---------------------------------------------------


@pytest.mark.parametrize("metadata", [False, True], ids=["fast-lane", "general-path"])
def test_text_past_the_limit_is_dropped_once_reported_and_the_start_kept(metadata: bool) -> None:
    extra = {"metadata": {"k": 1}} if metadata else {}
    events = [
        RS(),
        TMS("m1"),
        *(TMC("m1", "hello", **extra) for _ in range(5)),
        TME("m1"),
        TCS("c1", "f", "m1"),
        *(TCA("c1", '"abcde"', **extra) for _ in range(4)),
        TCE("c1"),
        RF(),
    ]
    transcript = fold(events, limits=Limits(max_text_chars=12))
    message = transcript.to_dicts()[0]
    assert message["content"] == "hellohello"
    assert message["toolCalls"][0]["function"]["arguments"] == '"abcde"'
    limited = [d for d in transcript.diagnostics if d.code == "text-limit"]
    assert [(d.message_id, d.tool_call_id, d.event_index) for d in limited] == [
        ("m1", None, 4),
        (None, "c1", 10),
    ]


@pytest.mark.parametrize("metadata", [False, True], ids=["fast-lane", "general-path"])
def test_after_the_text_limit_a_shorter_delta_is_dropped_too(metadata: bool) -> None:
    """Nothing is spliced around a dropped delta: the text stops where the limit hit."""
    extra = {"metadata": {"k": 1}} if metadata else {}
    events = [
        RS(),
        TMS("m1"),
        TMC("m1", "hello", **extra),
        TMC("m1", "hello", **extra),
        TMC("m1", ", world", **extra),  # would pass 12: dropped
        TMC("m1", "!", **extra),  # would fit, but comes after a dropped delta
        TME("m1"),
        TCS("c1", "f", "m1"),
        TCA("c1", '"abcdefghij', **extra),
        TCA("c1", 'klm"', **extra),  # would pass 12: dropped
        TCA("c1", '"', **extra),
        TCE("c1"),
        RF(),
    ]
    transcript = fold(events, limits=Limits(max_text_chars=12))
    message = transcript.to_dicts()[0]
    assert message["content"] == "hellohello"
    assert message["toolCalls"][0]["function"]["arguments"] == '"abcdefghij'
    assert codes(transcript).count("text-limit") == 2


def test_text_limit_in_strict_mode_raises() -> None:
    events = [RS(), TMS("m1"), TMC("m1", "hello"), TMC("m1", "hello"), TME("m1"), RF()]
    with pytest.raises(LimitExceeded, match="text limit"):
        fold(events, strict=True, limits=Limits(max_text_chars=8))


def test_unlimited_lifts_every_bound() -> None:
    events = [RS(), TMS("m1"), TMC("m1", "x" * 1000), TME("m1"), RF()]
    tight = Limits(max_event_bytes=100, max_text_chars=10, max_events=3)
    assert {"event-too-large", "event-limit"} <= set(codes(fold(jsonl(events), limits=tight)))
    assert codes(fold(jsonl(events), limits=UNLIMITED)) == []


def test_a_text_file_object_is_read_as_text() -> None:
    text = io.StringIO(jsonl([RS(), TMS("m1"), TMC("m1", "hi"), TME("m1"), RF()]).decode())
    assert fold(text).to_dicts()[0]["content"] == "hi"


def test_the_ragas_drop_in_endpoint_reads_under_the_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The drop-in's call_ag_ui_endpoint keeps ragas's signature and gets our bounds."""
    import asyncio

    pytest.importorskip("httpx")
    import httpx

    from agui_transcripts import ragas as drop_in

    class Endless:
        status_code = 200

        def raise_for_status(self) -> None:
            return None

        async def aiter_bytes(self) -> Any:
            yield b'data: {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n\n'
            yield b'data: {"type": "TEXT_MESSAGE_START", "messageId": "m"}\n\n'
            huge = b'data: {"type": "CUSTOM", "name": "x", "value": "' + b"v" * 5000 + b'"}\n\n'
            yield huge
            while True:
                yield b'data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"}\n\n'

        async def __aenter__(self) -> Endless:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

    class Client:
        def __init__(self, **options: Any) -> None:
            pass

        async def __aenter__(self) -> Client:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

        def stream(self, *args: Any, **kwargs: Any) -> Endless:
            return Endless()

    monkeypatch.setattr(httpx, "AsyncClient", Client)
    monkeypatch.setattr(drop_in, "DEFAULT_LIMITS", Limits(max_event_bytes=1000, max_events=50))
    events = asyncio.run(drop_in.call_ag_ui_endpoint("http://agent/run", "Hi"))
    assert len(events) == 49  # the oversized CUSTOM event is skipped, counted, reported
    assert events[-1].type == "TEXT_MESSAGE_CONTENT"
