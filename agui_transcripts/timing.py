"""When each run happened and what it cost: the ``timed`` view of a transcript.

From the events' timestamps (:attr:`RunRecord.started_at`, :attr:`Transcript.times`)
and the runs' reported usage; a run no timestamp dates has no times, never invented
ones. Time to first token is measured to the first event of the run's first assistant
or reasoning message, the first thing a user would see.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .model import AssistantMessage, Message, ReasoningMessage
from .transcript import Transcript
from .usage import token_totals

__all__ = ["RunTimes", "first_outputs", "run_times"]


@dataclass(frozen=True, slots=True)
class RunTimes:
    """One run's times and token usage (None where the stream does not say).

    Milliseconds throughout; ``started_at`` and ``ended_at`` since the epoch.
    """

    run_index: int
    run_id: str | None
    outcome: str | None
    started_at: float | None
    ended_at: float | None
    duration_ms: float | None
    time_to_first_token_ms: float | None
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None

    def to_dict(self) -> dict[str, Any]:
        """A plain dict of the fields."""
        return asdict(self)


def first_outputs(transcript: Transcript, messages: list[Message]) -> dict[int, float]:
    """Per run index, the first event time of the assistant and reasoning ``messages``."""
    times = transcript.times.messages
    first: dict[int, float] = {}
    if not times:
        return first
    for message in messages:
        if type(message) not in (AssistantMessage, ReasoningMessage):
            continue
        when = times.get(message.id)
        run = transcript.run_of(message) if when is not None else None
        if when is not None and run is not None:
            known = first.get(run.index)
            if known is None or when[0] < known:
                first[run.index] = when[0]
    return first


def run_times(
    transcript: Transcript, *, firsts: dict[int, float] | None = None, runs_from: int = 0
) -> list[RunTimes]:
    """Each run's times, time to first token and usage, in run order.

    ``firsts``: each run's first output (:func:`first_outputs`), if known; ``runs_from``:
    the first run to give.
    """
    out = []
    if firsts is None:
        firsts = first_outputs(transcript, transcript.messages)
    for run in transcript.runs[runs_from:]:
        usage = token_totals(run.usage)
        first = firsts.get(run.index)
        out.append(
            RunTimes(
                run_index=run.index,
                run_id=run.run_id,
                outcome=run.outcome,
                started_at=run.started_at,
                ended_at=run.ended_at,
                duration_ms=run.duration_ms,
                time_to_first_token_ms=(
                    first - run.started_at
                    if first is not None and run.started_at is not None
                    else None
                ),
                input_tokens=usage.get("input_tokens"),
                output_tokens=usage.get("output_tokens"),
                total_tokens=usage.get("total_tokens"),
            )
        )
    return out
