"""The SSE decoder and the line splitter under it (rule W2)."""

from __future__ import annotations

import pytest

from agui_transcripts import SSEDecoder
from agui_transcripts.sse import LineSplitter


def decode_bytes(*chunks: bytes) -> list[str]:
    decoder = SSEDecoder()
    data = [event.data for chunk in chunks for event in decoder.feed(chunk)]
    return data + [event.data for event in decoder.close()]


def decode_lines(*lines: str) -> list[str]:
    decoder = SSEDecoder()
    data = [event.data for line in lines for event in decoder.feed_line(line)]
    return data + [event.data for event in decoder.close()]


def test_data_with_and_without_space() -> None:
    assert decode_bytes(b'data: {"a":1}\n\ndata:{"b":2}\n\n') == ['{"a":1}', '{"b":2}']


def test_only_one_leading_space_is_removed() -> None:
    assert decode_bytes(b"data:  two spaces\n\n") == [" two spaces"]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_end(newline: bytes) -> None:
    stream = b"data: one" + newline + newline + b"data: two" + newline + newline
    assert decode_bytes(stream) == ["one", "two"]


def test_multiline_data_is_joined_with_lf() -> None:
    assert decode_bytes(b'data: {\ndata: "a": 1\ndata: }\n\n') == ['{\n"a": 1\n}']


def test_comments_and_other_fields_carry_no_data() -> None:
    stream = b": ping\nevent: message\nid: 7\nretry: 1000\ndata: x\n\n: keep-alive\n\n"
    decoder = SSEDecoder()
    events = decoder.feed(stream) + decoder.close()
    assert [(e.data, e.event) for e in events] == [("x", "message")]


def test_final_event_without_blank_line_is_delivered() -> None:
    assert decode_bytes(b"data: a\n\ndata: last") == ["a", "last"]
    assert decode_bytes(b"data: a\n\ndata: last\n") == ["a", "last"]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    # Without the CR/LF pairing the LF would read as a blank line and dispatch early.
    assert decode_bytes(b"data: a\r", b"\ndata: b\r\n\r\n") == ["a\nb"]


def test_chunks_split_anywhere_give_the_same_events() -> None:
    stream = b'data: {"type":"RUN_STARTED"}\r\n\r\n: c\ndata: caf\xc3\xa9\n\ndata: end\r\r'
    whole = decode_bytes(stream)
    assert whole == ['{"type":"RUN_STARTED"}', "caf\u00e9", "end"]
    for size in (1, 2, 3, 7):
        pieces = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert decode_bytes(*pieces) == whole


def test_byte_order_mark_is_skipped() -> None:
    assert decode_bytes(b"\xef\xbb\xbfdata: x\n\n") == ["x"]
    assert decode_lines("\ufeffdata: x", "") == ["x"]


def test_field_without_colon_and_empty_data() -> None:
    # "data" alone is a data field with an empty value; the event's data is "".
    decoder = SSEDecoder()
    events = decoder.feed(b"data\n\n")
    assert [e.data for e in events] == [""]


def test_lines_from_a_line_iterator() -> None:
    # aiter_lines()/iter_lines() strip line ends; file iteration keeps them.
    assert decode_lines("data: a", "", "data: b\n", "\n") == ["a", "b"]
    assert decode_lines("data: a\r\n", "\r\n") == ["a"]


def test_a_str_line_holding_several_lines_is_split() -> None:
    decoder = SSEDecoder()
    events = decoder.feed_line("data: a\r\rdata: b\r\r")
    assert [e.data for e in events] == ["a", "b"]


def test_event_line_numbers_point_at_the_first_data_line() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b": hello\n\ndata: a\n\n\nevent: x\ndata: b\ndata: c\n\n")
    assert [(e.data, e.line) for e in events] == [("a", 3), ("b\nc", 7)]


def test_invalid_utf8_is_replaced_and_flagged() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b"data: caf\xff\n\ndata: ok\n\n")
    assert [(e.data, e.invalid_utf8) for e in events] == [("caf\ufffd", True), ("ok", False)]


def test_line_splitter_keeps_a_long_line_whole() -> None:
    splitter = LineSplitter()
    line = b"x" * 100_000
    out: list[bytes] = []
    for i in range(0, len(line), 4096):
        out += splitter.feed(line[i : i + 4096])
    assert out == []
    out += splitter.feed(b"\n")
    assert out == [line]
    assert splitter.close() == []
