"""The message model: AG-UI 1.0 messages, tool calls, runs and tool-call records.

Messages are this library's own classes, not ``ag_ui.core`` models, so the full AG-UI
1.0 transcript is available whichever ag-ui-protocol version is installed (design
decision 1). Each serialises with :meth:`Message.to_dict` to the AG-UI wire form
(camelCase keys, optional fields omitted), which validates as an ``ag_ui.core`` 1.0
``Message``.

Text arrives as many small deltas; messages keep them in a list and join once when the
content is read, so folding stays linear however long a message grows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Final, Literal, Protocol, TypeVar, cast

from ._codec import has_surrogate, loads

__all__ = [
    "MILLISECONDS_BELOW",
    "MILLISECONDS_FROM",
    "MILLISECOND_INTEGERS",
    "SYNTHETIC_KEY",
    "ActivityMessage",
    "AssistantMessage",
    "DeveloperMessage",
    "ItemTimes",
    "Message",
    "ReasoningMessage",
    "RunOutcome",
    "RunRecord",
    "SystemMessage",
    "TextMessage",
    "TextSegment",
    "ToolCall",
    "ToolCallRecord",
    "ToolMessage",
    "ToolResult",
    "TranscriptData",
    "UserMessage",
    "content_is_unfit",
    "epoch_ms",
    "is_synthetic",
]

JSONObject = dict[str, Any]
ContentPart = dict[str, Any]


class _Text:
    """Text built from deltas: appended in O(1), joined once when read.

    Its list of pieces stays the same object for the text's whole life (joining and
    replacing happen in place), so the function :attr:`appender` hands out stays valid.
    """

    __slots__ = ("_chunks",)

    def __init__(self, text: str = "") -> None:
        self._chunks: list[str] = [text] if text else []

    def append(self, delta: str) -> None:
        self._chunks.append(delta)

    @property
    def appender(self) -> Callable[[str], None]:
        """A function that appends a delta (see the class docstring)."""
        return self._chunks.append

    def replace(self, text: str) -> None:
        self._chunks[:] = [text] if text else []

    @property
    def text(self) -> str:
        chunks = self._chunks
        if len(chunks) == 1:
            return chunks[0]
        joined = "".join(chunks)
        if has_surrogate(joined):
            # Halves of one character cut between deltas (UTF-16 slicing by JavaScript
            # producers) become that character, as the reference client's strings hold it.
            joined = joined.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
        chunks[:] = [joined] if joined else []
        return joined

    def __bool__(self) -> bool:
        return any(self._chunks)


def _merge_metadata(current: JSONObject | None, incoming: object) -> JSONObject | None:
    """Shallow, last write wins per key (rule A15); arrays are replaced, not merged."""
    if not isinstance(incoming, dict):
        return current
    if current is None:
        return dict(incoming)
    current.update(incoming)
    return current


def _attribute_names(cls: type) -> tuple[str, ...]:
    """Every instance attribute of ``cls``, for pickling and copying.

    Interpreted, those are the slots along the class's MRO; the compiled build keeps no
    ``__slots__`` and lists the attributes in ``__mypyc_attrs__`` instead (with class
    attributes such as ``__hash__``, which are left out).
    """
    names = _ATTRIBUTE_NAMES.get(cls)
    if names is None:
        listed = cls.__dict__.get("__mypyc_attrs__")
        if listed is None:
            listed = [
                name
                for klass in reversed(cls.__mro__)
                for name in klass.__dict__.get("__slots__", ())
            ]
        names = tuple(name for name in listed if not name.startswith("__"))
        _ATTRIBUTE_NAMES[cls] = names
    return names


_ATTRIBUTE_NAMES: Final[dict[type, tuple[str, ...]]] = {}


def _state(obj: object) -> dict[str, Any]:
    state = {name: getattr(obj, name) for name in _attribute_names(type(obj))}
    extra = getattr(obj, "__dict__", None)  # an interpreted subclass's own attributes
    if extra:
        state.update(extra)
    return state


class ToolCall:
    """One call in an assistant message: ``{id, type: "function", function: {name, arguments}}``.

    ``arguments`` is the raw text exactly as streamed, even when it is not JSON (A4).
    """

    __slots__ = (
        "_arguments",
        "encrypted_value",
        "encrypted_value_type",
        "id",
        "metadata",
        "name",
        "seq",
    )

    def __init__(
        self,
        id: str,
        name: str,
        arguments: str = "",
        *,
        encrypted_value: str | None = None,
        metadata: JSONObject | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self._arguments = _Text(arguments)
        self.encrypted_value = encrypted_value
        self.encrypted_value_type: str | None = None
        self.metadata = metadata
        #: Index of the event that declared this occurrence (-1: from history).
        self.seq = -1

    @property
    def arguments(self) -> str:
        """The raw argument text."""
        return self._arguments.text

    @arguments.setter
    def arguments(self, value: str) -> None:
        self._arguments.replace(value)

    def append_arguments(self, delta: str) -> None:
        """Append one streamed argument delta."""
        self._arguments.append(delta)

    def arguments_appender(self) -> Callable[[str], None]:
        """A function that appends argument deltas, valid for the call's life."""
        return self._arguments.appender

    def merge_metadata(self, incoming: object) -> None:
        """Merge event metadata into the call (A15)."""
        self.metadata = _merge_metadata(self.metadata, incoming)

    def to_dict(self) -> JSONObject:
        """The AG-UI wire form."""
        out: JSONObject = {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }
        if self.encrypted_value is not None:
            out["encryptedValue"] = self.encrypted_value
        if self.encrypted_value_type is not None:
            out["encryptedValueType"] = self.encrypted_value_type
        if self.metadata is not None:
            out["metadata"] = self.metadata
        return out

    def __repr__(self) -> str:
        return f"ToolCall(id={self.id!r}, name={self.name!r}, arguments={self.arguments!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Explicit, so that the compiled class (whose constructor always runs) pickles
        # and deep-copies as the interpreted one does.
        return (type(self), (self.id, self.name), _state(self))

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)


class Message:
    """Fields every AG-UI 1.0 message has; subclasses add their role's own."""

    __slots__ = (
        "encrypted_value",
        "encrypted_value_type",
        "extra",
        "id",
        "metadata",
        "name",
        "rank",
        "raw_content",
        "seq",
        "subagent_run_id",
    )
    role: ClassVar[str]

    def __init__(
        self,
        id: str,
        *,
        name: str | None = None,
        subagent_run_id: str | None = None,
        metadata: JSONObject | None = None,
        encrypted_value: str | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.subagent_run_id = subagent_run_id
        self.metadata = metadata
        self.encrypted_value = encrypted_value
        self.encrypted_value_type: str | None = None
        #: Fields the message arrived with that AG-UI 1.0 does not define.
        self.extra: JSONObject = {}
        #: The content as it arrived when it was neither text nor content parts (an
        #: object, a number): :meth:`to_dict` gives it back, as the reference client
        #: keeps it; ``content`` holds its JSON text, which is what adapters read.
        self.raw_content: Any = None
        #: Index of the event that created the message (-1 for seeded history).
        self.seq = -1
        #: Its place among the messages that one event brought together (a snapshot's or
        #: a run input's order): what orders messages of the same ``seq``.
        self.rank = 0

    def merge_metadata(self, incoming: object) -> None:
        """Merge event metadata into the message (A15)."""
        self.metadata = _merge_metadata(self.metadata, incoming)

    @property
    def text(self) -> str:
        """The message's text ("" for messages without any)."""
        return ""

    def _head(self) -> JSONObject:
        return {"id": self.id, "role": self.role}

    def _tail(self, out: JSONObject) -> JSONObject:
        if self.name is not None:
            out["name"] = self.name
        if self.encrypted_value is not None:
            out["encryptedValue"] = self.encrypted_value
        if self.encrypted_value_type is not None:
            out["encryptedValueType"] = self.encrypted_value_type
        if self.metadata is not None:
            out["metadata"] = self.metadata
        if self.subagent_run_id is not None:
            out["subagentRunId"] = self.subagent_run_id
        return out

    def to_dict(self) -> JSONObject:
        """The AG-UI wire form: camelCase keys, absent fields omitted."""
        return self._tail(self._head())

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "role")
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Message)
            and type(other) is type(self)
            and self.to_dict() == other.to_dict()
        )

    __hash__ = None  # type: ignore[assignment]

    def _constructor_args(self) -> tuple[Any, ...]:
        """The positional arguments the class's constructor requires."""
        return (self.id,)

    def __reduce__(self) -> tuple[Any, ...]:
        # See ToolCall.__reduce__.
        return (type(self), self._constructor_args(), _state(self))

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)


class TextMessage(Message):
    """A message whose content is text built from deltas, or a list of content parts."""

    __slots__ = ("_content", "_parts")

    def __init__(
        self,
        id: str,
        content: str | list[ContentPart] = "",
        *,
        name: str | None = None,
        subagent_run_id: str | None = None,
        metadata: JSONObject | None = None,
        encrypted_value: str | None = None,
    ) -> None:
        super().__init__(
            id,
            name=name,
            subagent_run_id=subagent_run_id,
            metadata=metadata,
            encrypted_value=encrypted_value,
        )
        self._parts: list[ContentPart] | None = None
        self._content = _Text()
        self.content = content

    @property
    def content(self) -> str | list[ContentPart]:
        """The text, or the list of content parts the message was sent with."""
        return self._parts if self._parts is not None else self._content.text

    @content.setter
    def content(self, value: str | list[ContentPart]) -> None:
        self.raw_content = None
        if isinstance(value, list):
            self._parts = value
            self._content = _Text()
        else:
            self._parts = None
            self._content = _Text(value)

    @property
    def text(self) -> str:
        """The content as plain text (text parts joined with newlines)."""
        if self._parts is None:
            return self._content.text
        return "\n".join(str(p.get("text", "")) for p in self._parts if p.get("type") == "text")

    def append(self, delta: str) -> None:
        """Append a streamed delta (content parts become plain text first, as in TS)."""
        if self._parts is not None:
            self._parts = None
        self.raw_content = None
        self._content.append(delta)

    def holds_parts(self) -> bool:
        """Whether the content is a list of parts (which a delta turns into text)."""
        return self._parts is not None

    def to_dict(self) -> JSONObject:
        out = self._head()
        out["content"] = self.content if self.raw_content is None else self.raw_content
        return self._tail(out)


class DeveloperMessage(TextMessage):
    """A developer instruction."""

    __slots__ = ()
    role = "developer"


class SystemMessage(TextMessage):
    """A system prompt."""

    __slots__ = ()
    role = "system"


class UserMessage(TextMessage):
    """A user turn: text, or a list of content parts (text, image, audio, video, document)."""

    __slots__ = ()
    role = "user"


class ReasoningMessage(TextMessage):
    """Reasoning the agent made visible; ``encrypted_value`` holds the opaque form (A8)."""

    __slots__ = ()
    role = "reasoning"


@dataclass(slots=True, init=False)
class TextSegment:
    """A stretch of an assistant message's text, in arrival order among its tool calls.

    The reducer joins all segments into ``content`` as the reference client does; the
    projection uses the segments to keep text that arrived after a tool result after it.
    """

    #: Index of the event that started it (-1: from history).
    seq: int
    #: The reducer's stretch count when it started: deltas join the last segment only
    #: while no result, run or restated history came between.
    stretch: int
    _text: _Text = field(default_factory=_Text)

    def __init__(self, seq: int, stretch: int, _text: _Text | None = None) -> None:
        # Written out for the compiled build (see before _shallow_copy).
        self.seq = seq
        self.stretch = stretch
        self._text = _Text() if _text is None else _text

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)

    @property
    def text(self) -> str:
        """The segment's text."""
        return self._text.text

    def appender(self) -> Callable[[str], None]:
        """A function that appends deltas to this segment, valid for its life."""
        return self._text.appender

    def copy(self) -> TextSegment:
        """A segment with the same text and arrival."""
        copy = TextSegment(seq=self.seq, stretch=self.stretch)
        copy._text.append(self.text)
        return copy


class AssistantMessage(Message):
    """An assistant turn: optional text and optional tool calls.

    ``content`` is None when the message never had text (a message created by a tool
    call, A3); ``tool_calls`` is None when it never had calls. ``segments`` keeps the
    text stretches and calls in the order they arrived.
    """

    __slots__ = ("_has_content", "segments", "tool_calls")
    role = "assistant"

    def __init__(
        self,
        id: str,
        content: str | None = None,
        tool_calls: list[ToolCall] | None = None,
        *,
        name: str | None = None,
        subagent_run_id: str | None = None,
        metadata: JSONObject | None = None,
        encrypted_value: str | None = None,
    ) -> None:
        super().__init__(
            id,
            name=name,
            subagent_run_id=subagent_run_id,
            metadata=metadata,
            encrypted_value=encrypted_value,
        )
        self.tool_calls = tool_calls
        self.segments: list[TextSegment | ToolCall] = list(tool_calls or ())
        self._has_content = content is not None
        if content:
            segment = TextSegment(seq=-1, stretch=-1)
            segment._text.append(content)
            self.segments.insert(0, segment)

    @property
    def content(self) -> str | None:
        """The text of all segments joined, or None if the message never had text."""
        if not self._has_content:
            return None
        return "".join(s.text for s in self.segments if isinstance(s, TextSegment))

    @content.setter
    def content(self, value: str | None) -> None:
        self.raw_content = None
        self.segments = [s for s in self.segments if not isinstance(s, TextSegment)]
        self._has_content = value is not None
        if value:
            segment = TextSegment(seq=-1, stretch=-1)
            segment._text.append(value)
            self.segments.insert(0, segment)

    @property
    def text(self) -> str:
        """The content, or "" when there is none."""
        return self.content or ""

    def open_text(self) -> None:
        """Mark the message as having (possibly empty) text content."""
        self._has_content = True

    def append(self, delta: str, *, seq: int = -1, stretch: int = -1) -> None:
        """Append streamed text, starting a new segment after a call or a result."""
        self._has_content = True
        self.raw_content = None
        last = self.segments[-1] if self.segments else None
        if isinstance(last, TextSegment) and last.stretch == stretch:
            last._text.append(delta)
            return
        segment = TextSegment(seq=seq, stretch=stretch)
        segment._text.append(delta)
        self.segments.append(segment)

    def add_tool_call(self, call: ToolCall) -> None:
        """Attach a call (A3)."""
        if self.tool_calls is None:
            self.tool_calls = []
        self.tool_calls.append(call)
        self.segments.append(call)

    def to_dict(self) -> JSONObject:
        out = self._head()
        content = self.content if self.raw_content is None else self.raw_content
        if content is not None:
            out["content"] = content
        if self.tool_calls is not None:
            out["toolCalls"] = [call.to_dict() for call in self.tool_calls]
        return self._tail(out)


class ToolMessage(TextMessage):
    """A tool result: text or content parts, optionally an ``error``."""

    __slots__ = ("error", "tool_call_id")
    role = "tool"

    def __init__(
        self,
        id: str,
        tool_call_id: str,
        content: str | list[ContentPart] = "",
        *,
        error: str | None = None,
        name: str | None = None,
        subagent_run_id: str | None = None,
        metadata: JSONObject | None = None,
        encrypted_value: str | None = None,
    ) -> None:
        super().__init__(
            id,
            content,
            name=name,
            subagent_run_id=subagent_run_id,
            metadata=metadata,
            encrypted_value=encrypted_value,
        )
        self.tool_call_id = tool_call_id
        self.error = error

    def _constructor_args(self) -> tuple[Any, ...]:
        return (self.id, self.tool_call_id)

    def to_dict(self) -> JSONObject:
        out = self._head()
        out["content"] = self.content if self.raw_content is None else self.raw_content
        out["toolCallId"] = self.tool_call_id
        if self.error is not None:
            out["error"] = self.error
        return self._tail(out)


class ActivityMessage(Message):
    """A frontend-only activity (A9, A10): a typed JSON object, never sent to the agent."""

    __slots__ = ("activity_type", "content")
    role = "activity"

    def __init__(
        self,
        id: str,
        activity_type: str,
        content: JSONObject,
        *,
        name: str | None = None,
        subagent_run_id: str | None = None,
        metadata: JSONObject | None = None,
        encrypted_value: str | None = None,
    ) -> None:
        super().__init__(
            id,
            name=name,
            subagent_run_id=subagent_run_id,
            metadata=metadata,
            encrypted_value=encrypted_value,
        )
        self.activity_type = activity_type
        self.content = content

    def _constructor_args(self) -> tuple[Any, ...]:
        return (self.id, self.activity_type, self.content)

    def to_dict(self) -> JSONObject:
        out = self._head()
        out["activityType"] = self.activity_type
        out["content"] = self.content
        if self.metadata is not None:
            out["metadata"] = self.metadata
        if self.subagent_run_id is not None:
            out["subagentRunId"] = self.subagent_run_id
        return out


MESSAGE_CLASSES: Final[dict[str, type[Message]]] = {
    cls.role: cls
    for cls in (
        DeveloperMessage,
        SystemMessage,
        UserMessage,
        AssistantMessage,
        ToolMessage,
        ReasoningMessage,
        ActivityMessage,
    )
}

RunOutcome = Literal["success", "interrupt", "cancelled", "error", "truncated"]


_Record = TypeVar("_Record")


# The dataclasses the fold makes per event (TextSegment, RunRecord, ToolResult,
# ToolCallRecord) write their __init__ out (init=False): compiled, a generated __init__
# stays interpreted and costs 5 to 10 times more. Each takes every field, in order, with
# the field's default (tests/test_model.py checks it), and says how it is rebuilt: the
# compiled class's __new__ runs that __init__.


def _shallow_copy(record: _Record) -> _Record:
    # Its class called with its fields, in order: several times cheaper than
    # dataclasses.replace. (Compiled, __new__ would run the written-out __init__.)
    cls = type(record)
    return cls(*[getattr(record, name) for name in _field_names(cls)])


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


_FIELD_NAMES: Final[dict[type, tuple[str, ...]]] = {}


def rebuilt_from_fields(value: Any) -> tuple[Any, ...]:
    """``__reduce__`` for a dataclass: its class called with its fields, in order.

    Compiled, the default way assigns to the instance, which a frozen dataclass refuses,
    or calls ``__new__``, which runs a written-out ``__init__`` without its arguments: each
    such class of a compiled module returns this instead.
    """
    cls = type(value)
    return (cls, tuple(getattr(value, name) for name in _field_names(cls)))


@dataclass(slots=True, eq=False, init=False)
class RunRecord:
    """One run of the stream: what started it and how it ended.

    ``outcome`` is None while the run is in progress; ``truncated`` when the input ended
    inside it (never reported as success, rule V20). ``announced`` is False for a run the
    stream never started with RUN_STARTED (events before the first one, or after a
    terminal event).
    """

    index: int
    thread_id: str | None = None
    run_id: str | None = None
    parent_run_id: str | None = None
    protocol_version: str | None = None
    announced: bool = True
    outcome: RunOutcome | None = None
    result: Any = None
    error_message: str | None = None
    error_code: str | None = None
    failed_late: bool = False
    interrupts: list[JSONObject] = field(default_factory=list)
    usage: Any = None
    pending_tool_call_ids: list[str] = field(default_factory=list)
    #: Whether the producer listed ``pendingToolCallIds`` itself (else they are derived, T3).
    pending_listed: bool = False
    #: The ``resume`` entries the run's input carried (answers to earlier interrupts).
    resume: list[JSONObject] = field(default_factory=list)
    #: Whether the run's input brought a new user, system or developer message.
    new_turn: bool = False
    #: Tools advertised by the client for this run (RunAgentInput.tools): client-owned.
    tools: list[JSONObject] | None = None
    #: The run input, when known (RUN_STARTED.input or the run_input given to fold).
    input: JSONObject | None = None
    first_event_index: int | None = None
    last_event_index: int | None = None
    #: The first and last event timestamps of the run, in milliseconds since the epoch
    #: (see :func:`epoch_ms`); None when none of its events carried one. For an open run,
    #: ``ended_at`` is the latest so far.
    started_at: float | None = None
    ended_at: float | None = None

    def __init__(
        self,
        index: int,
        thread_id: str | None = None,
        run_id: str | None = None,
        parent_run_id: str | None = None,
        protocol_version: str | None = None,
        announced: bool = True,
        outcome: RunOutcome | None = None,
        result: Any = None,
        error_message: str | None = None,
        error_code: str | None = None,
        failed_late: bool = False,
        interrupts: list[JSONObject] | None = None,
        usage: Any = None,
        pending_tool_call_ids: list[str] | None = None,
        pending_listed: bool = False,
        resume: list[JSONObject] | None = None,
        new_turn: bool = False,
        tools: list[JSONObject] | None = None,
        input: JSONObject | None = None,
        first_event_index: int | None = None,
        last_event_index: int | None = None,
        started_at: float | None = None,
        ended_at: float | None = None,
    ) -> None:
        # Written out for the compiled build (see before _shallow_copy).
        self.index = index
        self.thread_id = thread_id
        self.run_id = run_id
        self.parent_run_id = parent_run_id
        self.protocol_version = protocol_version
        self.announced = announced
        self.outcome = outcome
        self.result = result
        self.error_message = error_message
        self.error_code = error_code
        self.failed_late = failed_late
        self.interrupts = [] if interrupts is None else interrupts
        self.usage = usage
        self.pending_tool_call_ids = [] if pending_tool_call_ids is None else pending_tool_call_ids
        self.pending_listed = pending_listed
        self.resume = [] if resume is None else resume
        self.new_turn = new_turn
        self.tools = tools
        self.input = input
        self.first_event_index = first_event_index
        self.last_event_index = last_event_index
        self.started_at = started_at
        self.ended_at = ended_at

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)

    def copy(self) -> RunRecord:
        """A shallow copy (several times cheaper than ``dataclasses.replace``)."""
        return _shallow_copy(self)

    @property
    def duration_ms(self) -> float | None:
        """Milliseconds from the run's first timestamped event to its last (None: untimed)."""
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at

    @property
    def tool_names(self) -> frozenset[str]:
        """Names of the client tools advertised for this run."""
        return frozenset(
            t["name"]
            for t in self.tools or ()
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        )

    def to_dict(self) -> JSONObject:
        """A plain summary (outcome-centric), for logs and JSON output."""
        out: JSONObject = {
            "threadId": self.thread_id,
            "runId": self.run_id,
            "outcome": self.outcome,
        }
        if self.outcome in ("success", None) and self.pending_tool_call_ids:
            out["pendingToolCallIds"] = list(self.pending_tool_call_ids)
        if self.interrupts:
            out["interrupts"] = self.interrupts
        if self.error_message is not None:
            out["error"] = {"message": self.error_message, "code": self.error_code}
        if self.result is not None:
            out["result"] = self.result
        if self.usage is not None:
            out["usage"] = self.usage
        if self.started_at is not None:
            out["startedAt"] = self.started_at
            out["endedAt"] = self.ended_at
            out["durationMs"] = self.duration_ms
        return out


#: Below this, an event timestamp is read as seconds since the epoch (AG-UI's SDKs write
#: milliseconds; some producers write seconds): 1e11 ms is March 1973, 1e11 s year 5138.
_SECONDS_BELOW: Final = 1e11
MILLISECONDS_FROM: Final = int(_SECONDS_BELOW)
MILLISECONDS_BELOW: Final = 2**53
#: The integers that are milliseconds as they stand, and exact as floats: the form
#: AG-UI's SDKs write, which the fold's hot path tests for before calling epoch_ms.
MILLISECOND_INTEGERS: Final = range(MILLISECONDS_FROM, MILLISECONDS_BELOW)


def epoch_ms(timestamp: object) -> float | None:
    """An event's ``timestamp`` in milliseconds since the epoch, or None if it is not one.

    AG-UI types it as a number of milliseconds; a value that can only be seconds is
    scaled. Booleans, non-finite and negative numbers are not timestamps.
    """
    kind = type(timestamp)
    if kind is not int and kind is not float:
        return None  # bool is neither
    number = cast("int | float", timestamp)
    if kind is int and number in MILLISECOND_INTEGERS:
        return float(number)
    try:
        value = float(number)
    except OverflowError:  # an int past float's range
        return None
    if not 0 <= value < math.inf:
        return None
    return value * 1000 if value < _SECONDS_BELOW else value


@dataclass(slots=True, eq=False, init=False)
class ItemTimes:
    """When each message and tool call was streamed: its first and last event timestamps.

    Milliseconds since the epoch, ``[first, last]`` in event order, keyed by message id
    and by the id of the call's record. Only events with a timestamp count: an item
    nothing timed is absent, never given an invented time.
    """

    messages: dict[str, list[float]] = field(default_factory=dict)
    calls: dict[str, list[float]] = field(default_factory=dict)

    def __init__(
        self,
        messages: dict[str, list[float]] | None = None,
        calls: dict[str, list[float]] | None = None,
    ) -> None:
        self.messages = {} if messages is None else messages
        self.calls = {} if calls is None else calls

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)

    def __bool__(self) -> bool:
        return bool(self.messages or self.calls)

    def copy(self) -> ItemTimes:
        """A copy whose pairs are the copy's own."""
        return ItemTimes(
            {key: list(pair) for key, pair in self.messages.items()},
            {key: list(pair) for key, pair in self.calls.items()},
        )


def content_is_unfit(role: object, content: object) -> bool:
    """Whether a history message's content is neither text nor content parts for its role.

    An object or a number anywhere, parts on an assistant message (its content is text);
    an activity's content is an object by design.
    """
    if content is None or isinstance(content, str) or role == "activity":
        return False
    return role == "assistant" or not isinstance(content, list)


def parse_arguments(raw: str) -> tuple[Any, str | None]:
    """A call's argument text as ``(value, None)``, or ``(None, why)`` if not one JSON value.

    Blank text is ``{}``. Adapters decide what a non-object value becomes.
    """
    if not raw.strip():
        return {}, None
    try:
        return loads(raw), None
    except ValueError:
        pass  # the stdlib says why (and reads what only it accepts, such as NaN)
    try:
        return json.loads(raw), None
    except RecursionError:
        return None, "nested deeper than the JSON parser goes"
    except ValueError as exc:
        decoder = json.JSONDecoder()
        try:
            _, end = decoder.raw_decode(raw.lstrip())
        except (ValueError, RecursionError):
            return None, str(exc)
        if raw.lstrip()[end:].strip():
            return None, f"several JSON values run together (first ends at {end}): {exc}"
        return None, str(exc)


ResultSource = Literal["stream", "input", "snapshot", "harness"]
CallState = Literal[
    "streaming",
    "declared",
    "resolved_server",
    "pending_client",
    "pending_interrupt",
    "pending_server",
    "pending_unattributed",
    "resolved_client",
    "resolved_server_late",
    "abandoned",
    "invalid",
]
Owner = Literal["server", "client", "unknown"]
Evidence = Literal[
    "server_result_same_run", "client_tools_name", "pending_list", "interrupt", "none"
]


@dataclass(slots=True, frozen=True, init=False)
class ToolResult:
    """One answer to a call: which tool message, in which run, from where.

    ``source``: ``stream`` (TOOL_CALL_RESULT), ``input`` (a tool message in a later run's
    input: the client's answer), ``snapshot`` (MESSAGES_SNAPSHOT), ``harness``
    (:meth:`Collector.add_client_result`, not yet sent in any run input).
    """

    message_id: str
    run_index: int | None
    source: ResultSource

    def __init__(self, message_id: str, run_index: int | None, source: ResultSource) -> None:
        # Written out (see before _shallow_copy); frozen: through object.__setattr__.
        object.__setattr__(self, "message_id", message_id)
        object.__setattr__(self, "run_index", run_index)
        object.__setattr__(self, "source", source)

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


def pending_interrupts(runs: list[RunRecord], before: int | None = None) -> list[JSONObject]:
    """The interrupts still awaiting a resume decision (before run index ``before``).

    Those of the last run that finished (RUN_FINISHED): a run that errored or was cut off
    since then does not settle them, as in the reference client, which only replaces its
    pending interrupts when a run finishes.
    """
    end = len(runs) if before is None else before
    for position in range(end - 1, -1, -1):
        run = runs[position]
        if run.outcome == "interrupt":
            return run.interrupts
        if run.outcome in ("success", "cancelled"):
            return []
    return []


@dataclass(slots=True, eq=False, init=False)
class ToolCallRecord:
    """What the transcript knows about one tool call (its latest occurrence, by id).

    The ownership fields (``state``, ``owner``, ``evidence``, ``resolving_run_index``,
    ``delivered``) are settled when the transcript is read: ownership is decided when a
    run ends, not at TOOL_CALL_END (see :mod:`agui_transcripts.ownership`).
    """

    call: ToolCall
    #: Id of the assistant message that carries the call.
    message_id: str | None
    #: Index into :attr:`Transcript.runs` of the run that declared it (None: from history).
    run_index: int | None
    subagent_run_id: str | None = None
    #: The answers that count, in arrival order (conflicting extras are diagnosed, not here).
    results: list[ToolResult] = field(default_factory=list)
    #: Whether TOOL_CALL_END was seen (or the call came complete from history).
    ended: bool = False
    #: Index of the event that declared it (None: from history).
    event_index: int | None = None
    #: 0 for the first declaration of this id; a reused id in a later turn counts up.
    occurrence: int = 0
    state: CallState = "declared"
    owner: Owner = "unknown"
    evidence: Evidence = "none"
    #: Index of the run in which the call was answered (None: unanswered or from history).
    resolving_run_index: int | None = None
    #: For a client result: whether a run input has carried it to the agent yet.
    delivered: bool = False
    #: Why an abandoned call will never be answered.
    abandoned_reason: str | None = None

    def __init__(
        self,
        call: ToolCall,
        message_id: str | None,
        run_index: int | None,
        subagent_run_id: str | None = None,
        results: list[ToolResult] | None = None,
        ended: bool = False,
        event_index: int | None = None,
        occurrence: int = 0,
        state: CallState = "declared",
        owner: Owner = "unknown",
        evidence: Evidence = "none",
        resolving_run_index: int | None = None,
        delivered: bool = False,
        abandoned_reason: str | None = None,
    ) -> None:
        # Written out for the compiled build (see before _shallow_copy).
        self.call = call
        self.message_id = message_id
        self.run_index = run_index
        self.subagent_run_id = subagent_run_id
        self.results = [] if results is None else results
        self.ended = ended
        self.event_index = event_index
        self.occurrence = occurrence
        self.state = state
        self.owner = owner
        self.evidence = evidence
        self.resolving_run_index = resolving_run_index
        self.delivered = delivered
        self.abandoned_reason = abandoned_reason

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)

    def copy(self) -> ToolCallRecord:
        """A shallow copy with its own list of results."""
        copied = _shallow_copy(self)
        copied.results = list(self.results)
        return copied

    @property
    def result_message_ids(self) -> list[str]:
        """Ids of the tool messages that answer the call, in arrival order."""
        return [result.message_id for result in self.results]

    @property
    def id(self) -> str:
        """The tool call id."""
        return self.call.id

    @property
    def name(self) -> str:
        """The tool name."""
        return self.call.name

    @property
    def arguments(self) -> str:
        """The raw argument text, exactly as streamed."""
        return self.call.arguments

    @property
    def parsed_arguments(self) -> Any:
        """The arguments parsed as JSON (``{}`` for none), or None when they do not parse."""
        return parse_arguments(self.call.arguments)[0]

    @property
    def parse_error(self) -> str | None:
        """Why the arguments are not JSON, or None when they are."""
        return parse_arguments(self.call.arguments)[1]

    def to_dict(self) -> JSONObject:
        """A plain summary, for logs and JSON output."""
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "parseError": self.parse_error,
            "messageId": self.message_id,
            "resultMessageIds": self.result_message_ids,
            "state": self.state,
            "owner": self.owner,
            "evidence": self.evidence,
            "runIndex": self.run_index,
            "resolvingRunIndex": self.resolving_run_index,
            "delivered": self.delivered,
        }


#: Metadata key that marks a synthetic result: ``metadata[SYNTHETIC_KEY] = {"reason": ...}``
#: (the projection writes it; the views read it).
SYNTHETIC_KEY: Final = "agui_transcripts.synthetic"


def is_synthetic(message: Message) -> bool:
    """Whether a tool message was made up by the projection (never a real result)."""
    return isinstance(message, ToolMessage) and bool(
        message.metadata and SYNTHETIC_KEY in message.metadata
    )


class TranscriptData(Protocol):
    """What the layers above the model read of a transcript: its messages and calls.

    :class:`~agui_transcripts.Transcript` is one; the projection and the HTML view take
    any object that has these, so they never import the layer that builds it.
    """

    @property
    def messages(self) -> list[Message]: ...

    @property
    def tool_calls(self) -> dict[str, ToolCallRecord]: ...

    @property
    def call_aliases(self) -> dict[str, str]: ...
