"""A row's tool calls and continuation, read again only where a run may have changed them.

A row lists every tool call with its result, state and owner, and says what must happen
next. States settle as later runs come (a call left unanswered is abandoned when the
next run finishes without its result), so rows per run used to settle and read every
call at every run's end, the square of the calls in all. :class:`RunCalls` keeps the
row of each call settled for good: answered, its call and its answers among the
messages the message rows hold (:class:`~agui_transcripts.row_messages.RunMessages`),
and, answered by the client, delivered back to the agent. Nothing a later run does that
the message rows go on from can change such a call (its state follows from its answers
and the run that declared it), and it asks nothing of the continuation. Only the calls
after the first that is not settled for good are settled and read again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .call_views import tail
from .model import Message, ToolCallRecord, ToolMessage
from .ownership import continuation
from .row_deltas import GrowingList
from .transcript import Transcript

__all__ = ["RunCalls", "tool_call_rows"]

_FOR_GOOD = frozenset({"resolved_server", "resolved_server_late", "resolved_client"})

#: A tool message by id (the last of that id in the conversation), or None.
Answers = Callable[[str], "ToolMessage | None"]


class RunCalls:
    """The tool-call rows and continuation of each run's row of one log, read in order."""

    def __init__(self) -> None:
        #: How many leading calls (in :attr:`Transcript.tool_calls` order) have rows
        #: settled for good: the next run's end needs them neither copied nor settled.
        self.stable = 0
        #: Every call's row as the last run's end read it (the first :attr:`stable` of
        #: them settled for good).
        self.rows_now: GrowingList[dict[str, Any]] = GrowingList()
        self._answers: dict[str, ToolMessage] = {}  # the held tool messages, by id
        self._indexed = 0  # how many held messages _answers has read

    def columns(
        self, transcript: Transcript, messages: list[Message], held: int, named: set[str]
    ) -> dict[str, Any]:
        """The ``tool_calls`` and ``continuation`` columns at a run's end.

        ``transcript`` has its calls settled from :attr:`stable` on when the message rows
        went on from the ``held`` leading ``messages`` (whose ids and calls' ids are
        ``named``); otherwise, after :meth:`restart`, every call is settled and read.
        """
        if transcript.earlier_calls:  # an id declared again: its occurrences interleave
            self.restart()
        answers = self._answers
        for message in messages[self._indexed : held]:
            if isinstance(message, ToolMessage):
                answers[message.id] = message
        self._indexed = held
        recent = {m.id: m for m in messages[held:] if isinstance(m, ToolMessage)}

        def answer(message_id: str) -> ToolMessage | None:
            found = recent.get(message_id)
            return found if found is not None else answers.get(message_id)

        stable = self.stable
        settled = [record for _, record in tail(transcript.tool_calls, stable)]
        self.rows_now.go_on(stable, tool_call_rows(transcript, answer, stable))
        status = continuation(settled, transcript.runs).status
        if not transcript.earlier_calls:
            for record in settled:
                if not _for_good(record, named):
                    break
                stable += 1
        self.stable = stable
        return {"tool_calls": self.rows_now.items, "continuation": status}

    def restart(self) -> None:
        """Read every call again (a run changed what the message rows held)."""
        self.stable = 0
        self._answers, self._indexed = {}, 0


def _for_good(record: ToolCallRecord, named: set[str]) -> bool:
    """Whether a settled call's row can no longer change while the held messages stay."""
    return (
        record.state in _FOR_GOOD
        and (record.state != "resolved_client" or record.delivered)
        and record.id in named
        and all(message_id in named for message_id in record.result_message_ids)
    )


def tool_call_rows(
    transcript: Transcript, answer: Answers | None = None, start: int = 0
) -> list[dict[str, Any]]:
    """The rows of a transcript's calls from the ``start``-th on, each with its answer.

    Calls in :attr:`Transcript.tool_calls` order; ``answer`` finds a tool message by id
    (by default, among the transcript's messages).
    """
    if not transcript.tool_calls:
        return []  # (earlier occurrences are of ids it holds)
    if answer is None:
        results = {m.id: m for m in transcript.messages if isinstance(m, ToolMessage)}
        answer = results.get
    call_times, message_times = transcript.times.calls, transcript.times.messages
    # An id a later turn declared again: its earlier occurrences first, each with its answer.
    earlier: dict[str, list[ToolCallRecord]] = {}
    for record in transcript.earlier_calls:
        earlier.setdefault(record.id, []).append(record)
    records: Iterable[ToolCallRecord] = (
        record
        for _, latest in tail(transcript.tool_calls, start)
        for record in (*earlier.get(latest.id, ()), latest)
    )
    rows = []
    for record in records:
        found = (answer(i) for i in record.result_message_ids)
        reply = next((message for message in found if message is not None), None)
        run = transcript.runs[record.run_index] if record.run_index is not None else None
        rows.append(
            {
                "id": record.id,
                "name": record.name,
                "arguments": record.arguments,
                "result": reply.text if reply is not None else None,
                "result_error": reply.error if reply is not None else None,
                "state": record.state,
                "owner": record.owner,
                "run_id": run.run_id if run is not None else None,
                "started_at_ms": (call_times.get(record.id) or (None,))[0],
                "answered_at_ms": (
                    (message_times.get(reply.id) or (None,))[0] if reply is not None else None
                ),
            }
        )
    return rows
