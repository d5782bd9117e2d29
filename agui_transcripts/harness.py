"""The conversation loop: drive an agent through a scenario until it is done.

:func:`run_conversation` sends the user's turns, runs the client tools the agent calls,
answers its interrupts with a policy, and continues until the transcript's
:meth:`~agui_transcripts.Transcript.continuation` is ``done`` and the user has nothing
more to say, or a limit (runs, tool rounds, deadline) is hit.

The user is a callable: ``user(transcript) -> str | None`` (or async), asked before the
first run (with an empty transcript) and each time the agent has finished a turn; it
returns the next message, or None when the conversation is over. :class:`ScriptedUser`
plays a scenario's turns; an LLM user simulator is a callable of your own that reads the
transcript (``transcript.ordered()``, ``transcript.response``) and answers.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ._blocking import blocking
from .client_tools import ClientTools
from .conversation import Conversation
from .interrupts import InterruptPolicy, PayloadError, approve_all, decide, deny_all

if TYPE_CHECKING:
    from .transcript import Transcript

__all__ = [
    "ConversationResult",
    "Expectation",
    "Scenario",
    "ScriptedUser",
    "Stop",
    "User",
    "arun_conversation",
    "run_conversation",
]

Stop: TypeAlias = Literal[
    "done",
    "error",
    "cancelled",
    "truncated",
    "stalled",
    "awaiting_client",
    "awaiting_resume",
    "max_runs",
    "max_tool_rounds",
    "deadline",
]
"""Why a conversation stopped. Only ``done`` means the agent finished every turn:
``error`` is the agent's RUN_ERROR, ``cancelled`` its cancelled outcome, ``truncated`` a
stream that ended without a terminal event, ``stalled`` server calls left unanswered,
``awaiting_client``/``awaiting_resume`` calls or interrupts nothing here could answer,
and the last three the limits."""

User: TypeAlias = Callable[["Transcript"], "str | Awaitable[str | None] | None"]
"""The user: the transcript so far in, the next message (or None: finished) out."""


class ScriptedUser:
    """A user who says a fixed list of turns, one each time the agent has finished."""

    def __init__(self, turns: Sequence[str]) -> None:
        self.turns = list(turns)
        self._next = 0

    def __call__(self, transcript: Transcript) -> str | None:
        if self._next >= len(self.turns):
            return None
        self._next += 1
        return self.turns[self._next - 1]


class Expectation(BaseModel):
    """What a scenario's conversation must show to pass (beyond stopping ``done``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    #: Text every one of which the last response contains (case-insensitive).
    response_contains: list[str] = Field(default_factory=list, alias="responseContains")
    #: Tools the agent must have called, by name.
    tools_called: list[str] = Field(default_factory=list, alias="toolsCalled")
    #: Tools the agent must not have called.
    tools_not_called: list[str] = Field(default_factory=list, alias="toolsNotCalled")
    #: How the conversation must stop.
    stop: Stop = "done"

    @field_validator("response_contains", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class Scenario(BaseModel):
    """One conversation to have with an agent: a line of a scenarios JSONL file.

    ``name`` names its recording (letters, digits, ``-``, ``_``, ``.``); ``turns`` are the
    user's messages, said one per finished agent turn. ``interrupts`` overrides the
    harness's policy for this scenario (``approve``, ``deny`` or ``cancel``).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
    turns: list[str] = Field(min_length=1)
    state: Any = None
    context: list[dict[str, Any]] = Field(default_factory=list)
    forwarded_props: Any = Field(default=None, alias="forwardedProps")
    interrupts: Literal["approve", "deny", "cancel"] | None = None
    expect: Expectation = Field(default_factory=Expectation)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, scenario: Scenario | str | Sequence[str] | Mapping[str, Any]) -> Scenario:
        """A scenario from a text (one turn), a list of turns, or a mapping."""
        if isinstance(scenario, Scenario):
            return scenario
        if isinstance(scenario, str):
            return cls(name="scenario", turns=[scenario])
        if isinstance(scenario, Mapping):
            return cls.model_validate(scenario)
        return cls(name="scenario", turns=list(scenario))


@dataclass(slots=True, eq=False)
class ConversationResult:
    """How a conversation went: its transcript, why it stopped, and whether it passed."""

    scenario: Scenario
    transcript: Transcript
    stop: Stop
    #: The agent's error message (``error``), or what could not answer (``awaiting_*``).
    error: str | None
    runs: int
    tool_rounds: int
    seconds: float
    #: The conversation itself: its recording (``save``) and run inputs.
    conversation: Conversation = field(repr=False)
    #: What failed the scenario's expectation (empty when it passed).
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether the conversation stopped as expected and met every expectation."""
        return not self.failures


_POLICIES: dict[str, InterruptPolicy] = {
    "approve": approve_all,
    "deny": deny_all,
    "cancel": lambda interrupt, transcript: _cancel(),
}


def _cancel() -> Any:
    from .interrupts import InterruptAnswer

    return InterruptAnswer.cancel()


async def arun_conversation(
    endpoint: Any,
    scenario: Scenario | str | Sequence[str] | Mapping[str, Any],
    *,
    tools: ClientTools | Mapping[str, Callable[..., Any]] | Sequence[Any] | None = None,
    interrupts: InterruptPolicy | None = None,
    user: User | None = None,
    max_runs: int = 20,
    max_tool_rounds: int = 10,
    deadline: float | None = None,
    **options: Any,
) -> ConversationResult:
    """Drive the agent at ``endpoint`` through ``scenario`` until it is done.

    ``scenario`` is a :class:`Scenario`, a message, or a list of user turns. ``tools``
    are the client tools the agent may call (a :class:`~agui_transcripts.ClientTools`,
    a mapping, or functions); ``interrupts`` the policy answering interrupts
    (:func:`~agui_transcripts.approve_all`, :func:`~agui_transcripts.deny_all`, or a
    callable; None leaves them unanswered and the conversation stops). ``user`` replaces
    the scripted turns with a simulator. It stops at ``max_runs`` runs, after
    ``max_tool_rounds`` rounds of client calls, or at ``deadline`` seconds. ``options``
    go to :class:`~agui_transcripts.Conversation` (``headers``, ``timeout``, ``retries``,
    ``thread_id``...). Transport failures raise
    :class:`~agui_transcripts.EndpointError`; everything the agent does is in the result.
    """
    scenario = Scenario.of(scenario)
    speaker: User = user if user is not None else ScriptedUser(scenario.turns)
    policy = _POLICIES[scenario.interrupts] if scenario.interrupts else interrupts
    conversation = Conversation(
        endpoint,
        tools=tools,
        state=scenario.state,
        context=scenario.context,
        forwarded_props=scenario.forwarded_props,
        **options,
    )
    started = time.monotonic()
    progress = _Progress()
    try:
        if deadline is None:
            await _drive(conversation, speaker, policy, max_runs, max_tool_rounds, progress)
        else:
            await asyncio.wait_for(
                _drive(conversation, speaker, policy, max_runs, max_tool_rounds, progress),
                deadline,
            )
    except asyncio.TimeoutError:
        progress.stop, progress.error = "deadline", f"no end within {deadline} s"
    transcript = conversation.close()
    result = ConversationResult(
        scenario=scenario,
        transcript=transcript,
        stop=progress.stop,
        error=progress.error,
        runs=progress.runs,
        tool_rounds=progress.tool_rounds,
        seconds=time.monotonic() - started,
        conversation=conversation,
    )
    result.failures = _failures(result)
    return result


run_conversation = blocking(arun_conversation, "run_conversation")


@dataclass(slots=True)
class _Progress:
    stop: Stop = "done"
    error: str | None = None
    runs: int = 0
    tool_rounds: int = 0


async def _drive(
    conversation: Conversation,
    user: User,
    policy: InterruptPolicy | None,
    max_runs: int,
    max_tool_rounds: int,
    progress: _Progress,
) -> None:
    """The loop; it records in ``progress`` why it stopped."""
    while True:
        said: Any = user(conversation.transcript)
        if inspect.isawaitable(said):
            said = await said
        if said is None:
            progress.stop = "done"
            return
        conversation.say(str(said))
        while True:
            if progress.runs >= max_runs:
                progress.stop, progress.error = "max_runs", f"stopped after {max_runs} runs"
                return
            transcript = await conversation.arun()
            progress.runs += 1
            last = transcript.runs[-1] if transcript.runs else None
            if last is None or last.outcome in (None, "truncated"):
                progress.stop = "truncated"
                progress.error = "the stream ended without RUN_FINISHED or RUN_ERROR"
                return
            if last.outcome == "error":
                progress.stop, progress.error = "error", last.error_message
                return
            if last.outcome == "cancelled":
                progress.stop = "cancelled"
                return
            after = transcript.continuation()
            if after.status == "awaiting_resume":
                unanswered = await _answer_interrupts(conversation, policy, transcript)
                if unanswered:
                    progress.stop, progress.error = "awaiting_resume", unanswered
                    return
            elif after.status == "awaiting_client":
                if progress.tool_rounds >= max_tool_rounds:
                    progress.stop = "max_tool_rounds"
                    progress.error = f"stopped after {max_tool_rounds} rounds of client calls"
                    return
                unanswerable = await _run_client_calls(conversation, after.client_calls)
                if unanswerable:
                    progress.stop, progress.error = "awaiting_client", unanswerable
                    return
                progress.tool_rounds += 1
            elif after.status == "stalled":
                progress.stop = "stalled"
                progress.error = f"server call(s) {', '.join(after.server_pending)} unanswered"
                return
            elif after.status == "done":
                break
            # ready_to_continue (or answered above): the next run carries the answers


async def _answer_interrupts(
    conversation: Conversation, policy: InterruptPolicy | None, transcript: Transcript
) -> str | None:
    """Resume every pending interrupt by the policy; what stopped it, if anything."""
    pending = transcript.continuation().interrupts
    if policy is None:
        return f"interrupt(s) {', '.join(pending)} and no interrupt policy to answer them"
    for interrupt_id in pending:
        interrupt = conversation.pending_interrupt(interrupt_id)
        answer = await decide(policy, interrupt, transcript)
        if answer is None:
            return f"the interrupt policy left interrupt {interrupt_id} unanswered"
        try:
            conversation.answer(interrupt_id, answer)
        except PayloadError as error:
            return str(error)
    return None


async def _run_client_calls(conversation: Conversation, call_ids: list[str]) -> str | None:
    """Run the client calls (concurrently) and add their results; what could not run.

    A call to a declared tool without a function is the application's to answer, so the
    conversation stops there; a call to a tool nobody declared gets an error result.
    """
    transcript = conversation.transcript
    tools = conversation.tools
    declared_only = {tool.get("name") for tool in conversation.declared_tools} - set(tools)
    records = [transcript.tool_call(call_id) for call_id in call_ids]
    waiting = [r.id for r in records if r is not None and r.name in declared_only]
    if waiting:
        return f"client call(s) {', '.join(waiting)} to tools with no function registered"
    outcomes = await asyncio.gather(
        *(tools.run(r.name or "", r.call.arguments) for r in records if r is not None)
    )
    for record, outcome in zip([r for r in records if r is not None], outcomes, strict=True):
        conversation.add_client_result(record.id, outcome.content, error=outcome.error)
    return None


def _failures(result: ConversationResult) -> list[str]:
    """What the conversation did not meet of its scenario's expectation."""
    expect = result.scenario.expect
    failures: list[str] = []
    if result.stop != expect.stop:
        detail = f" ({result.error})" if result.error else ""
        failures.append(f"stopped {result.stop}{detail}, expected {expect.stop}")
    response = result.transcript.response.lower()
    failures += [
        f"the response does not contain {text!r}"
        for text in expect.response_contains
        if text.lower() not in response
    ]
    called = {record.name for record in result.transcript.tool_calls.values()}
    failures += [f"{name} was not called" for name in expect.tools_called if name not in called]
    failures += [f"{name} was called" for name in expect.tools_not_called if name in called]
    return failures
