"""The AG-UI 1.0 event types, their top-level fields, and the other spellings of those fields.

From the protocol's 1.0 JSON schema. Intake (:mod:`.events`) reads which fields each
type may carry (to tell an absent field from a null one) and which other names producers
send them under; verification (:mod:`.verify`) reads what kind of JSON value each must
hold (rule V19). A new event type, a new field or a new spelling is one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "CAMEL_FIELDS",
    "CANONICAL_KEYS",
    "COMMON",
    "DELTA_ID_KEYS",
    "EVENTS",
    "FIELD_ALIASES",
    "EventShape",
    "Field",
    "FieldAlias",
    "FieldKind",
    "field_names",
    "snake_case",
]

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


# -- other spellings -------------------------------------------------------------------

#: Every camelCase field name of AG-UI 1.0 events and of the structures they carry (run
#: input, messages, outcomes, interrupts, usage, content parts): the names whose Python
#: SDK attribute spelling (snake_case) is read as the wire name, at any depth.
CAMEL_FIELDS: Final = frozenset(
    {
        "threadId",
        "runId",
        "parentRunId",
        "protocolVersion",
        "messageId",
        "toolCallId",
        "toolCallName",
        "parentMessageId",
        "subagentRunId",
        "parentSubagentRunId",
        "parentToolCallId",
        "rawEvent",
        "activityType",
        "encryptedValue",
        "encryptedValueType",
        "entityId",
        "stepName",
        "pendingToolCallIds",
        "interruptIds",
        "interruptId",
        "responseSchema",
        "expiresAt",
        "toolCalls",
        "forwardedProps",
        "mimeType",
        "inputTokens",
        "outputTokens",
        "totalTokens",
        "reasoningTokens",
        "cachedInputTokens",
        "cacheWriteInputTokens",
    }
)

#: Every key an AG-UI 1.0 event defines at its top level (a flat event's whole set);
#: others are a recorder's or producer's own.
CANONICAL_KEYS: Final = frozenset({"type"} | field_names() | CAMEL_FIELDS)

DELTA_ID_KEYS: Final = {
    "TEXT_MESSAGE_CONTENT": "messageId",
    "REASONING_MESSAGE_CONTENT": "messageId",
    "TOOL_CALL_ARGS": "toolCallId",
}
"""The delta events the delta lane takes, with the key naming the item each extends."""


def snake_case(name: str) -> str:
    """The Python SDK's attribute name for a wire field (``toolCallId`` -> ``tool_call_id``)."""
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


@dataclass(frozen=True, slots=True)
class FieldAlias:
    """Another name a producer sends a field under, read as the field.

    ``types``: the event types it applies to (None: every type, and nested structures).
    ``strict``: whether strict mode reads it too; a spelling the reference client would
    reject (a producer's own field name) is recovered in lenient mode only, where it is
    reported with ``code``. ``source``: where the spelling comes from.
    """

    alias: str
    field: str
    source: str
    types: frozenset[str] | None = None
    strict: bool = True
    code: str | None = None


#: Every other spelling the intake reads, one row each. The snake_case rows are the
#: Python SDK's attribute names (its models accept and dump both spellings); the rest
#: were seen in real producers' streams. The SDK's release history renamed no event
#: field: its only other names are the pre-1.0 subagent ones (P7).
FIELD_ALIASES: Final[tuple[FieldAlias, ...]] = (
    *(
        FieldAlias(snake_case(name), name, "the Python SDK's attribute name")
        for name in sorted(CAMEL_FIELDS)
    ),
    FieldAlias(
        "subagentId",
        "subagentRunId",
        "pre-1.0 TypeScript development name (P7)",
        code="legacy-field-alias",
    ),
    FieldAlias(
        "subagent_id",
        "subagentRunId",
        "pre-1.0 TypeScript development name (P7)",
        code="legacy-field-alias",
    ),
    FieldAlias(
        "parentSubagentId",
        "parentSubagentRunId",
        "pre-1.0 TypeScript development name (P7)",
        code="legacy-field-alias",
    ),
    FieldAlias(
        "parent_subagent_id",
        "parentSubagentRunId",
        "pre-1.0 TypeScript development name (P7)",
        code="legacy-field-alias",
    ),
    FieldAlias(
        "result",
        "content",
        "hand-written producers and encoders that name the tool output after the event",
        types=frozenset({"TOOL_CALL_RESULT"}),
        strict=False,
        code="field-alias",
    ),
)
