"""Byte-level fuzzing of the SSE decoder, the readers and intake (hypothesis on bytes).

Whatever the bytes and however they are split into chunks: no exception in lenient mode,
only the documented ones in strict mode (:class:`~agui_transcripts.ProtocolError` and its
subclasses), no hang, and memory bounded by the limits. Inputs mix random bytes with the
fragments that matter (SSE fields, JSON punctuation, event types, CR/LF, NUL, invalid
UTF-8, byte-order marks). ``HYPOTHESIS_PROFILE=long`` runs many more examples.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agui_transcripts import (
    EVENT_TYPES,
    RULES,
    EventIntake,
    EventReader,
    Limits,
    ProtocolError,
    SSEDecoder,
    Transcript,
    fold,
    read_events,
)

pytestmark = pytest.mark.slow  # long fuzzing

FRAGMENTS = [
    b"data:",
    b"data: ",
    b"event: x",
    b": ping",
    b"id: 1",
    b"retry: 5",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b":",
    b",",
    b"null",
    b'"type"',
    b'"messageId"',
    b'"delta"',
    b'"m1"',
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",  # an encoded surrogate: invalid UTF-8
    b"\xef\xbb\xbf",
    b"\\u0000",
    b"\\ud800",
    b"\\ud83d",  # halves of one emoji, as JavaScript servers cut it
    b"\\ude00",
    json.dumps(
        {"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "", "path": "/a"}]}
    ).encode(),
    json.dumps({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "[" * 1100}).encode(),
    *(f'"{kind}"'.encode() for kind in sorted(EVENT_TYPES)[:12]),
    json.dumps({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}).encode(),
    json.dumps({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "x"}).encode(),
    json.dumps({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f"}).encode(),
]
BYTES = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=12)), max_size=60).map(
    b"".join
)
CUTS = st.lists(st.integers(1, 64), min_size=1, max_size=20)
FORMATS = st.sampled_from(["auto", "jsonl", "sse", "json"])
SMALL = Limits(max_event_bytes=256, max_document_bytes=2048, max_text_chars=512, max_events=50)


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    out: list[bytes] = []
    start = 0
    for size in itertools.cycle(cuts):
        if start >= len(data):
            return out
        out.append(data[start : start + size])
        start += size
    return out  # pragma: no cover - the cycle only ends by returning


@given(data=BYTES, cuts=CUTS)
@example(data=b"\xef\xbb\xbf\xef\xbb\xbfdata:", cuts=[1])  # a mark cut by the chunks, then another
def test_the_sse_decoder_takes_any_bytes(data: bytes, cuts: list[int]) -> None:
    whole = SSEDecoder()
    expected = whole.feed(data) + whole.close()
    split = SSEDecoder()
    got = [event for chunk in _chunks(data, cuts) for event in split.feed(chunk)]
    got += split.close()
    assert got == expected  # chunk boundaries never change what is decoded
    assert all(isinstance(event.data, str) for event in got)


@given(data=BYTES, cuts=CUTS, format=FORMATS)
def test_the_reader_takes_any_bytes(data: bytes, cuts: list[int], format: Any) -> None:
    reader = EventReader(format=format, limits=SMALL)
    found = [pair for chunk in _chunks(data, cuts) for pair in reader.feed_bytes(chunk)]
    found += reader.close()
    assert all(isinstance(event, dict) and isinstance(event["type"], str) for _, event in found)
    indices = [index for index, _ in found]
    assert indices == sorted(set(indices))


def _readable(transcript: Transcript) -> None:
    """What any input must still give: known diagnostics, JSON messages, a projection."""
    assert all(d.code in RULES for d in transcript.diagnostics)
    json.dumps(transcript.to_dicts())
    assert len(transcript.ordered("keep")) >= len(
        [m for m in transcript.messages if m.role in ("user", "system", "developer")]
    )


@given(data=BYTES)
def test_fold_takes_any_bytes_leniently_and_strict_raises_only_protocol_errors(
    data: bytes,
) -> None:
    _readable(fold(data, limits=SMALL))
    with contextlib.suppress(ProtocolError):
        _readable(fold(data, strict=True, limits=SMALL))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["type", "messageId", "delta", "role", "content", "x", "message_id"]),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)
EVENTISH = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(EVENT_TYPES)) | st.text(max_size=6)},
    optional={
        "messageId": JSON_VALUES,
        "toolCallId": JSON_VALUES,
        "delta": JSON_VALUES,
        "content": JSON_VALUES,
        "messages": JSON_VALUES,
        "input": JSON_VALUES,
        "outcome": JSON_VALUES,
        "snapshot": JSON_VALUES,
        "patch": JSON_VALUES,
        "subagentRunId": JSON_VALUES,
        "tool_call_id": JSON_VALUES,
    },
)


@given(items=st.lists(EVENTISH | JSON_VALUES, max_size=25))
def test_intake_and_fold_take_any_json_values(items: list[Any]) -> None:
    intake = EventIntake()
    for item in items:
        intake.normalize(item)
    _readable(fold(items, limits=SMALL))
    with contextlib.suppress(ProtocolError):
        _readable(fold(items, strict=True, limits=SMALL))


def test_nul_bytes_and_invalid_utf8_are_reported_not_fatal() -> None:
    lines = [
        b'{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}',
        b'{"type": "TEXT_MESSAGE_START", "messageId": "m1"}',
        b'{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "caf\xe9 "}',
        b'{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "raw \x00 is not JSON"}',
        b'{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "ok\\u0000"}',
        b"\x00\x00\x00",
        b'{"type": "TEXT_MESSAGE_END", "messageId": "m1"}',
        b'{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}',
    ]
    transcript = fold(b"\n".join(lines))
    assert transcript.to_dicts()[0]["content"] == "caf\ufffd ok\x00"
    found = [(d.code, d.line) for d in transcript.diagnostics]
    assert found == [("invalid-utf8", 3), ("invalid-json", 4), ("invalid-json", 6)]


def test_a_100_mb_line_streamed_in_chunks_is_held_only_up_to_the_limit() -> None:
    limit = 1 << 20

    def body() -> Iterator[bytes]:
        yield b'{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n{"type": "CUSTOM", '
        for _ in range(100):
            yield b"x" * (1 << 20)
        yield b'}\n{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}\n'

    tracemalloc.start()
    try:
        transcript = fold(body(), limits=Limits(max_event_bytes=limit))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * limit
    assert [d.code for d in transcript.diagnostics] == ["event-too-large"]
    assert transcript.runs[0].outcome == "success"


def test_a_stream_that_never_ends_yields_as_it_goes() -> None:
    def forever() -> Iterator[bytes]:
        yield b'data: {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n\n'
        yield b'data: {"type": "TEXT_MESSAGE_START", "messageId": "m1"}\n\n'
        while True:
            yield b'data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "a"}\n\n'

    first = list(itertools.islice(read_events(forever()), 1000))
    assert len(first) == 1000


def test_a_line_that_never_ends_holds_bounded_memory() -> None:
    reader = EventReader(limits=Limits(max_event_bytes=4096))
    reader.feed_bytes(b'{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n')
    for _ in range(2000):  # 128 MiB without a line end
        assert reader.feed_bytes(b"y" * (1 << 16)) == []
    splitter = reader._splitter_or_none
    assert splitter is not None
    assert splitter._pending_size <= 4097
