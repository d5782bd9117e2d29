"""Stages 1-3 over one stream: intake, chunk expansion and verification, sharing one sink.

:class:`ProtocolPipeline` is the front half of the fold. It turns input items into the
explicit, verified events the reducer applies, and collects every diagnostic in stream
order. :func:`check` runs it over a whole source and returns the diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterable

from .chunks import ChunkNormalizer
from .diagnostics import Diagnostic, DiagnosticSink
from .events import Event, EventIntake
from .readers import EventStream, Source, read_events
from .verify import Verifier

__all__ = ["ProtocolPipeline", "check"]


class ProtocolPipeline:
    """Intake, chunk expansion and verification for one stream (sans-I/O)."""

    __slots__ = ("chunks", "intake", "sink", "verifier")

    def __init__(self, *, strict: bool = False, sink: DiagnosticSink | None = None) -> None:
        self.sink = sink if sink is not None else DiagnosticSink(strict=strict)
        self.intake = EventIntake(self.sink)
        self.chunks = ChunkNormalizer(self.sink)
        self.verifier = Verifier(self.sink)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Everything reported so far, in stream order."""
        return self.sink.diagnostics

    def feed(self, item: object) -> list[Event]:
        """Feed one input item in any accepted form; return the explicit events."""
        index = self.intake.count
        event = self.intake.normalize(item)
        if event is None:
            return []
        return self.feed_canonical(event, index)

    def feed_canonical(self, event: Event, index: int | None = None) -> list[Event]:
        """Feed an event already in canonical form (from :func:`read_events`)."""
        explicit = self.chunks.feed(event, index=index)
        verifier = self.verifier
        for item in explicit:
            verifier.feed(item, index=index)
        return explicit

    def close_streams(self) -> list[Event]:
        """End of input, part one: the ENDs owed to open chunk streams, verified."""
        explicit = self.chunks.close()
        for item in explicit:
            self.verifier.feed(item)
        return explicit

    def close(self) -> list[Event]:
        """End of input: the owed ENDs, then the truncation check."""
        explicit = self.close_streams()
        self.verifier.close()
        return explicit


def check(
    source: Source | EventStream | Iterable[object], *, strict: bool = False
) -> list[Diagnostic]:
    """Every diagnostic of a stream: decoding, chunk expansion and the stream rules.

    ``source`` is anything :func:`read_events` reads (a path, bytes, text, a file, an
    iterable of events...). With ``strict=True`` the first error-level violation raises
    :class:`~agui_transcripts.ProtocolError` instead.
    """
    stream = source if isinstance(source, EventStream) else read_events(source, strict=strict)
    stream.reader.sink.strict = strict
    pipeline = ProtocolPipeline(sink=stream.reader.sink)
    pipeline.intake = stream.reader.intake
    for index, event in stream.indexed():
        pipeline.feed_canonical(event, index)
    pipeline.close()
    stream.reader.sink.finish()
    return pipeline.diagnostics
