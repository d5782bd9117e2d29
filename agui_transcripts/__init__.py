"""agui-transcripts: AG-UI event streams in, evaluation-ready transcripts out.

The public API is re-exported here. Importing this package imports no evaluation or
HTTP framework: adapters load theirs when called.
"""

from __future__ import annotations

from .chunks import ChunkNormalizer, normalize_all
from .diagnostics import (
    RULES,
    Diagnostic,
    DiagnosticSink,
    EventDecodeError,
    ProtocolError,
    Rule,
    Severity,
)
from .events import EVENT_TYPES, Event, EventIntake, normalize_event
from .pipeline import ProtocolPipeline, check
from .readers import AsyncEventStream, EventReader, EventStream, aread_events, read_events
from .sse import SSEDecoder, SSEEvent
from .verify import Verifier

__version__ = "0.1.0.dev0"

__all__ = [
    "EVENT_TYPES",
    "RULES",
    "AsyncEventStream",
    "ChunkNormalizer",
    "Diagnostic",
    "DiagnosticSink",
    "Event",
    "EventDecodeError",
    "EventIntake",
    "EventReader",
    "EventStream",
    "ProtocolError",
    "ProtocolPipeline",
    "Rule",
    "SSEDecoder",
    "SSEEvent",
    "Severity",
    "Verifier",
    "__version__",
    "aread_events",
    "check",
    "normalize_all",
    "normalize_event",
    "read_events",
]
