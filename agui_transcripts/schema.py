"""The AG-UI 1.0 event types and their top-level fields: the one table of event shapes.

From the protocol's 1.0 JSON schema. Intake (:mod:`.events`) reads which fields each
type may carry (to tell an absent field from a null one); verification (:mod:`.verify`)
reads what kind of JSON value each must hold (rule V19). A new event type, or a new
field, is one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["COMMON", "EVENTS", "EventShape", "Field", "FieldKind", "field_names"]

FieldKind = Literal["string", "object", "array", "boolean", "number", "string|array", "data"]
"""The JSON kind a field holds; ``data`` is the producer's own value, of any kind."""


@dataclass(frozen=True, slots=True)
class Field:
    """One top-level field of an event type."""

    name: str
    kind: FieldKind
    required: bool = False


@dataclass(frozen=True, slots=True)
class EventShape:
    """An event type's own fields, in the order verification reports them.

    ``attributed``: the type may carry ``subagentRunId`` (the subagent lane it belongs
    to); the run and subagent lifecycle events and ``MESSAGES_SNAPSHOT`` may not.
    """

    fields: tuple[Field, ...]
    attributed: bool = True


#: The optional fields every event type has, before its own.
COMMON: Final = (
    Field("timestamp", "number"),
    Field("rawEvent", "data"),
    Field("metadata", "object"),
)

_MESSAGE_ID = Field("messageId", "string", True)
_CALL_ID = Field("toolCallId", "string", True)
_DELTA = Field("delta", "string", True)
_SUBAGENT = Field("subagentRunId", "string", True)

#: Every AG-UI 1.0 event type with its own fields.
EVENTS: Final[dict[str, EventShape]] = {
    "TEXT_MESSAGE_START": EventShape(
        (_MESSAGE_ID, Field("role", "string"), Field("name", "string"))
    ),
    "TEXT_MESSAGE_CONTENT": EventShape((_MESSAGE_ID, _DELTA)),
    "TEXT_MESSAGE_END": EventShape((_MESSAGE_ID,)),
    "TEXT_MESSAGE_CHUNK": EventShape(
        (
            Field("messageId", "string"),
            Field("role", "string"),
            Field("delta", "string"),
            Field("name", "string"),
        )
    ),
    "TOOL_CALL_START": EventShape(
        (_CALL_ID, Field("toolCallName", "string", True), Field("parentMessageId", "string"))
    ),
    "TOOL_CALL_ARGS": EventShape((_CALL_ID, _DELTA)),
    "TOOL_CALL_END": EventShape((_CALL_ID,)),
    "TOOL_CALL_CHUNK": EventShape(
        (
            Field("toolCallId", "string"),
            Field("toolCallName", "string"),
            Field("parentMessageId", "string"),
            Field("delta", "string"),
        )
    ),
    "TOOL_CALL_RESULT": EventShape(
        (
            _MESSAGE_ID,
            _CALL_ID,
            Field("content", "string|array", True),
            Field("role", "string"),
        )
    ),
    "STATE_SNAPSHOT": EventShape((Field("snapshot", "data", True),)),
    "STATE_DELTA": EventShape((Field("delta", "array", True),)),
    "MESSAGES_SNAPSHOT": EventShape((Field("messages", "array", True),), attributed=False),
    "ACTIVITY_SNAPSHOT": EventShape(
        (
            _MESSAGE_ID,
            Field("activityType", "string", True),
            Field("content", "object", True),
            Field("replace", "boolean"),
        )
    ),
    "ACTIVITY_DELTA": EventShape(
        (_MESSAGE_ID, Field("activityType", "string", True), Field("patch", "array", True))
    ),
    "RAW": EventShape((Field("event", "data", True), Field("source", "string"))),
    "CUSTOM": EventShape((Field("name", "string", True), Field("value", "data", True))),
    "RUN_STARTED": EventShape(
        (
            Field("threadId", "string", True),
            Field("runId", "string", True),
            Field("parentRunId", "string"),
            Field("protocolVersion", "string"),
            Field("input", "object"),
        ),
        attributed=False,
    ),
    "RUN_FINISHED": EventShape(
        (
            Field("threadId", "string", True),
            Field("runId", "string", True),
            Field("result", "data"),
            Field("outcome", "object"),
            Field("usage", "array"),  # TokenUsage objects, one per model (AG-UI 1.0)
        ),
        attributed=False,
    ),
    "RUN_ERROR": EventShape(
        (Field("message", "string", True), Field("code", "string"), Field("usage", "array")),
        attributed=False,
    ),
    "STEP_STARTED": EventShape((Field("stepName", "string", True),)),
    "STEP_FINISHED": EventShape((Field("stepName", "string", True),)),
    "REASONING_START": EventShape((_MESSAGE_ID,)),
    "REASONING_MESSAGE_START": EventShape((_MESSAGE_ID, Field("role", "string"))),
    "REASONING_MESSAGE_CONTENT": EventShape((_MESSAGE_ID, _DELTA)),
    "REASONING_MESSAGE_END": EventShape((_MESSAGE_ID,)),
    "REASONING_MESSAGE_CHUNK": EventShape((Field("messageId", "string"), Field("delta", "string"))),
    "REASONING_END": EventShape((_MESSAGE_ID,)),
    "REASONING_ENCRYPTED_VALUE": EventShape(
        (
            Field("subtype", "string", True),
            Field("entityId", "string", True),
            Field("encryptedValue", "string", True),
            Field("encryptedValueType", "string"),
        )
    ),
    "SUBAGENT_STARTED": EventShape(
        (
            _SUBAGENT,
            Field("name", "string", True),
            Field("description", "string"),
            Field("parentSubagentRunId", "string"),
            Field("parentToolCallId", "string"),
            Field("parentMessageId", "string"),
        ),
        attributed=False,
    ),
    "SUBAGENT_FINISHED": EventShape(
        (_SUBAGENT, Field("result", "data"), Field("outcome", "object")), attributed=False
    ),
    "SUBAGENT_ERROR": EventShape(
        (_SUBAGENT, Field("message", "string", True), Field("code", "string")), attributed=False
    ),
}


def field_names() -> frozenset[str]:
    """Every top-level field name of every type (with the common ones and ``subagentRunId``)."""
    names = {field.name for field in COMMON} | {"subagentRunId"}
    for shape in EVENTS.values():
        names.update(field.name for field in shape.fields)
    return frozenset(names)
