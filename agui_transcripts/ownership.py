"""Ownership (stage 5): who answers each tool call, and what the conversation needs next.

AG-UI 1.0 has no per-call executor flag, so ownership is inferred (protocol rule T6):

- a result the server streams in the run that declared the call makes it server-owned,
  whatever else is known (``resolved_server``); a client answer to it later is reported
  (``client-result-for-server-call``) and never replaces it (I17);
- otherwise a call named in the run's client tools (``RunAgentInput.tools``, or the
  ``client_tools`` a caller passes) waits for the application (``pending_client``), one
  an interrupt names waits for a resume decision (``pending_interrupt``), one that is
  neither waits for the server's continuation when the client tools are known
  (``pending_server``), and is ``pending_unattributed`` when nothing tells;
- a run that errs, is cancelled or is truncated, a new user turn, or a later run that
  finishes without an answer abandons what is still open.

States are settled when a run ends, never at TOOL_CALL_END: the run may still answer the
call or interrupt on it. :func:`continuation` turns the states into the next step; it
never looks at the role of the last message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from .model import (
    Owner,
    RunRecord,
    ToolCallRecord,
    ToolResult,
    pending_interrupts,
    rebuilt_from_fields,
)

__all__ = ["Continuation", "ContinuationStatus", "continuation", "settle"]

ContinuationStatus = Literal[
    "running",
    "truncated",
    "awaiting_resume",
    "awaiting_client",
    "ready_to_continue",
    "stalled",
    "done",
]

_SERVER_SOURCES: Final = ("stream", "snapshot")
_CLIENT_SOURCES: Final = ("input", "harness")


def _owner(is_client: bool, known: bool) -> Owner:
    if is_client:
        return "client"
    return "server" if known else "unknown"


def settle(
    records: Iterable[ToolCallRecord],
    runs: list[RunRecord],
    *,
    client_tools: frozenset[str] | None = None,
    delivered_ids: frozenset[str] | set[str] = frozenset(),
) -> None:
    """Set the ownership fields of every record from what the stream has shown so far."""
    for record in records:
        _settle(record, runs, client_tools, delivered_ids)


def _settle(
    record: ToolCallRecord,
    runs: list[RunRecord],
    client_tools: frozenset[str] | None,
    delivered_ids: frozenset[str] | set[str],
) -> None:
    declaring = (
        runs[record.run_index]
        if record.run_index is not None and record.run_index < len(runs)
        else None
    )
    knowledge_run = declaring if declaring is not None else (runs[-1] if runs else None)
    if client_tools is not None:
        known: frozenset[str] | None = client_tools
    elif knowledge_run is not None and knowledge_run.tools is not None:
        known = knowledge_run.tool_names
    else:
        known = None
    is_client = known is not None and record.name in known
    record.abandoned_reason = None
    record.delivered = False
    record.resolving_run_index = None

    # The results by who gave them and when, in one pass (every call is settled, most
    # with one result: three comprehensions cost three calls each time, interpreted).
    server_same: list[ToolResult] = []
    server_late: list[ToolResult] = []
    client: list[ToolResult] = []
    for result in record.results:
        source = result.source
        if source in _SERVER_SOURCES:
            if result.run_index == record.run_index:
                server_same.append(result)
            else:
                server_late.append(result)
        elif source in _CLIENT_SOURCES:
            client.append(result)

    if not record.ended:
        record.state = (
            "streaming" if declaring is not None and declaring.outcome is None else "invalid"
        )
        record.owner = _owner(is_client, known is not None)
        record.evidence = "client_tools_name" if known is not None else "none"
        return
    if server_same and declaring is not None:
        record.state = "resolved_server"
        record.owner = "server"
        record.evidence = "server_result_same_run"
        record.resolving_run_index = record.run_index
        return
    if declaring is not None and declaring.outcome is None:
        record.state = "declared"
        record.owner = _owner(is_client, known is not None)
        record.evidence = "client_tools_name" if known is not None else "none"
        return
    listed = (
        declaring is not None
        and declaring.pending_listed
        and record.id in declaring.pending_tool_call_ids
    )
    if client:
        first = client[0]
        record.state = "resolved_client"
        record.owner = "client"
        record.evidence = (
            "client_tools_name" if is_client else ("pending_list" if listed else "none")
        )
        record.resolving_run_index = first.run_index
        record.delivered = first.source == "input" or first.message_id in delivered_ids
        return
    if server_late or (server_same and declaring is None):
        first = (server_late or server_same)[0]
        record.state = "resolved_server_late" if declaring is not None else "resolved_server"
        record.owner = "server"
        record.evidence = "server_result_same_run" if declaring is None else "none"
        record.resolving_run_index = first.run_index
        return
    _settle_unanswered(record, runs, declaring, is_client, known, listed)


def _settle_unanswered(
    record: ToolCallRecord,
    runs: list[RunRecord],
    declaring: RunRecord | None,
    is_client: bool,
    known: frozenset[str] | None,
    listed: bool,
) -> None:
    record.owner = _owner(is_client, known is not None)
    record.evidence = (
        "client_tools_name" if known is not None else ("pending_list" if listed else "none")
    )
    later = runs[declaring.index + 1 :] if declaring is not None else []
    interrupt = None
    if declaring is not None and declaring.outcome == "interrupt":
        interrupt = next(
            (i for i in declaring.interrupts if i.get("toolCallId") == record.id), None
        )
    if interrupt is not None:
        record.owner = "server"
        record.evidence = "interrupt"
        if not later:
            record.state = "pending_interrupt"
            return
        entry = next(
            (r for r in later[0].resume if r.get("interruptId") == interrupt.get("id")), None
        )
        if later[0].outcome is None and not (entry and entry.get("status") == "cancelled"):
            record.state = "pending_interrupt"
            return
        record.state = "abandoned"
        record.abandoned_reason = (
            "interrupt cancelled"
            if entry and entry.get("status") == "cancelled"
            else "resumed run finished without a result"
        )
        return
    if declaring is not None and declaring.outcome in ("error", "cancelled", "truncated"):
        record.state = "abandoned"
        record.abandoned_reason = {
            "error": "run error",
            "cancelled": "run cancelled",
            "truncated": "stream truncated",
        }[declaring.outcome]
        return
    if any(run.new_turn for run in later):
        record.state = "abandoned"
        record.abandoned_reason = "a new user turn came without its result"
        return
    if any(run.outcome is not None for run in later):
        record.state = "abandoned"
        record.abandoned_reason = "a later run finished without its result"
        return
    if is_client:
        record.state = "pending_client"
    elif known is not None:
        record.state = "pending_server"
    else:
        record.state = "pending_unattributed"


@dataclass(frozen=True, slots=True)
class Continuation:
    """What must happen next in the conversation, with the ids it concerns."""

    status: ContinuationStatus
    #: Client calls still to answer (pending_client, and by default pending_unattributed).
    client_calls: list[str] = field(default_factory=list)
    #: Interrupts of the last run that the next run must resume.
    interrupts: list[str] = field(default_factory=list)
    #: Calls the server should answer in its continuation.
    server_pending: list[str] = field(default_factory=list)
    #: Client results not yet carried to the agent by any run input.
    undelivered: list[str] = field(default_factory=list)

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)

    def awaiting_client(self) -> bool:
        """Whether the application must act (answer calls or resume interrupts)."""
        return self.status in ("awaiting_resume", "awaiting_client")

    def needs_continuation(self) -> bool:
        """Whether the next run should start now, to deliver the client's results."""
        return self.status == "ready_to_continue"


def continuation(
    records: Iterable[ToolCallRecord], runs: list[RunRecord], *, unattributed_is_client: bool = True
) -> Continuation:
    """The continuation predicate over settled records (ordering-and-ownership 3.5).

    A stream that has not finished its last run is never ``done``: ``running`` while the
    run is open (a live collector), ``truncated`` once the input ended inside it (V20).
    """
    calls = list(records)
    last = runs[-1] if runs else None
    interrupts = [str(i.get("id")) for i in pending_interrupts(runs)]
    pending = (
        ("pending_client", "pending_unattributed")
        if unattributed_is_client
        else ("pending_client",)
    )
    client_calls = [r.id for r in calls if r.state in pending]
    undelivered = [r.id for r in calls if r.state == "resolved_client" and not r.delivered]
    server_pending = [r.id for r in calls if r.state == "pending_server"]
    status: ContinuationStatus
    if last is not None and last.outcome is None:
        status = "running"
    elif last is not None and last.outcome == "truncated":
        status = "truncated"
    elif interrupts:
        status = "awaiting_resume"
    elif client_calls:
        status = "awaiting_client"
    elif undelivered:
        status = "ready_to_continue"
    elif server_pending and last is not None and last.outcome is not None:
        status = "stalled"
    else:
        status = "done"
    return Continuation(status, client_calls, interrupts, server_pending, undelivered)
