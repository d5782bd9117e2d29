"""Application (stage 4): explicit events into the message list, runs, state and calls.

The rules are those of the reference TypeScript client's reducer (A1-A16 of the protocol
rules document), so for any stream the reference accepts the messages are the ones it
ends with. Beyond the reference, where a real producer's stream would lose or corrupt
data, the reducer repairs it and reports a diagnostic:

- a tool call re-emitted with the same id (a resume replay) does not double its
  arguments; re-emitted with other arguments, the new ones replace the old;
- a call whose arguments never streamed gets them from its events' ``rawEvent``;
- a result that arrives before its call is moved after the call when the call appears;
- an exact replay of a result is not added twice;
- text or reasoning content for a message never started opens the message rather than
  being dropped;
- a stream that ends inside a run leaves that run ``truncated``, its content kept.

The message list (:mod:`.message_list`) keeps every step O(1) amortised and the text
limit is counted by one budget (:mod:`.text_budget`), so folding is linear in the number
of events and bounded in what it holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Final

from ._codec import dumps
from .chunks import ChunkMarks
from .diagnostics import DiagnosticSink
from .events import Event, json_kind
from .limits import bound
from .message_list import MessageList, Node, kept_aside
from .model import (
    MILLISECONDS_BELOW,
    MILLISECONDS_FROM,
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    ItemTimes,
    Message,
    ReasoningMessage,
    ResultSource,
    RunRecord,
    SystemMessage,
    TextMessage,
    TextSegment,
    ToolCall,
    ToolCallRecord,
    ToolMessage,
    ToolResult,
    UserMessage,
    epoch_ms,
    pending_interrupts,
)
from .patch import PatchError, PatchTooLarge, apply_patch, json_size
from .reconcile import Match, reconcile, restates_call
from .restated import StatedMessages
from .run_inputs import RunInputs
from .text_budget import DeltaRoute, TextBudget
from .wire import content_parts, message_from_dict, messages_from_dicts

# Compiled, a name imported from another module is a globals lookup at each read;
# these module constants are statics.
_MILLISECONDS_BELOW: Final = MILLISECONDS_BELOW
_MILLISECONDS_FROM: Final = MILLISECONDS_FROM

__all__ = ["Reducer"]

# The events whose item is a tool call (a result's item is its tool message).
_CALL_EVENTS: Final = frozenset(
    {"TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK"}
)

_TEXT_CLASSES: Final[dict[object, type[TextMessage]]] = {
    "developer": DeveloperMessage,
    "system": SystemMessage,
    "user": UserMessage,
}
# The outcomes that settle the pending interrupts (see model.pending_interrupts).
_SETTLING: Final = frozenset({"success", "cancelled", "interrupt"})
_PATCH_OPS: Final = frozenset({"add", "remove", "replace", "move", "copy", "test"})


# How many dropped messages a snapshot's warning names (the rest are counted).
_NAMED_DROPS: Final = 10

# Events at which calls left open to a continuation are judged.
_RUN_EDGES: Final = frozenset({"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"})


def _delta_text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if value is None:
        return None
    return dumps(value)  # malformed, already reported by the verifier; keep the payload


def _find_arguments(raw: object, call_id: str, name: str, depth: int = 0) -> str | None:
    """Look for a call's arguments inside a producer's rawEvent (LangGraph, Gemini)."""
    if depth > 8:
        return None
    if isinstance(raw, dict):
        if raw.get("id") == call_id or (raw.get("name") == name and call_id not in str(raw)):
            for key in ("args", "arguments", "input"):
                value = raw.get(key)
                if isinstance(value, dict):
                    return dumps(value)
                if isinstance(value, str) and value.strip():
                    return value
            function = raw.get("function")
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                return str(function["arguments"])
        values: Any = raw.values()
    elif isinstance(raw, list):
        values = raw
    else:
        return None
    for value in values:
        found = _find_arguments(value, call_id, name, depth + 1)
        if found is not None:
            return found
    return None


def _carry_arrival(
    held: AssistantMessage, restated: AssistantMessage, canonical: Callable[[str], str]
) -> None:
    """Give a restated assistant message the arrival of the held one it replaces.

    Its calls keep their declaring event; when it says the same text with the same
    calls, its text keeps the stretches it streamed in (text after a result stays after
    it in the projection).
    """
    held_calls = held.tool_calls or ()
    restated_calls = restated.tool_calls or ()
    if held_calls:
        declared = {canonical(call.id): call.seq for call in held_calls}
        for call in restated_calls:
            call.seq = declared.get(canonical(call.id), call.seq)
    segments = held.segments
    if len(segments) == 1 and len(restated.segments) == 1:
        ours, theirs = segments[0], restated.segments[0]
        if isinstance(ours, TextSegment) and isinstance(theirs, TextSegment):
            if ours.text == theirs.text:
                theirs.seq, theirs.stretch = ours.seq, ours.stretch  # one stretch: no copy
            return
    if [canonical(c.id) for c in held_calls] != [canonical(c.id) for c in restated_calls]:
        return
    if held.content != restated.content:
        return
    calls = iter(restated_calls)
    carried: list[TextSegment | ToolCall] = []
    for segment in segments:
        if isinstance(segment, ToolCall):
            carried.append(next(calls))
        else:
            carried.append(segment.copy())
    restated.segments = carried


def _placed_as_restated(
    messages: list[Message],
    results: list[tuple[ToolMessage, str | None]],
    canonical: Callable[[str], str],
) -> list[Message]:
    """``messages`` with each restated result where the snapshot put it.

    Each result comes with the id of the message it follows in the snapshot (its
    predecessor): it goes right after that message (and the results already there),
    keeping the snapshot's order. A result whose predecessor is not in ``messages`` goes
    after its call's message (calls and results meet under the id of the call they stand
    for, ``canonical``), and one whose call no message carries at the end, in order.
    """
    if not results:
        return messages
    present = {message.id for message in messages}
    after: dict[str, list[tuple[int, ToolMessage]]] = {}
    waiting: dict[str, list[tuple[int, ToolMessage]]] = {}
    for position, (result, predecessor) in enumerate(results):
        if predecessor is not None and predecessor in present:
            after.setdefault(predecessor, []).append((position, result))
        else:
            waiting.setdefault(canonical(result.tool_call_id), []).append((position, result))
    out: list[Message] = []
    due: list[tuple[int, ToolMessage]] = []
    for message in messages:
        if due and not isinstance(message, ToolMessage):
            _flush_in_order(due, out)
        out.append(message)
        due.extend(after.pop(message.id, ()))
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or ():
                queue = waiting.get(canonical(call.id))
                if queue:  # one per occurrence: a reused id's later turn has its own
                    due.append(queue.pop(0))
    _flush_in_order(due, out)
    for left in waiting.values():
        for _, result in left:
            out.append(result)
    return out


def _flush_in_order(due: list[tuple[int, ToolMessage]], out: list[Message]) -> None:
    """Move the due results to ``out`` in the order they were restated."""
    due.sort()
    for _, result in due:
        out.append(result)
    due.clear()


def _sameness(restated: Message, kind: str) -> str:
    """What made a restated message a held one, as a diagnostic says it."""
    if kind == "call":
        return "call"
    if isinstance(restated, AssistantMessage) and restated.tool_calls:
        return "calls"
    return "content"


# Loops over a message list and its matches (one per message, as reconcile
# returns them) index the matches rather than zip(..., strict=True): the compiled build
# turns the indexed loop into native code and calls the keyword zip as a Python function.


def _not_restated(dropped: list[Message], snapshot: list[Message]) -> list[Message]:
    """The messages of ``dropped`` whose text or calls the snapshot does not say anywhere.

    A held message the snapshot does not match may still be restated, merged into
    another one (streamed text and its call in one message) or moved: what it carried
    is not lost then. One that carried nothing (an empty message) loses nothing either.
    """
    said: set[tuple[str, str]] = set()
    carried: set[str] = set()
    for restated in snapshot:
        text = restated.text  # computed once: an assistant message joins its segments
        if text:
            said.add((restated.role, text))
        if isinstance(restated, AssistantMessage):
            for call in restated.tool_calls or ():
                carried.add(call.id)
    lost: list[Message] = []
    for message in dropped:
        if isinstance(message, ToolMessage):
            lost.append(message)  # results are matched by their call: this one is gone
            continue
        calls = (message.tool_calls or []) if isinstance(message, AssistantMessage) else []
        text = message.text
        if not text and not calls:
            continue  # nothing to lose
        if (not text or (message.role, text) in said) and all(c.id in carried for c in calls):
            continue
        lost.append(message)
    return lost


def result_ids(records: dict[str, ToolCallRecord], call_id: str) -> list[str]:
    """The ids of the messages that answer a call ([] if the call is unknown)."""
    record = records.get(call_id)
    return record.result_message_ids if record is not None else []


def _objects(value: object) -> list[dict[str, Any]] | None:
    """The objects of a list (a run input's tools); None when it is no list.

    What else the list holds is no tool; the run's input keeps it as it was sent.
    """
    if not isinstance(value, list):
        return None
    return [item for item in value if isinstance(item, dict)]


class _ResultIds:
    """The message ids of a record's results, read up to ``read`` (see Reducer._has_result)."""

    __slots__ = ("ids", "read", "results")

    def __init__(self, results: list[ToolResult]) -> None:
        self.results = results
        self.read = 0
        self.ids: set[str] = set()


class Reducer:
    """Applies explicit, canonical events (sans-I/O). Read the results off its attributes."""

    # Slots: interpreted, an instance past 30 attributes loses CPython's fast attribute
    # layout, and every event reads several of them.
    __slots__ = (
        "_activity_sizes",
        "_alias_ids",
        "_answer_runs",
        "_answered",
        "_conflicts",
        "_handlers",
        "_index",
        "_inputs",
        "_list",
        "_marks",
        "_max_state",
        "_orphans",
        "_replays",
        "_result_ids",
        "_run",
        "_run_open",
        "_settling",
        "_start_raw",
        "_started",
        "_state_size",
        "_stated",
        "_stretch",
        "_text",
        "_timed",
        "_unchecked",
        "call_aliases",
        "calls_replaced",
        "client_tools",
        "delivered_ids",
        "earlier_calls",
        "runs",
        "sink",
        "state",
        "superseded",
        "times",
        "tool_calls",
    )

    def __init__(
        self,
        sink: DiagnosticSink,
        *,
        run_inputs: list[dict[str, Any]] | None = None,
        client_tools: frozenset[str] | None = None,
        max_text_chars: int | None = None,
        max_state_bytes: int | None = None,
        chunk_marks: ChunkMarks | None = None,
        times: bool = True,
    ) -> None:
        self.sink = sink
        #: The tools the client executes, when the caller says (else each run's input).
        self.client_tools = client_tools
        #: Tool calls by id.
        self.tool_calls: dict[str, ToolCallRecord] = {}
        #: Runs in stream order.
        self.runs: list[RunRecord] = []
        # The runs that finished (success, cancelled, interrupt), in order: the last one
        # still so settles the pending interrupts, found without walking back over every
        # run that errored or was cut off since (see _pending_interrupts).
        self._settling: list[RunRecord] = []
        # The ids answering each record, by record (see _has_result).
        self._result_ids: dict[int, _ResultIds] = {}
        #: The shared state after STATE_SNAPSHOT / STATE_DELTA.
        self.state: Any = {}
        #: Ids of tool messages that some run input has carried to the agent.
        self.delivered_ids: set[str] = set()
        #: Held messages a snapshot left out, in the order it dropped them.
        self.superseded: list[Message] = []
        #: The record of each call whose id a later turn declared again, as it stood then.
        self.earlier_calls: list[ToolCallRecord] = []
        #: How many records took the place of another under the same id in tool_calls
        #: (which otherwise only gains ids): what lets a reader keep a copy of the dict.
        self.calls_replaced = 0
        #: Call ids a restatement re-minted, each with the id of the call it stands for
        #: (the record's): results and lookups by either id reach the one record.
        self.call_aliases: dict[str, str] = {}
        # The re-minted ids of each record's call (call_aliases the other way round).
        self._alias_ids: dict[str, list[str]] = {}
        #: The first and last event timestamp (ms since the epoch) naming each message
        #: (by id) and each tool call (by its record's id): filled only by timed events.
        self.times = ItemTimes()
        # Whether timestamps date the runs and fill self.times (Collector's times=).
        self._timed = times
        # The messages, in the reference client's order, with their indexes.
        self._list = MessageList()
        # The held message each input message was found to be (see .restated).
        self._stated = StatedMessages()
        # Characters each message and call took from deltas, against the text limit.
        self._text = TextBudget(max_text_chars, self._report)
        # The state limit, and the size estimates of the state and of each activity's
        # content as patches apply (None / absent: measured at the next patch).
        self._max_state = bound(max_state_bytes)
        self._state_size: int | None = None
        self._activity_sizes: dict[str, int] = {}
        # The RunAgentInput of each run, as the caller gave them, and which runs took
        # which: by runId where both name it, else in order (see RunInputs).
        self._inputs = RunInputs(run_inputs or [])
        # The current run (the last one), and whether it is still going.
        self._run: RunRecord | None = None
        self._run_open = False
        # Calls the current run started, in order, and those it answered.
        self._started: dict[str, None] = {}
        self._answered: set[str] = set()
        # Results whose call no message declares yet, by call id, where they were put.
        self._orphans: dict[str, list[tuple[Node, ToolResult]]] = {}
        # Ids of run-input tool messages that answer an already answered call.
        self._conflicts: set[str] = set()
        # Calls being streamed again after their end (a replay), with the new arguments.
        self._replays: dict[str, list[str]] = {}
        # The rawEvent of each call's TOOL_CALL_START, until its end (argument recovery).
        self._start_raw: dict[str, Any] = {}
        # Calls a soft boundary closed: their arguments are judged when nothing continued
        # them by the run's end.
        self._unchecked: dict[str, ToolCall] = {}
        # Per list of results (by identity): (the list, how much of it is read, lowest and
        # highest answering run); see _answered_before.
        self._answer_runs: dict[int, tuple[list[ToolResult], int, int | None, int | None]] = {}
        # Counts what ends a stretch of assistant text (a result, a run, history): a delta
        # joins the message's last text segment only within one stretch.
        self._stretch = 0
        # The index of the event being applied (-1: none, as when closing).
        self._index = -1
        # What the chunk layer says of the calls it emitted (continued, ending softly).
        self._marks = chunk_marks if chunk_marks is not None else ChunkMarks()
        # The handler of each explicit event type (A1-A16); other types change nothing.
        self._handlers: dict[str, Callable[[Event], None]] = {
            "TEXT_MESSAGE_START": self._text_start,
            "TEXT_MESSAGE_CONTENT": self._text_content,
            "TEXT_MESSAGE_END": self._text_end,
            "REASONING_MESSAGE_START": self._reasoning_start,
            "REASONING_MESSAGE_CONTENT": self._reasoning_content,
            "REASONING_MESSAGE_END": self._text_end,
            "TOOL_CALL_START": self._tool_start,
            "TOOL_CALL_ARGS": self._tool_args,
            "TOOL_CALL_END": self._tool_end,
            "TOOL_CALL_RESULT": self._tool_result,
            "STATE_SNAPSHOT": self._state_snapshot,
            "STATE_DELTA": self._state_delta,
            "MESSAGES_SNAPSHOT": self._messages_snapshot,
            "ACTIVITY_SNAPSHOT": self._activity_snapshot,
            "ACTIVITY_DELTA": self._activity_delta,
            "REASONING_ENCRYPTED_VALUE": self._encrypted_value,
            "RUN_STARTED": self._run_started,
            "RUN_FINISHED": self._run_finished,
            "RUN_ERROR": self._run_error,
        }
        # The first input seeds the history before any event (as the reference client's
        # initial messages); the run that takes it adds nothing more from it.
        if self._inputs.inputs:
            self._add_input_messages(self._inputs.inputs[0])

    def add_run_input(self, given: dict[str, Any]) -> None:
        """The input of a run still to come, as a live client sends it.

        Given before any run, it seeds the history as a first input given up front does,
        so a conversation driven live and its recording folded afterwards agree.
        """
        inputs = self._inputs
        position = inputs.add(given)
        if position == 0 and not self.runs:
            inputs.seeded = 0
            self._add_input_messages(given)

    # -- reading -------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The message list in order (a new list, rebuilt only after a structural change)."""
        return self._list.messages

    @property
    def listed_messages(self) -> list[Message]:
        """The message list in order, the fold's own (see :meth:`MessageList.listed`)."""
        return self._list.listed()

    def _report(self, code: str, message: str, **ids: str | None) -> None:
        self.sink.report(
            code,
            message,
            event_index=self._index if self._index >= 0 else None,  # -1: no event (closing)
            message_id=ids.get("message_id"),
            tool_call_id=ids.get("tool_call_id"),
        )

    def _canonical(self, call_id: str) -> str:
        """The id of the record a call id stands for (itself unless a restatement re-minted it)."""
        return self.call_aliases.get(call_id, call_id)

    def _record(self, call_id: str) -> ToolCallRecord | None:
        """The record of a call, by its own id or an id a restatement gave it."""
        return self.tool_calls.get(self.call_aliases.get(call_id, call_id))

    def _call_name(self, call_id: str) -> str | None:
        record = self.tool_calls.get(call_id)
        return record.name if record is not None else None

    def _reconcile(self, held: list[Message], restated: list[Message]) -> list[Match | None]:
        """Reconcile restated history with what is held; new ids of held calls are kept."""
        found = reconcile(held, restated, aliases=self.call_aliases, call_name=self._call_name)
        for new_id, held_id in found.aliases.items():
            record_id = self._canonical(held_id)
            self.call_aliases[new_id] = record_id
            self._alias_ids.setdefault(record_id, []).append(new_id)
            self._report(
                "call-id-remapped",
                f"restated history carries the held call {record_id!r} under the new id "
                f"{new_id!r}; results answering either id answer it, and ordered() shows it "
                f"as {record_id!r}",
                tool_call_id=record_id,
            )
        return found.matches

    # -- entry points --------------------------------------------------------------------

    def apply(self, event: Event, index: int | None = None) -> None:
        """Apply one explicit event."""
        self._index = -1 if index is None else index
        kind = event["type"]
        if self._unchecked and kind in _RUN_EDGES:
            self._check_deferred()
        if not self._run_open and kind not in ("RUN_STARTED", "RUN_ERROR"):
            self._ensure_run(event)
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(event)
        if self._run is not None:
            self._run.last_event_index = index
        if "timestamp" in event and self._timed:
            self._note_time(event, kind)

    def _note_time(self, event: Event, kind: str) -> None:
        """Record a timed event's time on its run and on the item it names."""
        if kind in _CALL_EVENTS:
            item_id = event.get("toolCallId")
            if type(item_id) is str:
                item_id = self.call_aliases.get(item_id, item_id)
            times = self.times.calls
        else:
            item_id = event.get("messageId")
            times = self.times.messages
        self._stamp(event["timestamp"], times, item_id if type(item_id) is str else None)

    def _stamp(self, timestamp: object, times: dict[str, list[float]], item_id: str | None) -> None:
        """The time on the current run and, if named, on the item's entry in ``times``."""
        if type(timestamp) is int and _MILLISECONDS_FROM <= timestamp < _MILLISECONDS_BELOW:
            # Most of a timed stream's events: no call. Compared, not `in` the range:
            # compiled, that is two native comparisons instead of a container lookup.
            at = float(timestamp)
        else:
            found = epoch_ms(timestamp)
            if found is None:
                return
            at = found
        run = self._run
        if run is not None:
            run.ended_at = at
            if run.started_at is None:
                run.started_at = at
        if item_id is not None:
            pair = times.get(item_id)
            if pair is not None:
                pair[1] = at
            else:
                times[item_id] = [at, at]

    def note_delta_time(self, kind: str, item_id: str, timestamp: object) -> None:
        """The delta lane's timed delta: its time, as :meth:`apply` would record it."""
        if kind == "TOOL_CALL_ARGS":
            self._stamp(timestamp, self.times.calls, self.call_aliases.get(item_id, item_id))
        else:
            self._stamp(timestamp, self.times.messages, item_id)

    def release(self) -> None:
        """Let go of what makes a reducer a reference cycle, once nobody applies or reads.

        Its handlers and its text budget's report are its own bound methods, and its
        message list is a ring: dropped as they are, the reducer and every message it made
        wait for a full collection.
        """
        self._handlers = {}
        self._text.release()
        self._list.release()

    def append_delta(self, kind: str, item_id: str, delta: str, index: int | None) -> bool:
        """Apply a plain text, reasoning or argument delta, if nothing is special.

        The delta lane: True when the delta went where :meth:`apply` would put it; False
        (nothing changed) when the event needs the general path. A rule of :meth:`apply`
        that reacts to a plain delta of an open item must make this return False for it.
        """
        run = self._run
        if run is None or not self._run_open:
            return False
        if kind == "TEXT_MESSAGE_CONTENT":
            node = self._list.node(item_id)
            if node is None or type(node.message) is not AssistantMessage:
                return False
            self._index = -1 if index is None else index
            if self._text.admit("message", item_id, delta):
                node.message.append(delta, seq=self._index, stretch=self._stretch)
        elif kind == "REASONING_MESSAGE_CONTENT":
            append = self._reasoning_appender(item_id)
            if append is None:
                return False
            self._index = -1 if index is None else index
            if self._text.admit("message", item_id, delta):
                append(delta)
        else:
            if item_id in self._replays:
                return False
            call = self._list.call(item_id)
            if call is None:
                return False
            self._index = -1 if index is None else index
            if self._text.admit("call", item_id, delta):
                call.append_arguments(delta)
        run.last_event_index = index
        return True

    def delta_route(self, kind: str, item_id: str) -> DeltaRoute | None:
        """Where :meth:`append_delta` just put a delta for ``item_id``, for the next ones.

        Until another event is applied, a plain delta for the item needs nothing but
        appending there, counting against the text limit, and marking the run's last
        event: the route does just that. None when there is no such place.
        """
        run = self._run
        if run is None:
            return None
        if kind == "TEXT_MESSAGE_CONTENT":
            node = self._list.node(item_id)
            if node is None or type(node.message) is not AssistantMessage:
                return None
            segments = node.message.segments
            last = segments[-1] if segments else None
            if type(last) is not TextSegment or last.stretch != self._stretch:
                return None
            return self._text.route("message", item_id, last.appender(), run)
        if kind == "REASONING_MESSAGE_CONTENT":
            append = self._reasoning_appender(item_id)
            return None if append is None else self._text.route("message", item_id, append, run)
        call = self._list.call(item_id)
        if call is None:
            return None
        return self._text.route("call", item_id, call.arguments_appender(), run)

    def _reasoning_appender(self, item_id: str) -> Callable[[str], None] | None:
        """Where a plain reasoning delta for ``item_id`` goes, when nothing else changes.

        The message's own ``append`` (not its text's): content set on the live message
        between two deltas replaces its text, and the next delta must go there.
        """
        node = self._list.node(item_id)
        if node is None or type(node.message) is not ReasoningMessage:
            return None
        message: ReasoningMessage = node.message
        return None if message.holds_parts() else message.append

    def close(self) -> None:
        """End of input: a run still going is truncated; unmatched results are reported."""
        self._index = -1
        self._check_deferred()
        if self._run is not None and self._run_open:
            self._run.outcome = "truncated"
            self._run_open = False
        self._index = -1
        for call_id, orphans in self._orphans.items():
            for node, _ in orphans:
                self._report(
                    "orphan-result",
                    f"tool message {node.message.id!r} answers call {call_id!r}, which never "
                    "appeared; kept where it arrived, no call invented",
                    message_id=node.message.id,
                    tool_call_id=call_id,
                )
        self._orphans = {}

    # -- runs (A11, A12, A13) ------------------------------------------------------------

    def _new_run(self, event: Event, *, announced: bool) -> RunRecord:
        if self._run is not None and self._run_open:
            self._run.outcome = "truncated"
        run = RunRecord(index=len(self.runs), announced=announced, first_event_index=self._index)
        self.runs.append(run)
        self._run = run
        self._run_open = True
        self._started = {}
        self._answered = set()
        self._stretch += 1
        position = self._inputs.take(event if announced else None)
        if position is not None:
            self._pair(run, position)
            if not announced:
                self._check_resume(run)
        return run

    def _pair(self, run: RunRecord, position: int) -> None:
        """The run took the input at ``position``: its messages join the history."""
        inputs = self._inputs
        given = inputs.inputs[position]
        if position == inputs.seeded:
            inputs.seeded = None  # already in the history
            run.new_turn = bool(given.get("messages"))
        else:
            run.new_turn = self._add_input_messages(given) or (
                run.index == 0 and bool(given.get("messages"))
            )
        run.input = given
        run.resume = [r for r in given.get("resume") or () if isinstance(r, dict)]
        run.tools = _objects(given.get("tools"))
        run.thread_id = given.get("threadId") if isinstance(given.get("threadId"), str) else None
        run.run_id = given.get("runId") if isinstance(given.get("runId"), str) else None

    def _ensure_run(self, event: Event) -> None:
        # Events before any RUN_STARTED, or after a run ended, start a run that no
        # RUN_STARTED has announced (yet: one that follows announces it).
        if not self._run_open:
            self._new_run(event, announced=False)

    def _announce(self, event: Event) -> RunRecord:
        """A RUN_STARTED for the run that earlier events started: it is that run.

        Producers send a snapshot or state before RUN_STARTED (ag-ui-dify-adapter): those
        events are the run's own, never a run of their own. The run keeps the input it
        took in order, unless the RUN_STARTED names another input's runId.
        """
        run = self._run
        assert run is not None
        run.announced = True
        traded = self._inputs.trade(event)
        if traded is not None:
            self._pair(run, traded)
        return run

    def _run_started(self, event: Event) -> None:
        run = self._run
        if run is not None and self._run_open and not run.announced:
            run = self._announce(event)
        else:
            run = self._new_run(event, announced=True)
        for key, attr in (
            ("threadId", "thread_id"),
            ("runId", "run_id"),
            ("parentRunId", "parent_run_id"),
            ("protocolVersion", "protocol_version"),
        ):
            if isinstance(event.get(key), str):
                setattr(run, attr, event[key])
        echo = event.get("input")
        if isinstance(echo, dict):
            run.new_turn = self._add_input_messages(echo) or run.new_turn
            # The input the client sent is what was sent: the producer's echo of it may add
            # what the recording lacks, never take away (an echo without the resume).
            sent = run.input is not None
            run_input = {**echo, **run.input} if run.input is not None else echo
            run.input = run_input
            if isinstance(run_input.get("resume"), list):
                run.resume = [r for r in run_input["resume"] if isinstance(r, dict)]
            if isinstance(run_input.get("tools"), list):
                run.tools = _objects(run_input["tools"])
            self._check_resume(run, echoed=not sent)
        else:
            self._check_resume(run)

    def _pending_interrupts(self, run: RunRecord) -> list[Any]:
        """:func:`pending_interrupts` before ``run``, from the runs that finished."""
        settling = self._settling
        while settling and settling[-1].outcome not in _SETTLING:
            settling.pop()  # it finished, then errored: it settles nothing now
        if not settling:
            return []
        last = settling[-1]
        if last.index >= run.index:  # (a run finishes after it starts: never, but exact)
            return pending_interrupts(self.runs, before=run.index)
        return last.interrupts if last.outcome == "interrupt" else []

    def _check_resume(self, run: RunRecord, *, echoed: bool = False) -> None:
        """T7: a run after an interrupt must resume every pending interrupt.

        Checked against the input the client sent, as the reference client checks its
        own request. ``echoed``: only the producer's echo of the input is known, and
        producers leave the resume out of it (ag-ui-claude-sdk), so a missing one is
        noted, not taken for the client's omission.
        """
        if run.index == 0 or run.input is None:
            return
        interrupts = self._pending_interrupts(run)
        if not interrupts:
            return
        resume = run.input.get("resume")
        covered = (
            {entry.get("interruptId") for entry in resume if isinstance(entry, dict)}
            if isinstance(resume, list)
            else set()
        )
        missing = [str(i.get("id")) for i in interrupts if i.get("id") not in covered]
        if missing and echoed:
            self._report(
                "resume-unconfirmed",
                f"the producer's echo of the run input resumes none of the {len(missing)} "
                f"pending interrupt(s) {', '.join(missing)}; echoes leave the resume out, and "
                "the client's own input was not given",
            )
        elif missing:
            self._report(
                "resume-missing",
                f"Thread has {len(missing)} pending interrupt(s) not addressed by resume: "
                f"{', '.join(missing)}",
            )

    def _add_input_messages(self, run_input: dict[str, Any]) -> bool:
        """A11: input messages the transcript does not hold yet are appended.

        Beyond the reference, which compares ids only: an input that restates history
        under re-minted ids (a producer's own dump, Q7; a harness's copy of a client
        result) adds only what is new. Held and restated messages are matched by
        identity (:mod:`.reconcile`); each copy under a new id is an ``input-echo``, and
        a tool message it restates counts as delivered to the agent.
        """
        items = run_input.get("messages", [])
        if type(items) is not list:
            messages_from_dicts(items, where="input/messages", report=self._report)
            return False
        # What earlier inputs stated, unchanged and still held, is skipped: only the rest
        # is read, against the held messages after those (see .restated).
        start = 0
        tail: list[Message] | None = None
        if len(items) > 1:  # a lone message restates nothing worth skipping
            start, stated = self._stated.known_prefix(items, self._list.__contains__)
            tail = self._list.tail_after(stated) if start else None
            if tail is None:
                start = 0
        raws: list[Any] = []
        messages: list[Message] = []
        report = self._report
        for position in range(start, len(items)):
            item = items[position]
            message = message_from_dict(item, where=f"input/messages/{position}", report=report)
            if message is not None:
                raws.append(item)
                messages.append(message)
        if not messages:
            self._stretch += start > 0
            return False
        new_turn = False
        if tail is not None:
            held = tail
        elif not self._may_restate(messages):
            held = []
        else:
            candidates = self._restatable(messages)
            held = self._list.messages if candidates is None else candidates
        for rank, (item, message, match) in enumerate(
            zip(raws, messages, self._echoes(held, messages), strict=True), start
        ):
            if isinstance(message, ToolMessage):
                self.delivered_ids.add(message.id)
            if match is not None:
                ours = held[match.held]
                if isinstance(ours, ToolMessage):
                    self.delivered_ids.add(ours.id)
                if ours.id != message.id:
                    self._report(
                        "input-echo",
                        f"run input message {message.id!r} repeats the held {ours.role} "
                        f"message {ours.id!r} under a new id (same "
                        f"{'call' if match.kind == 'call' else 'content'}); not added again",
                        message_id=message.id,
                        tool_call_id=ours.tool_call_id if isinstance(ours, ToolMessage) else None,
                    )
                self._stated.note(item, ours.id)
                continue
            if message.id in self._list:
                self._stated.note(item, message.id)
                continue
            if isinstance(message, ToolMessage):
                echoed = self._echoed_result(message)
                if echoed is not None:
                    self._stated.note(item, echoed)
                    continue
                self._report_second_answer(message)
            message.seq = self._index
            message.rank = rank
            node = self._list.append(message)
            self._stated.note(item, message.id)
            self._register_calls(node)
            if isinstance(message, ToolMessage):
                if self._list.has_call(message.tool_call_id) or (
                    self._record(message.tool_call_id) is not None
                ):
                    # A call the transcript knows (even one a snapshot has since left
                    # out) is answered, as add_client_result would answer it.
                    self._place_history_result(message, "input")
                else:
                    result = ToolResult(message.id, self._run.index if self._run else None, "input")
                    self._orphans.setdefault(self._canonical(message.tool_call_id), []).append(
                        (node, result)
                    )
            elif isinstance(message, (UserMessage, SystemMessage, DeveloperMessage)):
                new_turn = True
        self._stretch += 1
        return new_turn

    def _echoed_result(self, message: ToolMessage) -> str | None:
        """The held result a tool message from a run input copies under another id.

        An identical copy is an echo, reported and delivered, not added: the id of the
        first held result it copies; None for a new answer.
        """
        record = self._record(message.tool_call_id)
        if record is None or not record.results:
            return None
        for result in record.results:
            node = self._list.node(result.message_id)
            if (
                node is not None
                and isinstance(node.message, ToolMessage)
                and node.message.content == message.content
            ):
                self.delivered_ids.update(r.message_id for r in record.results)
                self._report(
                    "input-echo",
                    f"run input tool message {message.id!r} repeats the held result of "
                    f"{message.tool_call_id!r}; not added again",
                    message_id=message.id,
                    tool_call_id=message.tool_call_id,
                )
                return node.message.id
        return None

    def _report_second_answer(self, message: ToolMessage) -> None:
        """Report a tool message from a run input that answers an answered call anew.

        The first answer to a call stands (I17): a server result in the stream is never
        replaced by a client's; the new answer is kept as a conflict.
        """
        record = self._record(message.tool_call_id)
        if record is None or not record.results:
            return
        if any(result.source == "stream" for result in record.results):
            self._report(
                "client-result-for-server-call",
                f"run input tool message {message.id!r} answers {message.tool_call_id!r}, which "
                "the server already answered in its stream; the server's result stands",
                message_id=message.id,
                tool_call_id=message.tool_call_id,
            )
        else:
            self._report(
                "duplicate-result",
                f"run input tool message {message.id!r} answers {message.tool_call_id!r} again, "
                "differently; the first answer stands",
                message_id=message.id,
                tool_call_id=message.tool_call_id,
            )
        self._conflicts.add(message.id)

    def _may_restate(self, messages: list[Message]) -> bool:
        """Whether an input can restate held history, judged without walking the history.

        Restating needs a message held by id, a call the transcript knows, or (matched
        by content alone) the whole conversation and something new: two messages at
        least. A harness that sends only the new turn costs nothing per run.
        """
        if not self._list:
            return False
        if len(messages) > 1:
            return True
        message = messages[0]
        if message.id in self._list:
            return True
        if isinstance(message, ToolMessage):
            return self._record(message.tool_call_id) is not None
        if isinstance(message, AssistantMessage):
            return any(self._record(call.id) is not None for call in message.tool_calls or ())
        return False

    def _restatable(self, messages: list[Message]) -> list[Message] | None:
        """The only held messages an input can restate, found by index, or None.

        For an input of tool messages and of messages held by id (with calls the
        transcript knows): reconcile's rules 1 and 2 are all that can match them, so
        the held message with each id and the held answers to each call are the only
        candidates. A client answering its calls run after run then costs nothing per
        message held. New messages without calls may follow them (a client's answers,
        then the user's next turn): matched by content alone after the last match by id
        or call, they count only when the input restates the whole conversation, which
        an input shorter than the held conversation cannot. None (reconcile against
        everything held) for any other input, when a call has more than one held answer
        or when two messages share an id: then the order of the candidates could change
        a match.
        """
        if not self._list.ids_unique:
            return None
        found: dict[int, Message] = {}
        seen: set[str] = set()
        new_turn = False
        for message in messages:
            if message.id in seen:
                return None
            seen.add(message.id)
            node = self._list.node(message.id)
            held = node is not None and node.message.id == message.id
            if not held and not isinstance(message, ToolMessage):
                if isinstance(message, AssistantMessage) and message.tool_calls:
                    return None
                if self._list.others_count <= len(messages):
                    return None  # it could restate the whole conversation
                new_turn = True
                continue
            if new_turn:
                return None  # new messages only after every answer
            if node is not None and held:
                found[id(node)] = node.message
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls or ():
                    if call.id not in self.call_aliases and call.id not in self.tool_calls:
                        return None
            if not isinstance(message, ToolMessage):
                continue
            record_id = self._canonical(message.tool_call_id)
            answers = [
                node
                for call_id in (record_id, *self._alias_ids.get(record_id, ()))
                for node in self._list.answers(call_id)
            ]
            if len(answers) > 1:
                return None
            for node in answers:
                found[id(node)] = node.message
        return list(found.values())

    def _echoes(self, held: list[Message], messages: list[Message]) -> list[Match | None]:
        """Which input messages restate held ones.

        A tool message restates a held result only with the same content (another
        answer to the call is told apart by :meth:`_echoed_result`). A match by
        content alone counts only inside restated history: before a later match by id or
        call, or when the input restates the whole conversation and adds to it; else a
        turn that repeats an earlier one ("yes", "thanks") would be taken for an echo and
        lost.
        """
        if not held:
            return [None] * len(messages)
        matches = self._reconcile(held, messages)
        strong = -1
        for index, message in enumerate(messages):  # indexed: see above _not_restated
            match = matches[index]
            if match is None:
                continue
            if isinstance(message, ToolMessage) and not restates_call(held[match.held], message):
                matches[index] = None
            elif match.kind != "content":
                strong = index
        # The whole conversation re-sent (reasoning optional), and something new after:
        # AG-UI clients send the whole thread, so that is a restatement.
        restated = {match.held for match in matches if match is not None}
        whole = matches[-1] is None and all(
            position in restated
            for position, message in enumerate(held)
            if not isinstance(message, (ActivityMessage, ReasoningMessage))
        )
        if not whole:
            for index in range(strong + 1, len(matches)):
                match = matches[index]
                if match is not None and match.kind == "content":
                    matches[index] = None
        return matches

    def _run_finished(self, event: Event) -> None:
        run = self._run
        assert run is not None
        for key, attr in (("threadId", "thread_id"), ("runId", "run_id")):
            if getattr(run, attr) is None and isinstance(event.get(key), str):
                setattr(run, attr, event[key])
        outcome = event.get("outcome")
        kind = outcome.get("type") if isinstance(outcome, dict) else None
        self._settling.append(run)
        if kind == "interrupt" and isinstance(outcome, dict):
            run.outcome = "interrupt"
            interrupts = outcome.get("interrupts")
            run.interrupts = [
                {k: v for k, v in i.items() if not (k == "subagentRunId" and v is None)}
                for i in (interrupts if isinstance(interrupts, list) else [])
                if isinstance(i, dict)
            ]
        elif kind == "cancelled":
            run.outcome = "cancelled"
        else:
            run.outcome = "success"
            listed = outcome.get("pendingToolCallIds") if isinstance(outcome, dict) else None
            unanswered = [c for c in self._started if c not in self._answered]
            if isinstance(listed, list) and listed:
                run.pending_tool_call_ids = [str(c) for c in listed]
                run.pending_listed = True
                if set(run.pending_tool_call_ids) != set(unanswered):
                    self._report(
                        "pending-list-mismatch",
                        f"pendingToolCallIds {run.pending_tool_call_ids} differs from the calls "
                        f"this run left unanswered {unanswered}; the stream is what counts",
                    )
            else:
                run.pending_tool_call_ids = unanswered
            if unanswered and run.tools is None and self.client_tools is None:
                self._report(
                    "owner-unknown",
                    f"calls {unanswered} are unanswered and no client tool list is known for "
                    "this run: their owner is unknown (treated as the client's)",
                )
        run.result = event.get("result")
        run.usage = event.get("usage")
        self._run_open = False

    def _run_error(self, event: Event) -> None:
        run = self._run
        if run is None:
            run = self._new_run(event, announced=False)
        elif not self._run_open:
            if run.outcome == "error":
                return  # a second RUN_ERROR (V2, reported by the verifier): the first stands
            run.failed_late = True  # V3: a late error fails the finished run
        run.outcome = "error"
        message = event.get("message")
        run.error_message = message if isinstance(message, str) else None
        code = event.get("code")
        run.error_code = code if isinstance(code, str) else None
        if event.get("usage") is not None:
            run.usage = event["usage"]
        self._run_open = False

    # -- text and reasoning (A1, A2, A7) -------------------------------------------------

    def _open_message(self, event: Event, message: Message) -> Node:
        message.seq = self._index
        tag = event.get("subagentRunId")
        if isinstance(tag, str):
            message.subagent_run_id = tag
        return self._list.append(message)

    def _text_start(self, event: Event, *, reasoning: bool = False) -> None:
        message_id = event.get("messageId")
        if not isinstance(message_id, str):
            return
        node = self._list.node(message_id)
        if node is None:
            if reasoning:
                message: Message = ReasoningMessage(message_id, "")
            else:
                role = event.get("role")
                cls = _TEXT_CLASSES.get(role) if isinstance(role, str) else None
                message = (
                    cls(message_id, "") if cls is not None else AssistantMessage(message_id, "")
                )
                name = event.get("name")
                if isinstance(name, str):
                    message.name = name
            node = self._open_message(event, message)
        elif isinstance(node.message, ActivityMessage):
            self._report(
                "activity-id-collision",
                f"{event['type']}: message {message_id!r} is an activity message; message ids "
                "must be unique across activity and other messages (ignored)",
                message_id=message_id,
            )
            return
        else:
            role = "reasoning" if reasoning else event.get("role", "assistant")
            if isinstance(role, str) and role != node.message.role:
                self._report(
                    "message-role-conflict",
                    f"{event['type']}: message {message_id!r} starts again as {role!r}, but "
                    f"it is a {node.message.role!r} message; what follows joins it there, as "
                    "the reference client does",
                    message_id=message_id,
                )
        node.message.merge_metadata(event.get("metadata"))

    def _reasoning_start(self, event: Event) -> None:
        self._text_start(event, reasoning=True)

    def _text_content(self, event: Event, *, reasoning: bool = False) -> None:
        message_id = event.get("messageId")
        delta = _delta_text(event.get("delta"))
        if not isinstance(message_id, str) or delta is None:
            return
        node = self._list.node(message_id)
        if node is None:
            opened: Message = (
                ReasoningMessage(message_id, "") if reasoning else AssistantMessage(message_id, "")
            )
            node = self._open_message(event, opened)
            self._report(
                "message-opened-for-content",
                f"{event['type']} for {message_id!r}, which was never started: the message is "
                "opened so its text is kept",
                message_id=message_id,
            )
        message = node.message
        if not isinstance(message, ActivityMessage) and not self._text.admit(
            "message", message_id, delta
        ):
            return
        if isinstance(message, AssistantMessage):
            message.append(delta, seq=self._index, stretch=self._stretch)
        elif isinstance(message, TextMessage):
            if isinstance(message.content, list):
                self._report(
                    "content-parts-replaced",
                    f"{event['type']} appends text to {message_id!r}, which held content parts; "
                    "its content becomes text, as in the reference client",
                    message_id=message_id,
                )
            message.append(delta)
        else:
            self._report(
                "activity-id-collision",
                f"{event['type']}: message {message_id!r} is an activity message; the delta "
                f"{delta!r} is not applied",
                message_id=message_id,
            )
            return
        message.merge_metadata(event.get("metadata"))

    def _reasoning_content(self, event: Event) -> None:
        self._text_content(event, reasoning=True)

    def _text_end(self, event: Event) -> None:
        message_id = event.get("messageId")
        node = self._list.node(message_id) if isinstance(message_id, str) else None
        if node is not None and not isinstance(node.message, ActivityMessage):
            node.message.merge_metadata(event.get("metadata"))

    # -- tool calls (A3, A4, A5) ---------------------------------------------------------

    def _tool_start(self, event: Event) -> None:
        call_id = event.get("toolCallId")
        if not isinstance(call_id, str):
            return
        continues = self._marks.continues(call_id)
        name = event.get("toolCallName")
        name = name if isinstance(name, str) else ""
        self._started[call_id] = None
        owner = self._list.owner(call_id)
        occurrence = 0
        if owner is not None:
            earlier = self.tool_calls.get(call_id)
            if earlier is None or not self._answered_before(earlier):
                self._restart_call(event, owner, call_id, name, continues=continues)
                return
            # The id was answered in an earlier run: this is a new call that reuses it.
            occurrence = earlier.occurrence + 1
            self.earlier_calls.append(earlier)
            self._report(
                "tool-call-id-reused",
                f"tool call id {call_id!r} was answered in an earlier run and is declared again: "
                "a new call (an earlier result never answers it)",
                tool_call_id=call_id,
            )
        parent = event.get("parentMessageId")
        created = False
        if isinstance(parent, str):
            found = self._list.node(parent)
            if found is not None and isinstance(found.message, AssistantMessage):
                owner = found
            else:
                if found is not None:
                    self._report(
                        "tool-parent-not-assistant",
                        f"TOOL_CALL_START: parentMessageId {parent!r} is a "
                        f"{found.message.role!r} message, not an assistant message; the call "
                        f"gets its own assistant message {call_id!r}",
                        tool_call_id=call_id,
                    )
                owner = self._open_message(
                    event, AssistantMessage(call_id if found is not None else parent, None, [])
                )
                created = True
        else:
            owner = self._open_message(event, AssistantMessage(call_id, None, []))
            created = True
        message = owner.message
        assert isinstance(message, AssistantMessage)
        if not created and message.tool_calls is None:
            message.tool_calls = []
        call = ToolCall(call_id, name)
        call.seq = self._index
        call.merge_metadata(event.get("metadata"))
        message.add_tool_call(call)
        self._list.declare(call_id, owner)
        tag = event.get("subagentRunId")
        record = ToolCallRecord(
            call,
            message.id,
            self._run.index if self._run is not None else None,
            subagent_run_id=tag if isinstance(tag, str) else message.subagent_run_id,
            event_index=self._index,
        )
        record.occurrence = occurrence
        previous = self.tool_calls.get(call_id)
        if previous is not None:
            self.calls_replaced += 1
            if not occurrence:
                record.results = previous.results
        self.tool_calls[call_id] = record
        if event.get("rawEvent") is not None:
            self._start_raw[call_id] = event["rawEvent"]
        self._adopt_orphans(call_id, owner)

    def _answered_before(self, record: ToolCallRecord) -> bool:
        """Whether a run other than this one answered the call.

        From the lowest and highest run that answered it, kept up as results are added
        (a list only grows, or is replaced): a call declared and answered again and again
        costs O(1) per declaration, not a scan of every earlier answer.
        """
        current = self._run.index if self._run is not None else None
        results = record.results
        seen = self._answer_runs.get(id(results))
        if seen is None or seen[0] is not results or seen[1] > len(results):
            seen = (results, 0, None, None)
        _, scanned, low, high = seen
        for result in results[scanned:]:
            run = result.run_index
            if run is not None:
                low = run if low is None else min(low, run)
                high = run if high is None else max(high, run)
        self._answer_runs[id(results)] = (results, len(results), low, high)
        return low is not None and (low != current or high != current)

    def _restart_call(
        self, event: Event, owner: Node, call_id: str, name: str, *, continues: bool
    ) -> None:
        """A3-i: a START for a call that exists updates it; a replay must not double it."""
        call = self._list.call_in(owner, call_id)
        if call is None:
            return
        if call.name != name:
            self._report(
                "tool-call-renamed",
                f"TOOL_CALL_START: tool call {call_id!r} already exists with name {call.name!r}; "
                f"renamed to {name!r}",
                tool_call_id=call_id,
            )
            call.name = name
        call.merge_metadata(event.get("metadata"))
        record = self.tool_calls.get(call_id)
        if record is not None and record.ended and continues:
            record.ended = False  # a chunk stream cut by a soft boundary goes on
            self._unchecked.pop(call_id, None)
        elif record is not None and record.ended:
            self._replays[call_id] = []
            self._text.forget("replay", call_id)

    def _adopt_orphans(self, call_id: str, owner: Node) -> None:
        orphans = self._orphans.pop(call_id, None)
        if not orphans:
            return
        anchor = self._list.after_results(owner)
        record = self.tool_calls.get(call_id)
        for node, result in orphans:
            anchor = self._list.move_after(anchor, node)
            if record is not None and not self._has_result(record, node.message.id):
                record.results.append(result)
            self._report(
                "result-before-call",
                f"tool message {node.message.id!r} arrived before its call {call_id!r}; "
                "moved after the call",
                message_id=node.message.id,
                tool_call_id=call_id,
            )

    def _tool_args(self, event: Event) -> None:
        call_id = event.get("toolCallId")
        delta = _delta_text(event.get("delta"))
        if not isinstance(call_id, str) or delta is None:
            return
        replay = self._replays.get(call_id)
        if replay is not None:
            if self._text.admit("replay", call_id, delta):
                replay.append(delta)
            return
        call = self._list.call(call_id)
        if call is None:
            self._report(
                "orphan-arguments",
                f"TOOL_CALL_ARGS for {call_id!r}, which was never started: the delta {delta!r} "
                "has no call to join (no call is invented)",
                tool_call_id=call_id,
            )
            return
        if self._text.admit("call", call_id, delta):
            call.append_arguments(delta)
        call.merge_metadata(event.get("metadata"))

    def _tool_end(self, event: Event) -> None:
        call_id = event.get("toolCallId")
        if not isinstance(call_id, str):
            return
        soft = self._marks.ends_softly(call_id)
        call = self._list.call(call_id)
        if call is None:
            return
        call.merge_metadata(event.get("metadata"))
        replay = self._replays.pop(call_id, None)
        if replay is not None:
            self._finish_replay(call, "".join(replay))
            return
        record = self.tool_calls.get(call_id)
        if record is not None:
            record.ended = True
        started_raw = self._start_raw.pop(call_id, None)
        if not call.arguments:
            for raw in (event.get("rawEvent"), started_raw):
                found = _find_arguments(raw, call_id, call.name) if raw is not None else None
                if found:
                    call.arguments = found
                    self._report(
                        "tool-args-recovered",
                        f"tool call {call_id!r} streamed no arguments; taken from its rawEvent",
                        tool_call_id=call_id,
                    )
                    break
        if soft:
            self._unchecked[call_id] = call  # may go on after the boundary: judged later
        else:
            self._check_arguments(call)

    def _check_deferred(self) -> None:
        """Judge the arguments of calls a soft boundary closed and nothing continued."""
        unchecked, self._unchecked = self._unchecked, {}
        for call in unchecked.values():
            self._check_arguments(call)

    def _finish_replay(self, call: ToolCall, replayed: str) -> None:
        if not replayed or replayed == call.arguments:
            self._report(
                "tool-call-replayed",
                f"tool call {call.id!r} was streamed again with the same arguments (a replay); "
                "not duplicated",
                tool_call_id=call.id,
            )
            return
        self._report(
            "tool-call-redeclared",
            f"tool call {call.id!r} was streamed again with other arguments; "
            f"{call.arguments!r} replaced by {replayed!r}",
            tool_call_id=call.id,
        )
        call.arguments = replayed
        self._check_arguments(call)

    def _check_arguments(self, call: ToolCall) -> None:
        record = self.tool_calls.get(call.id)
        error = record.parse_error if record is not None else None
        if error is None:
            return
        code = (
            "tool-arguments-concatenated"
            if error.startswith("several")
            else "tool-arguments-invalid"
        )
        self._report(
            code,
            f"tool call {call.id!r} ({call.name}) has arguments that are not one JSON value: "
            f"{error}; kept as raw text",
            tool_call_id=call.id,
        )

    def _tool_result(self, event: Event) -> None:
        message_id = event.get("messageId")
        call_id = event.get("toolCallId")
        if not isinstance(message_id, str) or not isinstance(call_id, str):
            return
        raw_content = event.get("content")
        content: str | list[Any]
        if isinstance(raw_content, list):
            # Parts that are not AG-UI content parts (a bare string, a number) would
            # break every reader of the message: reported and dropped, as in snapshots.
            content = content_parts(
                raw_content,
                f"TOOL_CALL_RESULT {message_id!r}",
                lambda code, text: self._report(
                    code, text, message_id=message_id, tool_call_id=call_id
                ),
            )
        else:
            content = (
                raw_content if isinstance(raw_content, str) else (_delta_text(raw_content) or "")
            )
        aliases = self.call_aliases
        self._answered.add(aliases.get(call_id, call_id) if aliases else call_id)
        existing = self._list.node(message_id)
        if existing is not None:
            held = existing.message
            if (
                isinstance(held, ToolMessage)
                and held.tool_call_id == call_id
                and held.content == content
            ):
                self._report(
                    "result-replayed",
                    f"TOOL_CALL_RESULT {message_id!r} repeats a result already held; "
                    "not added twice",
                    message_id=message_id,
                    tool_call_id=call_id,
                )
                return
            self._report(
                "duplicate-message-id",
                f"TOOL_CALL_RESULT reuses message id {message_id!r}; kept as another message, as "
                "the reference client does",
                message_id=message_id,
                tool_call_id=call_id,
            )
        message = ToolMessage(message_id, call_id, content)
        message.seq = self._index
        tag = event.get("subagentRunId")
        if isinstance(tag, str):
            message.subagent_run_id = tag
        message.merge_metadata(event.get("metadata"))
        result = ToolResult(message_id, self._run.index if self._run else None, "stream")
        self._place_result(message, call_id, result)
        record = self._record(call_id)
        if record is not None:
            record.results.append(result)
            client_tools = self.client_tools
            if client_tools is None and self._run is not None and self._run.tools is not None:
                client_tools = self._run.tool_names
            if client_tools is not None and record.name in client_tools:
                self._report(
                    "server-answered-client-tool",
                    f"the server answered {call_id!r} ({record.name}), a tool the client "
                    "declared: the call is the server's; the client has nothing to send",
                    tool_call_id=call_id,
                )
        self._stretch += 1

    def _place_result(self, message: ToolMessage, call_id: str, result: ToolResult) -> None:
        """A5: after the message that carries the call (by this id, as the reference looks).

        Else at the end: an orphan until its call appears, unless the call is known by
        another id (a snapshot re-minted it), which answers it.
        """
        owner = self._list.owner(call_id)
        if owner is None:
            node = self._list.append(message)
            if self._record(call_id) is None:
                self._orphans.setdefault(self._canonical(call_id), []).append((node, result))
        else:
            self._list.insert_after(self._list.after_results(owner), message)

    def _has_result(self, record: ToolCallRecord, message_id: str) -> bool:
        """Whether ``message_id`` answers ``record`` already, without a walk of its results.

        A snapshot restating k results of one call asks k times: each question walked
        every result (k² in all). The ids are kept per results list, which only grows by
        appending (a list put in its place is read anew).
        """
        results = record.results
        known = self._result_ids.get(id(record))
        if known is None or known.results is not results:
            known = self._result_ids[id(record)] = _ResultIds(results)
        ids = known.ids
        for position in range(known.read, len(results)):
            ids.add(results[position].message_id)
        known.read = len(results)
        return message_id in ids

    def _place_history_result(self, message: ToolMessage, source: ResultSource) -> None:
        """A tool message from history that answers a call we hold is not an orphan."""
        record = self._record(message.tool_call_id)
        if (
            record is not None
            and not self._has_result(record, message.id)
            and message.id not in self._conflicts
        ):
            run_index = self._run.index if self._run is not None else None
            record.results.append(ToolResult(message.id, run_index, source))

    def _register_calls(self, node: Node) -> None:
        """Index the calls of a message that came from history (a snapshot or run input)."""
        message = node.message
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            return
        for call in message.tool_calls:
            if self._list.has_call(call.id):
                continue
            self._list.declare(call.id, node)
            held_id = self.call_aliases.get(call.id)
            if held_id is not None and held_id in self.tool_calls:
                # A held call under the id a restatement gave it: the record moves to its
                # new message and keeps its id, its call and its results.
                held_record = self.tool_calls[held_id]
                held_record.message_id = message.id
                held_record.ended = True
                for _, result in self._orphans.pop(held_id, []):
                    if not self._has_result(held_record, result.message_id):
                        held_record.results.append(result)
                continue
            record = self.tool_calls.get(call.id)
            if record is None:
                self.tool_calls[call.id] = ToolCallRecord(
                    call, message.id, None, subagent_run_id=message.subagent_run_id, ended=True
                )
            else:
                record.call = call
                record.message_id = message.id
                record.ended = True
            # History keeps its own order (as the reference does); results already held
            # now answer a known call.
            for _, result in self._orphans.pop(call.id, []):
                if result.message_id not in result_ids(self.tool_calls, call.id):
                    self.tool_calls[call.id].results.append(result)

    def add_client_result(
        self,
        tool_call_id: str,
        content: str | list[dict[str, Any]],
        *,
        error: str | None = None,
        message_id: str | None = None,
    ) -> ToolMessage | None:
        """A harness's answer to a client call, placed right after the call (A5).

        Returns the new tool message, or None when the call already has an answer (which
        stands, and the attempt is reported).
        """
        record = self._record(tool_call_id)
        if record is None:
            raise KeyError(f"the transcript has no tool call {tool_call_id!r}")
        self._index = -1
        if record.results:
            server = any(r.source in ("stream", "snapshot") for r in record.results)
            self._report(
                "client-result-for-server-call" if server else "duplicate-result",
                f"a client result for {tool_call_id!r}, which is already answered "
                f"({'by the server' if server else 'by the client'}); the first answer stands",
                tool_call_id=tool_call_id,
            )
            return None
        new_id = message_id or f"client-result-{uuid.uuid4().hex[:16]}"
        if isinstance(content, list):  # as for streamed results: only real content parts
            content = content_parts(
                content,
                f"client result {new_id!r}",
                lambda code, text: self._report(code, text, tool_call_id=tool_call_id),
            )
        message = ToolMessage(new_id, tool_call_id, content, error=error)
        # It arrives now: after everything streamed so far, in the projection's order.
        message.seq = max(
            (r.last_event_index for r in self.runs if r.last_event_index is not None), default=-1
        )
        result = ToolResult(message.id, None, "harness")
        carrier = self._list.owner(tool_call_id) or self._list.node(record.message_id or "")
        if carrier is not None:  # right after its call, under whichever id it is held
            self._list.insert_after(self._list.after_results(carrier), message)
        else:
            self._place_result(message, tool_call_id, result)
        record.results.append(result)
        self._stretch += 1
        return message

    # -- snapshots (A6, A9, A10, A14) ----------------------------------------------------

    def _messages_snapshot(self, event: Event) -> None:
        """A6: the snapshot replaces the history, reconciled by identity (:mod:`.reconcile`).

        The list is the reference client's: held messages the snapshot restates by id
        are replaced in place, the others dropped (reasoning and activity kept when it
        carries none of that kind), messages with new ids appended in its order. Beyond
        it, a tool message the snapshot restates under a new id goes right after its
        call, where a streamed result goes (the reference would move it behind later
        text). Every restated message keeps when it arrived, and a message only the
        snapshot holds arrives just before the next one that was held: the projection,
        which orders by arrival, follows the snapshot's order (a system prompt stays
        first, a user turn before its answer).
        """
        snapshot = messages_from_dicts(event.get("messages"), where="messages", report=self._report)
        has_activity = any(isinstance(m, ActivityMessage) for m in snapshot)
        has_reasoning = any(isinstance(m, ReasoningMessage) for m in snapshot)
        # Reasoning and activity a snapshot of neither kind keeps are left where they
        # are, in runs linked back whole (asides: by each run's first message), never
        # walked: a snapshot costs what it restates, however much of them is held.
        asides: dict[int, tuple[Node, Node]] | None = None
        nodes: list[Node] = []
        if (
            not has_activity
            and not has_reasoning
            and self._list.has_asides
            and self._keeps_asides(snapshot)
        ):
            asides = {}
            nodes = self._list.others()
            held = [node.message for node in nodes]
        else:
            held = self._list.messages
        matches = self._reconcile(held, snapshot)
        for position, message in enumerate(snapshot):  # indexed: see above _not_restated
            match = matches[position]
            if match is not None:
                self._take_over(held[match.held], message, match.kind)
        self._date_new(snapshot, matches)
        by_id = {message.id: message for message in snapshot}
        restated = {match.held for match in matches if match is not None}
        kept: list[Message] = []
        dropped: list[Message] = []
        if asides is not None:
            self._keep_aside(self._list.start, kept, asides)
        for position, message in enumerate(held):
            replacement = by_id.get(message.id)
            if replacement is not None:
                kept.append(replacement)
            elif (isinstance(message, ActivityMessage) and not has_activity) or (
                isinstance(message, ReasoningMessage) and not has_reasoning
            ):
                kept.append(message)
            elif position not in restated:
                dropped.append(message)
            if asides is not None:
                self._keep_aside(nodes[position], kept, asides)
        if dropped:
            dropped = _not_restated(dropped, snapshot)
            if dropped:
                self._report_dropped(dropped)
        placed = {message.id for message in kept}
        results: list[tuple[ToolMessage, str | None]] = []
        predecessor: str | None = None  # the last snapshot message that is not such a result
        for position, message in enumerate(snapshot):
            match = matches[position]
            if message.id in placed:
                predecessor = message.id
                continue
            placed.add(message.id)
            if match is not None and isinstance(message, ToolMessage):
                # Restated under a new id: where the snapshot puts it, not behind later
                # messages as appending would (see _placed_as_restated).
                results.append((message, predecessor))
                continue
            predecessor = message.id
            kept.append(message)
        self._rebuild(_placed_as_restated(kept, results, self._canonical), asides)

    def _keeps_asides(self, snapshot: list[Message]) -> bool:
        """Whether the held reasoning and activity can be kept without reading them.

        Only when no snapshot message has the id of one (it would be restated) and no
        two held messages share an id: then matching the others alone matches the same.
        """
        if not self._list.ids_unique:
            return False
        for message in snapshot:
            node = self._list.node(message.id)
            if node is not None and kept_aside(node.message):
                return False
        return True

    def _keep_aside(
        self, node: Node, kept: list[Message], asides: dict[int, tuple[Node, Node]]
    ) -> None:
        """Keep the run of reasoning and activity after ``node``, named by its first message."""
        run = self._list.aside_after(node)
        if run is not None:
            kept.append(run[0].message)
            asides[id(run[0].message)] = run

    def _report_dropped(self, dropped: list[Message]) -> None:
        """A snapshot left out held messages it does not restate under any id: say which.

        The reference client replaces the history, and so does the transcript; the
        messages are kept in :attr:`superseded`, so nothing delivered is lost unsaid.
        """
        self.superseded.extend(dropped)
        named: list[str] = []
        characters = 0
        for m in dropped:
            size = len(m.text)
            characters += size
            if len(named) < _NAMED_DROPS:
                named.append(f"{m.id!r} ({m.role}, {size} characters)")
        shown = ", ".join(named)
        more = len(dropped) - _NAMED_DROPS
        if more > 0:
            shown += f" and {more} more"
        self._report(
            "snapshot-dropped-messages",
            f"the snapshot leaves out {len(dropped)} held message(s) it does not restate: "
            f"{shown}; {characters} characters of text in all. They are replaced, as the "
            "reference client replaces them (kept in transcript.superseded)",
            message_id=dropped[0].id,
        )

    def _date_new(self, snapshot: list[Message], matches: list[Match | None]) -> None:
        """Messages only the snapshot holds arrive just before the next one that was held.

        (At the snapshot's own event when none follows.) Arrival is what the projection
        orders by, so a user turn or a system prompt that only the snapshot carries
        stays before the answer it precedes there.
        """
        following = self._index
        for position in range(len(snapshot) - 1, -1, -1):  # indexed: see above _not_restated
            message = snapshot[position]
            if matches[position] is None:
                message.seq = following
            else:
                following = message.seq - 1
        for rank, message in enumerate(snapshot):  # ties: the snapshot's own order
            message.rank = rank

    def _take_over(self, held: Message, restated: Message, kind: str) -> None:
        """A snapshot copy replaces a held message: it keeps when and how it arrived."""
        restated.seq = held.seq
        if isinstance(held, AssistantMessage) and isinstance(restated, AssistantMessage):
            _carry_arrival(held, restated, self._canonical)
        if restated.id == held.id:
            return
        if isinstance(held, ToolMessage):
            record = self._record(held.tool_call_id)
            if record is not None:
                record.results = [
                    ToolResult(restated.id, r.run_index, r.source) if r.message_id == held.id else r
                    for r in record.results
                ]
            if held.id in self.delivered_ids:
                self.delivered_ids.add(restated.id)
        self._report(
            "snapshot-id-remapped",
            f"the snapshot restates the held {held.role} message {held.id!r} as "
            f"{restated.id!r} (same {_sameness(restated, kind)}); the "
            "snapshot's copy replaces it and keeps its arrival",
            message_id=restated.id,
            tool_call_id=held.tool_call_id if isinstance(held, ToolMessage) else None,
        )

    def _rebuild(
        self, messages: list[Message], asides: dict[int, tuple[Node, Node]] | None
    ) -> None:
        """Hold these messages, with the runs of reasoning and activity ``asides`` names.

        With ``asides`` (see :meth:`MessageList.respliced`) only the other nodes are new
        and indexed again: reasoning and activity declare no call and answer none.
        """
        self._activity_sizes = {}
        self._orphans = {}
        if asides is None:
            self._list.rebuild(messages)
            nodes = list(self._list.nodes())
        else:
            self._list.respliced(messages, asides)
            nodes = self._list.others()
        for node in nodes:
            self._register_calls(node)
        for node in nodes:
            message = node.message
            if not isinstance(message, ToolMessage):
                continue
            if self._list.has_call(message.tool_call_id) or self._record(message.tool_call_id):
                self._place_history_result(message, "snapshot")
            else:
                run_index = self._run.index if self._run is not None else None
                result = ToolResult(message.id, run_index, "snapshot")
                self._orphans.setdefault(self._canonical(message.tool_call_id), []).append(
                    (node, result)
                )

    def _state_snapshot(self, event: Event) -> None:
        self.state = event.get("snapshot")
        self._state_size = None

    def _patch(
        self, document: Any, ops: object, what: str, size: int | None
    ) -> tuple[bool, Any, int]:
        """Apply a JSON Patch atomically (:mod:`.patch`); the document and its size after."""
        if size is None:
            size = json_size(document, self._max_state)
        if not isinstance(ops, list):
            return False, document, size
        valid = []
        for index, op in enumerate(ops):
            if isinstance(op, dict) and type(op.get("op")) is str and op["op"] in _PATCH_OPS:
                valid.append(op)
            else:
                kind = op.get("op") if isinstance(op, dict) else op
                self._report(
                    "patch-op-dropped",
                    f"{what}/{index}: {kind!r} is not an RFC 6902 operation; dropped, "
                    "the rest applies",
                )
        try:
            patched, size_after = apply_patch(document, valid, size=size, max_size=self._max_state)
        except PatchTooLarge as exc:
            self._report(
                "state-limit",
                f"{what.split('/')[0]} patch refused: {exc} (the state limit); nothing of it "
                "applied",
            )
            return False, document, size
        except PatchError as exc:
            self._report(
                "patch-failed",
                f"Failed to apply {what.split('/')[0]} patch ({exc}); nothing of it applied",
            )
            return False, document, size
        return True, patched, size_after

    def _state_delta(self, event: Event) -> None:
        applied, state, size = self._patch(
            self.state, event.get("delta"), "state/delta", self._state_size
        )
        self._state_size = size
        if applied:
            self.state = state

    def _activity_snapshot(self, event: Event) -> None:
        message_id = event.get("messageId")
        if not isinstance(message_id, str):
            return
        activity_type = event.get("activityType")
        activity_type = activity_type if isinstance(activity_type, str) else ""
        content = event.get("content")
        content = content if isinstance(content, dict) else {}
        replace = event.get("replace", True) is not False
        tag = event.get("subagentRunId")
        self._activity_sizes.pop(message_id, None)  # measured again at its next patch
        node = self._list.node(message_id)
        target: Message
        if node is None:
            target = ActivityMessage(message_id, activity_type, content)
            self._open_message(event, target)
        elif isinstance(node.message, ActivityMessage):
            target = node.message
            if replace:
                target.activity_type = activity_type
                target.content = content
                target.subagent_run_id = tag if isinstance(tag, str) else None
        elif replace:
            replaced = node.message
            calls = replaced.tool_calls if isinstance(replaced, AssistantMessage) else None
            lost = (
                f"its content and its tool calls {', '.join(repr(c.id) for c in calls)} are lost"
                if calls
                else "its content is lost"
            )
            self._report(
                "activity-id-collision",
                f"ACTIVITY_SNAPSHOT {message_id!r} replaces the {replaced.role} message with that "
                f"id, as in the reference client: {lost} (message ids must be unique across "
                "activity and other messages)",
                message_id=message_id,
            )
            target = ActivityMessage(message_id, activity_type, content)
            target.seq = node.message.seq
            target.subagent_run_id = tag if isinstance(tag, str) else None
            self._list.replace(node, target)
        else:
            target = node.message
        target.merge_metadata(event.get("metadata"))

    def _activity_delta(self, event: Event) -> None:
        message_id = event.get("messageId")
        node = self._list.node(message_id) if isinstance(message_id, str) else None
        if node is None:
            self._report(
                "activity-target-missing",
                f"ACTIVITY_DELTA for {message_id!r}, which does not exist; skipped",
                message_id=message_id if isinstance(message_id, str) else None,
            )
            return
        target = node.message
        if not isinstance(target, ActivityMessage):
            self._report(
                "activity-target-invalid",
                f"ACTIVITY_DELTA: message {message_id!r} is not an activity message; skipped",
                message_id=target.id,
            )
            return
        target.merge_metadata(event.get("metadata"))
        applied, content, size = self._patch(
            target.content,
            event.get("patch"),
            "activity/patch",
            self._activity_sizes.get(target.id),
        )
        if applied and not isinstance(content, dict):
            self._report(
                "patch-failed",
                f"Failed to apply activity patch (it makes {target.id!r}'s content "
                f"{json_kind(content)}, and an activity's content is an object); nothing of it "
                "applied",
                message_id=target.id,
            )
            self._activity_sizes.pop(target.id, None)  # measured again at its next patch
            return
        self._activity_sizes[target.id] = size
        if applied:
            target.content = content
            if isinstance(event.get("activityType"), str):
                target.activity_type = event["activityType"]

    def _encrypted_value(self, event: Event) -> None:
        entity = event.get("entityId")
        value = event.get("encryptedValue")
        if not isinstance(entity, str) or not isinstance(value, str):
            return
        value_type = event.get("encryptedValueType")
        target: ToolCall | Message | None = None
        if event.get("subtype") == "tool-call":
            target = self._list.call(entity)
        else:
            node = self._list.node(entity)
            if node is not None and not isinstance(node.message, ActivityMessage):
                target = node.message
        if target is None:
            self._report(
                "encrypted-value-unknown-entity",
                f"REASONING_ENCRYPTED_VALUE for {event.get('subtype')} {entity!r}, which is not "
                "held; ignored",
            )
            return
        target.encrypted_value = value
        target.encrypted_value_type = value_type if isinstance(value_type, str) else None
