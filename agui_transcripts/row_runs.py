"""A row's columns over runs and diagnostics, computed from what each run changed.

A row lists every run (ids, outcomes, times, token sums) and counts every diagnostic by
code. Rows per run would compute those from scratch at each run's end, the square of
the runs in all. :class:`GrowingColumns` keeps what earlier runs' ends computed and
reads only the runs since, when the message rows say the run left earlier messages as
they were (:class:`~agui_transcripts.row_messages.RunMessages`): then earlier runs are as
they were too (a run's events change only their own run), and their times to first
token too (a run's first output is among the messages that arrived in it).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .diagnostics import Diagnostic
from .model import Message
from .row_deltas import GrowingList
from .timing import RunTimes, first_outputs, run_times
from .transcript import Transcript

__all__ = ["TOKENS", "GrowingColumns"]

#: The token counts a row sums over its runs.
TOKENS = ("input_tokens", "output_tokens", "total_tokens")


class GrowingColumns:
    """The run and diagnostic columns of each run's row of one log, read in order."""

    def __init__(self) -> None:
        self._runs = 0  # how many runs the last run's end read
        self._time_rows: GrowingList[dict[str, Any]] = GrowingList()
        self._ids: GrowingList[str | None] = GrowingList()
        self._outcomes: GrowingList[str | None] = GrowingList()
        # Each token count summed over the runs up to each run (None: none reported
        # it), and whether any run up to each was cut off.
        self._sums: list[tuple[int | None, ...]] = []
        self._truncated: list[bool] = []
        self._firsts: dict[int, float] = {}  # each run's first output, as last found
        self._counted = 0  # diagnostics counted so far
        self._codes: Counter[tuple[str, str]] = Counter()
        self._severities: Counter[str] = Counter()

    def columns(
        self, transcript: Transcript, messages: list[Message], kept: int | None
    ) -> dict[str, Any]:
        """The columns for ``transcript`` (its ``messages``) at a run's end.

        ``kept``: how many leading messages the message rows went on from, when this run
        left them as they were (None: the run may have changed any message). Only the
        runs that may have changed since the last run's end are read: a run's record
        changes only while it is the fold's latest (its events, or one that comes after
        its end, before the next run starts), and its time to first token only with its
        messages. When the run left earlier messages as they were, every message it added
        (the only ones that can give a run a first output) comes after the kept ones;
        otherwise every first output is found again, and the runs whose first changed
        are read again too.
        """
        runs = transcript.runs
        latest = max(min(self._runs, len(runs)) - 1, 0)  # the last run's end's own run
        if kept is not None:
            start = min(self._runs, len(runs))
            firsts = first_outputs(transcript, messages[kept:])
            self._firsts.update(firsts)
        elif not transcript.times.messages:  # untimed: no first outputs
            start, firsts = latest, {}
        else:
            firsts = first_outputs(transcript, messages)
            known = self._firsts
            changed = [i for i in known.keys() | firsts.keys() if known.get(i) != firsts.get(i)]
            start = min(latest, *changed) if changed else latest
            self._firsts = firsts
        self._runs = len(runs)
        since = runs[start:]
        time_rows = [
            _run_time_row(t) for t in run_times(transcript, firsts=firsts, runs_from=start)
        ]
        self._time_rows.go_on(start, time_rows)
        self._ids.go_on(start, (run.run_id for run in since))
        self._outcomes.go_on(start, (run.outcome for run in since))
        sums = self._sums[start - 1] if start else _NO_SUMS
        truncated = self._truncated[start - 1] if start else False
        del self._sums[start:], self._truncated[start:]
        for row, run in zip(time_rows, since, strict=True):
            sums = tuple(_add(total, row[name]) for total, name in zip(sums, TOKENS, strict=True))
            truncated = truncated or run.outcome == "truncated"
            self._sums.append(sums)
            self._truncated.append(truncated)
        return {
            "run_ids": self._ids.items,
            "run_outcomes": self._outcomes.items,
            "run_times": self._time_rows.items,
            **dict(zip(TOKENS, sums, strict=True)),
            "truncated": truncated,
            **self._diagnostics(transcript.diagnostics),
        }

    @property
    def shared(self) -> int:
        """How many leading runs the last columns share with the ones before."""
        return min(self._time_rows.shared, self._ids.shared, self._outcomes.shared)

    def _diagnostics(self, diagnostics: list[Diagnostic]) -> dict[str, Any]:
        # The sink only appends: count what came since the last run's end.
        for diagnostic in diagnostics[self._counted :]:
            self._codes[diagnostic.code, diagnostic.severity] += 1
            self._severities[diagnostic.severity] += 1
        self._counted = len(diagnostics)
        return {
            "diagnostics": [
                {"code": code, "severity": severity, "count": count}
                for (code, severity), count in sorted(self._codes.items())
            ],
            "errors": self._severities["error"],
            "warnings": self._severities["warning"],
        }


_NO_SUMS: tuple[int | None, ...] = (None,) * len(TOKENS)


def _add(total: int | None, value: int | None) -> int | None:
    if value is None:
        return total
    return value if total is None else total + value


def _run_time_row(times: RunTimes) -> dict[str, Any]:
    return {
        "started_at_ms": times.started_at,
        "ended_at_ms": times.ended_at,
        "duration_ms": times.duration_ms,
        "time_to_first_token_ms": times.time_to_first_token_ms,
        **{name: getattr(times, name) for name in TOKENS},
    }
