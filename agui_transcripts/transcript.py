"""The transcript: what a fold ends with, and the questions asked of it.

It sits above the layers it answers with: the projection (:meth:`Transcript.ordered`),
tool-call ownership (:meth:`Transcript.continuation`) and the HTML view (notebooks).
"""

from __future__ import annotations

import uuid
import warnings
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostic
from .html import STYLE, render_fragment
from .model import (
    ActivityMessage,
    AssistantMessage,
    ItemTimes,
    JSONObject,
    Message,
    RunRecord,
    TextSegment,
    ToolCallRecord,
    pending_interrupts,
)
from .ownership import Continuation, continuation
from .projection import Policy, Projection, Subagents, project

__all__ = ["RunStarts", "Transcript", "response_among"]


@dataclass(slots=True, eq=False)
class Transcript:
    """The canonical transcript of a stream: what the reference AG-UI client would hold.

    Read it at any time from a :class:`~agui_transcripts.Collector`; ``fold`` returns the
    final one. Runs and tool-call records are copies taken when it is read; message
    objects are shared with the collector and keep growing while it is fed.
    """

    messages: list[Message]
    runs: list[RunRecord]
    tool_calls: dict[str, ToolCallRecord]
    state: Any
    diagnostics: list[Diagnostic]
    #: Held messages that a ``MESSAGES_SNAPSHOT`` left out without restating them, in the
    #: order they were dropped: gone from :attr:`messages` (and :meth:`ordered`) as from
    #: the reference client's, each snapshot's ``snapshot-dropped-messages`` warning names
    #: them, and here they are.
    superseded: list[Message] = field(default_factory=list)
    #: Call ids a restatement re-minted (a snapshot's, a run input's), each with the id of
    #: the call it stands for: the key of :attr:`tool_calls`, and the id :meth:`ordered`
    #: shows the call and its results under. :meth:`tool_call` looks up either.
    call_aliases: dict[str, str] = field(default_factory=dict)
    #: The calls whose id a later turn declared again (``tool-call-id-reused``), each the
    #: occurrence it was, with its own answers and state, in the order they were replaced:
    #: :attr:`tool_calls` holds an id's latest occurrence.
    earlier_calls: list[ToolCallRecord] = field(default_factory=list)
    #: When each message and call was streamed, from the events' timestamps (empty for an
    #: untimed stream); each run's times are on its :class:`RunRecord`.
    times: ItemTimes = field(default_factory=ItemTimes)
    #: The live :class:`~agui_transcripts.Conversation` this was read from, with the
    #: conversation's version then: what lets ``run_endpoint(transcript=...)`` continue
    #: it. None for a fold (and once the conversation is closed).
    origin: tuple[Any, int] | None = field(default=None, init=False, repr=False, compare=False)
    # run_of's index, built on first use (a collector's views of one fold share one).
    _run_starts: RunStarts | None = field(default=None, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its live conversation (sockets, functions): a plain transcript."""
        return {name: getattr(self, name) for name in _PICKLED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in _PICKLED:
            object.__setattr__(self, name, state[name])
        self.origin = None
        self._run_starts = None

    def tool_call(self, call_id: str) -> ToolCallRecord | None:
        """The record of a call, by its own id or an id a restatement gave it."""
        return self.tool_calls.get(self.call_aliases.get(call_id, call_id))

    def to_dicts(self, *, times: bool = False) -> list[JSONObject]:
        """Every message in its AG-UI wire form, in order.

        ``times``: each message the stream timed carries its first and last event times
        (ms since the epoch) in its ``metadata``, under ``agui_transcripts``: AG-UI 1.0
        messages hold metadata, and nothing else of theirs can hold a time.
        """
        out = [message.to_dict() for message in self.messages]
        if times and self.times.messages:
            for wire in out:
                found = self.times.messages.get(wire["id"])
                if found is not None:
                    metadata = dict(wire.get("metadata") or {})
                    metadata["agui_transcripts"] = {
                        "firstEventAt": found[0],
                        "lastEventAt": found[1],
                    }
                    wire["metadata"] = metadata
        return out

    @property
    def thread_id(self) -> str | None:
        """The thread of the first run that names one."""
        return next((r.thread_id for r in self.runs if r.thread_id is not None), None)

    @property
    def response(self) -> str:
        """The final assistant text of the last run ("" when it produced none).

        The last stretch of text an evaluator sees: a message that says "Checking.",
        calls a tool and, after the result, says "It rains." (one message id, as many
        producers stream it) answers "It rains.", not the two joined. Text stretches
        with no call between them are joined as they arrived.
        """
        return response_among(self.messages, self.runs)

    def run_of(self, message: Message) -> RunRecord | None:
        """The run during which a message arrived (None for history seeded before any).

        The last run that started at or before the message's event, looked up by
        bisection (adapters ask it for every message).
        """
        index = self._run_starts
        if index is None or not index.indexes(self.runs):
            index = self._run_starts = RunStarts(self.runs)
        return index.run_at(message.seq)

    @property
    def errors(self) -> list[Diagnostic]:
        """The error-level diagnostics."""
        return [d for d in self.diagnostics if d.severity == "error"]

    def continuation(self, *, unattributed_is_client: bool = True) -> Continuation:
        """What must happen next in the conversation, with the ids concerned.

        The status is ``running`` (the last run is still open), ``truncated`` (the stream
        ended inside it), ``awaiting_resume``, ``awaiting_client``, ``ready_to_continue``,
        ``stalled`` or ``done``, decided from the runs and the tool calls' states, never
        from the role of the last message. Calls whose owner is unknown count as the client's unless
        told otherwise (T3).
        """
        return continuation(
            self.tool_calls.values(), self.runs, unattributed_is_client=unattributed_is_client
        )

    def project(
        self, policy: Policy = "synthesize", *, subagents: Subagents = "inline"
    ) -> Projection:
        """The ordered messages (see :meth:`ordered`) with the projection's diagnostics."""
        return project(self, policy=policy, subagents=subagents)

    def ordered(
        self, policy: Policy = "synthesize", *, subagents: Subagents = "inline"
    ) -> list[Message]:
        """The messages in an order an evaluator or provider accepts.

        Every tool result comes right after the assistant message that declares its
        call, nothing else comes between a batch of calls and its results, and text that
        arrived while calls were open follows their results. Unanswered calls follow
        ``policy``: ``synthesize`` (a synthetic error result, marked in metadata),
        ``trim`` (drop the call), ``keep`` (leave it open at the end) or ``raise``.
        ``subagents`` keeps subagent turns ``inline`` (where they arrived), leaves them
        out (``exclude``) or puts each subagent's conversation after the top-level one
        (``apart``); every message keeps its ``subagent_run_id``.
        """
        return self.project(policy, subagents=subagents).messages

    def awaiting_client(self) -> bool:
        """Whether the application must answer calls or resume interrupts."""
        return self.continuation().awaiting_client()

    def needs_continuation(self) -> bool:
        """Whether client results wait to be sent in the next run."""
        return self.continuation().needs_continuation()

    def next_run_input(
        self,
        *,
        run_id: str | None = None,
        thread_id: str | None = None,
        tools: list[JSONObject] | None = None,
        resume: Mapping[str, str | JSONObject] | list[JSONObject] | None = None,
        context: list[JSONObject] | None = None,
        forwarded_props: Any = None,
    ) -> JSONObject:
        """The ``RunAgentInput`` (wire dict) that continues this conversation.

        ``messages`` is the history (activity messages left out, as AG-UI clients do)
        with client results right after their calls. ``tools`` defaults to those of the
        latest run whose input declared any: a run folded without its input declares none,
        and the tools go on being declared. Tool *names* (``Collector(client_tools=...)``)
        are not definitions (no description, no schema) and are never sent: when calls of
        the client's are in the conversation and no run declared tools, a ``UserWarning``
        says so; pass ``tools=`` to declare them. ``resume`` answers the last run's
        interrupts: a list of ResumeEntry dicts, or a mapping from interrupt id to a
        status (``"resolved"``/``"cancelled"``) or to an entry; it must cover every open
        interrupt (T7).
        """
        last = self.runs[-1] if self.runs else None
        entries = resume_entries(resume)
        interrupts = pending_interrupts(self.runs)
        if interrupts:
            covered = {entry.get("interruptId") for entry in entries}
            missing = [str(i.get("id")) for i in interrupts if i.get("id") not in covered]
            if missing:
                raise ValueError(
                    f"the thread has {len(missing)} pending interrupt(s) not addressed by "
                    f"resume: {', '.join(missing)}"
                )
        run_input: JSONObject = {
            "threadId": thread_id or self.thread_id or f"thread-{uuid.uuid4().hex[:12]}",
            "runId": run_id or f"run-{uuid.uuid4().hex[:12]}",
            "state": self.state,
            "messages": [m.to_dict() for m in self.messages if not isinstance(m, ActivityMessage)],
            "tools": tools if tools is not None else self._declared_tools(),
            "context": context or [],
            "forwardedProps": forwarded_props if forwarded_props is not None else {},
        }
        if last is not None and last.protocol_version is not None:
            run_input["protocolVersion"] = last.protocol_version
        if entries:
            run_input["resume"] = entries
        return run_input

    def _declared_tools(self) -> list[JSONObject]:
        for run in reversed(self.runs):
            if run.tools is not None:
                return list(run.tools)
        client = sorted({r.call.name for r in self.tool_calls.values() if r.owner == "client"})
        if client:
            warnings.warn(
                f"no run declared tools, so the next run declares none: the client's "
                f"{', '.join(client)} cannot be re-sent from names alone; pass tools= with "
                "their definitions",
                UserWarning,
                stacklevel=3,
            )
        return []

    def _repr_html_(self) -> str:
        """The conversation, for notebooks."""
        return f"<style>{STYLE}</style>{render_fragment(self)}"

    def __repr__(self) -> str:
        return (
            f"Transcript({len(self.messages)} messages, {len(self.runs)} runs, "
            f"{len(self.tool_calls)} tool calls, {len(self.diagnostics)} diagnostics)"
        )


def response_among(messages: Sequence[Message], runs: list[RunRecord]) -> str:
    """:attr:`Transcript.response` sought among ``messages`` only ("" when none has it).

    With runs whose last one has a first event, only a message that arrived at or after
    that event can hold it: a reader that knows the others came earlier (rows per run)
    reads only the messages since.
    """
    floor = runs[-1].first_event_index if runs else None
    for message in reversed(messages):
        if not isinstance(message, AssistantMessage) or not message.content:
            continue
        if floor is None or message.seq >= floor:
            return _last_stretch(message)
    return ""


def _last_stretch(message: AssistantMessage) -> str:
    """The text after the message's last call with text after it (all of it if none)."""
    texts: list[str] = []
    for segment in reversed(message.segments):
        if isinstance(segment, TextSegment):
            if segment.text:
                texts.append(segment.text)
        elif texts:
            break
    return "".join(reversed(texts))


_PICKLED = (
    "messages",
    "runs",
    "tool_calls",
    "state",
    "diagnostics",
    "superseded",
    "call_aliases",
    "times",
    "earlier_calls",
)


def resume_entries(
    resume: Mapping[str, str | JSONObject] | list[JSONObject] | None,
) -> list[JSONObject]:
    """ResumeEntry dicts from a list of them or a mapping of interrupt id to an answer."""
    if resume is None:
        return []
    if isinstance(resume, list):
        return [dict(entry) for entry in resume]
    entries = []
    for interrupt_id, answer in resume.items():
        if isinstance(answer, str):
            entries.append({"interruptId": interrupt_id, "status": answer})
        else:
            entries.append({"interruptId": interrupt_id, **answer})
    return entries


class RunStarts:
    """Which run was under way at each event index: :meth:`Transcript.run_of`'s index.

    It reads the runs of one list (a fold's, which only appends runs) and, when more
    runs came, only those: the views of a fold read at each run's end share one.
    """

    __slots__ = ("_maxima", "_read", "_runs", "_started")

    def __init__(self, runs: list[RunRecord]) -> None:
        self._runs = runs
        self._read = 0
        # The runs with a first event, in order, and the running maximum of those first
        # event indices: "the last run started by then" is a bisection even if starts
        # were out of order.
        self._maxima: list[int] = []
        self._started: list[RunRecord] = []

    def indexes(self, runs: list[RunRecord]) -> bool:
        """Whether this indexes ``runs`` (the same list, not shorter than it read)."""
        return runs is self._runs and len(runs) >= self._read

    def run_at(self, seq: int) -> RunRecord | None:
        """The last run that started at or before event ``seq`` (None: none did)."""
        runs, maxima = self._runs, self._maxima
        for run in runs[self._read :]:
            start = run.first_event_index
            if start is not None:
                maxima.append(max(start, maxima[-1]) if maxima else start)
                self._started.append(run)
        self._read = len(runs)
        after = bisect_right(maxima, seq)
        return self._started[after - 1] if after else None
