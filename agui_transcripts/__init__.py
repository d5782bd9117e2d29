"""agui-transcripts: AG-UI event streams in, evaluation-ready transcripts out.

The public API is re-exported here. Importing this package imports no evaluation or
HTTP framework: adapters load theirs when called.
"""

from __future__ import annotations

from .async_readers import AsyncEventStream, aread_events
from .chunks import ChunkNormalizer, normalize_all
from .collector import Collector, afold, fold
from .diagnostics import (
    RULES,
    Diagnostic,
    DiagnosticSink,
    EventDecodeError,
    LimitExceeded,
    ProtocolError,
    Rule,
    Severity,
)
from .endpoint import EndpointError, arun_endpoint, run_endpoint
from .events import EVENT_TYPES, Event, EventIntake, normalize_event, normalize_run_input
from .html import render_html
from .limits import DEFAULT_LIMITS, UNLIMITED, Limits
from .model import (
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    RunRecord,
    SystemMessage,
    ToolCall,
    ToolCallRecord,
    ToolMessage,
    ToolResult,
    UserMessage,
)
from .ownership import Continuation
from .pipeline import ProtocolPipeline, check
from .projection import (
    Projection,
    ProjectionError,
    ReasoningPart,
    SourceMessage,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    is_synthetic,
    messages_from_parts,
)
from .readers import EventReader, EventStream, read_events
from .recording import RunInputError, read_run_input, run_input_path
from .sse import SSEDecoder, SSEEvent
from .transcript import Transcript
from .verify import Verifier
from .wire import message_from_dict, messages_from_dicts

__version__ = "0.1.0.dev0"

__all__ = [
    "DEFAULT_LIMITS",
    "EVENT_TYPES",
    "RULES",
    "UNLIMITED",
    "ActivityMessage",
    "AssistantMessage",
    "AsyncEventStream",
    "ChunkNormalizer",
    "Collector",
    "Continuation",
    "DeveloperMessage",
    "Diagnostic",
    "DiagnosticSink",
    "EndpointError",
    "Event",
    "EventDecodeError",
    "EventIntake",
    "EventReader",
    "EventStream",
    "LimitExceeded",
    "Limits",
    "Message",
    "Projection",
    "ProjectionError",
    "ProtocolError",
    "ProtocolPipeline",
    "ReasoningMessage",
    "ReasoningPart",
    "Rule",
    "RunInputError",
    "RunRecord",
    "SSEDecoder",
    "SSEEvent",
    "Severity",
    "SourceMessage",
    "SystemMessage",
    "TextPart",
    "ToolCall",
    "ToolCallPart",
    "ToolCallRecord",
    "ToolMessage",
    "ToolResult",
    "ToolResultPart",
    "Transcript",
    "UserMessage",
    "Verifier",
    "__version__",
    "afold",
    "aread_events",
    "arun_endpoint",
    "check",
    "fold",
    "is_synthetic",
    "message_from_dict",
    "messages_from_dicts",
    "messages_from_parts",
    "normalize_all",
    "normalize_event",
    "normalize_run_input",
    "read_events",
    "read_run_input",
    "render_html",
    "run_endpoint",
    "run_input_path",
]
