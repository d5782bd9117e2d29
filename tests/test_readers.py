"""read_events / aread_events: every source kind, format detection, and bad input."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import warnings
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import (
    DEFAULT_LIMITS,
    UNLIMITED,
    EventDecodeError,
    EventReader,
    Limits,
    ProtocolError,
    aread_events,
    fold,
    read_events,
)

EVENTS: list[dict[str, Any]] = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Caf\u00e9 \u2615"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]
JSONL = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in EVENTS)
SSE = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in EVENTS)
ARRAY = json.dumps(EVENTS, indent=2, ensure_ascii=False)


@pytest.mark.parametrize(("text", "fmt"), [(JSONL, "jsonl"), (SSE, "sse"), (ARRAY, "json")])
def test_format_is_detected_from_text_bytes_and_paths(text: str, fmt: str, tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    path.write_text(text, encoding="utf-8")
    for source in (text, text.encode(), path, str(path)):
        stream = read_events(source)
        assert list(stream) == EVENTS, source
        assert stream.format == fmt
        assert stream.diagnostics == []


def test_file_objects_binary_and_text(tmp_path: Path) -> None:
    path = tmp_path / "run.sse"
    path.write_text(SSE, encoding="utf-8")
    with path.open("rb") as binary:
        assert list(read_events(binary)) == EVENTS
    with path.open(encoding="utf-8") as text:
        assert list(read_events(text)) == EVENTS
    assert list(read_events(io.BytesIO(JSONL.encode()))) == EVENTS
    assert list(read_events(io.StringIO(JSONL))) == EVENTS


def chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("text", [JSONL, SSE, ARRAY])
@pytest.mark.parametrize("size", [1, 5, 64])
def test_byte_chunks_split_anywhere(text: str, size: int) -> None:
    assert list(read_events(chunks(text.encode(), size))) == EVENTS


def test_iterable_of_lines_without_line_ends() -> None:
    lines = SSE.split("\n")  # what iter_lines() gives: no line ends
    assert list(read_events(lines)) == EVENTS
    assert list(read_events(JSONL.splitlines())) == EVENTS


def test_iterable_of_event_objects() -> None:
    assert list(read_events(EVENTS)) == EVENTS


def test_response_like_object_with_iter_bytes() -> None:
    class Response:
        def iter_bytes(self) -> Iterable[bytes]:
            return iter(chunks(SSE.encode(), 10))

    assert list(read_events(Response())) == EVENTS


def test_explicit_format_overrides_detection() -> None:
    stream = read_events(SSE, format="sse")
    assert list(stream) == EVENTS
    assert stream.format == "sse"


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_other_line_ends(newline: str) -> None:
    assert list(read_events(JSONL.replace("\n", newline).encode())) == EVENTS
    assert list(read_events(SSE.replace("\n", newline).encode())) == EVENTS


def test_byte_order_mark_and_leading_blank_lines() -> None:
    assert list(read_events(b"\xef\xbb\xbf" + JSONL.encode())) == EVENTS
    stream = read_events(("\n\n" + SSE).encode())
    assert list(stream) == EVENTS
    assert stream.format == "sse"


def test_sse_without_final_blank_line() -> None:
    assert list(read_events(SSE.rstrip("\n").encode())) == EVENTS


def test_sse_multi_line_data_event() -> None:
    pretty = "\n".join("data: " + line for line in json.dumps(EVENTS[1], indent=2).split("\n"))
    assert list(read_events(pretty + "\n\n", format="sse")) == [EVENTS[1]]


BAD_JSONL = (
    '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
    "this is not json\n"
    "\n"
    "[1, 2, 3]\n"
    '{"messageId":"m1"}\n'
    '{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"kept"}\n'
    '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n'
)


def test_bad_lines_are_reported_and_the_rest_is_read() -> None:
    stream = read_events(BAD_JSONL)
    events = list(stream)
    assert [e["type"] for e in events] == ["RUN_STARTED", "TEXT_MESSAGE_CHUNK", "RUN_FINISHED"]
    assert events[1]["delta"] == "kept"
    assert [(d.code, d.line, d.severity) for d in stream.diagnostics] == [
        ("invalid-json", 2, "error"),
        ("event-not-object", 4, "error"),
        ("event-missing-type", 5, "error"),
    ]


def test_strict_read_names_the_line() -> None:
    stream = read_events(BAD_JSONL, strict=True)
    iterator = iter(stream)
    assert next(iterator)["type"] == "RUN_STARTED"
    with pytest.raises(EventDecodeError, match=r"line 2.*invalid-json"):
        next(iterator)


def test_bad_sse_event_names_its_line() -> None:
    text = 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n: c\ndata: {oops\n\n'
    stream = read_events(text)
    assert [e["type"] for e in stream] == ["RUN_STARTED"]
    assert [(d.code, d.line) for d in stream.diagnostics] == [("invalid-json", 4)]
    with pytest.raises(EventDecodeError, match="line 4"):
        list(read_events(text, strict=True))


def test_invalid_utf8_line_keeps_its_event() -> None:
    data = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\xffb"}\n'
    for source in (data, b"data: " + data + b"\n"):
        stream = read_events(source)
        assert [e["delta"] for e in stream] == ["a\ufffdb"]
        assert [d.code for d in stream.diagnostics] == ["invalid-utf8"]


def test_unknown_types_are_dropped_and_reported() -> None:
    text = JSONL + '{"type":"FUTURE_EVENT"}\n'
    stream = read_events(text)
    assert list(stream) == EVENTS
    assert [(d.code, d.line, d.event_index) for d in stream.diagnostics] == [
        ("unknown-event-type", 4, 3)
    ]


def test_json_array_errors() -> None:
    stream = read_events('[{"type":"RUN_STARTED","threadId":"t","runId":"r"}, "text", 3')
    assert list(stream) == []
    assert [d.code for d in stream.diagnostics] == ["invalid-json"]
    stream = read_events('[{"type":"RUN_STARTED","threadId":"t","runId":"r"}, "text", 3]')
    assert [e["type"] for e in stream] == ["RUN_STARTED"]
    assert [(d.code, d.event_index) for d in stream.diagnostics] == [
        ("event-not-object", 1),
        ("event-not-object", 2),
    ]


def test_large_line_is_read_whole(tmp_path: Path) -> None:
    delta = "x" * 5_000_000
    path = tmp_path / "big.jsonl"
    path.write_text(
        json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": delta}) + "\n"
    )
    [event] = read_events(path)
    assert event["delta"] == delta


def test_reading_is_lazy() -> None:
    def endless() -> Iterable[bytes]:
        while True:
            yield b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}\n'

    stream = iter(read_events(endless()))
    assert [next(stream)["delta"] for _ in range(3)] == ["x", "x", "x"]


def _abandon_after_one_event(path: Path, limits: Limits) -> None:
    stream = iter(read_events(path, limits=limits))
    next(stream)


def _abandon_at_a_strict_error(path: Path, limits: Limits) -> None:
    with pytest.raises(ProtocolError):
        fold(path, strict=True, limits=limits)


@pytest.mark.parametrize("abandon", [_abandon_after_one_event, _abandon_at_a_strict_error])
@pytest.mark.parametrize("limits", [DEFAULT_LIMITS, UNLIMITED], ids=["bounded", "unlimited"])
def test_a_file_read_is_closed_when_reading_stops_early(
    abandon: Callable[[Path, Limits], None], limits: Limits, tmp_path: Path
) -> None:
    # A reader dropped part way (a consumer that breaks, a strict fold that raises) must
    # not leave the file open for the garbage collector, in either build.
    path = tmp_path / "log.jsonl"
    path.write_text(JSONL + '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "x", "delta": "?"}\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        abandon(path, limits)
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_unsupported_source_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="cannot read a int"):
        list(read_events(42))  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        list(read_events("no-such-file.jsonl"))


def test_event_reader_is_sans_io() -> None:
    reader = EventReader()
    out = []
    for chunk in chunks(SSE.encode(), 7):
        out += reader.feed_bytes(chunk)
    out += reader.close()
    assert out == list(enumerate(EVENTS))
    assert reader.format == "sse"


def test_indices_count_bad_items_too() -> None:
    stream = read_events(BAD_JSONL)
    assert [(index, event["type"]) for index, event in stream.indexed()] == [
        (0, "RUN_STARTED"),
        (4, "TEXT_MESSAGE_CHUNK"),
        (5, "RUN_FINISHED"),
    ]
    assert [d.event_index for d in stream.diagnostics] == [1, 2, 3]


async def agen(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        await asyncio.sleep(0)
        yield item


@pytest.mark.parametrize(
    "items",
    [
        chunks(SSE.encode(), 3),
        chunks(JSONL.encode(), 11),
        SSE.split("\n"),
        EVENTS,
    ],
    ids=["sse-bytes", "jsonl-bytes", "sse-lines", "objects"],
)
def test_aread_events(items: list[Any]) -> None:
    async def collect() -> list[dict[str, Any]]:
        return [event async for event in aread_events(agen(items))]

    assert asyncio.run(collect()) == EVENTS


def test_aread_events_from_a_response_and_its_diagnostics() -> None:
    class Response:
        def aiter_bytes(self) -> AsyncIterator[bytes]:
            return agen([b"data: nope\n\n", SSE.encode()])

    async def collect() -> tuple[list[dict[str, Any]], list[str]]:
        stream = aread_events(Response())
        events = [event async for event in stream]
        return events, [d.code for d in stream.diagnostics]

    assert asyncio.run(collect()) == (EVENTS, ["invalid-json"])


def test_aread_events_rejects_sync_sources() -> None:
    async def collect() -> None:
        async for _ in aread_events([b"x"]):
            pass

    with pytest.raises(TypeError, match="use read_events"):
        asyncio.run(collect())
