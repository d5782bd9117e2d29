"""Projection (stage 6): an ordered message list in which every call precedes its result.

The reducer's list is the reference client's; an evaluator or a provider needs more:
each tool result right after the assistant message that declares its call, nothing
between a batch of calls and its last result, every call answered before the next
non-tool message (invariants I1-I17 of the ordering document). One conversation-wide
machine, :class:`_Projector`, does it for both directions:

- :func:`project` orders an AG-UI transcript: items (text stretches, calls, results,
  other messages) in arrival order, whatever message ids, framework-message boundaries
  or run boundaries they cross;
- :func:`messages_from_parts` turns messages holding ordered parts (text, tool call,
  tool result, reasoning: the shape of Agent Framework messages, Anthropic content
  blocks and OpenAI Responses items) into AG-UI messages.

The state is conversation-wide, never per message: the batch of calls waiting for
results, a queue of deferred items (text, new calls, other messages that arrive while a
batch is open) and results held for deferred calls. Unanswered calls follow a policy:
``synthesize`` (a synthetic error result, marked in metadata, saying why), ``trim``
(drop the call), ``keep`` (leave it open; only at the end of the conversation) or
``raise`` (:class:`ProjectionError`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from copy import copy as shallow_copy
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ._gc import holds_gc
from .diagnostics import RULES, Diagnostic
from .model import (
    SYNTHETIC_KEY,
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    SystemMessage,
    TextSegment,
    ToolCall,
    ToolCallRecord,
    ToolMessage,
    TranscriptData,
    UserMessage,
    is_synthetic,
    rebuilt_from_fields,
)

# Compiled, a name imported from another module is a globals lookup at each read;
# these module constants are statics.
_RULES: Final = RULES
_SYNTHETIC_KEY: Final = SYNTHETIC_KEY

__all__ = [
    "SYNTHETIC_KEY",
    "InOrder",
    "MediaPart",
    "Policy",
    "Projection",
    "ProjectionError",
    "ReasoningPart",
    "SourceMessage",
    "Subagents",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "finish_in_order",
    "is_synthetic",
    "messages_from_parts",
    "project",
]

Policy = Literal["synthesize", "trim", "keep", "raise"]
#: Where subagent turns go in a projection (see :func:`project`).
Subagents = Literal["inline", "exclude", "apart"]
_SUBAGENT_CHOICES: Final[tuple[str, ...]] = ("inline", "exclude", "apart")


class ProjectionError(ValueError):
    """Raised by the ``raise`` policy when a call has no result where one is needed."""


# -- the reverse direction's input ---------------------------------------------------------


# The parts are frozen: each says how pickle and copy rebuild it (see
# model.rebuilt_from_fields).


@dataclass(frozen=True, slots=True)
class TextPart:
    """Text in a source message."""

    text: str

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


@dataclass(frozen=True, slots=True)
class ReasoningPart:
    """Visible reasoning in a source message (its opaque form in ``encrypted_value``).

    ``id`` names the reasoning message it becomes; without one it gets a piece id.
    """

    text: str
    encrypted_value: str | None = None
    id: str | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


@dataclass(frozen=True, slots=True)
class MediaPart:
    """A non-text content part of a user message, as an AG-UI part dict (image, ...)."""

    part: dict[str, Any]

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """A call in a source message."""

    id: str
    name: str
    arguments: str = ""

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


@dataclass(frozen=True, slots=True)
class ToolResultPart:
    """A result in a source message (any role: frameworks put them in several)."""

    call_id: str
    content: str | list[dict[str, Any]] = ""
    error: str | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


Part = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | MediaPart


@dataclass(slots=True)
class SourceMessage:
    """A framework message: a role and its contents in order."""

    id: str
    role: str
    parts: list[Part] = field(default_factory=list)
    name: str | None = None


# -- items -------------------------------------------------------------------------------


# Plain classes, not dataclasses: compiled, a dataclass's generated __init__ stays
# interpreted, and one item is made per message or text stretch.


class _Text:
    __slots__ = ("key", "seq", "source", "text")

    def __init__(self, key: str, text: str, seq: int = -1, source: Message | None = None) -> None:
        self.key = key
        self.text = text
        self.seq = seq
        self.source = source


class _Call:
    __slots__ = ("call", "key", "seq", "source", "subagent_run_id")

    def __init__(
        self,
        key: str,
        call: ToolCall,
        subagent_run_id: str | None = None,
        seq: int = -1,
        source: Message | None = None,
    ) -> None:
        self.key = key
        self.call = call
        self.subagent_run_id = subagent_run_id
        self.seq = seq
        self.source = source


class _Result:
    __slots__ = ("key", "message")

    def __init__(self, message: ToolMessage, key: str | None = None) -> None:
        self.message = message
        #: Source message whose piece this becomes (direction B; its id is given on emission).
        self.key = key


class _Other:
    __slots__ = ("key", "message")

    def __init__(self, message: Message, key: str | None = None) -> None:
        self.message = message
        self.key = key


_Item = _Text | _Call | _Result | _Other


@dataclass(slots=True, init=False)
class _Batch:
    """Calls emitted in one assistant message, waiting for their results."""

    message: AssistantMessage
    key: str
    open: list[str]
    accepting: bool = True

    def __init__(
        self, message: AssistantMessage, key: str, open: list[str], accepting: bool = True
    ) -> None:
        # Written out: one per assistant message with calls, and the compiled build
        # makes a class native only with its constructor written (see architecture).
        self.message = message
        self.key = key
        self.open = open
        self.accepting = accepting

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


@dataclass(slots=True)
class Projection:
    """The ordered messages, and what the projection had to report."""

    messages: list[Message]
    diagnostics: list[Diagnostic]


def _stable_id(prefix: str, *parts: str) -> str:
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"{prefix}-{digest}"


class _Projector:
    def __init__(
        self,
        items: Sequence[_Item],
        *,
        policy: Policy,
        reasons: Callable[[str], str],
        taken_ids: set[str],
    ) -> None:
        self.policy = policy
        self.reasons = reasons
        self.taken = taken_ids
        self.items = items
        self.out: list[Message] = []
        self.diagnostics: list[Diagnostic] = []
        self.batch: _Batch | None = None  # the open batch (at most one is open)
        self.queue: list[_Item] = []
        self.held: dict[str, list[_Result]] = {}
        self.answered: set[str] = set()
        self.synthesized: set[str] = set()
        self.deferred_calls: set[str] = set()
        self.future_calls = {item.call.id for item in items if isinstance(item, _Call)}
        # Results not reached yet, by call id: a batch about to be given up takes its
        # real result from here instead (I7), and the result is skipped when reached.
        self.upcoming: dict[str, list[_Result]] = {}
        for item in items:
            if isinstance(item, _Result):
                self.upcoming.setdefault(item.message.tool_call_id, []).append(item)
        self.taken_early: set[int] = set()
        self.seen_calls: set[str] = set()
        self.pieces: dict[str, int] = {}
        self.tail_text: tuple[str, AssistantMessage] | None = None
        self.releasing = False

    # -- output ------------------------------------------------------------------------

    def _report(
        self,
        code: str,
        message: str,
        *,
        tool_call_id: str | None = None,
        message_id: str | None = None,
    ) -> None:
        self.diagnostics.append(
            Diagnostic(
                code,
                _RULES[code].severity,
                message,
                tool_call_id=tool_call_id,
                message_id=message_id,
            )
        )

    def _piece_id(self, key: str) -> str:
        """The source id for a source message's first piece; fresh ids after (I16)."""
        count = self.pieces.get(key, 0)
        self.pieces[key] = count + 1
        if count == 0:
            return key
        salt = count
        while True:
            candidate = _stable_id("split", key, str(salt))
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
            salt += 1

    def _emit(self, message: Message, key: str | None = None) -> None:
        if key is not None and not message.id:
            message.id = self._piece_id(key)
        self.out.append(message)
        self.tail_text = None

    # -- items -------------------------------------------------------------------------

    def run(self) -> list[Message]:
        for item in self.items:
            if isinstance(item, _Result):
                if id(item) in self.taken_early:
                    continue
                self.upcoming[item.message.tool_call_id].pop(0)
            self._item(item)
        self._finish()
        return self.out

    def _item(self, item: _Item) -> None:
        if isinstance(item, _Result):
            self._result(item)
        elif isinstance(item, _Call):
            self._call(item)
        elif isinstance(item, _Text):
            self._text(item)
        else:
            self._other(item)

    def _queued(self) -> bool:
        """Whether items wait ahead of the one at hand (a released item has none)."""
        return bool(self.queue) and not self.releasing

    def _busy(self) -> bool:
        return self.batch is not None or self._queued()

    def _text(self, item: _Text) -> None:
        batch = self.batch
        if batch is not None and batch.accepting and batch.key == item.key and not self._queued():
            self._add_text(batch.message, item.text)  # lead-in text (I9)
            return
        if self._busy():
            self.queue.append(item)  # deferred behind the open batch (I8)
            return
        tail = self.tail_text
        if tail is not None and tail[0] == item.key:
            self._add_text(tail[1], item.text)
            return
        message = AssistantMessage(self._piece_id(item.key), item.text)
        message.seq = item.seq
        _inherit(message, item.source)
        self._emit(message)
        self.tail_text = (item.key, message)

    def _add_text(self, message: AssistantMessage, text: str) -> None:
        message.content = (message.content or "") + text

    def _call(self, item: _Call) -> None:
        call_id = item.call.id
        if call_id in self.seen_calls:
            # A reused id opens a new occurrence: an earlier turn's answer (or the
            # result given up for it) never answers this one.
            self.answered.discard(call_id)
            self.synthesized.discard(call_id)
        self.seen_calls.add(call_id)
        batch = self.batch
        if batch is not None and batch.accepting and batch.key == item.key and not self._queued():
            self._attach(batch, item)
            self._deliver_held(item.call.id)
            return
        if self._busy():
            self.queue.append(item)
            self.deferred_calls.add(item.call.id)
            return
        tail = self.tail_text
        if tail is not None and tail[0] == item.key:
            message = tail[1]
        else:
            message = AssistantMessage(self._piece_id(item.key), None)
            message.subagent_run_id = item.subagent_run_id
            message.seq = item.seq
            _inherit(message, item.source)
            self._emit(message)
        self.tail_text = None
        self.batch = _Batch(message, item.key, [])
        self._attach(self.batch, item)
        self._deliver_held(item.call.id)

    def _deliver_held(self, call_id: str) -> None:
        """Results that arrived before their call follow it now (I7, I8)."""
        held = self.held.pop(call_id, [])
        last = len(held) - 1
        for position, item in enumerate(held):
            self._result(item)
            if position < last and self.releasing and self.batch is None:
                # The result closed the batch inside a release, which lets the queue
                # through only once this item is done (see _close_batch); the next
                # result must meet the queue as it is after that.
                self._release()

    def _attach(self, batch: _Batch, item: _Call) -> None:
        call = item.call
        batch.message.add_tool_call(_copy_call(call))
        batch.open.append(call.id)

    def _result(self, item: _Result) -> None:
        message = item.message
        call_id = message.tool_call_id
        if call_id in self.answered:
            self._report(
                "duplicate-result",
                f"tool message {message.id!r} answers {call_id!r} again; the first answer is kept",
                tool_call_id=call_id,
                message_id=message.id,
            )
            return
        if call_id in self.synthesized:
            self._report(
                "result-after-abandonment",
                f"tool message {message.id!r} answers {call_id!r} after the call was given up; "
                "left out",
                tool_call_id=call_id,
                message_id=message.id,
            )
            return
        batch = self.batch
        if batch is not None and call_id in batch.open:
            batch.accepting = False  # a result closes the batch to new calls (I6)
            batch.open.remove(call_id)
            self.answered.add(call_id)
            self._emit(message, item.key)
            if not batch.open:
                self._close_batch()
            return
        if call_id in self.deferred_calls or (
            call_id in self.future_calls and call_id not in self.seen_calls
        ):
            if call_id not in self.seen_calls:
                self._report(
                    "result-before-call",
                    f"tool message {message.id!r} arrives before its call {call_id!r}; held "
                    "until the call",
                    tool_call_id=call_id,
                    message_id=message.id,
                )
            self.held.setdefault(call_id, []).append(item)
            return
        self._report(
            "orphan-result",
            f"tool message {message.id!r} answers {call_id!r}, which no assistant message "
            "declares before it; left out",
            tool_call_id=call_id,
            message_id=message.id,
        )

    def _other(self, item: _Other) -> None:
        message = item.message
        if isinstance(message, (ReasoningMessage, ActivityMessage)):
            if self._busy():
                self.queue.append(item)
            else:
                self._emit(message, item.key)
            return
        # I10: a user, system or developer turn is never moved; what is open ends here.
        self._settle_everything(final=False)
        self._emit(message, item.key)

    # -- closing -----------------------------------------------------------------------

    def _close_batch(self) -> None:
        self.batch = None
        if not self.releasing:
            self._release()
        # Inside a release, its loop lets the queue through as soon as the item at hand
        # is done: releasing again here would nest one release per call, as deep as the
        # stream makes it (calls answered last-first).

    def _release(self) -> None:
        """Let deferred items through, in order, until one opens a batch again."""
        outer = self.releasing
        self.releasing = True
        try:
            while self.queue and self.batch is None:
                item = self.queue.pop(0)
                if isinstance(item, _Call):
                    self.deferred_calls.discard(item.call.id)
                self._item(item)
        finally:
            self.releasing = outer

    def _give_up(self, batch: _Batch, *, final: bool) -> None:
        """Apply the policy to a batch's unanswered calls.

        A call whose real result comes later (after a user turn, say) is answered by it
        here: a synthetic result never stands in for a real one.
        """
        for call_id in list(batch.open):
            later = self.upcoming.get(call_id)
            if not later or self.batch is not batch:
                continue
            result = later.pop(0)
            self.taken_early.add(id(result))
            self._report(
                "late-result-anchored",
                f"tool message {result.message.id or '(new)'!r} answers {call_id!r} after a "
                "later turn; placed right after its call",
                tool_call_id=call_id,
                message_id=result.message.id or None,
            )
            self._result(result)
        if self.batch is not batch:
            return  # every call was answered: the batch closed and released its queue
        missing = list(batch.open)
        policy = self.policy
        if policy == "keep" and not final:
            policy = "synthesize"  # an open call cannot stay open before a later turn
        if policy == "raise":
            where = "at the end of the conversation" if final else "before a later turn"
            raise ProjectionError(
                f"tool call(s) {', '.join(missing)} have no result {where} (policy 'raise')"
            )
        if policy == "keep":
            return
        for call_id in missing:
            batch.open.remove(call_id)
            self.synthesized.add(call_id)
            if policy == "trim":
                calls = [c for c in batch.message.tool_calls or () if c.id != call_id]
                batch.message.tool_calls = calls or None
                batch.message.segments = [
                    s
                    for s in batch.message.segments
                    if not (isinstance(s, ToolCall) and s.id == call_id)
                ]
                continue
            reason = self.reasons(call_id)
            synthetic = ToolMessage(
                _stable_id("synthetic", call_id, str(len(self.synthesized))),
                call_id,
                f"Tool call not executed: {reason}.",
                error=reason,
                metadata={_SYNTHETIC_KEY: {"reason": reason}},
            )
            self.out.append(synthetic)
        message = batch.message
        if policy == "trim" and not message.tool_calls and not message.content:
            self.out.remove(message)

    def _settle_everything(self, *, final: bool) -> None:
        while True:
            # The open batch is read into a local each time: giving up on one can close
            # it, which a check narrowed on the attribute would not see.
            batch = self.batch
            if batch is None and not self.queue:
                break
            if batch is not None:
                # Only the very last batch may stay open ("keep"): one with deferred items
                # behind it is not at the end.
                self._give_up(batch, final=final and not self.queue)
                if self.batch is not batch:
                    continue  # later real results answered it; the queue moved on
                if batch.open:  # kept open at the end
                    self.batch = None
                    if not self.queue:
                        break
                self.batch = None
            self._release()

    def _finish(self) -> None:
        self._settle_everything(final=True)
        for call_id, held in self.held.items():
            for item in held:
                self._report(
                    "orphan-result",
                    f"a result for {call_id!r}, whose call never appears; left out",
                    tool_call_id=call_id,
                    message_id=item.message.id or None,
                )


def _renamed_call(call: ToolCall, call_id: str) -> ToolCall:
    """A call restated under a new id, under the id of the call it stands for."""
    renamed = _copy_call(call)
    renamed.id = call_id
    renamed.seq = call.seq
    return renamed


def _answering(message: ToolMessage, call_id: str) -> ToolMessage:
    """A copy of a result that answers a call by a re-minted id, answering its own id."""
    answering = shallow_copy(message)  # every attribute (the model says how it is rebuilt)
    answering.tool_call_id = call_id
    return answering


def _copy_call(call: ToolCall) -> ToolCall:
    return ToolCall(
        call.id,
        call.name,
        call.arguments,
        encrypted_value=call.encrypted_value,
        metadata=call.metadata,
    )


def _inherit(piece: AssistantMessage, source: Message | None) -> None:
    """The first piece of a split message keeps its name, metadata and encrypted value."""
    if source is None:
        return
    piece.subagent_run_id = source.subagent_run_id
    if piece.id == source.id:
        piece.name = source.name
        piece.metadata = source.metadata
        piece.encrypted_value = source.encrypted_value
        piece.encrypted_value_type = source.encrypted_value_type


def _default_reason(call_id: str) -> str:
    return "no result was recorded for it"


# -- direction A: an AG-UI transcript -----------------------------------------------------


def _transcript_items(transcript: TranscriptData) -> tuple[list[_Item], list[ToolCall]]:
    """Text stretches, calls, results and other messages, in arrival order.

    Calls whose arguments never finished (``invalid``, O26) are no calls at all: they
    are left out, and returned apart for the projection to report. A call restated under
    a new id, and a result answering that id, are taken under the id of the call they
    stand for (its record's), so each result meets its call.
    """
    keyed: list[tuple[int, int, int, _Item]] = []
    records = transcript.tool_calls
    aliases = transcript.call_aliases
    invalid: list[ToolCall] = []
    for position, message in enumerate(transcript.messages):
        base = message.seq
        rank = message.rank
        if isinstance(message, AssistantMessage):
            for segment in message.segments:
                if isinstance(segment, TextSegment):
                    if segment.text:
                        seq = segment.seq if segment.seq >= 0 else base
                        item = _Text(message.id, segment.text, seq, message)
                        keyed.append((seq, rank, position, item))
                elif _is_invalid(records.get(aliases.get(segment.id, segment.id)), segment):
                    invalid.append(segment)
                else:
                    # The occurrence's own declaring event: a reused id's record is the
                    # latest occurrence, never an earlier turn's.
                    seq = segment.seq if segment.seq >= 0 else base
                    held_id = aliases.get(segment.id)
                    taken = segment if held_id is None else _renamed_call(segment, held_id)
                    call = _Call(message.id, taken, message.subagent_run_id, seq, message)
                    keyed.append((seq, rank, position, call))
            if not message.segments:  # an assistant message with neither text nor calls
                keyed.append((base, rank, position, _Text(message.id, "", base, message)))
        elif isinstance(message, ToolMessage):
            held_id = aliases.get(message.tool_call_id)
            result = message if held_id is None else _answering(message, held_id)
            keyed.append((base, rank, position, _Result(result)))
        else:
            keyed.append((base, rank, position, _Other(message)))
    keyed.sort(key=lambda entry: (entry[0], entry[1], entry[2]))
    return [item for _, _, _, item in keyed], invalid


def _already_ordered(
    transcript: TranscriptData, *, copy: bool = True
) -> tuple[list[Message], _Batch | None] | None:
    """What :class:`_Projector` makes of a transcript that needs no reordering, or None.

    Most transcripts arrive in order: every assistant message's text comes before its
    calls, its results follow it with nothing between, and arrival order is message
    order. For those the projector only copies each assistant message (its text joined,
    its calls copied) and keeps every other message, so :class:`InOrder` does that in one
    pass, and this returns the last batch of calls if some are still unanswered, for the
    policy. Anything else returns None, at the first sign, for the projector to handle.
    ``copy=False`` keeps the assistant messages themselves (see :func:`project`).
    """
    if transcript.call_aliases:
        return None  # calls under re-minted ids: the projector takes them by their own
    in_order = InOrder(copy=copy)
    if not in_order.take(transcript.messages, transcript.tool_calls):
        return None
    return in_order.out, in_order.open_batch()


class InOrder:
    """The projection of messages that arrive in order, one pass that can be resumed.

    :meth:`take` reads messages after those it read before and says whether they still
    need no reordering: arrival out of message order, text after a call, an assistant
    message with empty text segments or none, an id seen twice, a call with unfinished
    arguments, a result that is not for the open calls, or a message while calls are open
    all make it False, at the first sign (the pass is then spent). A pass with no open
    calls has projected its messages exactly as :func:`project` would (no policy meets
    them), so a reader of a growing transcript (rows per run) can keep it and give it only
    the messages that came since, as long as the earlier ones did not change.
    """

    __slots__ = (
        "_assistant_ids",
        "_batch_start",
        "_copy",
        "_last_rank",
        "_last_seq",
        "_seen_calls",
        "batch",
        "open_calls",
        "out",
        "taken",
    )

    def __init__(self, *, copy: bool = True) -> None:
        self._copy = copy
        self.out: list[Message] = []
        self.batch: _Batch | None = None
        self.open_calls: dict[str, None] = {}
        #: How many messages the pass has taken.
        self.taken = 0
        self._seen_calls: set[str] = set()
        self._assistant_ids: set[str] = set()
        self._last_seq = -1
        self._last_rank = 0
        # Where the last batch's message was taken: (messages taken before it, its place
        # in the output, the last seq and rank before it), for back_to_open_batch.
        self._batch_start = (0, 0, -1, 0)

    def open_batch(self) -> _Batch | None:
        """The last batch of calls if some are unanswered (what the policy meets)."""
        batch = self.batch
        if batch is None or not self.open_calls:
            return None
        batch.open = list(self.open_calls)
        return batch

    def take(self, messages: Iterable[Message], records: dict[str, ToolCallRecord]) -> bool:
        """Project ``messages`` after the ones taken so far; False if they need reordering."""
        copy = self._copy
        out = self.out
        open_calls = self.open_calls
        seen_calls = self._seen_calls
        assistant_ids = self._assistant_ids
        last_seq = self._last_seq
        last_rank = self._last_rank
        batch = self.batch
        taken = self.taken
        for message in messages:
            base = message.seq
            rank = message.rank
            if base == last_seq and rank < last_rank:
                return False  # a tie the projector orders by rank (a snapshot's own order)
            rank_before = last_rank
            last_rank = rank
            taken += 1
            if isinstance(message, AssistantMessage):
                if open_calls or not message.segments or message.id in assistant_ids:
                    return False
                assistant_ids.add(message.id)
                seq_before = last_seq
                texts: list[str] = []
                first_seq = base
                piece: AssistantMessage | None = None  # what stands for it in the output
                for segment in message.segments:
                    seq = segment.seq if segment.seq >= 0 else base
                    if seq < last_seq:
                        return False
                    last_seq = seq
                    if isinstance(segment, TextSegment):
                        text = segment.text
                        if not text or piece is not None:
                            return False  # an empty stretch, or text after a call
                        if not texts:
                            first_seq = seq
                        texts.append(text)
                        continue
                    if segment.id in seen_calls or _is_invalid(records.get(segment.id), segment):
                        return False
                    seen_calls.add(segment.id)
                    open_calls[segment.id] = None
                    if piece is None:
                        piece = (
                            _text_copy(message, texts, first_seq if texts else seq)
                            if copy
                            else message
                        )
                        batch = _Batch(piece, message.id, [])
                        self._batch_start = (taken - 1, len(out), seq_before, rank_before)
                    if copy:
                        piece.add_tool_call(_copy_call(segment))
                if piece is None:
                    piece = _text_copy(message, texts, first_seq) if copy else message
                out.append(piece)
                continue
            if base < last_seq:
                return False
            last_seq = base
            if isinstance(message, ToolMessage):
                if message.tool_call_id not in open_calls:
                    return False
                del open_calls[message.tool_call_id]
                if batch is not None:
                    batch.accepting = False  # a result closes the batch to new calls (I6)
            elif open_calls:
                return False
            out.append(message)
        self._last_seq, self._last_rank, self.batch = last_seq, last_rank, batch
        self.taken = taken
        return True

    def back_to_open_batch(self, taken: Sequence[Message]) -> None:
        """Go back to before the open batch's message, to take it again once answered.

        ``taken``: the messages taken so far, in order.
        """
        if not self.open_calls:
            return
        index, place, self._last_seq, self._last_rank = self._batch_start
        for message in taken[index : self.taken]:
            if isinstance(message, AssistantMessage):
                self._assistant_ids.discard(message.id)
                for segment in message.segments:
                    if not isinstance(segment, TextSegment):
                        self._seen_calls.discard(segment.id)
        del self.out[place:]
        self.batch = None
        self.open_calls.clear()
        self.taken = index


def finish_in_order(
    out: list[Message], batch: _Batch | None, records: dict[str, ToolCallRecord], policy: Policy
) -> Projection:
    """The projection of messages in order (:class:`InOrder`), policy applied.

    The open batch, if any, meets the policy as the projector's last one would; ``out``
    gets what that adds.
    """
    finisher = _Projector([], policy=policy, reasons=_ReasonsFor(records), taken_ids=set())
    finisher.out, finisher.batch = out, batch
    finisher._finish()
    return Projection(finisher.out, finisher.diagnostics)


def _text_copy(message: AssistantMessage, texts: list[str], seq: int) -> AssistantMessage:
    """The projector's copy of an assistant message: its text joined, no calls yet."""
    copy = AssistantMessage(message.id, "".join(texts) if texts else None)
    copy.seq = seq
    _inherit(copy, message)
    return copy


def _is_invalid(record: ToolCallRecord | None, call: ToolCall) -> bool:
    return record is not None and record.state == "invalid" and record.call is call


def _attribution(item: _Item, records: dict[str, ToolCallRecord]) -> str | None:
    """The subagent run an item belongs to (None: the top-level agent).

    A result untagged by its producer belongs where its call does.
    """
    if isinstance(item, _Call):
        return item.subagent_run_id
    if isinstance(item, _Text):
        return item.source.subagent_run_id if item.source is not None else None
    message = item.message
    if message.subagent_run_id is None and isinstance(message, ToolMessage):
        record = records.get(message.tool_call_id)
        return record.subagent_run_id if record is not None else None
    return message.subagent_run_id


@holds_gc
def project(
    transcript: TranscriptData,
    *,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    copy: bool = True,
) -> Projection:
    """Order a transcript's messages so that every call precedes its result.

    ``subagents`` says where the turns of subagent runs go: ``inline`` (where they
    arrived, each message keeping its ``subagent_run_id``), ``exclude`` (left out: the
    top-level agent's conversation alone, as a metric on its own tool calls needs) or
    ``apart`` (the top-level conversation first, then each subagent's, in the order the
    subagents first spoke, each ordered on its own).

    Returns new assistant and synthetic tool messages; user, system, reasoning, activity
    and real tool messages are the transcript's own objects. ``copy=False`` is for a
    caller that only reads the result (the ragas drop-in): where nothing needed
    reordering, the assistant messages are the transcript's own too, not copies with
    their text joined (their ``content`` may be ``""`` where a copy's is None). The
    ``trim`` policy, which edits the messages it keeps, always works on copies.
    """
    if subagents not in _SUBAGENT_CHOICES:
        raise ValueError(f"subagents must be one of {', '.join(_SUBAGENT_CHOICES)}: {subagents!r}")
    if subagents == "inline":
        in_order = _already_ordered(transcript, copy=copy or policy == "trim")
        if in_order is not None:
            return finish_in_order(*in_order, transcript.tool_calls, policy)
    return _reorder(transcript, policy, subagents, _ReasonsFor(transcript.tool_calls))


class _ReasonsFor:
    """Why a call got no result, from its record (the text of a synthetic result)."""

    def __init__(self, records: dict[str, ToolCallRecord]) -> None:
        self.records = records

    def __call__(self, call_id: str) -> str:
        record = self.records.get(call_id)
        if record is None:
            return _default_reason(call_id)
        if record.state == "abandoned" and record.abandoned_reason:
            return record.abandoned_reason
        return {
            "pending_client": "the client has not answered it yet",
            "pending_interrupt": "it awaits approval (an interrupt)",
            "pending_server": "the server has not answered it yet",
            "pending_unattributed": "no result was recorded for it",
            "invalid": "its arguments never finished streaming",
            "streaming": "its arguments are still streaming",
            "declared": "the run has not settled it yet",
        }.get(record.state, _default_reason(call_id))


def _reorder(
    transcript: TranscriptData,
    policy: Policy,
    subagents: Subagents,
    reasons: Callable[[str], str],
) -> Projection:
    """The projector over every item, in arrival order: what any transcript needs."""
    records = transcript.tool_calls
    items, invalid = _transcript_items(transcript)
    groups: dict[str | None, list[_Item]] = {None: items}
    if subagents != "inline":
        groups = {None: []}
        for item in items:
            groups.setdefault(_attribution(item, records), []).append(item)
        if subagents == "exclude":
            groups = {None: groups[None]}
    taken = {message.id for message in transcript.messages}
    messages: list[Message] = []
    diagnostics: list[Diagnostic] = []
    for group in groups.values():
        projector = _Projector(group, policy=policy, reasons=reasons, taken_ids=taken)
        messages.extend(projector.run())
        diagnostics.extend(projector.diagnostics)
    for call in invalid:
        diagnostics.append(
            Diagnostic(
                "invalid-call-dropped",
                _RULES["invalid-call-dropped"].severity,
                f"tool call {call.id!r} ({call.name}) never finished its arguments "
                f"({call.arguments!r}); left out, with no result invented",
                tool_call_id=call.id,
            )
        )
    return Projection(messages, diagnostics)


# -- direction B: messages holding ordered parts ------------------------------------------


def _source_items(messages: Iterable[SourceMessage]) -> tuple[list[_Item], set[str]]:
    """Items in part order; the messages they become get their ids when emitted."""
    items: list[_Item] = []
    taken: set[str] = set()
    for source in messages:
        taken.add(source.id)
        key = source.id
        if source.role in ("user", "system", "developer"):
            placed = False
            for part in source.parts:
                if isinstance(part, ToolResultPart):
                    result = ToolMessage("", part.call_id, part.content, error=part.error)
                    items.append(_Result(result, key))
                elif isinstance(part, (TextPart, MediaPart)) and not placed:
                    items.append(_Other(_turn(source, _turn_content(source.parts)), key))
                    placed = True
            if not source.parts:
                items.append(_Other(_turn(source, ""), key))
            continue
        for part in source.parts:
            if isinstance(part, TextPart):
                items.append(_Text(key, part.text))
            elif isinstance(part, ToolCallPart):
                items.append(_Call(key, ToolCall(part.id, part.name, part.arguments)))
            elif isinstance(part, ToolResultPart):
                result = ToolMessage("", part.call_id, part.content, error=part.error)
                items.append(_Result(result, key))
            elif isinstance(part, ReasoningPart):
                reasoning = ReasoningMessage(
                    part.id or "", part.text, encrypted_value=part.encrypted_value
                )
                items.append(_Other(reasoning, None if part.id else key))
    return items, taken


def _turn_content(parts: list[Part]) -> str | list[dict[str, Any]]:
    """Plain text, or AG-UI content parts when the turn carries media."""
    if not any(isinstance(p, MediaPart) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    out: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, MediaPart):
            out.append(part.part)
    return out


def _turn(source: SourceMessage, content: str | list[dict[str, Any]]) -> Message:
    cls = {"user": UserMessage, "system": SystemMessage, "developer": DeveloperMessage}[source.role]
    return cls("", content, name=source.name)


def messages_from_parts(
    messages: Iterable[SourceMessage], *, policy: Policy = "synthesize"
) -> Projection:
    """AG-UI messages from framework messages whose contents are ordered parts.

    One tool message per result; each call before its result, in any interleaving; the
    first message emitted for a source message keeps its id and later pieces get fresh,
    deterministic ids that never derive from it by a suffix (I16).
    """
    items, taken = _source_items(messages)
    projector = _Projector(items, policy=policy, reasons=_default_reason, taken_ids=taken)
    return Projection(projector.run(), projector.diagnostics)
