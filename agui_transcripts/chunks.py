"""Chunk expansion (stage 2): ``*_CHUNK`` events become explicit START / CONTENT / END.

``TEXT_MESSAGE_CHUNK``, ``TOOL_CALL_CHUNK`` and ``REASONING_MESSAGE_CHUNK`` are the
shorthand of producers that cannot know where an item ends: they carry the id (and role,
name, tool name) on the first chunk only, and the end of one item is known only from the
start of the next, or from a closing event. This module keeps that bookkeeping, by the
rules of the AG-UI 1.0 streaming spec (C1-C24 of the protocol rules document):

- one *lane* per owner (the parent agent, or each ``subagentRunId``), each holding at most
  one open chunk stream of any kind (C7-C9, C22);
- an id-less chunk continues its lane's stream, else the parent's, else the sole open
  stream of its kind; with several candidates it is ambiguous (C7, C23);
- repeated fields must agree with the opener (C11); a new id opens a new item (C12);
- message, tool, state, step and custom events close their own lane; run events and
  ``MESSAGES_SNAPSHOT`` close every lane; a subagent's terminal closes its lane; ``RAW``,
  ``ACTIVITY_*``, ``REASONING_ENCRYPTED_VALUE`` and ``SUBAGENT_STARTED`` close nothing
  (C13-C18); :meth:`ChunkNormalizer.close` emits the ENDs still owed (C21).

Where the reference client rejects a stream, lenient mode (the default) keeps every
delivered delta and reports an error-level diagnostic; strict mode raises
:class:`~agui_transcripts.ProtocolError` with the reference client's wording. Recoveries:
an id-less chunk with nothing to continue reopens its lane's last item if only a state,
step or custom event closed it, and otherwise opens a new item under a minted id; an
ambiguous chunk goes to the most recently opened stream; a conflicting field keeps the
opener's value; explicit and chunk spellings of one item are merged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, TypedDict

from .diagnostics import DiagnosticSink
from .events import Event, EventIntake, json_kind

__all__ = ["ChunkNormalizer", "normalize_all"]

TEXT: Final = "text"
TOOL: Final = "tool"
REASONING: Final = "reasoning"

_CHUNK_KIND: Final = {
    "TEXT_MESSAGE_CHUNK": TEXT,
    "TOOL_CALL_CHUNK": TOOL,
    "REASONING_MESSAGE_CHUNK": REASONING,
}
_ID_KEY: Final = {TEXT: "messageId", TOOL: "toolCallId", REASONING: "messageId"}
_START: Final = {
    TEXT: "TEXT_MESSAGE_START",
    TOOL: "TOOL_CALL_START",
    REASONING: "REASONING_MESSAGE_START",
}
_CONTENT: Final = {
    TEXT: "TEXT_MESSAGE_CONTENT",
    TOOL: "TOOL_CALL_ARGS",
    REASONING: "REASONING_MESSAGE_CONTENT",
}
_END: Final = {TEXT: "TEXT_MESSAGE_END", TOOL: "TOOL_CALL_END", REASONING: "REASONING_MESSAGE_END"}
_CHUNK_NAME: Final = {kind: name for name, kind in _CHUNK_KIND.items()}
_NOUN: Final = {TEXT: "text message", TOOL: "tool call", REASONING: "reasoning message"}
_EXPLICIT_KIND: Final = {
    **{name: kind for kind, name in _START.items()},
    **{name: kind for kind, name in _CONTENT.items()},
    **{name: kind for kind, name in _END.items()},
}
# Fields a continuation may repeat, with the value an opener that omits them has (C11).
_REPEATABLE: Final[dict[str, tuple[tuple[str, str | None], ...]]] = {
    TEXT: (("role", "assistant"), ("name", None)),
    TOOL: (("toolCallName", None), ("parentMessageId", None)),
    REASONING: (),
}

# C14: close their own lane. Of these, the soft ones create no message: an id-less chunk
# right after one is read (leniently) as the producer continuing the item it interrupted.
_SOFT_CLOSERS: Final = frozenset(
    {
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "CUSTOM",
        "STEP_STARTED",
        "STEP_FINISHED",
        "REASONING_START",
        "REASONING_END",
    }
)
_LANE_CLOSERS: Final = _SOFT_CLOSERS | set(_EXPLICIT_KIND) | {"TOOL_CALL_RESULT"}
# C16: close every lane.
_RUN_BOUNDARIES: Final = frozenset(
    {"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"}
)
# C17: close the subagent's own lane.
_SUBAGENT_TERMINALS: Final = frozenset({"SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
# Carried from a chunk onto the events it expands to.
_PASSED_ON: Final = ("timestamp", "rawEvent", "metadata")

_Key = tuple[str, str]  # (kind, id)
_MISSING: Final = object()

ContinuationName = tuple[str, object, object]
"""What a plain continuation names: its event type, its id and its lane (each a string, or
absent)."""

# A chunk type's id key: one lookup tells a chunk and where its id is.
_CHUNK_ID_KEY: Final = {name: _ID_KEY[kind] for name, kind in _CHUNK_KIND.items()}


def continuation_name(
    event: Event, size: int | None = None, event_type: str | None = None
) -> ContinuationName | None:
    """What a chunk names, if it holds only a non-empty text delta and what names its stream.

    That is, besides its type and delta, at most its item's id and its lane
    (``subagentRunId``), as strings; each absent one is named by a marker. Two such chunks
    with one name continue the same stream while the layer's streams stay as they are.
    None for any other event. ``size``: how many of the event's keys count (keys no
    AG-UI event defines do not; all of them when not given); ``event_type``: its type,
    when the caller has read it.
    """
    if event_type is None:
        event_type = event["type"]
    id_key = _CHUNK_ID_KEY.get(event_type)
    if id_key is None:
        return None
    delta = event.get("delta")
    if type(delta) is not str or not delta:
        return None
    tag = event.get("subagentRunId", _MISSING)
    item_id = event.get(id_key, _MISSING)
    counted = len(event) if size is None else size
    # Its type and delta, and each of the id and the lane it holds, as a string (feed
    # reports a wrong-typed one). The four cases written out: a sum of the present
    # ones, then a check of each, is twice the steps interpreted.
    if item_id is _MISSING:
        if tag is _MISSING:
            if counted != 2:
                return None
        elif counted != 3 or type(tag) is not str:
            return None
    elif type(item_id) is not str:
        return None
    elif tag is _MISSING:
        if counted != 3:
            return None
    elif counted != 4 or type(tag) is not str:
        return None
    return event_type, item_id, tag


def _take(marks: set[str], call_id: str) -> bool:
    """Whether ``call_id`` is marked, unmarking it."""
    if call_id in marks:
        marks.discard(call_id)
        return True
    return False


class ChunkMarks:
    """What this layer says of the calls it emits, beside the events (for the reducer).

    A call is *continued* when the TOOL_CALL_START emitted for it reopens a stream that
    a soft boundary closed (C12): its arguments go on where they stopped, it is not
    streamed again. It *ends softly* when the TOOL_CALL_END emitted for it may not be
    its last (every chunked call): what is judged at a call's end waits for the run's
    end. The reducer takes each mark as it applies the event (at most one of each kind
    per call is waiting).
    """

    __slots__ = ("_continued", "_soft_ended")

    def __init__(self) -> None:
        self._continued: set[str] = set()
        self._soft_ended: set[str] = set()

    def continues(self, call_id: str) -> bool:
        """Whether the call's emitted START continues it (the mark is taken)."""
        return bool(self._continued) and _take(self._continued, call_id)

    def ends_softly(self, call_id: str) -> bool:
        """Whether the call's emitted END is soft (the mark is taken)."""
        return bool(self._soft_ended) and _take(self._soft_ended, call_id)

    def mark_continued(self, call_id: str) -> None:
        self._continued.add(call_id)

    def mark_soft_end(self, call_id: str) -> None:
        self._soft_ended.add(call_id)


class _Stream:
    """One open chunk stream: an item being assembled from chunks."""

    __slots__ = ("fields", "id", "kind", "lane", "tag")

    def __init__(
        self, kind: str, item_id: str, lane: str | None, tag: object, fields: dict[str, Any]
    ):
        self.kind = kind
        self.id = item_id
        self.lane = lane
        self.tag = tag  # the opener's subagentRunId as sent (_MISSING if absent)
        self.fields = fields


def _describe(value: object) -> str:
    return "(absent)" if value is None or value is _MISSING else repr(value)


def _owner(value: object) -> str:
    if isinstance(value, str):
        return f"subagent {value!r}"
    return "the parent agent"


class ChunkNormalizer:
    """Sans-I/O chunk expansion: :meth:`feed` canonical events, get explicit events back.

    Non-chunk events pass through unchanged, preceded by the ENDs they imply. Call
    :meth:`close` at the end of input for the ENDs still owed.
    """

    __slots__ = (
        "_closed",
        "_explicit",
        "_lanes",
        "_minted",
        "_open",
        "_soft_closed",
        "marks",
        "sink",
    )

    def __init__(self, sink: DiagnosticSink | None = None, *, strict: bool = False) -> None:
        self.sink = sink if sink is not None else DiagnosticSink(strict=strict)
        self._lanes: dict[str | None, _Stream] = {}  # in the order the lanes were opened
        self._open: dict[_Key, _Stream] = {}
        self._explicit: dict[_Key, str | None] = {}  # items open as explicit triads
        # lane -> the item a soft boundary closed there, which an id-less chunk continues
        # (a hard close leaves nothing: a long run of subagents would hold every lane)
        self._soft_closed: dict[str | None, _Stream] = {}
        # Every call closed this run, for reopening (C12) with the name it had; text and
        # reasoning need none, and a long run of them would hold each closed stream.
        self._closed: dict[_Key, _Stream] = {}
        self._minted = 0
        #: The marks of the calls in the last batch emitted (see :class:`ChunkMarks`).
        self.marks = ChunkMarks()

    # -- public ------------------------------------------------------------------------

    def feed(self, event: Event, *, index: int | None = None) -> list[Event]:
        """Expand one canonical event into explicit ones."""
        kind = event["type"]
        chunk_kind = _CHUNK_KIND.get(kind)
        if chunk_kind is not None:
            return self._chunk(chunk_kind, event, index)
        if kind in _LANE_CLOSERS:
            return self._lane_closer(kind, event, index)
        if kind in _RUN_BOUNDARIES:
            out = self._close_all(soft=False)
            if kind != "MESSAGES_SNAPSHOT":
                self._explicit.clear()
                self._closed.clear()
            self._soft_closed.clear()
            out.append(event)
            return out
        if kind in _SUBAGENT_TERMINALS:
            lane = event.get("subagentRunId")
            if isinstance(lane, str) and lane in self._lanes:
                return [self._close_lane(lane, soft=False), event]
        return [event]

    def close(self) -> list[Event]:
        """End of input: the ENDs owed to streams still open, in lane order (C21)."""
        return self._close_all(soft=False)

    def is_open(self, item_id: str | None = None, *, subagent_run_id: str | None = None) -> bool:
        """Whether a chunk stream is open.

        With ``item_id``: whether a stream with that id is open (in any lane, or only in
        the lane of ``subagent_run_id`` when given). Without: whether the lane of
        ``subagent_run_id`` (the parent's when None) has a stream open.
        """
        if item_id is None:
            return subagent_run_id in self._lanes
        for stream in self._open.values():
            if stream.id == item_id and (subagent_run_id is None or stream.lane == subagent_run_id):
                return True
        return False

    def is_idle(self) -> bool:
        """Whether no chunk stream is open or may be continued: explicit events pass as is.

        The collector's delta lane skips this layer for a plain explicit delta while it is
        idle: a reaction of :meth:`feed` to such a delta must make this return False.
        """
        return not self._lanes and not self._soft_closed

    def resolve_continuation(self, name: ContinuationName) -> tuple[str, str, object] | None:
        """What a chunk with this :func:`continuation_name` continues, if nothing is special.

        ``(content type, item id, tag)`` of the CONTENT/ARGS event :meth:`feed` would emit
        for it (tag ``None`` when untagged); the stream stays as it is. None when
        :meth:`feed` must decide: a reaction of :meth:`feed` to such a chunk must make
        this return None for it.
        """
        event_type, item_id, tag = name
        kind = _CHUNK_KIND[event_type]
        # (A name's id and lane are each a string or the marker. The bare name, most
        # continuations, is told by identity; isinstance narrows the others as cast
        # would, without a call in pure Python.)
        if item_id is _MISSING and tag is _MISSING:
            stream = self._lanes.get(None)
        elif isinstance(item_id, str):
            stream = self._open.get((kind, item_id))
            if stream is None or (tag is not _MISSING and tag != stream.lane):
                return None
        elif isinstance(tag, str):
            stream = self._lanes.get(tag)
        else:
            return None  # (not a name continuation_name gives)
        if stream is None or stream.kind != kind:
            return None
        if tag is _MISSING:
            tag = stream.tag  # C22: the content carries its opener's attribution
            if tag is _MISSING:
                return _CONTENT[kind], stream.id, None
        if type(tag) is not str:
            return None  # a null attribution, for the verifier to report
        return _CONTENT[kind], stream.id, tag

    def open_streams(self) -> list[tuple[str, str, str | None]]:
        """The open streams as ``(kind, id, subagentRunId)``, in lane order."""
        return [(s.kind, s.id, s.lane) for s in self._lanes.values()]

    # -- non-chunk events ----------------------------------------------------------------

    def _lane_closer(self, kind: str, event: Event, index: int | None) -> list[Event]:
        explicit_kind = _EXPLICIT_KIND.get(kind)
        if not self._lanes and not self._soft_closed:
            # No chunk stream to close or continue: only the explicit triads' bookkeeping.
            if explicit_kind is not None:
                item_id = event.get(_ID_KEY[explicit_kind])
                if isinstance(item_id, str):
                    if kind == _START[explicit_kind]:
                        self._explicit[(explicit_kind, item_id)] = _lane_of(event)
                    elif kind == _END[explicit_kind]:
                        self._explicit.pop((explicit_kind, item_id), None)
            return [event]
        out: list[Event] = []
        if explicit_kind is not None:
            item_id = event.get(_ID_KEY[explicit_kind])
            if isinstance(item_id, str):
                key = (explicit_kind, item_id)
                stream = self._open.get(key)
                if stream is not None and kind != _START[explicit_kind]:
                    return self._mixed_spelling(kind, stream, event, index)
                if kind == _START[explicit_kind]:
                    self._explicit[key] = _lane_of(event)
                elif kind == _END[explicit_kind]:
                    self._explicit.pop(key, None)
        lane = _lane_of(event)
        soft = kind in _SOFT_CLOSERS
        if lane in self._lanes:
            out.append(self._close_lane(lane, soft=soft))
        elif not soft:
            self._soft_closed.pop(lane, None)  # an item came between: nothing to continue
        out.append(event)
        return out

    def _mixed_spelling(
        self, kind: str, stream: _Stream, event: Event, index: int | None
    ) -> list[Event]:
        """An explicit CONTENT or END for an item being sent as chunks (C19)."""
        noun = _NOUN[stream.kind]
        self.sink.report(
            "chunk-spelling-mixed",
            f"Cannot send '{kind}' event: No active {noun} found with ID '{stream.id}': it is "
            "being "
            f"sent as {_CHUNK_NAME[stream.kind]} events, and the two spellings do not mix "
            "(the explicit event is applied to the chunked item)",
            event_index=index,
            **_ids(stream.kind, stream.id, stream.lane),
        )
        if kind == _END[stream.kind]:
            self._forget(stream, soft=False)  # the explicit END closes it; no second END
        return [event]

    # -- chunks --------------------------------------------------------------------------

    def _chunk(self, kind: str, event: Event, index: int | None) -> list[Event]:
        id_key = _ID_KEY[kind]
        item_id = event.get(id_key)
        tag = event.get("subagentRunId", _MISSING)
        lane = tag if isinstance(tag, str) else None
        sink = self.sink
        if "delta" in event and event["delta"] is None:
            sink.report(
                "chunk-delta-null",
                f"{_CHUNK_NAME[kind]}.delta: expected string, received null "
                "(omit delta instead; read as absent)",
                event_index=index,
                **_ids(kind, item_id, lane),
            )
        if kind == REASONING and "role" in event:
            sink.report(
                "chunk-role-stripped",
                "REASONING_MESSAGE_CHUNK has no role field; the role sent is ignored",
                event_index=index,
                **_ids(kind, item_id, lane),
            )

        out: list[Event] = []
        if not isinstance(item_id, str):
            if item_id is not None:
                sink.report(
                    "chunk-invalid-id",
                    f"{_CHUNK_NAME[kind]}.{id_key}: expected string, received "
                    f"{json_kind(item_id)} (read as absent)",
                    event_index=index,
                )
            stream = self._resolve_idless(kind, event, tag, lane, index)
            if stream is None:
                stream = self._recover_idless(kind, event, tag, lane, index, out)
            if stream is None:
                return [self._absorb_idless_into_explicit(kind, lane, event, index)]
        else:
            key = (kind, item_id)
            found = self._open.get(key)
            if found is not None:
                stream = found
                if isinstance(tag, str) and tag != stream.lane:
                    sink.report(
                        "chunk-owner-mismatch",
                        f"Cannot continue {_NOUN[kind]} '{item_id}': chunk subagentRunId "
                        f"'{tag}' does not match the open stream's subagent "
                        f"{_describe(stream.lane)} (continued in the opener's lane)",
                        event_index=index,
                        **_ids(kind, item_id, tag),
                    )
                self._check_repeats(stream, event, index)
            elif key in self._explicit:
                return [self._absorb_into_explicit(kind, item_id, event, index)]
            else:
                reopened = kind == TOOL and key in self._closed
                stream = self._open_stream(kind, item_id, event, tag, lane, index, out)
                out = self._emit_opening(stream, event, out)
                if reopened:
                    # C12: a call's chunks may resume after other items; the reference
                    # appends them to the call's arguments (not a replay).
                    self.marks.mark_continued(item_id)
                return out
        self._emit_content(stream, event, out)
        return out

    def _resolve_idless(
        self, kind: str, event: Event, tag: object, lane: str | None, index: int | None
    ) -> _Stream | None:
        """C7: which open stream an id-less chunk continues, if any.

        An id-less tool chunk naming another tool than the open call is read as a new
        call without its id (C4), not as a conflicting continuation: both calls are kept.
        """
        if kind == TOOL and isinstance(event.get("toolCallName"), str):
            open_call = self._lanes.get(tag if isinstance(tag, str) else None)
            if (
                open_call is not None
                and open_call.kind == TOOL
                and open_call.fields["toolCallName"] != event["toolCallName"]
            ):
                return None
        if isinstance(tag, str):
            stream = self._lanes.get(tag)
            if stream is not None and stream.kind == kind:
                self._check_repeats(stream, event, index)
                return stream
            return None
        parent = self._lanes.get(None)
        if parent is not None and parent.kind == kind:
            self._check_repeats(parent, event, index)
            return parent
        candidates = [s for s in self._lanes.values() if s.kind == kind]
        if not candidates:
            return None
        if len(candidates) > 1:
            name = _CHUNK_NAME[kind]
            self.sink.report(
                "chunk-ambiguous",
                f"Ambiguous {name}: it carries neither a {_ID_KEY[kind]} nor a subagentRunId, "
                f"but {len(candidates)} lanes have an open {_NOUN[kind]} "
                f"({', '.join(repr(s.id) for s in candidates)}); attribute the chunk "
                f"(continued the most recently opened, {candidates[-1].id!r})",
                event_index=index,
            )
        stream = candidates[-1]
        self._check_repeats(stream, event, index)
        return stream

    def _recover_idless(
        self,
        kind: str,
        event: Event,
        tag: object,
        lane: str | None,
        index: int | None,
        out: list[Event],
    ) -> _Stream | None:
        """C4: a first chunk without its id. Report it, and keep the delta anyway."""
        name = _CHUNK_NAME[kind]
        explicit = [
            key for key, owner in self._explicit.items() if key[0] == kind and owner == lane
        ]
        if explicit:
            return None  # the caller appends the delta to the explicit item
        last = self._soft_closed.get(lane)
        lane_note = f" (subagent {lane!r} has no {_NOUN[kind]} open)" if lane is not None else ""
        if last is not None and last.kind == kind:
            previous = last
            recovery = f"continued {previous.id!r}, which a state, step or custom event closed"
            item_id = previous.id
        else:
            self._minted += 1
            item_id = f"minted-{kind}-{self._minted}"
            recovery = f"opened a new {_NOUN[kind]} under the minted id {item_id!r}"
        self.sink.report(
            "chunk-missing-id",
            f"First {name} must have a {_ID_KEY[kind]}{lane_note}; {recovery}",
            event_index=index,
            **_ids(kind, item_id, lane),
        )
        stream = self._open_stream(kind, item_id, event, tag, lane, index, out)
        opening = self._emit_opening(stream, event, [], content=False)
        if kind == TOOL and last is not None and item_id == last.id:
            self.marks.mark_continued(item_id)  # the reducer extends the call, not a replay
        out.extend(opening)
        return stream

    def _open_stream(
        self,
        kind: str,
        item_id: str,
        event: Event,
        tag: object,
        lane: str | None,
        index: int | None,
        out: list[Event],
    ) -> _Stream:
        if lane in self._lanes:
            out.append(self._close_lane(lane, soft=False))  # C9
        self._soft_closed.pop(lane, None)
        fields: dict[str, Any] = {}
        reopened = self._closed.get((kind, item_id))
        for field, default in _REPEATABLE[kind]:
            value = event.get(field, _MISSING)
            if value is _MISSING:
                value = default
            fields[field] = value
        if kind == TOOL and fields["toolCallName"] is None:
            if reopened is not None and reopened.fields.get("toolCallName") is not None:
                fields["toolCallName"] = reopened.fields["toolCallName"]
                recovery = f"reopened with the name it had, {fields['toolCallName']!r}"
            else:
                fields["toolCallName"] = ""
                recovery = "opened with an empty name"
            self.sink.report(
                "chunk-missing-name",
                f"First TOOL_CALL_CHUNK must have a toolCallName ({item_id!r}); {recovery}",
                event_index=index,
                **_ids(kind, item_id, lane),
            )
        stream = _Stream(kind, item_id, lane, tag, fields)
        self._lanes[lane] = stream
        self._open[(kind, item_id)] = stream
        return stream

    def _emit_opening(
        self, stream: _Stream, event: Event, out: list[Event], *, content: bool = True
    ) -> list[Event]:
        kind = stream.kind
        start: dict[str, Any] = {"type": _START[kind], _ID_KEY[kind]: stream.id}
        if kind == TEXT:
            start["role"] = stream.fields["role"]
            if stream.fields["name"] is not None:
                start["name"] = stream.fields["name"]
        elif kind == TOOL:
            start["toolCallName"] = stream.fields["toolCallName"]
            if stream.fields["parentMessageId"] is not None:
                start["parentMessageId"] = stream.fields["parentMessageId"]
        else:
            start["role"] = "reasoning"
        if stream.tag is not _MISSING:
            start["subagentRunId"] = stream.tag
        if "timestamp" in event:
            start["timestamp"] = event["timestamp"]
        if "metadata" in event:
            start["metadata"] = event["metadata"]
        out.append(start)
        if content:
            self._emit_content(stream, event, out, opener=True)
        return out

    def _emit_content(
        self, stream: _Stream, event: Event, out: list[Event], *, opener: bool = False
    ) -> None:
        delta = event.get("delta")
        carries = "rawEvent" in event or (not opener and "metadata" in event)
        if delta is None and not carries:
            return
        content: dict[str, Any] = {
            "type": _CONTENT[stream.kind],
            _ID_KEY[stream.kind]: stream.id,
            "delta": "" if delta is None else delta,
        }
        tag = event.get("subagentRunId", stream.tag)  # C22
        if tag is not _MISSING:
            content["subagentRunId"] = tag
        for key in _PASSED_ON:
            if key in event and not (opener and key == "metadata"):
                content[key] = event[key]
        out.append(content)

    def _absorb_idless_into_explicit(
        self, kind: str, lane: str | None, event: Event, index: int | None
    ) -> Event:
        """An id-less chunk while an explicit triad of its kind is open in its lane."""
        item_id = [
            key for key, owner in self._explicit.items() if key[0] == kind and owner == lane
        ][-1][1]
        self.sink.report(
            "chunk-missing-id",
            f"First {_CHUNK_NAME[kind]} must have a {_ID_KEY[kind]}: no chunk stream is open "
            f"(its delta is appended to the open explicit {_NOUN[kind]} {item_id!r})",
            event_index=index,
            **_ids(kind, item_id, lane),
        )
        return self._content_for_explicit(kind, item_id, event)

    def _content_for_explicit(self, kind: str, item_id: str, event: Event) -> Event:
        content: dict[str, Any] = {
            "type": _CONTENT[kind],
            _ID_KEY[kind]: item_id,
            "delta": event.get("delta") or "",
        }
        for key in (*_PASSED_ON, "subagentRunId"):
            if key in event:
                content[key] = event[key]
        return content

    def _absorb_into_explicit(
        self, kind: str, item_id: str, event: Event, index: int | None
    ) -> Event:
        """A chunk naming an item open as an explicit triad: its delta joins it."""
        self.sink.report(
            "chunk-spelling-mixed",
            f"A {_NOUN[kind]} with ID '{item_id}' is already in progress as an explicit "
            f"{_START[kind]}; a {_CHUNK_NAME[kind]} cannot open it again "
            "(its delta is appended to the open item)",
            event_index=index,
            **_ids(kind, item_id, self._explicit[(kind, item_id)]),
        )
        return self._content_for_explicit(kind, item_id, event)

    def _check_repeats(self, stream: _Stream, event: Event, index: int | None) -> None:
        """C11: a continuation may repeat an opener's field only with the same value."""
        for field, _default in _REPEATABLE[stream.kind]:
            if field not in event:
                continue
            value = event[field]
            held = stream.fields[field]
            if value != held:
                self.sink.report(
                    "chunk-field-conflict",
                    f"Cannot continue {_NOUN[stream.kind]} '{stream.id}': chunk {field} "
                    f"{_describe(value)} does not match the open stream's {field} "
                    f"{_describe(held)} (the opener's value is kept)",
                    event_index=index,
                    **_ids(stream.kind, stream.id, stream.lane),
                )

    # -- closing -------------------------------------------------------------------------

    def _close_lane(self, lane: str | None, *, soft: bool) -> Event:
        stream = self._lanes[lane]
        self._forget(stream, soft=soft)
        end: dict[str, Any] = {"type": _END[stream.kind], _ID_KEY[stream.kind]: stream.id}
        if stream.tag is not _MISSING:
            end["subagentRunId"] = stream.tag
        if stream.kind == TOOL:
            # A call's chunks may resume later in the run (its arguments are judged
            # then); text simply ends.
            self.marks.mark_soft_end(stream.id)
        return end

    def _forget(self, stream: _Stream, *, soft: bool) -> None:
        del self._lanes[stream.lane]
        del self._open[(stream.kind, stream.id)]
        if soft:
            self._soft_closed[stream.lane] = stream
        if stream.kind == TOOL:
            self._closed[(stream.kind, stream.id)] = stream

    def _close_all(self, *, soft: bool) -> list[Event]:
        return [self._close_lane(lane, soft=soft) for lane in list(self._lanes)]


def _lane_of(event: Event) -> str | None:
    tag = event.get("subagentRunId")
    return tag if isinstance(tag, str) else None


class _Ids(TypedDict, total=False):
    message_id: str | None
    tool_call_id: str | None
    subagent_run_id: str | None


def _ids(kind: str, item_id: object, lane: object) -> _Ids:
    text_id = item_id if isinstance(item_id, str) else None
    owner = lane if isinstance(lane, str) else None
    if kind == TOOL:
        return {"tool_call_id": text_id, "subagent_run_id": owner}
    return {"message_id": text_id, "subagent_run_id": owner}


def normalize_all(events: Iterable[object], *, strict: bool = False) -> list[Event]:
    """Expand every chunk of a whole stream, closing what is left open at the end.

    ``events`` may hold any form :class:`~agui_transcripts.EventIntake` accepts. Returns
    explicit events as wire dicts. Lenient by default; with ``strict=True`` raises
    :class:`~agui_transcripts.ProtocolError` at the first violation.
    """
    sink = DiagnosticSink(strict=strict)
    intake = EventIntake(sink)
    normalizer = ChunkNormalizer(sink)
    out: list[Event] = []
    for item in events:
        index = intake.count
        event = intake.normalize(item)
        if event is not None:
            out.extend(normalizer.feed(event, index=index))
    out.extend(normalizer.close())
    return out
