"""Verification (stage 3): the AG-UI 1.0 stream rules, checked incrementally.

:class:`Verifier` is fed explicit events (after chunk expansion) and reports every
violation of rules V1-V20 of the protocol rules document as a
:class:`~agui_transcripts.Diagnostic`, in the order the reference TypeScript verifier
checks them: run lifecycle, null attribution, malformed known values, open and closed
ids for text, tool calls, reasoning spans and messages, steps, subagents, ownership by
subagent, what must be closed at ``RUN_FINISHED``, and truncation at end of input.

It never changes or drops an event: the reducer applies every event it is given, so a
lenient fold keeps everything delivered. Error messages contain the reference client's
wording; in strict mode the first error-level one raises
:class:`~agui_transcripts.ProtocolError`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, Final, Literal

from .diagnostics import DiagnosticSink
from .events import Event, json_kind
from .model import content_is_unfit
from .schema import COMMON, EVENTS

__all__ = ["SUPPORTED_PROTOCOL_VERSION", "RunState", "Verifier"]

#: The newest protocol version this consumer implements (1.1 only adds to 1.0).
SUPPORTED_PROTOCOL_VERSION: Final = "1.1"

_TEXT_ROLES: Final = frozenset({"developer", "system", "assistant", "user"})
_MESSAGE_ROLES: Final = frozenset({"tool", "reasoning", "activity"})  # known, but not for text
_RUN_OUTCOMES: Final = frozenset({"success", "interrupt", "cancelled"})
_SUBAGENT_OUTCOMES: Final = frozenset({"success", "suspended"})
_VERSION: Final = re.compile(r"^(\d+)\.(\d+)$")

RunState = Literal["new", "running", "finished", "errored", "truncated"]
"""Where the verifier's current run stands."""

# Field checks per event type (V19): (field, expected JSON kind, required), derived from
# the one table of event shapes. The producer's own data (``data`` fields) is not checked.
_STR, _OBJ, _ARR, _BOOL, _NUM, _STR_OR_ARR = "string", "object", "array", "boolean", "number", "s|a"
_ANY: Final = "any"
_Spec = tuple[tuple[str, str, bool], ...]
_KIND_NAMES: Final = {"string|array": _STR_OR_ARR}
_FIELDS: Final[dict[str, _Spec]] = {
    kind: tuple(
        (field.name, _KIND_NAMES.get(field.kind, field.kind), field.required)
        for field in (*COMMON, *shape.fields)
        if field.kind != "data"
    )
    for kind, shape in EVENTS.items()
}

# The exact Python types that pass each check at once (the common case); any other value
# takes _kind_matches, which also rejects booleans posing as numbers.
_EXACT_TYPES: Final[dict[str, frozenset[type]]] = {
    _STR: frozenset({str}),
    _OBJ: frozenset({dict}),
    _ARR: frozenset({list}),
    _BOOL: frozenset({bool}),
    _NUM: frozenset({int, float}),
    _STR_OR_ARR: frozenset({str, list}),
    _ANY: frozenset({str, dict, list, bool, int, float}),
}
_Checks = dict[str, tuple[tuple[str, str, bool, frozenset[type]], ...]]
_ABSENT: Final = object()
# The one key every event has besides its fields.
_TYPE_KEY: Final = 1

#: Fields an installed ag-ui-protocol 0.1.x types more loosely than AG-UI 1.0: events its
#: models accept must not be reported as malformed where that release is installed.
_LOOSER_BEFORE_1_0: Final = {("ACTIVITY_SNAPSHOT", "content"): _ANY}


class _Tables:
    """The field checks, built once, in full and split for a quick first pass.

    In full: the ordered loop that reports. Split: the required fields with their exact
    types, and the optional ones by name, looked up only when the event has more keys
    than its type and required fields. Anything unusual is judged by the ordered loop.
    """

    def __init__(self, looser: dict[tuple[str, str], str]) -> None:
        self.checks: _Checks = {}
        for kind, spec in _FIELDS.items():
            loosened = [(f, looser.get((kind, f), expected), req) for f, expected, req in spec]
            self.checks[kind] = tuple((f, e, req, _EXACT_TYPES[e]) for f, e, req in loosened)
        self.required: dict[str, tuple[tuple[str, frozenset[type]], ...]] = {
            kind: tuple((field, exact) for field, _, required, exact in checks if required)
            for kind, checks in self.checks.items()
        }
        self.optional: dict[str, dict[str, frozenset[type]]] = {
            kind: {field: exact for field, _, required, exact in checks if not required}
            for kind, checks in self.checks.items()
        }


@functools.cache
def _tables() -> _Tables:
    """The checks for the installed ag-ui-protocol (read once, on the first Verifier)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major = version("ag-ui-protocol").split(".", 1)[0]
    except PackageNotFoundError:  # pragma: no cover - a core dependency
        major = "1"
    return _Tables(_LOOSER_BEFORE_1_0 if major == "0" else {})


_ROLE_KINDS: Final = frozenset(
    {"TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK", "REASONING_MESSAGE_START", "TOOL_CALL_RESULT"}
)
_OUTCOME_KINDS: Final = frozenset({"RUN_FINISHED", "SUBAGENT_FINISHED"})


def _kind_matches(value: object, expected: str) -> bool:
    if expected == _STR:
        return isinstance(value, str)
    if expected == _OBJ:
        return isinstance(value, dict)
    if expected == _ARR:
        return isinstance(value, list)
    if expected == _BOOL:
        return isinstance(value, bool)
    if expected == _NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected == _ANY:
        return True
    return isinstance(value, (str, list))  # _STR_OR_ARR


def _received(value: object) -> str:
    kind = json_kind(value)
    return kind.removeprefix("a ").removeprefix("an ")


def _who(owner: str | None) -> str:
    return f"'{owner}'" if owner is not None else "(the parent agent)"


def _owner_of(event: Event) -> str | None:
    tag = event.get("subagentRunId")
    return tag if isinstance(tag, str) else None


class Verifier:
    """Incremental checker of the AG-UI 1.0 stream rules (sans-I/O).

    :meth:`feed` explicit events in order, then :meth:`close` at end of input. Findings go
    to :attr:`sink` (``verifier.diagnostics``).
    """

    def __init__(self, sink: DiagnosticSink | None = None, *, strict: bool = False) -> None:
        self.sink = sink if sink is not None else DiagnosticSink(strict=strict)
        # Where the current run stands (V1-V4, V20).
        self._state: RunState = "new"
        self._fed = False
        tables = _tables()
        self._checks, self._required, self._optional = (
            tables.checks,
            tables.required,
            tables.optional,
        )
        self._index: int | None = None
        self._run_ids: tuple[object, object] | None = None
        self._reset_run()
        handlers: dict[str, Callable[[Event], None]] = {
            "TEXT_MESSAGE_START": self._text_start,
            "TEXT_MESSAGE_CONTENT": self._text_continue,
            "TEXT_MESSAGE_END": self._text_continue,
            "TOOL_CALL_START": self._tool_start,
            "TOOL_CALL_ARGS": self._tool_continue,
            "TOOL_CALL_END": self._tool_continue,
            "TOOL_CALL_RESULT": self._tool_result,
            "REASONING_START": self._span_start,
            "REASONING_END": self._span_end,
            "REASONING_MESSAGE_START": self._reasoning_start,
            "REASONING_MESSAGE_CONTENT": self._reasoning_continue,
            "REASONING_MESSAGE_END": self._reasoning_continue,
            "REASONING_ENCRYPTED_VALUE": self._encrypted_value,
            "ACTIVITY_SNAPSHOT": self._activity_snapshot,
            "ACTIVITY_DELTA": self._activity_delta,
            "STEP_STARTED": self._step_started,
            "STEP_FINISHED": self._step_finished,
            "SUBAGENT_STARTED": self._subagent_started,
            "SUBAGENT_FINISHED": self._subagent_terminal,
            "SUBAGENT_ERROR": self._subagent_terminal,
            "MESSAGES_SNAPSHOT": self._messages_snapshot,
        }
        self._handlers = handlers

    @property
    def run_state(self) -> RunState:
        """Where the stream stands: new, running, finished, errored or truncated."""
        return self._state

    def _reset_run(self) -> None:
        self._open_text: dict[str, str | None] = {}
        self._open_tools: dict[str, str | None] = {}
        self._open_reasoning: dict[str, str | None] = {}
        self._open_spans: dict[str, str | None] = {}
        self._steps: dict[tuple[str | None, str], None] = {}
        self._subagents: dict[str, None] = {}
        self._subagents_done: set[str] = set()
        # Owners, retained after close for the rest of the run; first writer wins (V12).
        self._message_owner: dict[str, str | None] = {}
        # The input messages seeded so far, by id (see _seed_owners).
        self._seeded: dict[str, dict[str, Any]] = {}
        self._tool_owner: dict[str, str | None] = {}
        self._span_owner: dict[str, str | None] = {}
        self._activity_owner: dict[str, str | None] = {}

    def _report(self, code: str, message: str, *, subagent_run_id: str | None = None) -> None:
        self.sink.report(code, message, event_index=self._index, subagent_run_id=subagent_run_id)

    # -- entry points --------------------------------------------------------------------

    def feed(self, event: Event, *, index: int | None = None) -> None:
        """Check one explicit event."""
        self._index = index
        self._fed = True
        kind = event["type"]
        if event.get("subagentRunId", "") is None:
            self._report(
                "null-attribution",
                f"Cannot send '{kind}' with 'subagentRunId: null'. The field is optional — "
                "omit it entirely.",
            )
        checks = self._checks.get(kind)
        if checks is not None:
            self._check_fields(kind, event, checks)
        if kind == "RUN_STARTED":
            self._run_started(event)
            return
        if kind == "RUN_ERROR":
            self._run_error()
            return
        if self._state != "running":
            self._check_run_active(kind)
        if kind == "RUN_FINISHED":
            self._run_finished(event)
            return
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(event)

    def release(self) -> None:
        """Drop the handler table (bound methods of the verifier: a reference cycle)."""
        self._handlers = {}

    def accepts_delta(self, kind: str, item_id: str, tag: object = None) -> bool:
        """Whether a plain text, reasoning or ARGS delta for ``item_id`` breaks no rule now.

        True when the run is going, the item is open and ``tag`` (the event's
        ``subagentRunId``, None when absent) is its opener's: :meth:`feed` would report
        nothing and change nothing, so the collector's delta lane may skip it. A rule of
        :meth:`feed` that reacts to such a delta must make this return False for it.
        """
        if self._state != "running":
            return False
        if kind == "TEXT_MESSAGE_CONTENT":
            open_set, owners = self._open_text, self._message_owner
        elif kind == "TOOL_CALL_ARGS":
            open_set, owners = self._open_tools, self._tool_owner
        elif kind == "REASONING_MESSAGE_CONTENT":
            open_set, owners = self._open_reasoning, self._message_owner
        else:
            return False
        if item_id not in open_set:
            return False
        return tag is None or (type(tag) is str and owners.get(item_id, tag) == tag)

    def close(self) -> None:
        """End of input: a run with no terminal event is truncated (V20).

        No event at all is an empty stream, which must not read as a finished conversation
        either (unless what was there could not be read: that is already reported).
        """
        self._index = None
        if not self._fed and not self.sink.diagnostics:
            self._report(
                "empty-stream",
                "the input held no AG-UI event: an empty transcript, not a finished conversation",
            )
        if self._state == "running":
            open_items = self._open_summary()
            detail = f"; still open: {'; '.join(open_items)}" if open_items else ""
            self._report(
                "run-truncated",
                "the stream ended without RUN_FINISHED or RUN_ERROR: the run is truncated "
                f"(no outcome; not a success){detail}",
            )
            self._state = "truncated"

    # -- field checks (V19) --------------------------------------------------------------

    def _check_fields(
        self, kind: str, event: Event, checks: tuple[tuple[str, str, bool, frozenset[type]], ...]
    ) -> None:
        if not self._fields_plainly_valid(kind, event):
            self._report_fields(kind, event, checks)
        if kind in _ROLE_KINDS:
            role = event.get("role")
            if isinstance(role, str):
                self._check_role(kind, role)
        elif kind in _OUTCOME_KINDS:
            outcome = event.get("outcome")
            if isinstance(outcome, dict):
                self._check_outcome(kind, outcome)

    def _fields_plainly_valid(self, kind: str, event: Event) -> bool:
        """The quick pass: every required field present and every known one exactly typed."""
        required = self._required[kind]
        for field, exact in required:
            if type(event.get(field)) not in exact:
                return False
        if len(event) > _TYPE_KEY + len(required):  # optional fields (or unknown keys)
            optional = self._optional[kind]
            for key, value in event.items():
                allowed = optional.get(key)
                if allowed is not None and type(value) not in allowed:
                    return False
        return True

    def _report_fields(
        self, kind: str, event: Event, checks: tuple[tuple[str, str, bool, frozenset[type]], ...]
    ) -> None:
        for field, expected, required, exact in checks:
            value = event.get(field, _ABSENT)
            if type(value) in exact:
                continue
            shown = "string or array" if expected == _STR_OR_ARR else expected
            if value is _ABSENT:
                if required:
                    self._report(
                        "malformed-event",
                        f"{kind}.{field}: Required: expected {shown}, received undefined",
                    )
                continue
            if not _kind_matches(value, expected):
                self._report(
                    "malformed-event",
                    f"{kind}.{field}: expected {shown}, received {_received(value)}",
                )

    def _check_role(self, kind: str, role: str) -> None:
        if kind in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK"):
            if role in _TEXT_ROLES:
                return
            if role in _MESSAGE_ROLES:
                self._report(
                    "malformed-event",
                    f"{kind}.role: invalid value {role!r}: a text message's role is one of "
                    "developer, system, assistant, user",
                )
            else:
                self._report(
                    "unknown-role",
                    f"{kind}.role {role!r} is not an AG-UI 1.0 role; stripped (read as assistant)",
                )
        elif kind == "REASONING_MESSAGE_START" and role != "reasoning":
            self._report(
                "malformed-event",
                f'{kind}.role: Invalid input: expected "reasoning", received {role!r}',
            )
        elif kind == "TOOL_CALL_RESULT" and role != "tool":
            self._report(
                "malformed-event", f'{kind}.role: Invalid input: expected "tool", received {role!r}'
            )

    def _check_outcome(self, kind: str, outcome: dict[str, Any]) -> None:
        allowed = _RUN_OUTCOMES if kind == "RUN_FINISHED" else _SUBAGENT_OUTCOMES
        outcome_type = outcome.get("type")
        if not isinstance(outcome_type, str) or outcome_type not in allowed:
            if kind == "SUBAGENT_FINISHED":
                self._report(
                    "malformed-event",
                    f"{kind}.outcome.type: expected one of {sorted(allowed)}, "
                    f"received {outcome_type!r}",
                )
            else:
                self._report(
                    "unknown-outcome",
                    f"{kind}/outcome: unknown outcome type {outcome_type!r}; stripped "
                    "(read as success)",
                )
            return
        if outcome_type == "interrupt":
            interrupts = outcome.get("interrupts")
            if not isinstance(interrupts, list) or not interrupts:
                self._report(
                    "malformed-event",
                    f"{kind}.outcome.interrupts: an interrupt outcome needs at least one interrupt",
                )
            else:
                for interrupt in interrupts:
                    if not isinstance(interrupt, dict) or not isinstance(interrupt.get("id"), str):
                        self._report(
                            "malformed-event",
                            f"{kind}.outcome.interrupts: each interrupt needs a string id",
                        )
                    elif "subagentRunId" in interrupt and interrupt["subagentRunId"] is None:
                        self._report(
                            "null-attribution",
                            f"Cannot send '{kind}' with an interrupt carrying "
                            "'subagentRunId: null'. The field is optional — omit it entirely.",
                        )
        pending = outcome.get("pendingToolCallIds")
        if pending is not None and (
            not isinstance(pending, list) or not all(isinstance(p, str) for p in pending)
        ):
            self._report(
                "malformed-event",
                f"{kind}.outcome.pendingToolCallIds: expected an array of strings",
            )
        ids = outcome.get("interruptIds")
        if ids is not None and (
            not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)
        ):
            self._report(
                "malformed-event", f"{kind}.outcome.interruptIds: expected an array of strings"
            )

    # -- run lifecycle (V1-V4, V14, V18) -------------------------------------------------

    def _check_run_active(self, kind: str) -> None:
        """An event outside a running run: reported, and read as the start of a run.

        A RUN_STARTED that follows announces that run (see :meth:`_run_started`).
        """
        state = self._state
        if state == "new":
            self._report(
                "first-event-not-run-started",
                f"First event must be 'RUN_STARTED' (or 'RUN_ERROR'), got '{kind}' "
                "(read as the start of a run, which a RUN_STARTED that follows announces)",
            )
        elif state == "errored":
            self._report(
                "event-after-run-error",
                f"Cannot send event type '{kind}': The run has already errored with 'RUN_ERROR'. "
                "No further events can be sent. (Read as the start of the next run, which a "
                "RUN_STARTED that follows announces.)",
            )
            self._reset_run()
        elif state == "finished":
            self._report(
                "event-after-run-finished",
                f"Cannot send event type '{kind}': The run has already finished with "
                "'RUN_FINISHED'. Start a new run with 'RUN_STARTED'. (Read as the start of the "
                "next run, which a RUN_STARTED that follows announces.)",
            )
            self._reset_run()
        self._run_ids = None
        self._state = "running"

    def _run_started(self, event: Event) -> None:
        if self._state == "running" and self._run_ids is None:
            # Events before it started the run it announces (a snapshot first, as
            # ag-ui-dify-adapter sends): already reported; what they opened stays open.
            self._report(
                "run-started-late",
                "RUN_STARTED announces the run that the events before it started; they are "
                "read as part of it",
            )
        else:
            if self._state == "running":
                self._report(
                    "run-already-active",
                    "Cannot send 'RUN_STARTED' while a run is still active. Finish it with "
                    "'RUN_FINISHED' or 'RUN_ERROR' first. (Read as the start of a new run.)",
                )
            self._reset_run()
        self._state = "running"
        self._run_ids = (event.get("threadId"), event.get("runId"))
        version = event.get("protocolVersion")
        if isinstance(version, str):
            self._check_version(version)
        run_input = event.get("input")
        if isinstance(run_input, dict):
            messages = run_input.get("messages")
            if isinstance(messages, list):
                self._seed_owners(messages, authoritative=False, where="RUN_STARTED.input.messages")

    def _check_version(self, version: str) -> None:
        match = _VERSION.match(version)
        if match is None:
            self._report(
                "protocol-version",
                f"cannot interpret protocolVersion {version!r} (expected MAJOR.MINOR); "
                f"served as {SUPPORTED_PROTOCOL_VERSION}",
            )
            return
        declared = (int(match.group(1)), int(match.group(2)))
        if declared > (1, 1):
            self._report(
                "protocol-version",
                f"the producer declares protocolVersion {version!r}, newer than this "
                f"consumer's {SUPPORTED_PROTOCOL_VERSION!r}; newer features may be ignored",
            )

    def _run_error(self) -> None:
        if self._state == "errored":
            self._report(
                "event-after-run-error",
                "Cannot send event type 'RUN_ERROR': The run has already errored with "
                "'RUN_ERROR'. No further events can be sent.",
            )
        elif self._state == "finished":
            self._report(
                "late-run-error",
                "RUN_ERROR after RUN_FINISHED: the finished run is reported as failed",
            )
        # RUN_ERROR needs nothing closed: it abandons everything open (V14).
        self._state = "errored"

    def _run_finished(self, event: Event) -> None:
        started = self._run_ids
        finished = (event.get("threadId"), event.get("runId"))
        if started is not None and finished != started:
            self._report(
                "run-id-mismatch",
                f"RUN_FINISHED names thread/run {finished!r}, but the run started as {started!r}",
            )
        if (
            self._steps
            or self._open_text
            or self._open_reasoning
            or self._open_spans
            or self._open_tools
            or self._subagents
        ):
            self._report_still_open()
        self._state = "finished"

    def _report_still_open(self) -> None:
        for noun, open_ids in (
            ("steps", [f'"{name}"' for _, name in self._steps]),
            ("text messages", list(self._open_text)),
            ("reasoning messages", list(self._open_reasoning)),
            ("reasoning spans", list(self._open_spans)),
            ("tool calls", list(self._open_tools)),
            ("subagents", list(self._subagents)),
        ):
            if open_ids:
                self._report(
                    "run-finished-while-open",
                    f"Cannot send 'RUN_FINISHED' while {noun} are still active: "
                    f"{', '.join(open_ids)}",
                )

    def _open_summary(self) -> list[str]:
        summary = []
        for noun, open_ids in (
            ("text messages", self._open_text),
            ("reasoning messages", self._open_reasoning),
            ("tool calls", self._open_tools),
            ("subagents", self._subagents),
        ):
            if open_ids:
                summary.append(f"{noun} {', '.join(open_ids)}")
        return summary

    # -- ownership (V12, V13, V16) -------------------------------------------------------

    def _check_owner(
        self, event: Event, owners: dict[str, str | None], item_id: str, noun: str
    ) -> None:
        tag = event.get("subagentRunId")
        if not isinstance(tag, str) or item_id not in owners:
            return
        owner = owners[item_id]
        if owner != tag:
            self._report(
                "owner-mismatch",
                f"Cannot send '{event['type']}': subagentRunId '{tag}' does not match the "
                f"{noun} '{item_id}' opener's subagent {_who(owner)}.",
                subagent_run_id=tag,
            )

    def _seed_owners(self, messages: list[Any], *, authoritative: bool, where: str) -> None:
        seeded = self._seeded
        # A lone message (a new turn) is not worth remembering: inputs that restate
        # history hold more.
        remember = not authoritative and len(messages) > 1
        for position, message in enumerate(messages):
            if not isinstance(message, dict) or not isinstance(message.get("id"), str):
                continue
            if remember:
                # An input message read before seeds nothing new: it only adds owners
                # not known yet, and was reported then. The intake gives an unchanged
                # one the very dict it gave before (.restated), so identity says it.
                if seeded.get(message["id"]) is message:
                    continue
                seeded[message["id"]] = message
            content = message.get("content")
            if content_is_unfit(message.get("role"), content):
                # The schema the reference enforces on events; a client's own input is
                # not an event (the reducer notes it, message-content-invalid).
                expected = "string" if message.get("role") == "assistant" else "string or array"
                self._report(
                    "malformed-event",
                    f"{where}.{position}.content: expected {expected}, received "
                    f"{_received(content)}",
                )
            owner = message.get("subagentRunId")
            owner = owner if isinstance(owner, str) else None
            if authoritative or message["id"] not in self._message_owner:
                self._message_owner[message["id"]] = owner
            calls = message.get("toolCalls")
            if message.get("role") == "assistant" and isinstance(calls, list):
                for call in calls:
                    call_id = call.get("id") if isinstance(call, dict) else None
                    if isinstance(call_id, str) and (
                        authoritative or call_id not in self._tool_owner
                    ):
                        self._tool_owner[call_id] = owner

    def _messages_snapshot(self, event: Event) -> None:
        messages = event.get("messages")
        if isinstance(messages, list):
            self._seed_owners(messages, authoritative=True, where="MESSAGES_SNAPSHOT.messages")

    # -- text, tool calls, reasoning (V6-V9, V11) ----------------------------------------

    def _start(
        self,
        event: Event,
        item_id: object,
        open_set: dict[str, str | None],
        owners: dict[str, str | None],
        noun: str,
        code: str,
    ) -> None:
        if not isinstance(item_id, str):
            return
        if item_id in open_set:
            self._report(
                code,
                f"Cannot send '{event['type']}' event: A {noun} with ID '{item_id}' is "
                "already in progress. Close it before starting it again.",
            )
            return
        if "subagentRunId" in event:
            self._check_owner(event, owners, item_id, noun)
        owner = _owner_of(event)
        open_set[item_id] = owner
        owners.setdefault(item_id, owner)

    def _continue(
        self,
        event: Event,
        item_id: object,
        open_set: dict[str, str | None],
        owners: dict[str, str | None],
        noun: str,
        code: str,
        closing: bool,
    ) -> None:
        if not isinstance(item_id, str):
            return
        if item_id not in open_set:
            self._report(
                code,
                f"Cannot send '{event['type']}' event: No active {noun} found with ID '{item_id}'. "
                f"Start it first.",
            )
            return
        if "subagentRunId" in event:
            self._check_owner(event, owners, item_id, noun)
        if closing:
            del open_set[item_id]

    def _text_start(self, event: Event) -> None:
        self._start(
            event,
            event.get("messageId"),
            self._open_text,
            self._message_owner,
            "text message",
            "text-already-active",
        )

    def _text_continue(self, event: Event) -> None:
        self._continue(
            event,
            event.get("messageId"),
            self._open_text,
            self._message_owner,
            "text message",
            "text-not-active",
            event["type"] == "TEXT_MESSAGE_END",
        )

    def _tool_start(self, event: Event) -> None:
        call_id = event.get("toolCallId")
        parent = event.get("parentMessageId")
        tag = event.get("subagentRunId")
        if isinstance(parent, str) and parent in self._message_owner:
            parent_owner = self._message_owner[parent]
            if isinstance(tag, str) and tag != parent_owner:
                self._report(
                    "owner-mismatch",
                    f"Cannot send 'TOOL_CALL_START': subagentRunId '{tag}' does not match the "
                    f"owner {_who(parent_owner)} of its parent message '{parent}'. A tool call "
                    "belongs to the message that carries it.",
                    subagent_run_id=tag,
                )
            elif not isinstance(tag, str) and isinstance(call_id, str):
                self._tool_owner.setdefault(call_id, parent_owner)  # V13: inherits
        self._start(
            event, call_id, self._open_tools, self._tool_owner, "tool call", "tool-already-active"
        )

    def _tool_continue(self, event: Event) -> None:
        self._continue(
            event,
            event.get("toolCallId"),
            self._open_tools,
            self._tool_owner,
            "tool call",
            "tool-not-active",
            event["type"] == "TOOL_CALL_END",
        )

    def _tool_result(self, event: Event) -> None:
        # V9: results are not checked against open calls; only the owner is recorded.
        message_id = event.get("messageId")
        if isinstance(message_id, str):
            self._message_owner.setdefault(message_id, _owner_of(event))

    def _span_start(self, event: Event) -> None:
        self._start(
            event,
            event.get("messageId"),
            self._open_spans,
            self._span_owner,
            "reasoning span",
            "reasoning-span-already-active",
        )

    def _span_end(self, event: Event) -> None:
        self._continue(
            event,
            event.get("messageId"),
            self._open_spans,
            self._span_owner,
            "reasoning span",
            "reasoning-span-not-active",
            True,
        )

    def _reasoning_start(self, event: Event) -> None:
        self._start(
            event,
            event.get("messageId"),
            self._open_reasoning,
            self._message_owner,
            "reasoning message",
            "reasoning-already-active",
        )

    def _reasoning_continue(self, event: Event) -> None:
        self._continue(
            event,
            event.get("messageId"),
            self._open_reasoning,
            self._message_owner,
            "reasoning message",
            "reasoning-not-active",
            event["type"] == "REASONING_MESSAGE_END",
        )

    def _encrypted_value(self, event: Event) -> None:
        entity = event.get("entityId")
        if not isinstance(entity, str):
            return
        if event.get("subtype") == "tool-call":
            self._check_owner(event, self._tool_owner, entity, "tool call")
        elif event.get("subtype") == "message":
            self._check_owner(event, self._message_owner, entity, "message")
        else:
            self._report(
                "malformed-event",
                'REASONING_ENCRYPTED_VALUE.subtype: expected "tool-call" or "message", '
                f"received {event.get('subtype')!r}",
            )

    # -- activity, steps, subagents (V10, V12, V15) --------------------------------------

    def _activity_snapshot(self, event: Event) -> None:
        message_id = event.get("messageId")
        if isinstance(message_id, str):
            self._activity_owner.setdefault(message_id, _owner_of(event))

    def _activity_delta(self, event: Event) -> None:
        message_id = event.get("messageId")
        if isinstance(message_id, str):
            self._check_owner(event, self._activity_owner, message_id, "activity")

    def _step_started(self, event: Event) -> None:
        name = event.get("stepName")
        if not isinstance(name, str):
            return
        key = (_owner_of(event), name)
        if key in self._steps:
            self._report(
                "step-already-active", f"Step \"{name}\" is already active for 'STEP_STARTED'"
            )
            return
        self._steps[key] = None

    def _step_finished(self, event: Event) -> None:
        name = event.get("stepName")
        if not isinstance(name, str):
            return
        key = (_owner_of(event), name)
        if key in self._steps:
            del self._steps[key]
            return
        elsewhere = [owner for owner, open_name in self._steps if open_name == name]
        if elsewhere:
            self._report(
                "step-not-started",
                f"Cannot send 'STEP_FINISHED' for step \"{name}\": that step is open under "
                f"subagent {_who(elsewhere[0])}. A step must be finished by whoever started it.",
            )
        else:
            self._report(
                "step-not-started",
                f"Cannot send 'STEP_FINISHED' for step \"{name}\" that was not started",
            )

    def _subagent_started(self, event: Event) -> None:
        run_id = event.get("subagentRunId")
        if not isinstance(run_id, str):
            return
        if run_id in self._subagents:
            self._report(
                "subagent-invalid",
                f"Cannot send 'SUBAGENT_STARTED': subagent '{run_id}' is already active",
                subagent_run_id=run_id,
            )
            return
        if run_id in self._subagents_done:
            self._report(
                "subagent-invalid",
                f"Cannot send 'SUBAGENT_STARTED': subagent '{run_id}' already ended in this run",
                subagent_run_id=run_id,
            )
        parent = event.get("parentSubagentRunId")
        if (
            isinstance(parent, str)
            and parent not in self._subagents
            and (parent not in self._subagents_done)
        ):
            self._report(
                "subagent-invalid",
                f"Cannot send 'SUBAGENT_STARTED': parentSubagentRunId '{parent}' was not "
                "started in this run",
                subagent_run_id=run_id,
            )
        self._subagents[run_id] = None

    def _subagent_terminal(self, event: Event) -> None:
        run_id = event.get("subagentRunId")
        if not isinstance(run_id, str):
            return
        if run_id not in self._subagents:
            self._report(
                "subagent-invalid",
                f"Cannot send '{event['type']}': no active subagent found with ID '{run_id}'",
                subagent_run_id=run_id,
            )
            return
        del self._subagents[run_id]
        self._subagents_done.add(run_id)
