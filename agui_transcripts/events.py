"""Intake (stage 1): every supported spelling of an AG-UI event becomes one canonical dict.

The canonical form is the AG-UI wire form: a ``dict`` with camelCase keys exactly as on the
wire and ``type`` as a plain ``str``. Everything downstream reads only that form, so the hot
path never touches pydantic. Accepted inputs:

- wire dicts in camelCase (returned as they are when nothing needs changing: no copy),
- dicts with snake_case keys (the Python SDK's attribute names),
- ``ag_ui.core`` event objects of any installed version (0.1.x and 1.x),
- other objects with a ``type`` attribute (dataclasses, simple namespaces),
- JSON text (``str`` or ``bytes``) holding one event object.

Retired shapes are translated rather than dropped (rule P6): ``THINKING_*`` events become
``REASONING_*`` events with deterministic minted ids. ``null`` in an optional position reads
as absent (W3), except where a null is data or must reach the verifier (``delta``,
``subagentRunId``: rules C6, C24). ``subagentId`` is accepted for ``subagentRunId`` (P7).
Unknown event types are kept out of the fold with an info diagnostic (C18).

Canonical events may share structure with the input; treat them as read-only.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Mapping
from types import UnionType
from typing import Any, Final

from ._codec import JSONDecodeError, loads, stdlib_loads
from ._dump import NOT_PLAIN, is_plain_model, json_value
from .diagnostics import DECODE_CODES, DiagnosticSink, EventDecodeError
from .limits import bound
from .restated import SharedMessages
from .schema import (
    CANONICAL_KEYS,
    COMMON,
    DELTA_ID_KEYS,
    EVENTS,
    FIELD_ALIASES,
    FieldAlias,
    snake_case,
)

# Compiled, a name imported from another module is a globals lookup at each read;
# these module constants are statics.
_CANONICAL_KEYS: Final = CANONICAL_KEYS
_DECODE_CODES: Final = DECODE_CODES
_DELTA_ID_KEYS: Final = DELTA_ID_KEYS
_FIELD_ALIASES: Final = FIELD_ALIASES
_NOT_PLAIN: Final = NOT_PLAIN

__all__ = [
    "EVENT_TYPES",
    "Event",
    "EventIntake",
    "normalize_event",
    "normalize_run_input",
    "sdk_event_kind",
    "unknown_key_count",
]

Event = dict[str, Any]
"""A canonical event: the AG-UI wire dict (camelCase keys, ``type`` a plain string)."""

# The fields each AG-UI 1.0 event type may carry without them being required (from the
# one table of event shapes): an absent one and a null one read the same.
_OPTIONAL_FIELDS: Final[dict[str, frozenset[str]]] = {
    kind: frozenset(
        [field.name for field in (*COMMON, *shape.fields) if not field.required]
        + (["subagentRunId"] if shape.attributed else [])
    )
    for kind, shape in EVENTS.items()
}

#: The 31 event types of AG-UI 1.0.
EVENT_TYPES: Final[frozenset[str]] = frozenset(_OPTIONAL_FIELDS)

# Nulls that stay: data values (state, custom values, raw payloads, results), and the two
# fields whose null the verifier must see (C6: ``delta: null`` is malformed; C24/V5:
# ``subagentRunId: null`` is rejected, never read as absent).
_NULL_DATA: Final = frozenset(
    field.name for shape in EVENTS.values() for field in shape.fields if field.kind == "data"
)
_NULL_KEPT: Final = _NULL_DATA | {"delta", "subagentRunId"}

# Nulls older producers legitimately sent (W3); read as absent without a diagnostic.
_NULL_GRANDFATHERED: Final = {
    "TOOL_CALL_START": frozenset({"parentMessageId"}),
    "TOOL_CALL_CHUNK": frozenset({"parentMessageId"}),
    "RUN_FINISHED": frozenset({"outcome"}),
}
_NONE: Final[frozenset[str]] = frozenset()
_KEEP_NULL: Final = {"outcome": frozenset({"subagentRunId"})}

# The other spellings of fields (the one table, in schema.py): those of every type (also
# read inside protocol structures) and those of one type, by alias.
_GLOBAL_ALIASES: Final = {row.alias: row for row in FIELD_ALIASES if row.types is None}


def _aliases_by_type() -> dict[str, dict[str, FieldAlias]]:
    by_type: dict[str, dict[str, FieldAlias]] = {}
    for row in _FIELD_ALIASES:
        for kind in sorted(row.types or ()):
            by_type.setdefault(kind, {})[row.alias] = row
    return by_type


_TYPE_ALIASES: Final = _aliases_by_type()
_RENAMES: Final = {alias: row.field for alias, row in _GLOBAL_ALIASES.items()}

# Keys whose values are open JSON (user data): never rewritten.
_OPEN_KEYS: Final = frozenset(
    {
        "metadata",
        "rawEvent",
        "state",
        "forwardedProps",
        "parameters",
        "responseSchema",
        "payload",
        "value",
        "arguments",
        "result",
        "snapshot",
        "patch",
        "delta",
        "event",
    }
)

# Event fields that hold protocol structures (run input, messages, outcome...).
_NESTED_KEYS: Final = frozenset({"input", "messages", "outcome", "usage", "content"})
# Event types whose fields may hold such structures; others are flat.
_NESTED_TYPES: Final = frozenset(
    {"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT", "TOOL_CALL_RESULT"}
)
# Event types that always take the full rewrite (nested structures, a field to check, or
# spellings of their own).
_SLOW_TYPES: Final = _NESTED_TYPES | {"REASONING_MESSAGE_START"} | frozenset(_TYPE_ALIASES)
# The rest: a dict of one of these with canonical keys and no null is already canonical.
_FAST_TYPES: Final = EVENT_TYPES - _SLOW_TYPES
# The same types, each with the key naming the item it extends if it is a delta the
# delta lane takes (DELTA_ID_KEYS), else "": what :meth:`EventIntake.decode` notes.
_FAST_LANE_KEYS: Final = {kind: DELTA_ID_KEYS.get(kind, "") for kind in _FAST_TYPES}

# A lenient repair that needs the full rewrite even when the keys look canonical: the
# field a TOOL_CALL_RESULT may lack (its messageId, minted), and the spellings of one type
# that are another type's field names ("result").
_MINTED_FIELDS: Final = {"TOOL_CALL_RESULT": "messageId"}
_AMBIGUOUS_ALIASES: Final = {
    kind: frozenset(alias for alias in aliases if alias in CANONICAL_KEYS)
    for kind, aliases in _TYPE_ALIASES.items()
}
_REPAIRED_TYPES: Final = frozenset(_MINTED_FIELDS) | frozenset(_AMBIGUOUS_ALIASES)

# Whether a dict's keys are all ones a flat canonical event may have: then it needs no
# rewriting.
_is_canonical_key_set: Final = CANONICAL_KEYS.issuperset
# The decoder, Final: compiled, a final name is read from a C static, not the module dict.
_loads: Final = loads


def unknown_key_count(event: dict[str, Any]) -> int:
    """How many of an event's keys no AG-UI 1.0 event defines (a recorder's own, say).

    Nobody reads them: an event with such keys means what it means without them.
    """
    if _is_canonical_key_set(event):
        return 0  # most events: one call, not a step per key
    count = 0
    for key in event:
        if key not in _CANONICAL_KEYS:
            count += 1
    return count


def _holds_no_structure(event: dict[str, Any]) -> bool:
    """Whether no field of an event is an object or an array."""
    for value in event.values():  # noqa: SIM110  (any() builds a generator per event)
        if type(value) is dict or type(value) is list:
            return False
    return True


def _is_canonical(event: dict[str, Any]) -> bool:
    """Whether a dict is already a canonical flat event: nothing to rename or drop."""
    kind = event.get("type")
    return (
        type(kind) is str
        and kind in _FAST_TYPES
        and _is_canonical_key_set(event)
        and None not in event.values()
    )


_RETIRED_TYPES: Final = frozenset(
    {
        "THINKING_START",
        "THINKING_END",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
    }
)

# REASONING_MESSAGE_START roles written by older translators and producers (P6).
_LEGACY_REASONING_ROLES: Final = frozenset({"assistant", "thinking"})


def _minted_id(counter: int) -> str:
    # The same shape the reference fold tool gives the ids the TS client mints, so a
    # translated stream folds to the same ids in both.
    return f"00000000-0000-4000-8000-{counter:012x}"


# Protocol structures nest a few levels (input > messages > toolCalls > function); what
# lies deeper is open data, left as it is (and never recursed into without bound).
_STRUCTURE_DEPTH: Final = 16


def _normalize_structure(
    value: Any, keep_null: frozenset[str] = frozenset(), depth: int = 0
) -> Any:
    """Rename snake_case and alias keys and drop nulls, inside protocol structures only.

    Nulls named in ``keep_null`` stay, for the verifier to judge.
    """
    if depth > _STRUCTURE_DEPTH:
        return value
    if type(value) is dict or isinstance(value, Mapping):
        out: dict[str, Any] = {}
        activity = value.get("role") == "activity"
        for key, item in value.items():
            renamed = _RENAMES.get(key) or key
            if (item is None and renamed not in keep_null) or (renamed != key and renamed in value):
                continue  # null reads as absent; the 1.0 spelling wins over an alias
            key = renamed
            if (
                isinstance(item, (str, int, float))  # a leaf (most items): nothing to do
                or key in _OPEN_KEYS
                or (activity and key == "content")
            ):
                out[key] = item
            else:
                out[key] = _normalize_structure(item, keep_null, depth + 1)
        return out
    if isinstance(value, list):
        return [
            item
            if isinstance(item, (str, int, float))
            else _normalize_structure(item, keep_null, depth + 1)
            for item in value
        ]
    return value


_FAILED: Final = object()

_OMITTABLE_CACHE: Final[dict[type, frozenset[str]]] = {}


def _omittable_keys(cls: type) -> frozenset[str]:
    """Wire names of a pydantic model's optional fields (those that default to None)."""
    cached = _OMITTABLE_CACHE.get(cls)
    if cached is None:
        keys: set[str] = set()
        for name, field in getattr(cls, "model_fields", {}).items():
            if not field.is_required() and field.default is None:
                keys.add(field.alias or name)
                keys.add(name)
        cached = _OMITTABLE_CACHE[cls] = frozenset(keys)
    return cached


class _ModelPlan:
    """How to read one SDK event class's fields without ``model_dump``.

    A plain class with its constructor written out, not a named tuple: compiled, its
    fields are read natively at every event, where a named tuple's are looked up.
    """

    __slots__ = ("canonical", "kind", "required", "structured", "wire")

    def __init__(
        self,
        kind: str,
        wire: dict[str, str],
        structured: frozenset[str],
        required: tuple[str, ...],
        canonical: bool,
    ) -> None:
        self.kind = kind
        self.wire = wire  # field name -> wire name
        self.structured = structured  # wire names whose value may be a structure
        # Wire names whose None would be a value, not absence (a tuple: checked one by
        # one, cheaper than a set's issubset of a dict, which builds the intersection).
        self.required = required
        # Whether the fields read (no None, no structure) are a canonical event as they
        # are: canonical wire names, and a type with nothing further to check or rewrite.
        self.canonical = canonical


_ATOMIC_TYPES: Final = (str, int, float, bool, type(None))


def _is_atomic(annotation: object) -> bool:
    """Whether a field annotation only admits strings, numbers, booleans or None."""
    if annotation in _ATOMIC_TYPES:
        return True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return all(isinstance(arg, (str, int, float, bool)) for arg in args)
    if origin is typing.Annotated:
        return _is_atomic(args[0])
    if origin is typing.Union or origin is UnionType:
        return all(_is_atomic(arg) for arg in args)
    return False


def _model_plan(cls: type) -> _ModelPlan | None:
    fields = getattr(cls, "model_fields", None)
    if not isinstance(fields, dict) or "type" not in fields or not is_plain_model(cls):
        return None
    kind = _type_name(fields["type"].default)
    if not isinstance(kind, str):
        return None
    wire: dict[str, str] = {}
    structured: set[str] = set()
    required: set[str] = set()
    for name, field in fields.items():
        wire[name] = field.alias or name
        if name != "type" and not _is_atomic(field.annotation):
            structured.add(wire[name])
        if field.is_required() or field.default is not None:
            required.add(wire[name])
    canonical = (
        kind in EVENT_TYPES
        and kind not in _SLOW_TYPES - _NESTED_TYPES  # a role to check
        and _is_canonical_key_set(wire.values())
    )
    return _ModelPlan(kind, wire, frozenset(structured), tuple(sorted(required)), canonical)


_MODEL_PLANS: Final[dict[type, _ModelPlan | None]] = {}


def sdk_event_kind(item: object) -> str:
    """The event type of an SDK event object's class; '' for any other item."""
    cls = type(item)
    try:
        plan = _MODEL_PLANS[cls]
    except KeyError:
        plan = _MODEL_PLANS[cls] = _model_plan(cls)
    return plan.kind if plan is not None else ""


_ATOMIC_VALUE_TYPES: Final = frozenset({str, int, float, bool})


def _sdk_event_fields(item: object) -> tuple[dict[str, Any], bool, dict[str, Any] | None] | None:
    """An SDK event model's fields by wire name, read without ``model_dump``.

    Reading the fields straight from the model (and its nested models, see
    :mod:`._dump`) is several times cheaper than dumping it. Returns the fields (extra
    ones last, as ``model_dump`` puts them), whether they are a canonical event as they
    are once the extra keys are known to need no rewrite, and the extra fields (None
    without); None (use ``model_dump``) for anything else: not a plain pydantic event, a
    None that is a value or an extra, or a structure :func:`json_value` cannot vouch for.
    """
    cls = type(item)
    try:
        plan = _MODEL_PLANS[cls]
    except KeyError:
        plan = _MODEL_PLANS[cls] = _model_plan(cls)
    if plan is None:
        return None
    wire = plan.wire
    structured = plan.structured
    canonical = plan.canonical
    fields: dict[str, Any] = {}
    for name, value in item.__dict__.items():
        if value is not None:
            key = wire.get(name)
            if key is None:
                return None  # an attribute set on the object that is no field of its class
            if key in structured and type(value) not in _ATOMIC_VALUE_TYPES:
                value = json_value(value)  # a structure: as model_dump would give it
                if value is _NOT_PLAIN:
                    return None  # ... or model_dump itself
                canonical = False  # it may need rewriting
            fields[key] = value
    for key in plan.required:
        if key not in fields:
            return None  # a None to keep, for the verifier to judge
    kind = plan.kind
    fields["type"] = kind
    extra = getattr(item, "__pydantic_extra__", None)
    if not extra:
        return fields, canonical, None
    for key, value in extra.items():
        if type(key) is not str or key in fields or value is None:
            return None
        value = json_value(value)
        if value is _NOT_PLAIN:
            return None
        fields[key] = value
    # Extra keys may be another spelling of a field: a flat type's are judged by the
    # intake (its unknown keys said), any other type's by the full rewrite.
    return fields, canonical and kind in _FAST_TYPES, extra


# Each type's fields by the attribute names an object may hold them under (its SDK
# attribute name first, then the wire name).
_ATTRIBUTES: Final = {
    kind: tuple(
        (snake_case(wire), wire)
        for wire in sorted(
            {field.name for field in (*COMMON, *shape.fields)}
            | ({"subagentRunId"} if shape.attributed else set())
        )
    )
    for kind, shape in EVENTS.items()
}


def _attribute_fields(item: object) -> dict[str, Any]:
    """A duck-typed event's fields, read as attributes, the way ragas reads events.

    Its instance attributes, then those its classes define (class attributes, slots,
    properties), leaving out underscored ones (its own) and methods; then each field its
    type defines that it answers for some other way (``__getattr__``). A method or a
    mock's automatic attribute is not a field.
    """
    fields: dict[str, Any] = {}
    if hasattr(item, "__dict__"):
        fields = {k: v for k, v in vars(item).items() if not k.startswith("_")}
    for cls in type(item).__mro__[:-1]:  # not object's own
        for name in vars(cls):
            if not name.startswith("_") and name not in fields:
                value = getattr(item, name, _FAILED)
                if value is not _FAILED and not callable(value):
                    fields[name] = value
    fields["type"] = item.type  # type: ignore[attr-defined]
    kind = _type_name(fields["type"])
    for names in _ATTRIBUTES.get(kind, ()) if isinstance(kind, str) else ():
        if any(name in fields for name in names):
            continue
        for name in names:
            value = getattr(item, name, _FAILED)
            if value is not _FAILED and not callable(value):
                fields[name] = value
                break
    return fields


def _type_name(value: object) -> object:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, str) and type(value) is not str:
        return str.__str__(value)
    return value


UNDECODED: Final = object()
"""What :meth:`EventIntake.decode` is given as the value of bytes that are not JSON."""
NOT_DECODED: Final = object()
"""What :meth:`EventIntake.decode` is given as the value of bytes not decoded yet."""


class EventIntake:
    """Turns input items into canonical events, one stream at a time.

    Stateful only for what translation needs (ids minted for retired ``THINKING_*``
    events) and for numbering items. Diagnostics go to ``sink``; in strict mode the sink
    raises :class:`~agui_transcripts.ProtocolError` at the first error-level one.
    """

    __slots__ = (
        "_max_events",
        "_minted",
        "_readable",
        "_reported",
        "_thinking_message",
        "_thinking_span",
        "count",
        "lane_key",
        "shared",
        "sink",
        "stopped",
    )

    def __init__(
        self,
        sink: DiagnosticSink | None = None,
        *,
        strict: bool = False,
        max_events: int | None = None,
    ) -> None:
        self.sink = sink if sink is not None else DiagnosticSink(strict=strict)
        self.count = 0
        #: After :meth:`decode` returned an event: the key naming its item if it is a
        #: delta of a type the delta lane takes, else "" (so a reader asks no more of
        #: the event to know whether it may open a run).
        self.lane_key = ""
        self._max_events = bound(max_events)
        #: True once the event limit was reached: nothing more is read.
        self.stopped = False
        self._minted = 0
        self._thinking_span: str | None = None
        self._thinking_message: str | None = None
        # What is reported once per stream: unknown keys, producer spellings, minting.
        self._reported: set[str] = set()
        # Whether a flat event's keys need no rewrite: AG-UI's and the unknown ones said.
        self._readable: frozenset[str] = _CANONICAL_KEYS
        #: Run input messages, one dict per id and content for every input that restates
        #: them (see .restated).
        self.shared = SharedMessages(_normalize_structure)

    def keeps_keys(self, event: dict[str, Any]) -> bool:
        """Whether a flat event's keys are kept as they are: AG-UI's and those said."""
        return self._readable.issuperset(event)

    def take_as_is(self, item: object) -> tuple[Event, dict[str, str]] | None:
        """Read an SDK event object, if :meth:`normalize` would take it as it is now.

        That is: no rewrite and nothing to report. The object is then counted, and its
        event returned with the wire name of each of its class's fields by attribute;
        None, counting nothing, for any other item and at the event limit (where
        :meth:`normalize` stops).
        """
        if self.count >= self._max_events:
            return None
        taken = self.as_is(item)
        if taken is not None:
            self.count += 1
        return taken

    def as_is(self, item: object) -> tuple[Event, dict[str, str]] | None:
        """:meth:`take_as_is` without the count: how an object would be taken now, if so."""
        flat = _sdk_event_fields(item)
        if flat is None:
            return None
        fields, canonical, extra = flat
        if not canonical or (extra is not None and not self._readable.issuperset(extra)):
            return None
        plan = _MODEL_PLANS[type(item)]
        if plan is None:
            return None
        return fields, plan.wire

    @property
    def said_keys(self) -> frozenset[str]:
        """The keys kept as they are: AG-UI's, and the unknown ones said so far.

        A new set each time one is said, so an identity check tells a reading that said one.
        """
        return self._readable

    def event_as_is(self, item: object) -> Event:
        """The event of an object :meth:`take_as_is` took, as :meth:`normalize` returns it."""
        flat = _sdk_event_fields(item)
        if flat is None:
            raise ValueError(f"{type(item).__name__} is not an SDK event read as it is")
        return flat[0]

    @property
    def max_events(self) -> int:
        """How many items the event limit lets in (the count stops there)."""
        return self._max_events

    def normalize(self, item: object, *, line: int | None = None) -> Event | None:
        """Return the canonical event for ``item``, or None if it is not applied.

        None means the item was reported: undecodable input (error), or an event type
        AG-UI 1.0 does not define (info).
        """
        index = self.count
        if index >= self._max_events:
            self._stop(index, line)
            return None
        self.count = index + 1
        if type(item) is dict:
            event: dict[str, Any] = item
            if _is_canonical(event):
                return event
            return self._from_mapping(event, index, line, from_object=False)
        flat = _sdk_event_fields(item)  # first: SDK events are the other common input
        if flat is not None:
            fields, canonical, extra = flat
            if canonical and (extra is None or self._readable.issuperset(extra)):
                return fields
            return self._from_mapping(fields, index, line, from_object=True)
        if isinstance(item, (str, bytes, bytearray, memoryview)):
            return self._from_json(item, index, line)
        if isinstance(item, Mapping):
            return self._from_mapping(dict(item), index, line, from_object=False)
        return self._from_object(item, index, line)

    def decode(
        self,
        data: bytes,
        line: int | None = None,
        plain: bool = False,
        value: object = NOT_DECODED,
    ) -> Event | None:
        """:meth:`normalize` for the JSON text of one event (the reader's hot path).

        ``plain``: the caller knows ``data`` holds no ``null`` (its whole block was
        scanned), so it is not scanned again. ``value``: ``data`` decoded already, by a
        reader that looked at it first (:data:`UNDECODED` if it is not JSON).
        """
        index = self.count
        if index >= self._max_events:
            self.lane_key = ""
            self._stop(index, line)
            return None
        self.count = index + 1
        if value is NOT_DECODED:
            try:
                value = _loads(data)
            except JSONDecodeError:
                return self._lane_noted(self._from_json(data, index, line))
        elif value is UNDECODED:
            return self._lane_noted(self._from_json(data, index, line))
        if type(value) is dict:
            kind = value.get("type")
            # Cheaper than scanning the values for None. (find, not `in`: bytes' `in`
            # first tries its operand as an int, an exception per call.)
            if type(kind) is str and (plain or data.find(b"null") < 0):
                lane_key = _FAST_LANE_KEYS.get(kind)
                if lane_key is not None:
                    # A flat type's keys: AG-UI's, or a recorder's own already reported
                    # (kept on the event, read by nobody, as the full rewrite keeps them).
                    if _is_canonical_key_set(value) or self._readable.issuperset(value):
                        self.lane_key = lane_key
                        return value
                elif (
                    # A result or run end holding no structure: nothing to rewrite inside
                    # (unless a lenient repair applies).
                    kind in _NESTED_TYPES
                    and _holds_no_structure(value)
                    and (kind not in _REPAIRED_TYPES or self._as_sent(kind, value))
                    and _is_canonical_key_set(value)
                ):
                    self.lane_key = ""
                    return value
            return self._lane_noted(self._from_mapping(value, index, line, from_object=False))
        return self._lane_noted(self._from_json(data, index, line))

    def _lane_noted(self, event: Event | None) -> Event | None:
        """A rewritten event, its :attr:`lane_key` noted (the fast path notes its own)."""
        self.lane_key = "" if event is None else _DELTA_ID_KEYS.get(event["type"], "")
        return event

    def _as_sent(self, kind: str, event: dict[str, Any]) -> bool:
        """Whether no lenient repair applies to an event whose keys look canonical."""
        if self.sink.strict:
            return True
        minted = _MINTED_FIELDS.get(kind)
        if minted is not None and minted not in event:
            return False
        ambiguous = _AMBIGUOUS_ALIASES.get(kind)
        return ambiguous is None or ambiguous.isdisjoint(event)

    def _report_once(
        self, key: str, code: str, message: str, index: int, line: int | None, **ids: str | None
    ) -> None:
        if key not in self._reported:
            self._reported.add(key)
            self.sink.report(
                code,
                message,
                event_index=index,
                line=line,
                message_id=ids.get("message_id"),
                tool_call_id=ids.get("tool_call_id"),
            )

    def skip(self, code: str, message: str, *, line: int | None = None) -> None:
        """Count an item that is not read (too large), reporting why."""
        index = self.count
        if index >= self._max_events:
            self._stop(index, line)
            return
        self.count = index + 1
        self.sink.report(code, message, event_index=index, line=line)

    def _stop(self, index: int, line: int | None) -> None:
        if not self.stopped:
            self.stopped = True
            self.sink.report(
                "event-limit",
                f"the stream holds more than {self._max_events} events (the event limit): "
                "reading stopped here; the events before are kept",
                event_index=index,
                line=line,
            )

    # -- input forms -------------------------------------------------------------------

    def _from_json(
        self, text: str | bytes | bytearray | memoryview, index: int, line: int | None
    ) -> Event | None:
        data = text if isinstance(text, (str, bytes)) else bytes(text)
        try:
            value = loads(data)
        except JSONDecodeError as exc:
            value = self._retry_invalid_utf8(data, exc, index, line)
            if value is _FAILED:
                return None
        if type(value) is dict:
            if _is_canonical(value):
                return value  # already canonical, and ours: no copy
        elif not isinstance(value, dict):
            self.sink.report(
                "event-not-object",
                f"expected a JSON object, got {json_kind(value)}",
                event_index=index,
                line=line,
            )
            return None
        return self._from_mapping(value, index, line, from_object=False)

    def _retry_invalid_utf8(
        self, data: str | bytes, exc: ValueError, index: int, line: int | None
    ) -> Any:
        """Bytes that are not UTF-8 are read with U+FFFD in their place, and reported.

        Half of a UTF-16 surrogate pair escaped alone (a JavaScript server that cut an
        emoji between two deltas) is JSON orjson refuses and the stdlib reads: the
        halves are joined when the text is (see ``model._Text``).
        """
        if "surrogate" in str(exc):
            try:
                return stdlib_loads(data)
            except ValueError:
                pass
        if isinstance(data, bytes):
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                self.sink.report(
                    "invalid-utf8",
                    "event bytes are not valid UTF-8; read with U+FFFD in their place",
                    event_index=index,
                    line=line,
                )
                try:
                    return loads(data.decode("utf-8", "replace"))
                except JSONDecodeError as again:
                    exc = again
        self.sink.report("invalid-json", f"not valid JSON: {exc}", event_index=index, line=line)
        return _FAILED

    def _from_object(self, item: object, index: int, line: int | None) -> Event | None:
        model_dump = getattr(item, "model_dump", None)
        if callable(model_dump) and hasattr(item, "type"):
            data = model_dump(by_alias=True, mode="json")
            omittable = _omittable_keys(type(item))
            fields = {k: v for k, v in data.items() if v is not None or k not in omittable}
            return self._from_mapping(fields, index, line, from_object=True)
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            fields = dataclasses.asdict(item)
        elif hasattr(item, "type"):
            fields = _attribute_fields(item)
        else:
            self.sink.report(
                "unsupported-input",
                f"cannot read an event from {type(item).__name__}: expected a dict, "
                "JSON text, an ag_ui.core event or an object with a 'type' attribute",
                event_index=index,
                line=line,
            )
            return None
        # An object cannot tell an absent field from None: None is absence, except for
        # fields whose null is data.
        kept = {k: v for k, v in fields.items() if v is not None or k in _NULL_DATA}
        return self._from_mapping(kept, index, line, from_object=True)

    # -- the canonical rewrite ---------------------------------------------------------

    def _from_mapping(
        self, data: dict[str, Any], index: int, line: int | None, *, from_object: bool
    ) -> Event | None:
        sink = self.sink
        if "type" not in data:
            sink.report(
                "event-missing-type", "event object has no 'type'", event_index=index, line=line
            )
            return None
        kind = _type_name(data["type"])
        if not isinstance(kind, str):
            sink.report(
                "event-type-invalid",
                f"event 'type' must be a string, got {json_kind(kind)}",
                event_index=index,
                line=line,
            )
            return None
        if kind in _RETIRED_TYPES:
            return self._translate_thinking(kind, data, index, line)
        if kind not in EVENT_TYPES:
            sink.report(
                "unknown-event-type",
                f"event type {kind!r} is not part of AG-UI 1.0; dropped",
                event_index=index,
                line=line,
            )
            return None

        optional = _OPTIONAL_FIELDS[kind]
        grandfathered = _NULL_GRANDFATHERED.get(kind, _NONE)
        nested = kind in _NESTED_TYPES
        own_aliases = _TYPE_ALIASES.get(kind)
        lenient = not sink.strict
        unknown: list[str] = []
        event: dict[str, Any] = {"type": kind}
        for key, value in data.items():
            if key == "type":
                continue
            alias = _GLOBAL_ALIASES.get(key)
            if alias is None and own_aliases is not None:
                alias = own_aliases.get(key)
                if alias is not None and not (lenient or alias.strict):
                    alias = None  # strict mode rejects it, as the reference does
            renamed = key
            if alias is not None:
                renamed = alias.field
                if renamed in data:
                    continue  # the 1.0 spelling is present too and wins
                if alias.code is not None:
                    self._report_once(
                        f"alias:{kind}:{key}",
                        alias.code,
                        f"{kind}.{key} read as {renamed!r} ({alias.source}; every later "
                        "event of the stream is read the same way)",
                        index,
                        line,
                    )
            elif key not in _CANONICAL_KEYS:
                unknown.append(key)
            if value is None and renamed not in _NULL_KEPT and renamed in optional:
                if not from_object and renamed not in grandfathered:
                    sink.report(
                        "null-as-absent",
                        f"{kind}.{renamed} is null; AG-UI 1.0 omits absent fields: read as absent",
                        event_index=index,
                        line=line,
                    )
                continue
            if nested and renamed in _NESTED_KEYS:
                # An interrupt's null attribution is rejected, never read as absent (V5);
                # a snapshot message's is stripped (A6).
                if renamed == "input":
                    value = self.shared.normalize_input(value, _NONE)
                else:
                    value = _normalize_structure(value, _KEEP_NULL.get(renamed, _NONE))
            event[renamed] = value

        if unknown:
            self._report_unknown(kind, unknown, index, line)
        if lenient and kind in _MINTED_FIELDS:
            self._mint_result_id(event, index, line)
        if kind == "REASONING_MESSAGE_START":
            self._check_reasoning_role(event, index, line)
        return event

    def _report_unknown(self, kind: str, keys: list[str], index: int, line: int | None) -> None:
        """Keys AG-UI 1.0 gives no event: kept on the event, read by nobody; said once each."""
        new = [key for key in keys if f"unknown:{key}" not in self._reported]
        if not new:
            return
        self._reported.update(f"unknown:{key}" for key in new)
        # A flat type has no aliases of its own: a key unknown to one event is unknown
        # to all of them, and said; later events holding it need no rewrite.
        self._readable = self._readable.union(new)
        shown = ", ".join(repr(key) for key in new)
        self.sink.report(
            "unknown-field",
            f"{kind} carries {shown}, which no AG-UI 1.0 event defines: ignored (each unknown "
            "key is reported once per stream)",
            event_index=index,
            line=line,
        )

    def _mint_result_id(self, event: Event, index: int, line: int | None) -> None:
        """A TOOL_CALL_RESULT without a messageId gets one, derived from its call."""
        call_id = event.get("toolCallId")
        if event.get("messageId") is not None or not isinstance(call_id, str):
            return
        event["messageId"] = minted = f"{call_id}-result"
        self._report_once(
            "minted:TOOL_CALL_RESULT",
            "result-id-minted",
            f"TOOL_CALL_RESULT for {call_id!r} has no messageId: the tool message is "
            f"{minted!r} (every later result without one gets its call id and '-result'; "
            "reported once per stream)",
            index,
            line,
            message_id=minted,
            tool_call_id=call_id,
        )

    def _check_reasoning_role(self, event: Event, index: int, line: int | None) -> None:
        role = event.get("role")
        if role == "reasoning":
            return
        if role is None:
            self.sink.report(
                "reasoning-role-missing",
                'REASONING_MESSAGE_START has no role; "reasoning" assumed',
                event_index=index,
                line=line,
                message_id=_str_or_none(event.get("messageId")),
            )
        elif isinstance(role, str) and role in _LEGACY_REASONING_ROLES:
            self.sink.report(
                "reasoning-role-invalid",
                f'REASONING_MESSAGE_START role: expected "reasoning", received {role!r} '
                '(a legacy role, normalised to "reasoning")',
                event_index=index,
                line=line,
                message_id=_str_or_none(event.get("messageId")),
            )
        else:
            # Not a known legacy spelling: keep it for the verifier to judge.
            return
        event["role"] = "reasoning"

    # -- retired shapes (P6) -----------------------------------------------------------

    def _mint(self) -> str:
        self._minted += 1
        return _minted_id(self._minted)

    def _translate_thinking(
        self, kind: str, data: dict[str, Any], index: int, line: int | None
    ) -> Event | None:
        sink = self.sink
        event: dict[str, Any] = {}
        for key in ("timestamp", "rawEvent"):
            if data.get(key) is not None:
                event[key] = data[key]
        translated: str
        if kind == "THINKING_START":
            translated = "REASONING_START"
            self._thinking_span = self._mint()
            event["messageId"] = self._thinking_span
            title = data.get("title")
            if title is not None:
                sink.report(
                    "retired-field-dropped",
                    f"THINKING_START.title {title!r} has no place in REASONING_START; dropped",
                    event_index=index,
                    line=line,
                )
        elif kind == "THINKING_END":
            translated = "REASONING_END"
            span = self._thinking_span or self._mint()
            self._thinking_span = None
            event["messageId"] = span
        elif kind == "THINKING_TEXT_MESSAGE_START":
            translated = "REASONING_MESSAGE_START"
            self._thinking_message = self._mint()
            event["messageId"] = self._thinking_message
            event["role"] = "reasoning"
        elif kind == "THINKING_TEXT_MESSAGE_CONTENT":
            if self._thinking_message is None:
                # Content with no start: a chunk opener keeps the text, the chunk layer
                # brackets it.
                translated = "REASONING_MESSAGE_CHUNK"
                self._thinking_message = self._mint()
            else:
                translated = "REASONING_MESSAGE_CONTENT"
            event["messageId"] = self._thinking_message
            event["delta"] = data.get("delta")
        else:  # THINKING_TEXT_MESSAGE_END
            translated = "REASONING_MESSAGE_END"
            message = self._thinking_message or self._mint()
            self._thinking_message = None
            event["messageId"] = message
        sink.report(
            "retired-event-translated",
            f"retired {kind} translated to {translated}",
            event_index=index,
            line=line,
            message_id=event["messageId"],
        )
        event["type"] = translated
        return event


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def json_kind(value: object) -> str:
    """How an error message names the JSON type of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def normalize_event(item: object) -> Event | None:
    """Canonicalise one event on its own.

    Returns None for an event type AG-UI 1.0 does not define. Raises
    :class:`~agui_transcripts.EventDecodeError` for input that is not an event. Retired
    ``THINKING_*`` events need their neighbours for ids; translate whole streams with
    :class:`EventIntake` or :func:`~agui_transcripts.read_events`.
    """
    intake = EventIntake()
    event = intake.normalize(item)
    for diagnostic in intake.sink.diagnostics:
        if diagnostic.severity == "error" and diagnostic.code in _DECODE_CODES:
            raise EventDecodeError(diagnostic)
    return event


def normalize_run_input(
    run_input: object, *, shared: SharedMessages | None = None
) -> dict[str, Any]:
    """A ``RunAgentInput`` (SDK object, or dict in either key spelling) as a wire dict.

    ``shared``: the intake's table, so the inputs of one fold share restated messages.
    """
    if isinstance(run_input, Mapping):
        data: Any = run_input
    elif callable(getattr(run_input, "model_dump", None)):
        data = run_input.model_dump(by_alias=True, mode="json")  # type: ignore[attr-defined]
    else:
        raise TypeError(
            f"run_input must be a RunAgentInput or a dict, not {type(run_input).__name__}"
        )
    if shared is not None:
        normalized: dict[str, Any] = shared.normalize_input(data, _NONE)
    else:
        normalized = _normalize_structure(data)
    return normalized
