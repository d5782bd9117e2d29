"""Diagnostics: what was wrong with a stream, and what was done about it.

Every repair or rejection in the library is reported as a :class:`Diagnostic`, a plain
value with a stable ``code``. The codes live in one table, :data:`RULES`, each with its
severity and the AG-UI rule id it enforces (the ids of the protocol rules document:
W wire format, P versions, C chunks, V verification, A application, T tool ownership).

Lenient mode (the default everywhere) records diagnostics and keeps going; strict mode
raises :class:`ProtocolError` at the first error-level diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DECODE_CODES",
    "RULES",
    "Diagnostic",
    "DiagnosticSink",
    "EventDecodeError",
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
    # Input decoding (layer 1).
    Rule("invalid-json", "error", "an input line or SSE event is not valid JSON", "W1"),
    Rule("invalid-utf8", "warning", "input bytes are not valid UTF-8; replaced with U+FFFD", "W2"),
    Rule("event-not-object", "error", "a JSON value that is not an object", "W1"),
    Rule("event-missing-type", "error", "an event object without a 'type'", "W1"),
    Rule("event-type-invalid", "error", "an event 'type' that is not a string", "W1"),
    Rule(
        "unsupported-input", "error", "an input item that is not an event in any known form", "W1"
    ),
    # Normalisation of known shapes (layer 1).
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

    __slots__ = ("diagnostics", "strict")

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self.diagnostics: list[Diagnostic] = []

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
        self.diagnostics.append(diagnostic)
        if self.strict and diagnostic.severity == "error":
            if code in DECODE_CODES:
                raise EventDecodeError(diagnostic)
            raise ProtocolError(diagnostic)
        return diagnostic
