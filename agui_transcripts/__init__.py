"""agui-transcripts: AG-UI event streams in, evaluation-ready transcripts out.

The public API is re-exported here. Importing this package imports no evaluation or
HTTP framework: adapters load theirs when called.
"""

from __future__ import annotations

from .diagnostics import RULES, Diagnostic, EventDecodeError, ProtocolError, Rule, Severity
from .events import EVENT_TYPES, Event, EventIntake, normalize_event
from .readers import AsyncEventStream, EventReader, EventStream, aread_events, read_events
from .sse import SSEDecoder, SSEEvent

__version__ = "0.1.0.dev0"

__all__ = [
    "EVENT_TYPES",
    "RULES",
    "AsyncEventStream",
    "Diagnostic",
    "Event",
    "EventDecodeError",
    "EventIntake",
    "EventReader",
    "EventStream",
    "ProtocolError",
    "Rule",
    "SSEDecoder",
    "SSEEvent",
    "Severity",
    "__version__",
    "aread_events",
    "normalize_event",
    "read_events",
]
