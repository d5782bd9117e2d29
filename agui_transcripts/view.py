"""What a person is shown of a transcript, as a list of items both views draw.

``show`` (text) and the HTML view (``show --html``, notebooks) draw the same items, so
they agree on what is marked: where each run starts and how it ended (its outcome, its
error, the interrupts it stopped on), which turns a subagent spoke, each call with its
result (or its state when it has none) under it, and a result whose call was never
shown on its own line rather than dropped.

The caller chooses the messages: the reference client's list in arrival order, or the
projection an evaluator scores (calls before results, synthetic results marked). This
module only walks them, so it needs no layer that orders.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal, Protocol

from .diagnostics import Diagnostic
from .model import (
    AssistantMessage,
    Message,
    RunRecord,
    ToolCall,
    ToolMessage,
    TranscriptData,
    is_synthetic,
)

__all__ = [
    "CallView",
    "Item",
    "MessageView",
    "RunMark",
    "SubagentMark",
    "Viewable",
    "arrival_order",
    "interrupt_labels",
    "outcome_label",
    "run_label",
    "time_label",
    "view_items",
]


class Viewable(TranscriptData, Protocol):
    """What the views show of a transcript (a :class:`~agui_transcripts.Transcript` is one)."""

    @property
    def runs(self) -> list[RunRecord]: ...

    @property
    def diagnostics(self) -> list[Diagnostic]: ...

    def run_of(self, message: Message) -> RunRecord | None: ...


@dataclass(frozen=True, slots=True)
class CallView:
    """A call and what answered it: a result, or the call's state when nothing did."""

    call: ToolCall
    result: ToolMessage | None
    state: str
    synthetic: bool


@dataclass(frozen=True, slots=True)
class MessageView:
    """One message; an assistant's calls under it; ``subagent`` the run that spoke it."""

    message: Message
    calls: tuple[CallView, ...]
    subagent: str | None


@dataclass(frozen=True, slots=True)
class RunMark:
    """A run boundary: ``start`` before its first message, ``end`` after its last.

    ``again`` marks a start for a run already shown (a projection moved later messages
    of an earlier run after another's); ``empty`` an end for a run with no message.
    """

    kind: Literal["start", "end"]
    run: RunRecord
    again: bool = False
    empty: bool = False


@dataclass(frozen=True, slots=True)
class SubagentMark:
    """Where a stretch of one subagent's turns starts or ends."""

    kind: Literal["start", "end"]
    subagent: str


Item = MessageView | RunMark | SubagentMark


def arrival_order(messages: Sequence[Message], subagents: str) -> list[Message]:
    """The reference list with subagent turns kept, left out or moved after the others.

    ``apart`` keeps each subagent's turns together, in the order the subagents first
    spoke, as the projection does.
    """
    if subagents == "inline":
        return list(messages)
    top = [m for m in messages if m.subagent_run_id is None]
    if subagents == "exclude":
        return top
    groups: dict[str, list[Message]] = {}
    for message in messages:
        if message.subagent_run_id is not None:
            groups.setdefault(message.subagent_run_id, []).append(message)
    return top + [m for group in groups.values() for m in group]


def view_items(transcript: Viewable, messages: Sequence[Message]) -> list[Item]:
    """The items to draw for ``messages`` (chosen and ordered by the caller)."""
    answers = _answers(messages)
    items: list[Item] = []
    opened: set[int] = set()
    current: RunRecord | None = None
    subagent: str | None = None

    def close_subagent() -> None:
        nonlocal subagent
        if subagent is not None:
            items.append(SubagentMark("end", subagent))
            subagent = None

    def enter(run: RunRecord | None) -> None:
        nonlocal current
        if run is current:
            return
        close_subagent()
        if current is not None:
            items.append(RunMark("end", current))
        if run is not None:
            # Runs that added no message are shown where they fall, so none is missed.
            for earlier in transcript.runs:
                if earlier.index >= run.index:
                    break
                if earlier.index not in opened:
                    opened.add(earlier.index)
                    items.append(RunMark("end", earlier, empty=True))
            items.append(RunMark("start", run, again=run.index in opened))
            opened.add(run.index)
        current = run

    drawn = {id(result) for result in answers.values()}
    for message in messages:
        if id(message) in drawn:
            continue  # drawn under its call
        enter(transcript.run_of(message))
        if message.subagent_run_id != subagent:
            close_subagent()
            if message.subagent_run_id is not None:
                subagent = message.subagent_run_id
                items.append(SubagentMark("start", subagent))
        calls: tuple[CallView, ...] = ()
        if isinstance(message, AssistantMessage) and message.tool_calls:
            calls = tuple(
                _call_view(transcript, call, answers.get((id(message), index)))
                for index, call in enumerate(message.tool_calls)
            )
        items.append(MessageView(message, calls, message.subagent_run_id))
    enter(None)
    for run in transcript.runs:
        if run.index not in opened:
            items.append(RunMark("end", run, empty=True))
    return items


def _answers(messages: Sequence[Message]) -> dict[tuple[int, int], ToolMessage]:
    """The result drawn under each call, by (its message's identity, its position).

    Each call takes the first result for its id not taken by an earlier call, so a call
    id used again in a later turn shows each turn's own answer; results no call takes
    (a second answer) are drawn where they are.
    """
    results: dict[str, deque[ToolMessage]] = {}
    for message in messages:
        if isinstance(message, ToolMessage):
            results.setdefault(message.tool_call_id, deque()).append(message)
    answers: dict[tuple[int, int], ToolMessage] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            for index, call in enumerate(message.tool_calls or ()):
                waiting = results.get(call.id)
                if waiting:
                    answers[(id(message), index)] = waiting.popleft()
    return answers


def _call_view(transcript: Viewable, call: ToolCall, result: ToolMessage | None) -> CallView:
    record = transcript.tool_calls.get(transcript.call_aliases.get(call.id, call.id))
    state = record.state if record is not None else "unanswered"
    return CallView(call, result, state, result is not None and is_synthetic(result))


def run_label(run: RunRecord) -> str:
    """``run ID`` (with its parent when it continues another)."""
    label = f"run {run.run_id or '(unannounced)'}"
    return label + (f" (after {run.parent_run_id})" if run.parent_run_id else "")


def outcome_label(run: RunRecord) -> str:
    """How the run ended, or ``still running`` while it is open."""
    return run.outcome or "still running"


def time_label(mark: RunMark) -> str | None:
    """When the run started (``at 12:35:09.723 UTC``) or how long it took (``in 1.25 s``).

    None for a run no event timestamp dates, and for a run's start shown again (its
    time was given where it first started).
    """
    run = mark.run
    if mark.kind == "start":
        if run.started_at is None or mark.again:
            return None
        moment = datetime.fromtimestamp(run.started_at / 1000, tz=timezone.utc)
        return f"at {moment:%Y-%m-%d %H:%M:%S}.{moment.microsecond // 1000:03d} UTC"
    duration = run.duration_ms
    if duration is None:
        return None
    return f"in {duration:.0f} ms" if duration < 1000 else f"in {duration / 1000:.2f} s"


def interrupt_labels(run: RunRecord) -> list[str]:
    """Each interrupt the run stopped on: its id and reason, or message."""
    labels = []
    for interrupt in run.interrupts:
        words = [str(interrupt.get("id", "?"))]
        for key in ("reason", "message"):
            if isinstance(interrupt.get(key), str):
                words.append(str(interrupt[key]))
                break
        labels.append(": ".join(words))
    return labels
