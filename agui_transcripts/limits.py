"""Bounds on what one stream may make the library hold.

Logs and endpoints come from agents nobody controls. :class:`Limits` caps the size of one
event, of a whole-document log, of the text accumulated for one message or call, and the
number of events in a stream, and the size JSON Patch deltas may grow the state to, so a
hostile or broken producer cannot exhaust memory. Crossing a bound is an error-level
diagnostic (``event-too-large``, ``document-too-large``, ``event-limit``,
``text-limit``, ``state-limit``, ``diagnostics-limit``) and what was read before is kept;
in strict mode it raises :class:`~agui_transcripts.LimitExceeded`.

The defaults are far above any real run (the largest recorded runs we know of hold a few
hundred thousand events and messages of a few megabytes) and keep the worst case to a few
gigabytes. ``None`` turns a bound off; :data:`UNLIMITED` turns them all off.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields

__all__ = ["DEFAULT_LIMITS", "LIMIT_NAMES", "UNLIMITED", "Limits"]

MiB = 1 << 20


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds one stream is read under (None: no bound)."""

    #: Bytes of one event: a JSONL line, the data of one SSE event, one JSON text item.
    max_event_bytes: int | None = 32 * MiB
    #: Bytes of a log read whole (a JSON array of events, or a document holding one).
    max_document_bytes: int | None = 512 * MiB
    #: Characters accumulated from deltas for one message's content or one call's arguments.
    max_text_chars: int | None = 64 * MiB
    #: Events in one stream; reading stops after this many.
    max_events: int | None = 10_000_000
    #: JSON bytes (estimated) the shared state, or one activity's content, may reach by
    #: JSON Patch deltas: ``copy`` can double a document per operation.
    max_state_bytes: int | None = 64 * MiB
    #: Diagnostics kept for one stream; past it they are counted, and one last
    #: ``diagnostics-limit`` diagnostic says how many of each code were left out.
    max_diagnostics: int | None = 100_000

    def __post_init__(self) -> None:
        for name in LIMIT_NAMES:
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"Limits.{name} must be a positive int or None, not {value!r}")


#: Every bound's field name, in declaration order.
LIMIT_NAMES: tuple[str, ...] = tuple(field.name for field in fields(Limits))


def bound(value: int | None) -> int:
    """A limit as a number to compare with (no bound: the largest int)."""
    return sys.maxsize if value is None else value


DEFAULT_LIMITS = Limits()
UNLIMITED = Limits(**dict.fromkeys(LIMIT_NAMES))
