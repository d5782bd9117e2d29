r"""Server-sent events, decoded without I/O.

:class:`SSEDecoder` follows the WHATWG event-stream parsing rules that matter for AG-UI
(rule W2): lines end in CRLF, LF or CR (a CRLF split across two chunks is one line end);
a leading byte-order mark is skipped; ``data:`` with or without the space; several
``data:`` lines of one event are joined with ``\\n``; comment lines (``: ping``) and the
``event:``, ``id:`` and ``retry:`` fields do not produce data; a blank line dispatches the
event. Unlike a browser, :meth:`SSEDecoder.close` also delivers a final event that lacks
its blank line, because recorded logs are often cut that way.

Why not a library: the maintained Python SSE parsers are tied to an HTTP client (httpx-sse
decodes inside ``httpx``, and its decoder is private API), and the core of this package must
run without one. Decoding is a small state machine; it lives here, fed from files, bytes,
lines, or any sync or async HTTP body.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

__all__ = ["LineSplitter", "SSEDecoder", "SSEEvent"]

_BOM = b"\xef\xbb\xbf"


class LineSplitter:
    """Bytes chunks in, complete lines out (without their line ends).

    Line ends are CRLF, LF or CR, as SSE defines them; a CR at the end of a chunk whose
    LF arrives in the next chunk still counts once. Memory is bounded by ``max_line``: a
    longer line comes out cut to ``max_line + 1`` bytes (so its reader can tell it was
    too long) and the rest of it is dropped as it arrives.
    """

    __slots__ = (
        "_head",
        "_max_line",
        "_overflow",
        "_pending",
        "_pending_size",
        "_skip_lf",
        "_started",
        "bom_stripped",
    )

    def __init__(self, max_line: int | None = None) -> None:
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._max_line = sys.maxsize if max_line is None else max_line
        self._overflow = False  # the pending line is already too long: drop until its end
        self._skip_lf = False
        self._started = False
        self._head = b""  # the first bytes, while they may still be a byte order mark
        #: Whether a byte order mark opened the stream (and was dropped).
        self.bom_stripped = False

    def feed(self, chunk: bytes) -> list[bytes]:
        """Return the lines that ``chunk`` completes."""
        if not chunk:
            return []
        if not self._started:
            chunk = self._head + chunk
            if len(chunk) < len(_BOM) and _BOM.startswith(chunk):
                self._head = chunk  # a mark cut by a chunk boundary is still a mark
                return []
            self._started = True
            self._head = b""
            if chunk.startswith(_BOM):
                chunk = chunk[len(_BOM) :]
                self.bom_stripped = True
                if not chunk:
                    return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk.startswith(b"\n"):
                chunk = chunk[1:]
        last = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        if last < 0:
            self._hold(chunk)
            return []
        head = chunk[: last + 1]
        rest = chunk[last + 1 :]
        if self._pending:
            first_end = min(i for i in (head.find(b"\n"), head.find(b"\r")) if i >= 0)
            self._hold(head[:first_end])
            head = b"".join(self._pending) + head[first_end:]
            self._pending = []
            self._pending_size = 0
            self._overflow = False
        if rest:
            self._hold(rest)
        else:
            self._skip_lf = head.endswith(b"\r")
        lines = head.splitlines()
        limit = self._max_line
        if limit != sys.maxsize and any(len(line) > limit for line in lines):
            lines = [line if len(line) <= limit else line[: limit + 1] for line in lines]
        return lines

    def _hold(self, part: bytes) -> None:
        """Keep the start of an unfinished line, up to one byte past the limit."""
        if self._overflow or not part:
            return
        room = self._max_line + 1 - self._pending_size
        if len(part) >= room:
            part = part[:room]
            self._overflow = True
        self._pending.append(part)
        self._pending_size += len(part)

    def close(self) -> list[bytes]:
        """Return the last line if the input did not end with a line end."""
        if self._head:  # a stream shorter than a byte order mark
            self._started = True
            self._hold(self._head)
            self._head = b""
        if not self._pending:
            return []
        line = b"".join(self._pending)
        self._pending = []
        self._pending_size = 0
        self._overflow = False
        return [line]


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event: its joined ``data`` and where it started."""

    data: str
    line: int
    event: str = ""
    invalid_utf8: bool = False
    #: The event's data passed the decoder's ``max_data`` and was dropped (``data`` is "").
    oversized: bool = False


class SSEDecoder:
    """Sans-I/O SSE decoder: feed bytes (:meth:`feed`) or lines (:meth:`feed_line`)."""

    __slots__ = (
        "_data",
        "_data_size",
        "_event",
        "_invalid",
        "_line",
        "_max_data",
        "_oversized",
        "_splitter",
        "_start",
    )

    def __init__(self, max_data: int | None = None) -> None:
        """``max_data`` bounds one event's data (bytes of its ``data:`` lines)."""
        self._splitter = LineSplitter(max_data)
        self._max_data = sys.maxsize if max_data is None else max_data
        self._data_size = 0
        self._oversized = False
        self._data: list[str] = []
        self._event = ""
        self._invalid = False
        self._line = 0
        self._start = 0

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Feed raw bytes; return the events they complete."""
        events: list[SSEEvent] = []
        for line in self._splitter.feed(chunk):
            event = self._take_line(line)
            if event is not None:
                events.append(event)
        return events

    def feed_line(self, line: str | bytes) -> list[SSEEvent]:
        """Feed one line (its line end optional); return the events it completes.

        A line that still holds line ends inside (from a source that splits only on
        LF) is split further, so the result may hold more than one event.
        """
        if isinstance(line, str):
            if line.endswith("\r\n"):
                line = line[:-2]
            elif line.endswith(("\n", "\r")):
                line = line[:-1]
            if "\r" in line or "\n" in line:
                parts = line.replace("\r\n", "\n").replace("\r", "\n").split("\n")
                return [e for e in map(self._take_line, parts) if e is not None]
        else:
            if line.endswith(b"\r\n"):
                line = line[:-2]
            elif line.endswith((b"\n", b"\r")):
                line = line[:-1]
            if b"\r" in line or b"\n" in line:
                return [e for e in map(self._take_line, line.splitlines()) if e is not None]
        event = self._take_line(line)
        return [] if event is None else [event]

    def _take_line(self, line: str | bytes) -> SSEEvent | None:
        self._line += 1
        if isinstance(line, (bytes, bytearray)):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                text = line.decode("utf-8", "replace")
                self._invalid = True
        else:
            text = line
        if self._line == 1 and text.startswith("\ufeff") and not self._splitter.bom_stripped:
            text = text[1:]  # one mark opens a stream: the splitter's or this one
        if not text:
            return self._dispatch()
        if text[0] == ":":
            return None
        field, colon, value = text.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            if not self._data and not self._oversized:
                self._start = self._line
            self._data_size += len(line) + 1
            if self._data_size > self._max_data:
                self._oversized = True
                self._data = []
            if not self._oversized:
                self._data.append(value)
        elif field == "event":
            self._event = value
        # "id" and "retry" only matter for reconnection, which AG-UI does not use.
        return None

    def _dispatch(self) -> SSEEvent | None:
        if self._oversized:
            event = SSEEvent("", self._start, self._event, self._invalid, oversized=True)
            self._oversized = False
        elif not self._data:
            self._event = ""
            self._invalid = False
            return None
        else:
            event = SSEEvent("\n".join(self._data), self._start, self._event, self._invalid)
        self._data = []
        self._data_size = 0
        self._event = ""
        self._invalid = False
        return event

    def close(self) -> list[SSEEvent]:
        """End of input: flush a last unterminated line and a last undispatched event."""
        events: list[SSEEvent] = []
        for line in self._splitter.close():
            event = self._take_line(line)
            if event is not None:
                events.append(event)
        event = self._dispatch()
        if event is not None:
            events.append(event)
        return events
