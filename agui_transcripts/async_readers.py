"""Reading AG-UI events from async sources, as they arrive.

The async counterpart of :func:`~agui_transcripts.read_events`: the same sans-I/O
:class:`~agui_transcripts.EventReader` fed from an async iterable. It lives apart from
:mod:`agui_transcripts.readers` because async generators do not compile, and the sync
readers are on the compiled build's hot path.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from .diagnostics import Diagnostic
from .events import Event
from .limits import Limits
from .readers import EventReader, Format, Indexed

__all__ = ["AsyncEventStream", "aread_events"]


class AsyncEventStream:
    """The async counterpart of :class:`EventStream`."""

    def __init__(
        self,
        source: Any,
        *,
        format: Format = "auto",
        strict: bool = False,
        limits: Limits | None = None,
    ) -> None:
        self._source = source
        self.reader = EventReader(format=format, strict=strict, limits=limits)
        self._iterator: AsyncIterator[Indexed] | None = None

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What was reported while reading so far."""
        return self.reader.diagnostics

    @property
    def format(self) -> Format:
        """The detected format (``"auto"`` before the first non-blank line is read)."""
        return self.reader.format

    async def __aiter__(self) -> AsyncIterator[Event]:
        async for _, event in self.indexed():
            yield event

    def indexed(self) -> AsyncIterator[Indexed]:
        """The events with their indices (see :class:`EventReader`)."""
        if self._iterator is None:
            self._iterator = self._events()
        return self._iterator

    async def _events(self) -> AsyncIterator[Indexed]:
        source = self._source
        reader = self.reader
        if hasattr(source, "aiter_bytes"):
            source = source.aiter_bytes()
        if not isinstance(source, AsyncIterable):
            raise TypeError(
                f"aread_events() needs an async iterable or a response with aiter_bytes(), "
                f"not a {type(source).__name__}; use read_events() for sync sources"
            )
        async for item in source:
            if reader.stopped:
                break
            if isinstance(item, (bytes, bytearray, memoryview)):
                events = reader.feed_bytes(bytes(item))
            elif isinstance(item, str):
                events = reader.feed_line(item)
            else:
                events = reader.feed_item(item)
            for pair in events:
                yield pair
        for pair in reader.close():
            yield pair


def aread_events(
    source: Any, *, format: Format = "auto", strict: bool = False, limits: Limits | None = None
) -> AsyncEventStream:
    """Read canonical events from an async source, as they arrive.

    ``source`` is an async iterable of ``bytes`` chunks (``response.aiter_bytes()``),
    of ``str`` lines (``response.aiter_lines()``), or of event objects; or an HTTP
    response with ``aiter_bytes()``.
    """
    return AsyncEventStream(source, format=format, strict=strict, limits=limits)
