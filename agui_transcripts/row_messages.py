"""A row's messages: each message in the rows' common shape, each run's rendered once.

Rows per run hold the conversation as it stood at each run's end. Rendering the whole
conversation again at every run's end costs the square of the runs, although a run
mostly adds messages after the ones before it. :class:`RunMessages` keeps the in-order
projection of what earlier runs left (:class:`~agui_transcripts.projection.InOrder`)
and, at a run's end, renders only the messages that came since, when it can tell that
the earlier ones did not change: no event of the run named one of them (their ids and
their calls' ids; a run input's messages are skipped or added at the end), the list
still starts with the very same objects, and the new messages need no reordering.
Anything else renders the whole conversation, as before, so a row is the same either
way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from operator import is_
from typing import Any, Final

from ._codec import dumps_checked
from .model import AssistantMessage, Message, ToolMessage
from .projection import InOrder, finish_in_order
from .row_deltas import GrowingList, shared_prefix
from .transcript import Transcript

__all__ = ["EachMessage", "RunMessages", "message_row"]

#: Renders messages already ordered (a transcript's projection, or a run of it), each
#: on its own: what each gives, in order (nothing, or what the whole rendering holds
#: for it there). The transcript is the one they are of. A target that can
#: (``adapters.target.Target.each``) lets rows per run render only what a run added.
EachMessage = Callable[[Transcript, Sequence[Message]], list[list[Any]]]

#: The events a run may hold and still leave earlier messages as they were, when none
#: names one of them. Anything else (a messages snapshot, unknown types) renders the
#: whole conversation.
_KEEPING: Final = frozenset(
    {
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "STEP_STARTED",
        "STEP_FINISHED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_CHUNK",
        "TOOL_CALL_RESULT",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "REASONING_MESSAGE_CHUNK",
        "REASONING_ENCRYPTED_VALUE",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        # A subagent's run ends lanes of its own, all opened in this run (every lane
        # closes at a run's start and end).
        "SUBAGENT_STARTED",
        "SUBAGENT_FINISHED",
        "SUBAGENT_ERROR",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "CUSTOM",
        "RAW",
    }
)
#: Where an event names a message or a call (an encrypted value's entity is either).
_ID_KEYS: Final = ("messageId", "toolCallId", "parentMessageId", "entityId")
#: Chunks that must name their item to be known not to continue an earlier one.
_CHUNK_ID: Final = {
    "TEXT_MESSAGE_CHUNK": "messageId",
    "TOOL_CALL_CHUNK": "toolCallId",
    "REASONING_MESSAGE_CHUNK": "messageId",
}


def message_row(message: dict[str, Any]) -> dict[str, Any]:
    """One rendered message (AG-UI, OpenAI or ragas form) in the rows' common shape.

    Text content stays text; content that is not (content parts, an activity's object)
    is kept as JSON text in ``content_json``, since a table column has one type.
    """
    content = message.get("content")
    text, structured = (
        (content, None)
        if content is None or isinstance(content, str)
        else (None, dumps_checked(content))
    )
    metadata = message.get("metadata") or {}
    calls = message.get("toolCalls") or message.get("tool_calls") or []
    call_ids = metadata.get("tool_call_ids") or [None] * len(calls)
    return {
        "id": message.get("id", metadata.get("message_id")),
        "role": message.get("role") or message.get("type"),
        "content": text,
        "content_json": structured,
        "name": message.get("name", message.get("activityType")),
        "tool_calls": [
            _call_row(call, call_id) for call, call_id in zip(calls, call_ids, strict=False)
        ],
        "tool_call_id": message.get(
            "toolCallId", message.get("tool_call_id", metadata.get("tool_call_id"))
        ),
        "error": message.get("error", metadata.get("error")),
    }


def _call_row(call: dict[str, Any], known_id: str | None) -> dict[str, Any]:
    function = call.get("function")
    if isinstance(function, dict):  # AG-UI and OpenAI
        name, arguments = function.get("name"), function.get("arguments")
    else:  # ragas: a name and parsed arguments
        name, arguments = call.get("name"), call.get("args")
    if arguments is not None and not isinstance(arguments, str):
        arguments = dumps_checked(arguments)
    return {"id": call.get("id", known_id), "name": name, "arguments": arguments}


class RunMessages:
    """The message rows of each run's row of one log, read in order.

    ``render`` renders a whole transcript for the rows' target. ``each``: the target's
    rendering of each projected message on its own, when it has one, so what earlier
    runs left can be kept; otherwise every run renders the whole conversation.
    ``untagged``: the rows take subagents' messages apart or leave them out, so ``each``
    serves only while no message is a subagent's (with none, every way is the same).
    :meth:`event` sees every event of the log, :meth:`rows` each run's end.
    """

    def __init__(
        self,
        render: Callable[[Transcript], list[dict[str, Any]]],
        *,
        each: EachMessage | None,
        untagged: bool = False,
    ) -> None:
        self._render = render
        self._each = each
        self._untagged = untagged
        self._rendered: list[dict[str, Any]] = []  # the last run's messages, rendered
        # Where each message of the projection (InOrder.out) starts in _rendered.
        self._starts: list[int] = []
        #: And as rows (the whole list, and how much of it the run before's rows share).
        self.rows_now: GrowingList[dict[str, Any]] = GrowingList()
        # The projection of the messages the last run's end held, when it can go on.
        self._in_order: InOrder | None = None
        # The messages of that run's end (the fold's list, which only appends may have
        # changed since, while the fold lists its messages in it), the first _held of
        # them the ones held.
        self._taken: list[Message] = []
        self._held = 0
        self._named: set[str] = set()  # their ids and their calls' ids
        self._keeps = False  # no event since has named one of them, or may change them
        self._in_run = False
        #: How many runs' ends rendered the whole conversation (the rest rendered what
        #: their runs added).
        self.whole_renders = 0
        #: The last rows' messages (the transcript's list), and how many of them the
        #: rows went on from, when the run left those as they were (else None).
        self.messages: list[Message] = []
        self.kept: int | None = None
        self.transcript: Transcript | None = None

    def event(self, event: dict[str, Any]) -> None:
        """Note an event: whether it may change a message an earlier run left."""
        if not self._keeps:
            return
        kind = event["type"]
        if kind not in _KEEPING:
            self._keeps = False
            return
        if kind == "RUN_STARTED":
            # A run input's messages leave held ones as they are: each is skipped (held
            # by its id, or restated by content or call under another) or added at the
            # end, where :meth:`rows` reads it as it reads the run's own.
            if self._in_run:
                self._keeps = False  # a run that starts inside another cuts that one off
            self._in_run = True
        elif not self._in_run:
            self._keeps = False  # a run no RUN_STARTED announced (it may take an input)
            return
        chunk_id = _CHUNK_ID.get(kind)
        if chunk_id is not None and event.get(chunk_id) is None:
            self._keeps = False  # a continuation: of which message is the chunk layer's say
            return
        named = self._named
        for key in _ID_KEYS:
            value = event.get(key)
            if value is not None and (type(value) is not str or value in named):
                self._keeps = False
                return

    @property
    def may_go_on(self) -> bool:
        """Whether this run's end may go on from the held messages, as events tell."""
        return self._keeps and self._in_order is not None

    @property
    def held(self) -> tuple[int, set[str]]:
        """How many leading messages are held, and their ids and their calls' ids."""
        return self._held, self._named

    def rows(
        self, transcript: Transcript, whole: Callable[[], Transcript] | None = None
    ) -> list[dict[str, Any]]:
        """The message rows of ``transcript`` (the log at a run's end): :attr:`rows_now`.

        ``whole``: the same transcript with every call settled, for a run that must be
        rendered whole (``transcript`` may leave earlier calls unsettled). The transcript
        read is :attr:`transcript` after. The list returned is this object's own, changed
        at the next run's end.
        """
        self.transcript = transcript
        messages = self.messages = transcript.messages
        in_order, held = self._in_order, self._held
        self.kept = None
        if (
            self._keeps
            and in_order is not None
            and not transcript.call_aliases
            and len(messages) >= held
            # The fold's own list, only appended to since (or else the same messages).
            and (messages is self._taken or all(map(is_, messages, islice(self._taken, held))))
        ):
            before = len(in_order.out)
            added = messages[held:]
            if not (self._untagged and _tagged(added, transcript)) and in_order.take(
                added, transcript.tool_calls
            ):
                start = self._starts[before] if before < len(self._starts) else len(self._rendered)
                rendered = self._render_from(in_order, before, start, transcript)
                del self._rendered[start:]
                self._rendered += rendered
                self.rows_now.go_on(start, map(message_row, rendered))
                self._hold(messages, in_order)
                self.kept = held
                return self.rows_now.items
        if whole is not None:
            transcript = self.transcript = whole()
            messages = self.messages = transcript.messages
        return self._render_whole(transcript, messages)

    def _render_whole(
        self, transcript: Transcript, messages: list[Message]
    ) -> list[dict[str, Any]]:
        self.whole_renders += 1
        in_order: InOrder | None = None
        if (
            self._each is not None
            and not transcript.call_aliases
            and not (self._untagged and _tagged(messages, transcript))
        ):
            in_order = InOrder()
            if not in_order.take(messages, transcript.tool_calls):
                in_order = None
        # What the projection makes of messages in order is the in-order pass's own
        # output and its open batch's synthetic results, rendered the same way.
        now = (
            self._render_from(in_order, 0, 0, transcript)
            if in_order is not None
            else self._render(transcript)
        )
        # A message rendered as in the run before keeps its row.
        kept = shared_prefix(self._rendered, now)
        self.rows_now.go_on(kept, map(message_row, now[kept:]))
        self._rendered = now
        self._in_order, self._taken, self._held, self._named = in_order, [], 0, set()
        if in_order is not None:
            self._hold(messages, in_order)
        else:
            self._keeps = False
        return self.rows_now.items

    def _render_from(
        self, in_order: InOrder, position: int, start: int, transcript: Transcript
    ) -> list[Any]:
        """The pass's output from ``position`` on, with its open batch's synthetic results.

        They are rendered from ``start`` on; where each message of the pass starts there
        is noted, for a later run's end to go on from.
        """
        assert self._each is not None
        out = in_order.out
        tail = out[position:]
        batch = in_order.open_batch()
        if batch is not None:
            tail = finish_in_order(tail, batch, transcript.tool_calls, "synthesize").messages
        rendered: list[Any] = []
        starts = self._starts
        del starts[position:]
        for message, forms in zip(tail, self._each(transcript, tail), strict=True):
            if position < len(out) and message is out[position]:  # not a synthetic result
                starts.append(start + len(rendered))
                position += 1
            rendered += forms
        return rendered

    def _hold(self, messages: list[Message], in_order: InOrder) -> None:
        """Hold what the next run's end may go on from.

        That is every message the pass took but the open batch's message and those after
        it, which the pass takes again when the batch's calls may have been answered.
        """
        in_order.back_to_open_batch(messages)
        if len(self._starts) < len(in_order.out):  # a message the render did not place
            self._in_order, self._keeps = None, False
            return
        held = in_order.taken
        named = self._named
        for message in messages[self._held : held]:
            named.add(message.id)
            if isinstance(message, AssistantMessage):
                named.update(call.id for call in message.tool_calls or ())
            elif isinstance(message, ToolMessage):
                named.add(message.tool_call_id)
        self._taken, self._held = messages, held
        self._keeps, self._in_run = True, False


def _tagged(messages: list[Message], transcript: Transcript) -> bool:
    """Whether one of ``messages`` is a subagent's, as the projection attributes them."""
    records = transcript.tool_calls
    for message in messages:
        if message.subagent_run_id is not None:
            return True
        if isinstance(message, ToolMessage):  # an untagged result goes where its call does
            record = records.get(message.tool_call_id)
            if record is not None and record.subagent_run_id is not None:
                return True
    return False
