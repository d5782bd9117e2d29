"""Diagnostics: what was wrong with a stream, and what was done about it.

Every repair or rejection in the library is reported as a :class:`Diagnostic`, a plain
value with a stable ``code``. The codes live in one table, :data:`RULES`, each with its
severity and the AG-UI rule id it enforces (the ids of the protocol rules document:
W wire format, P versions, C chunks, V verification, A application, T tool ownership).

Lenient mode (the default everywhere) records diagnostics and keeps going; strict mode
raises :class:`ProtocolError` at the first error-level diagnostic.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DECODE_CODES",
    "LIMIT_CODES",
    "RULES",
    "Diagnostic",
    "DiagnosticSink",
    "EventDecodeError",
    "LimitExceeded",
    "ProtocolError",
    "Rule",
    "Severity",
]

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One entry of the rule table."""

    code: str
    severity: Severity
    title: str
    spec_rule: str


def _table(*rules: Rule) -> dict[str, Rule]:
    return {rule.code: rule for rule in rules}


RULES: dict[str, Rule] = _table(
    # Input decoding (stage 1).
    Rule("invalid-json", "error", "an input line or SSE event is not valid JSON", "W1"),
    Rule("invalid-utf8", "warning", "input bytes are not valid UTF-8; replaced with U+FFFD", "W2"),
    Rule(
        "text-not-utf8",
        "warning",
        "a dataset row's text holds a lone UTF-16 surrogate, which Arrow and Parquet cannot "
        "store; replaced with U+FFFD there",
        "W2",
    ),
    Rule("event-not-object", "error", "a JSON value that is not an object", "W1"),
    Rule("event-missing-type", "error", "an event object without a 'type'", "W1"),
    Rule("event-type-invalid", "error", "an event 'type' that is not a string", "W1"),
    Rule(
        "unsupported-input", "error", "an input item that is not an event in any known form", "W1"
    ),
    # Resource limits (L: this library's own bounds, see agui_transcripts.limits).
    Rule("event-too-large", "error", "an event larger than the event size limit; skipped", "L1"),
    Rule(
        "document-too-large",
        "error",
        "a JSON array or document log larger than the document limit; not read",
        "L2",
    ),
    Rule(
        "event-limit", "error", "the stream has more events than the limit; the rest unread", "L3"
    ),
    Rule(
        "text-limit",
        "error",
        "a message's text or a call's arguments reached the text limit; later deltas dropped",
        "L4",
    ),
    Rule(
        "diagnostics-limit",
        "error",
        "more diagnostics than the limit; the rest counted by code, not kept",
        "L6",
    ),
    Rule(
        "state-limit",
        "error",
        "a JSON Patch that would grow the state or an activity past the state limit; refused",
        "L5",
    ),
    Rule("endpoint-no-events", "error", "an endpoint answered with no AG-UI event", "W1"),
    Rule("sse-error-frame", "error", "an SSE 'error' frame: the server's failure report", "W2"),
    Rule("type-from-sse-event", "warning", "an event typed only by its SSE event name", "W2"),
    # Normalisation of known shapes (stage 1).
    Rule(
        "unknown-event-type", "info", "an event type AG-UI 1.0 does not define; not applied", "V19"
    ),
    Rule("retired-event-translated", "warning", "a retired THINKING_* event translated", "P6"),
    Rule("retired-field-dropped", "warning", "a field of a retired shape with no 1.0 home", "P6"),
    Rule(
        "reasoning-role-invalid",
        "error",
        'reasoning start with a role other than "reasoning"',
        "P6",
    ),
    Rule(
        "reasoning-role-missing",
        "info",
        'reasoning start without a role; "reasoning" assumed',
        "P5",
    ),
    Rule("null-as-absent", "warning", "null in an optional position, read as absent", "W3"),
    Rule("legacy-field-alias", "info", "a pre-1.0 field name mapped to its 1.0 name", "P7"),
    Rule(
        "field-alias",
        "warning",
        "a field under a producer's own name, read as its 1.0 name (lenient mode)",
        "P7",
    ),
    Rule(
        "result-id-minted",
        "info",
        "a TOOL_CALL_RESULT without messageId; its tool message id minted (lenient mode)",
        "A5",
    ),
    Rule("unknown-field", "info", "an event key no AG-UI 1.0 event defines; ignored", "V19"),
    # Chunk expansion (stage 2).
    Rule("chunk-missing-id", "error", "a first chunk without its id", "C4"),
    Rule("chunk-missing-name", "error", "a first TOOL_CALL_CHUNK without toolCallName", "C3"),
    Rule("chunk-invalid-id", "error", "a chunk id that is not a string", "C6"),
    Rule("chunk-delta-null", "error", "a chunk with delta: null", "C6"),
    Rule("chunk-role-stripped", "warning", "a role on REASONING_MESSAGE_CHUNK", "C2"),
    Rule("chunk-ambiguous", "error", "an id-less chunk that several lanes could continue", "C7"),
    Rule("chunk-owner-mismatch", "error", "a chunk tagged with another lane's open id", "C8"),
    Rule("chunk-field-conflict", "error", "a continuation repeating a field differently", "C11"),
    Rule("chunk-spelling-mixed", "error", "explicit and chunk spellings mixed in one item", "C19"),
    # Verification (stage 3).
    Rule("first-event-not-run-started", "error", "the stream does not open with a run", "V1"),
    Rule("event-after-run-error", "error", "an event after RUN_ERROR other than RUN_STARTED", "V2"),
    Rule("event-after-run-finished", "error", "an event after RUN_FINISHED", "V3"),
    Rule("late-run-error", "info", "RUN_ERROR after RUN_FINISHED: the run failed late", "V3"),
    Rule("run-already-active", "error", "RUN_STARTED while a run is active", "V4"),
    Rule(
        "run-started-late",
        "info",
        "RUN_STARTED after events of its run (those events were reported already)",
        "V1",
    ),
    Rule("null-attribution", "error", "subagentRunId: null", "V5"),
    Rule("text-already-active", "error", "TEXT_MESSAGE_START for an open id", "V6"),
    Rule("text-not-active", "error", "text content or end for an id that is not open", "V7"),
    Rule("tool-already-active", "error", "TOOL_CALL_START for an open id", "V8"),
    Rule("tool-not-active", "error", "tool args or end for a call that is not open", "V8"),
    Rule("step-already-active", "error", "STEP_STARTED for an open step", "V10"),
    Rule("step-not-started", "error", "STEP_FINISHED for a step not open for its owner", "V10"),
    Rule("reasoning-span-already-active", "error", "REASONING_START for an open span", "V11"),
    Rule("reasoning-span-not-active", "error", "REASONING_END for a span not open", "V11"),
    Rule("reasoning-already-active", "error", "reasoning message start for an open id", "V11"),
    Rule("reasoning-not-active", "error", "reasoning content or end for an id not open", "V11"),
    Rule("owner-mismatch", "error", "an event attributed to another owner's item", "V12"),
    Rule("run-finished-while-open", "error", "RUN_FINISHED with items still open", "V14"),
    Rule("run-id-mismatch", "warning", "RUN_FINISHED names another thread or run", "V18"),
    Rule("subagent-invalid", "error", "a subagent lifecycle violation", "V15"),
    Rule("malformed-event", "error", "a known field with a wrong or missing value", "V19"),
    Rule("unknown-role", "warning", "a role value AG-UI 1.0 does not define; stripped", "V19"),
    Rule("unknown-outcome", "warning", "an outcome type AG-UI 1.0 does not define", "T7"),
    Rule("run-truncated", "warning", "the stream ended inside a run", "V20"),
    Rule("empty-stream", "warning", "the input held no event at all", "V20"),
    Rule("protocol-version", "warning", "a protocolVersion newer or not understood", "W5"),
    # Application (stage 4).
    Rule(
        "activity-id-collision",
        "warning",
        "a message id shared by an activity and another message",
        "A1",
    ),
    Rule("message-opened-for-content", "warning", "content for a message never started", "A2"),
    Rule("message-role-conflict", "warning", "a message started again with another role", "A1"),
    Rule("content-parts-replaced", "warning", "streamed text replaced a message's parts", "A2"),
    Rule("tool-parent-not-assistant", "warning", "a call whose parent is not an assistant", "A3"),
    Rule("tool-call-renamed", "warning", "a second TOOL_CALL_START with another name", "A3"),
    Rule("tool-call-replayed", "info", "a call streamed again identically (resume replay)", "I14"),
    Rule("tool-call-redeclared", "warning", "a call streamed again with other arguments", "A3"),
    Rule("tool-args-recovered", "warning", "arguments recovered from rawEvent", "A4"),
    Rule("tool-arguments-invalid", "warning", "tool call arguments that are not JSON", "A4"),
    Rule("tool-arguments-concatenated", "warning", "several JSON values in one call", "A4"),
    Rule("orphan-arguments", "warning", "arguments for a call never started", "V8"),
    Rule("result-before-call", "warning", "a result that arrived before its call", "A5"),
    Rule("result-replayed", "info", "a result streamed again identically", "I14"),
    Rule("duplicate-message-id", "warning", "a result reusing another message's id", "A5"),
    Rule("orphan-result", "warning", "a result whose call never appeared", "A5"),
    Rule("snapshot-message-invalid", "warning", "a history message that cannot be read", "A6"),
    Rule(
        "message-content-invalid",
        "warning",
        "a history message whose content is neither text nor content parts; kept as it came",
        "A6",
    ),
    Rule("unknown-content-part", "warning", "a content part AG-UI 1.0 does not define", "V19"),
    Rule("legacy-content-part", "info", "a retired 'binary' content part upgraded", "P8"),
    Rule("activity-target-missing", "info", "ACTIVITY_DELTA for an unknown message", "A10"),
    Rule("activity-target-invalid", "warning", "ACTIVITY_DELTA for a non-activity message", "A10"),
    Rule("patch-op-dropped", "warning", "a JSON Patch operation outside RFC 6902", "A14"),
    Rule("patch-failed", "warning", "a JSON Patch that does not apply; nothing applied", "A14"),
    Rule("encrypted-value-unknown-entity", "info", "an encrypted value for an unknown id", "A8"),
    Rule("input-echo", "info", "a run input re-sending a held message under a new id", "I14"),
    Rule("snapshot-id-remapped", "info", "a snapshot restates a held message under a new id", "A6"),
    Rule("call-id-remapped", "info", "restated history carries a held call under a new id", "A6"),
    Rule(
        "snapshot-dropped-messages",
        "warning",
        "a snapshot leaves out held messages it does not restate; replaced, as the reference does",
        "A6",
    ),
    Rule("tool-call-id-reused", "info", "a call id answered earlier, declared again", "I5"),
    Rule(
        "client-result-for-server-call",
        "warning",
        "a client answer to a server-answered call",
        "I17",
    ),
    Rule("duplicate-result", "warning", "a second, different answer to a call", "I5"),
    Rule("pending-list-mismatch", "warning", "pendingToolCallIds disagrees with the stream", "T2"),
    Rule("server-answered-client-tool", "info", "a declared client tool the server answered", "T6"),
    Rule("owner-unknown", "info", "unanswered calls whose owner cannot be told", "T6"),
    Rule("result-after-abandonment", "warning", "a result for a call already given up", "I15"),
    Rule(
        "late-result-anchored", "info", "a result after a later turn, placed after its call", "I7"
    ),
    Rule(
        "invalid-call-dropped",
        "warning",
        "a call whose arguments never finished, left out of the projection",
        "I11",
    ),
    # Adapters (stage 7).
    Rule("openai-dropped", "info", "what Chat Completions messages cannot hold", "I15"),
    Rule("responses-dropped", "info", "what Responses input items cannot hold", "I15"),
    Rule("chat-turns-dropped", "info", "what a role/content chat view leaves out", "I15"),
    Rule("deepeval-dropped", "info", "what DeepEval turns cannot hold", "I15"),
    Rule("inspect-dropped", "info", "what the Inspect AI adapter does not convert", "I15"),
    Rule("deepeval-arguments-wrapped", "warning", "non-object arguments kept as a raw field", "A4"),
    Rule("openai-arguments-repaired", "warning", "non-object arguments wrapped as JSON", "A4"),
    Rule("ragas-dropped", "info", "what ragas messages cannot hold", "I15"),
    Rule("langchain-dropped", "info", "what LangChain messages do not render", "I15"),
    Rule("agui-model-degraded", "warning", "content the ag_ui.core models cannot hold", "P5"),
    Rule("resume-missing", "error", "a run after an interrupt that does not resume it", "T7"),
    Rule(
        "resume-unconfirmed",
        "info",
        "a producer's echo of a run input after an interrupt names no resume",
        "T7",
    ),
)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about a stream.

    ``event_index`` is the 0-based position of the offending input event (counting every
    item the intake saw, bad ones included); ``line`` is its 1-based line in a file or
    stream when it came from one.
    """

    code: str
    severity: Severity
    message: str
    event_index: int | None = None
    line: int | None = None
    message_id: str | None = None
    tool_call_id: str | None = None
    subagent_run_id: str | None = None

    @property
    def rule(self) -> Rule:
        """The rule table entry for this diagnostic's code."""
        return RULES[self.code]

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.event_index is not None:
            where.append(f"event {self.event_index}")
        prefix = f"[{', '.join(where)}] " if where else ""
        return f"{prefix}{self.severity}: {self.code}: {self.message}"


class ProtocolError(ValueError):
    """Raised in strict mode at the first error-level violation.

    ``str(error)`` starts with the violation's message, which contains the reference
    client's wording where the reference has one.
    """

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


class EventDecodeError(ProtocolError):
    """Strict mode: an input line or SSE event could not be read as an AG-UI event."""


class LimitExceeded(ProtocolError):
    """Strict mode: the stream crossed one of the :class:`~agui_transcripts.Limits`."""


#: Codes for a stream that crossed a resource limit.
LIMIT_CODES = frozenset(
    {
        "event-too-large",
        "document-too-large",
        "event-limit",
        "text-limit",
        "state-limit",
        "diagnostics-limit",
    }
)


#: Codes for input that could not be read as an event at all.
DECODE_CODES = frozenset(
    {
        "invalid-json",
        "event-not-object",
        "event-missing-type",
        "event-type-invalid",
        "unsupported-input",
    }
)


class DiagnosticSink:
    """Collects diagnostics for one stream and enforces strict mode.

    Shared by every layer that reads the same stream, so the diagnostics come out in
    stream order in one list.
    """

    __slots__ = ("_finished", "diagnostics", "dropped", "max_kept", "strict")

    def __init__(self, *, strict: bool = False, max_kept: int | None = None) -> None:
        self.strict = strict
        self.diagnostics: list[Diagnostic] = []
        #: How many to keep (the diagnostics limit); past it they are counted by code.
        self.max_kept = max_kept
        self.dropped: Counter[str] = Counter()
        self._finished = False

    def report(
        self,
        code: str,
        message: str,
        *,
        event_index: int | None = None,
        line: int | None = None,
        message_id: str | None = None,
        tool_call_id: str | None = None,
        subagent_run_id: str | None = None,
    ) -> Diagnostic:
        """Record a diagnostic; in strict mode raise if it is error-level."""
        diagnostic = Diagnostic(
            code=code,
            severity=RULES[code].severity,
            message=message,
            event_index=event_index,
            line=line,
            message_id=message_id,
            tool_call_id=tool_call_id,
            subagent_run_id=subagent_run_id,
        )
        if self.max_kept is None or len(self.diagnostics) < self.max_kept:
            self.diagnostics.append(diagnostic)
        else:
            self.dropped[code] += 1
        if self.strict and diagnostic.severity == "error":
            if code in DECODE_CODES:
                raise EventDecodeError(diagnostic)
            if code in LIMIT_CODES:
                raise LimitExceeded(diagnostic)
            raise ProtocolError(diagnostic)
        return diagnostic

    def finish(self) -> None:
        """End of the stream: one last diagnostic counts what the limit left out."""
        if self._finished or not self.dropped:
            return
        self._finished = True
        counts = ", ".join(f"{code} {count}" for code, count in self.dropped.most_common())
        total = sum(self.dropped.values())
        self.diagnostics.append(
            Diagnostic(
                code="diagnostics-limit",
                severity=RULES["diagnostics-limit"].severity,
                message=f"{total} more diagnostics were not kept (the diagnostics limit, "
                f"{self.max_kept}): {counts}",
            )
        )
