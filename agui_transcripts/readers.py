"""Reading recorded or streamed AG-UI events: JSONL, SSE and JSON arrays, sync or async.

:class:`EventReader` is the sans-I/O core: feed it bytes chunks, lines or event objects,
and it returns canonical events (see :mod:`agui_transcripts.events`). It detects the
format from the first non-blank line: ``{`` starts JSONL, ``[`` a JSON array, and a
``data:``/``event:``/``id:``/``retry:`` field or a ``:`` comment starts SSE.

:func:`read_events` is a thin loop around it for paths, file objects, bytes, text,
iterables and HTTP responses (:mod:`agui_transcripts.async_readers` has the async one).
It streams: a JSONL or SSE file is read line by line and never held whole in memory.

Bad input never stops a lenient read: a line that is not JSON, a JSON value that is not
an object, or an object without a ``type`` becomes an error-level diagnostic naming the
line, and reading goes on. In strict mode it raises
:class:`~agui_transcripts.EventDecodeError` instead.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Final, Literal, Protocol, TypeGuard, Union

from ._codec import JSONDecodeError, loads
from ._lines import bounded_blocks, bounded_lines, path_blocks
from .delta_runs import DELTA_ID_KEYS, DeltaRun, ObjectRun, RunOpener
from .diagnostics import Diagnostic, DiagnosticSink
from .events import UNDECODED, Event, EventIntake, json_kind, sdk_event_kind
from .limits import DEFAULT_LIMITS, Limits, bound
from .sse import LineSplitter, SSEDecoder

# Compiled, a name imported from another module is a globals lookup at each read;
# these module constants are statics.
_DEFAULT_LIMITS: Final = DEFAULT_LIMITS
_DELTA_ID_KEYS: Final = DELTA_ID_KEYS
_UNDECODED: Final = UNDECODED

__all__ = [
    "EventReader",
    "EventStream",
    "Format",
    "Indexed",
    "ItemReader",
    "item_runs",
    "read_events",
]

Format = Literal["auto", "jsonl", "sse", "json"]
Indexed = tuple[int, Event]
"""An event with its index: its 0-based position among the input's items."""


class HasIterBytes(Protocol):
    """An HTTP response body that can be read in chunks (httpx, requests-like)."""

    def iter_bytes(self) -> Iterable[bytes]: ...


Source = Union[
    str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[Any], HasIterBytes, Iterable[Any]
]

_SSE_FIELDS: Final = (b"data:", b"event:", b"id:", b"retry:", b":", b"data\r", b"data\n", b"data")
_READ_SIZE: Final = 1 << 16
_BRACE: Final = 0x7B  # the byte "{"


class EventReader:
    """Sans-I/O reader: raw input in, ``(index, event)`` pairs out.

    The index of an event is its 0-based position among the items of the input, bad ones
    included: it is what diagnostics call ``event_index``. Diagnostics go to :attr:`sink`.
    """

    __slots__ = (
        "_array",
        "_array_size",
        "_blank_before",
        "_format",
        "_line",
        "_max_document",
        "_max_event",
        "_pending",
        "_splitter_or_none",
        "_sse",
        "intake",
        "limits",
        "sink",
    )

    def __init__(
        self,
        *,
        format: Format = "auto",
        strict: bool = False,
        sink: DiagnosticSink | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.limits = limits if limits is not None else _DEFAULT_LIMITS
        self.sink = (
            sink
            if sink is not None
            else DiagnosticSink(strict=strict, max_kept=self.limits.max_diagnostics)
        )
        self.intake = EventIntake(self.sink, max_events=self.limits.max_events)
        self._max_event = bound(self.limits.max_event_bytes)
        self._max_document = bound(self.limits.max_document_bytes)
        self._format: Format = format
        self._line = 0
        self._blank_before = 0
        self._array: list[bytes] = []
        self._array_size = 0
        # A first line that may open a pretty-printed document or be a broken JSONL line,
        # held (with the blank lines after it) until the next line tells which.
        self._pending: list[bytes] | None = None
        self._sse: SSEDecoder | None = self._new_sse() if format == "sse" else None
        self._splitter_or_none: LineSplitter | None = None

    @property
    def stopped(self) -> bool:
        """Whether reading has stopped at the event limit."""
        return self.intake.stopped

    def _new_sse(self) -> SSEDecoder:
        return SSEDecoder(self.limits.max_event_bytes)

    @property
    def format(self) -> Format:
        """The detected format (``"auto"`` until the first non-blank line)."""
        return self._format

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Everything reported so far, in stream order."""
        return self.sink.diagnostics

    def feed_item(self, item: object) -> list[Indexed]:
        """Feed one already-decoded event (a dict, an SDK object, ...)."""
        return self._normalize(item, None)

    def feed_line(self, line: bytes | str) -> list[Indexed]:
        """Feed one line of a log; its line end is optional."""
        raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
        if self._format == "jsonl":
            return self._jsonl(raw)
        if self._format == "sse":
            assert self._sse is not None
            return self._sse_events(self._sse.feed_line(raw))
        if self._format == "json":
            self._hold_document(raw)
            return []
        if self._pending is not None:
            return self._decide(raw)
        return self._detect(raw)

    def feed_lines(self, lines: Iterable[bytes]) -> Iterator[Indexed]:
        """Feed the lines of a binary log; yield events as they are read.

        Equivalent to :meth:`feed_line` on each line (without :meth:`close`), with a
        tight loop for JSONL once the format is known: the path a recorded log takes.
        """
        return self._feed_blocks(((lines, False),))

    def _feed_blocks(self, blocks: Iterable[tuple[Iterable[bytes], bool]]) -> Iterator[Indexed]:
        """:meth:`feed_lines` for a log's lines in blocks, as :mod:`._lines` reads them.

        A block that says it is plain has no line holding a CR or the bytes ``null``, so
        the JSONL loop asks neither of its lines.
        """
        return self._read_blocks(blocks, None)  # type: ignore[return-value]  # (no runs)

    def _read_blocks(
        self, blocks: Iterable[tuple[Iterable[bytes], bool]], opener: RunOpener | None
    ) -> Iterator[Indexed | DeltaRun]:
        """The JSONL loop of :meth:`_feed_blocks`, with the delta lane if ``opener`` is given.

        With it, consecutive plain deltas of one item with the same keys come as one
        :class:`~agui_transcripts.delta_runs.DeltaRun`; a run ends before any other
        line, so diagnostics keep their order. (:class:`EventStream` resumes this
        generator itself: compiled, a native generator is resumed directly.)
        """
        intake = self.intake
        max_event = self._max_event
        max_events = intake.max_events
        held: DeltaRun | None = None
        # A delta that may open a run: the run is made when the next line continues it
        # (most deltas of a stream with few come alone, and a run costs more than them).
        lone: Event | None = None
        lone_index = 0
        for block, plain in blocks:
            lines = iter(block)
            if self._format != "jsonl" and not (yield from self._until_jsonl(lines)):
                if intake.stopped:
                    return
                continue
            line = self._line
            try:
                for raw in lines:
                    line += 1
                    if (
                        (not plain and raw.find(b"\r") >= 0)
                        # (An event's line begins with its brace: read as a byte, no
                        # method is called for it.)
                        or (raw and raw[0] != _BRACE and raw.isspace())
                        or len(raw) > max_event
                    ):
                        if lone is not None:
                            yield lone_index, lone
                            lone = None
                        if held is not None:
                            yield _released(held)
                            held = None
                        self._line = line - 1
                        yield from self._jsonl(raw)
                        line = self._line
                        continue
                    if held is None and lone is None:
                        index = intake.count
                        event = intake.decode(raw, line, plain)
                    else:
                        # A line that continues the run is decoded here, and is not
                        # taken apart again: its keys are the run's, which the intake
                        # would keep as they are.
                        value: object
                        try:
                            value = loads(raw)
                        except JSONDecodeError:
                            value = _UNDECODED
                        if lone is not None:
                            # (A lone delta is held only with an opener.)
                            if type(value) is dict and value.get("type") == lone["type"]:
                                assert opener is not None
                                held = opener.open(lone, lone_index)
                            if held is None:
                                yield lone_index, lone
                            lone = None
                        if held is not None:
                            if (
                                type(value) is dict
                                and held.takes(value)
                                and (plain or raw.find(b"null") < 0)
                                and intake.count < max_events
                            ):
                                held.events.append(value)
                                intake.count += 1
                                continue
                            yield _released(held)
                            held = None
                        index = intake.count
                        event = intake.decode(raw, line, plain, value)
                    if event is None:
                        if intake.stopped:
                            return
                        continue
                    # (The intake noted whether the event is a delta the lane takes.)
                    if intake.lane_key and opener is not None:
                        lone = event
                        lone_index = index
                    else:
                        yield index, event
            finally:
                self._line = line
        if lone is not None:
            yield lone_index, lone
        if held is not None:
            yield _released(held)

    def _until_jsonl(self, lines: Iterator[bytes]) -> Generator[Indexed, None, bool]:
        """Read lines one by one until the format turns out JSONL.

        True if it did (the rest of ``lines`` is for the JSONL loop), False when they
        ran out or reading stopped.
        """
        for raw in lines:
            yield from self.feed_line(raw)
            if self.intake.stopped:
                return False
            if self.format == "jsonl":  # (the property: feed_line changed it)
                return True
        return False

    def feed_items(self, items: Iterable[Any]) -> Iterator[Indexed]:
        """Feed an iterable of ``bytes`` chunks, ``str`` lines or event objects, in any mix.

        Yields events as they are read (without :meth:`close`).
        """
        return item_runs(items, self.intake, None, self._feed_text)  # type: ignore[return-value]  # (no runs)

    def lane_items(
        self, items: Iterable[Any], timed_kinds: frozenset[str]
    ) -> Iterator[Indexed | DeltaRun]:
        """:meth:`feed_items` with the delta lane: SDK objects' plain deltas come as runs.

        See :func:`item_runs`. ``timed_kinds``: the delta types whose timed deltas may
        form runs (the collector's say).
        """
        return item_runs(items, self.intake, RunOpener(timed_kinds, self.intake), self._feed_text)

    def _feed_text(self, item: bytes | bytearray | memoryview | str) -> Iterable[Indexed]:
        """An item of :meth:`feed_items` that is not an event: a chunk or a line."""
        if isinstance(item, str):
            return self.feed_line(item)
        return self.feed_bytes(bytes(item))

    def feed_bytes(self, chunk: bytes) -> list[Indexed]:
        """Feed a chunk of raw bytes (lines may span chunks)."""
        splitter = self._splitter()
        events: list[Indexed] = []
        for line in splitter.feed(chunk):
            events.extend(self.feed_line(line))
        return events

    def close(self) -> list[Indexed]:
        """End of input: return what the last, unterminated parts complete."""
        events: list[Indexed] = []
        splitter = self._splitter_or_none
        if splitter is not None:
            for line in splitter.close():
                events.extend(self.feed_line(line))
        if self._pending is not None:
            events.extend(self._settle_pending("jsonl"))  # one line: a broken JSONL event
        if self._sse is not None:
            events.extend(self._sse_events(self._sse.close()))
        if self._format == "json":
            events.extend(self._json_array())
        return events

    # -- internals ---------------------------------------------------------------------

    def _normalize(self, item: object, line: int | None) -> list[Indexed]:
        index = self.intake.count
        event = self.intake.normalize(item, line=line)
        return [] if event is None else [(index, event)]

    def _splitter(self) -> LineSplitter:
        splitter = self._splitter_or_none
        if splitter is None:
            splitter = self._splitter_or_none = LineSplitter(self.limits.max_event_bytes)
        return splitter

    def _detect(self, raw: bytes) -> list[Indexed]:
        if raw.startswith(b"\xef\xbb\xbf") and self._line == 0:
            raw = raw[3:]
        head = raw.lstrip()
        if not head:
            self._blank_before += 1
            self._line += 1
            return []
        if head.startswith(b"["):
            # A JSON array of events: read whole.
            self._format = "json"
            self._line += self._blank_before
            self._hold_document(raw)
            return []
        if head.startswith(b"{") and (
            not head.rstrip().endswith(b"}") or len(raw) > self._max_event
        ):
            # A pretty-printed document (an object holding a "stream" or "events" array,
            # as test fixtures write), or a JSONL file whose first line is broken: the
            # next line tells (JSONL lines start with "{" at the margin).
            self._pending = [raw]
            return []
        if head.startswith(b"{") and _holds_event_list(head):
            # A whole document on one line ({"events": [...]}, as json.dump writes it).
            self._format = "json"
            self._line += self._blank_before
            self._hold_document(raw)
            return []
        if head.startswith(_SSE_FIELDS) and not head.startswith(b"{"):
            self._format = "sse"
            self._sse = self._new_sse()
            for _ in range(self._blank_before):
                self._sse.feed_line(b"")
            return self._sse_events(self._sse.feed_line(raw))
        self._format = "jsonl"
        return self._jsonl(raw)

    def _decide(self, raw: bytes) -> list[Indexed]:
        """The line after a held first line says whether the log is JSONL or a document."""
        pending = self._pending
        assert pending is not None
        if not raw.strip():
            pending.append(raw)
            return []
        events = self._settle_pending("jsonl" if raw.startswith(b"{") else "json")
        return events + self.feed_line(raw)

    def _settle_pending(self, format: Format) -> list[Indexed]:
        pending, self._pending = self._pending or [], None
        self._format = format
        if format == "json":
            self._line += self._blank_before
            for raw in pending:
                self._hold_document(raw)
            return []
        events: list[Indexed] = []
        for raw in pending:
            events.extend(self._jsonl(raw))
        return events

    def _hold_document(self, raw: bytes) -> None:
        """Keep a line of a log read whole, within the document limit."""
        if self._array_size > self._max_document:
            return  # already reported; the document is not read
        self._array_size += len(raw)
        if self._array_size > self._max_document:
            self._array = []
            self.sink.report(
                "document-too-large",
                f"the JSON document passes {self._max_document} bytes (the document limit); "
                "it is not read. Write large logs as JSONL or SSE, which stream.",
                event_index=self.intake.count,
                line=self._line + 1,
            )
            return
        self._array.append(raw)

    def _jsonl(self, raw: bytes) -> list[Indexed]:
        self._line += 1
        if len(raw) > self._max_event:
            self.intake.skip(
                "event-too-large",
                f"line {self._line} passes {self._max_event} bytes (the event size limit); skipped",
                line=self._line,
            )
            return []
        if not raw or raw.isspace():
            return []
        if b"\r" in raw.rstrip(b"\r\n"):
            # CR-only line ends inside what a file split on LF as one line.
            self._line -= 1
            events: list[Indexed] = []
            for part in raw.splitlines():
                events.extend(self._jsonl(part))
            return events
        return self._normalize(raw, self._line)

    def _sse_events(self, found: list[Any]) -> list[Indexed]:
        events: list[Indexed] = []
        intake = self.intake
        for sse in found:
            if sse.oversized:
                intake.skip(
                    "event-too-large",
                    f"the SSE event at line {sse.line} passes {self._max_event} bytes (the "
                    "event size limit); skipped",
                    line=sse.line,
                )
                continue
            if not sse.data or sse.data.isspace():
                continue
            if sse.invalid_utf8:
                self.sink.report(
                    "invalid-utf8",
                    "SSE event holds bytes that are not UTF-8; replaced with U+FFFD",
                    event_index=intake.count,
                    line=sse.line,
                )
            if sse.event and sse.event != "message":
                events.extend(self._named_sse_event(sse.event, sse.data, sse.line))
                continue
            events.extend(self._normalize(sse.data, sse.line))
        return events

    def _named_sse_event(self, name: str, data: str, line: int | None) -> list[Indexed]:
        """An SSE event with an ``event:`` name: the type when its data carries none.

        Some servers name the AG-UI type in the ``event:`` field only; an ``error`` frame
        is the server's own failure report, not an AG-UI event, and is reported as one.
        """
        try:
            value = loads(data)
        except JSONDecodeError:
            value = None
        if not isinstance(value, dict):
            return self._normalize(data, line)  # reading the text again reports why
        if "type" in value:
            return self._normalize(value, line)  # parsed once
        if name.lower() == "error":
            said = value.get("message", value.get("error", data))
            self.intake.skip(
                "sse-error-frame",
                f"the server sent an SSE error frame: {str(said)[:300]}",
                line=line,
            )
            return []
        self.sink.report(
            "type-from-sse-event",
            f"the event's data has no type; read as {name!r}, its SSE event name",
            event_index=self.intake.count,
            line=line,
        )
        return self._normalize({**value, "type": name}, line)

    def _json_array(self) -> list[Indexed]:
        if not self._array:
            return []
        document = b"\n".join(self._array)
        self._array = []
        start_line = self._line + 1
        try:
            value = loads(document)
        except JSONDecodeError as exc:
            self.sink.report(
                "invalid-json",
                f"the JSON document is not valid JSON: {exc}",
                event_index=self.intake.count,
                line=start_line,
            )
            return []
        if isinstance(value, dict):
            held = value.get("stream", value.get("events"))
            value = held if isinstance(held, list) else [value] if "type" in value else value
        if not isinstance(value, list):
            self.sink.report(
                "event-not-object",
                "a JSON document must be an array of events, an event, or an object with a "
                "'stream' or 'events' array",
                event_index=self.intake.count,
                line=start_line,
            )
            return []
        events: list[Indexed] = []
        for item in value:
            if not isinstance(item, dict):
                # Inside an array a string is a JSON string value, not JSON text.
                self.sink.report(
                    "event-not-object",
                    f"expected a JSON object, got {json_kind(item)}",
                    event_index=self.intake.count,
                )
                self.intake.count += 1
                continue
            events.extend(self._normalize(item, None))
        return events


def _released(held: DeltaRun) -> Indexed | DeltaRun:
    """A run as the reader hands it on: a lone delta as the plain event it is."""
    return (held.index, held.events[0]) if held.length() == 1 else held


class ItemReader:
    """Reads event items one by one for a loop that takes runs of SDK deltas at once.

    The one reading behind :func:`item_runs` (a generator, the reader's) and
    :meth:`~agui_transcripts.collector.Collector.feed_items` (a plain loop: the ragas
    drop-in's path, where a generator costs more than runs save on streams with few
    deltas). With ``opener``, a plain delta read from an SDK event object the intake
    takes as it is opens an :class:`~agui_transcripts.delta_runs.ObjectRun`; without,
    every item is read by :meth:`EventIntake.normalize`.
    """

    __slots__ = ("_delta_class", "_intake", "_last_class", "_max_events", "_opener")

    def __init__(self, intake: EventIntake, opener: RunOpener | None) -> None:
        self._intake = intake
        self._opener = opener
        self._max_events = intake.max_events
        # Whether the class of the last item read is an SDK delta class: most items are
        # of the class before, so the question is asked once per change of class.
        self._last_class: type = dict
        self._delta_class = False

    def continues(self, held: ObjectRun, item: object) -> bool:
        """Whether ``item`` continues ``held``; it is then taken and counted, not read."""
        intake = self._intake
        if intake.count < self._max_events and held.takes_object(item):
            intake.count += 1
            return True
        return False

    def read(self, item: object) -> tuple[int, Event | None, ObjectRun | None]:
        """Read one item: its index, its event (None: not applied) and the run it opens.

        An event that opens a run is the run's first, not to be folded apart.
        """
        intake = self._intake
        index = intake.count
        cls = type(item)
        if cls is not self._last_class:
            self._last_class = cls
            self._delta_class = cls is not dict and sdk_event_kind(item) in _DELTA_ID_KEYS
        opener = self._opener
        if opener is not None and self._delta_class:
            taken = intake.take_as_is(item)
            if taken is None:
                said = intake.said_keys
                read = intake.normalize(item)
                if read is None or intake.said_keys is said:
                    return index, read, None
                # The first delta to bring a recorder's key: reading it said the key, so
                # the deltas after it are taken as they are, and it may open their run.
                taken = intake.as_is(item)
                if taken is None:
                    return index, read, None
                taken = read, taken[1]
            event, wire = taken
            run = opener.open(event, index)
            if run is None:
                return index, event, None
            return index, event, ObjectRun(run, item, wire, intake.event_as_is)
        return index, intake.normalize(item), None


def item_runs(
    items: Iterable[Any],
    intake: EventIntake,
    opener: RunOpener | None,
    text: Callable[[Any], Iterable[Indexed]] | None = None,
) -> Iterator[Indexed | DeltaRun]:
    """The events of ``items``, each read by ``intake``, with their indices.

    With ``opener``, consecutive plain deltas read from SDK event objects come as one
    :class:`~agui_transcripts.delta_runs.ObjectRun` (see :class:`ItemReader`). ``text``
    reads the items that are chunks or lines (a reader's); without it every item is one
    event. Stops where the intake stops.
    """
    reader = ItemReader(intake, opener)
    held: ObjectRun | None = None
    for item in items:
        if held is not None:
            if reader.continues(held, item):
                continue
            yield _released(held)
            held = None
        if text is not None and isinstance(item, (bytes, bytearray, memoryview, str)):
            yield from text(item)
        else:
            index, event, held = reader.read(item)
            if event is not None and held is None:
                yield index, event
        if intake.stopped:
            return
    if held is not None:
        yield _released(held)


# -- front ends --------------------------------------------------------------------------


def reads_as_path(source: object) -> TypeGuard[str | os.PathLike[str]]:
    """Whether :func:`read_events` reads ``source`` as a path (not as a log's text)."""
    if isinstance(source, str):
        return not _looks_like_content(source)
    return isinstance(source, os.PathLike)


def _looks_like_content(text: str) -> bool:
    if "\n" in text or "\r" in text:
        return True
    head = text.lstrip()
    return head.startswith(("{", "[", "data:", ":"))


class EventStream:
    """The events of one source, read lazily; :attr:`diagnostics` fills as it is read.

    Iterate it once. Reading a path again needs a new :func:`read_events` call.
    """

    def __init__(
        self,
        source: Source,
        *,
        format: Format = "auto",
        strict: bool = False,
        limits: Limits | None = None,
    ) -> None:
        self._source = source
        self.reader = EventReader(format=format, strict=strict, limits=limits)
        self._iterator: Generator[Indexed | DeltaRun, None, None] | None = None

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What was reported while reading so far."""
        return self.reader.diagnostics

    @property
    def is_local(self) -> bool:
        """Whether the source is data at hand, not a live stream that may run on.

        Data at hand: a path, bytes, text, a file, a list or a tuple.
        """
        return isinstance(
            self._source, (str, os.PathLike, bytes, bytearray, memoryview, list, tuple)
        ) or hasattr(self._source, "read")

    @property
    def format(self) -> Format:
        """The detected format (``"auto"`` before the first non-blank line is read)."""
        return self.reader.format

    def __iter__(self) -> Iterator[Event]:
        for _, event in self.indexed():
            yield event

    def indexed(self) -> Iterator[Indexed]:
        """The events with their indices (see :class:`EventReader`)."""
        if self._iterator is None:
            self._iterator = self._events(None)
        return self._iterator  # type: ignore[return-value]  # (no runs without kinds)

    def with_delta_runs(self, timed_kinds: frozenset[str]) -> Iterator[Indexed | DeltaRun]:
        """:meth:`indexed`, with runs of plain deltas from a file or bytes as one item.

        Consecutive plain deltas of one item with the same keys come as one
        :class:`~agui_transcripts.delta_runs.DeltaRun`; other sources come event by
        event. ``timed_kinds``: the delta types whose timed deltas may form runs.
        """
        if self._iterator is None:
            self._iterator = self._events(timed_kinds)
        return self._iterator

    def close(self) -> None:
        """Stop reading: nothing more is read, and a file the stream opened is closed.

        A reading left suspended holds the stream (a reference cycle) and the block of
        lines it was in until the garbage collector finds them; ``fold`` closes its
        stream however it ends.
        """
        if self._iterator is not None:
            self._iterator.close()

    def _events(
        self, timed_kinds: frozenset[str] | None
    ) -> Generator[Indexed | DeltaRun, None, None]:
        source: Any = self._source
        reader = self.reader
        if isinstance(source, str) and reads_as_path(source):
            source = Path(source)
        limit = reader.limits.max_event_bytes
        document = reader.limits.max_document_bytes
        blocks = None
        if isinstance(source, os.PathLike):
            blocks = path_blocks(source, limit, document)
        elif isinstance(source, (bytes, bytearray, memoryview)):
            blocks = bounded_blocks(io.BytesIO(bytes(source)), limit, document)
        if blocks is not None:
            yield from reader._read_blocks(
                blocks, None if timed_kinds is None else RunOpener(timed_kinds, reader.intake)
            )
        elif isinstance(source, str):
            for text in io.StringIO(source, newline=""):
                yield from reader.feed_line(text)
                if reader.stopped:
                    return
        elif hasattr(source, "read"):
            # Read in bounded blocks, binary or text: iterating a file by lines would
            # hold a line of any length whole.
            lines = bounded_lines(source, limit, document)
            for line in lines:  # binary or text lines: both are accepted
                yield from reader.feed_line(line)
                if reader.stopped:
                    return
        elif hasattr(source, "iter_bytes"):
            for chunk in source.iter_bytes():
                yield from reader.feed_bytes(chunk)
                if reader.stopped:
                    return
        elif isinstance(source, Iterable):
            if timed_kinds is None:
                yield from reader.feed_items(source)
            else:
                yield from reader.lane_items(source, timed_kinds)
        else:
            raise TypeError(
                f"read_events() cannot read a {type(source).__name__}: pass a path, a file "
                "object, bytes, text, or an iterable of lines, chunks or events"
            )
        yield from reader.close()


def read_events(
    source: Source, *, format: Format = "auto", strict: bool = False, limits: Limits | None = None
) -> EventStream:
    """Read canonical AG-UI events from a log or stream.

    ``source`` is a path (``str`` or :class:`os.PathLike`), an open file (binary or
    text), ``bytes``, the text of a log (a ``str`` holding a line end, or starting with
    ``{``, ``[``, ``data:`` or ``:``), an HTTP response with ``iter_bytes()``, or an
    iterable whose items are ``bytes`` chunks, ``str`` lines, or event objects.
    ``format`` is detected unless given; ``limits`` bounds what is held (default
    :data:`~agui_transcripts.DEFAULT_LIMITS`). Returns a lazy :class:`EventStream`.
    """
    return EventStream(source, format=format, strict=strict, limits=limits)


def _holds_event_list(line: bytes) -> bool:
    """Whether a first line is a whole document holding events, not one event.

    Only a line naming ``"events"`` or ``"stream"`` is parsed, so JSONL pays nothing.
    """
    if b'"events"' not in line and b'"stream"' not in line:
        return False
    try:
        value = loads(line)
    except JSONDecodeError:
        return False
    return (
        isinstance(value, dict)
        and "type" not in value
        and isinstance(value.get("stream", value.get("events")), list)
    )
