"""agui-transcripts: AG-UI event streams in, evaluation-ready transcripts out.

The public API is re-exported here. Importing this package imports no evaluation or
HTTP framework: adapters load theirs when called.
"""

from __future__ import annotations

from .async_readers import AsyncEventStream, aread_events
from .chunks import ChunkNormalizer, normalize_all
from .client_tools import ClientTool, ClientTools, ToolOutcome
from .collector import Collector, afold, fold
from .conversation import Conversation, ConversationError
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
from .endpoint import EndpointError, TransportError, arun_endpoint, run_endpoint
from .events import EVENT_TYPES, Event, EventIntake, normalize_event, normalize_run_input
from .harness import (
    ConversationResult,
    Expectation,
    Scenario,
    ScriptedUser,
    arun_conversation,
    run_conversation,
)
from .html import render_html
from .interrupts import InterruptAnswer, PayloadError, approve_all, deny_all
from .limits import DEFAULT_LIMITS, UNLIMITED, Limits
from .model import (
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    ItemTimes,
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
from .scenario_runs import (
    DatasetRun,
    ScenarioError,
    ScenarioRecord,
    arun_dataset,
    read_scenarios,
    run_dataset,
)
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
    "ClientTool",
    "ClientTools",
    "Collector",
    "Continuation",
    "Conversation",
    "ConversationError",
    "ConversationResult",
    "DatasetRun",
    "DeveloperMessage",
    "Diagnostic",
    "DiagnosticSink",
    "EndpointError",
    "Event",
    "EventDecodeError",
    "EventIntake",
    "EventReader",
    "EventStream",
    "Expectation",
    "InterruptAnswer",
    "ItemTimes",
    "LimitExceeded",
    "Limits",
    "Message",
    "PayloadError",
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
    "Scenario",
    "ScenarioError",
    "ScenarioRecord",
    "ScriptedUser",
    "Severity",
    "SourceMessage",
    "SystemMessage",
    "TextPart",
    "ToolCall",
    "ToolCallPart",
    "ToolCallRecord",
    "ToolMessage",
    "ToolOutcome",
    "ToolResult",
    "ToolResultPart",
    "Transcript",
    "TransportError",
    "UserMessage",
    "Verifier",
    "__version__",
    "afold",
    "approve_all",
    "aread_events",
    "arun_conversation",
    "arun_dataset",
    "arun_endpoint",
    "check",
    "deny_all",
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
    "read_scenarios",
    "render_html",
    "run_conversation",
    "run_dataset",
    "run_endpoint",
    "run_input_path",
]


def _restore_compiled_docs() -> None:
    """The compiled wheel's record of what mypyc stripped (see ``_docs``); pure: none."""
    from importlib import import_module

    from ._docs import restore

    try:
        record = import_module("._compiled_docs", __name__)
    except ImportError:
        return
    restore(globals(), record.RECORDS)


_restore_compiled_docs()
