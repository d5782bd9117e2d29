"""One dataset row per recorded log, in a stable, versioned schema.

An archive of recorded runs becomes an evaluation dataset one row per log: where it
came from, its runs and their outcomes, the conversation in the chosen target, the
final response, each tool call with its result, state and owner, what must happen next,
and the diagnostics counted by code. A log that cannot be folded gives a row too, with
``ok`` false and the reason in ``error``, so a batch never aborts on one bad file.

Rows are plain dicts of JSON values (no framework needed); :mod:`agui_transcripts.arrow`
turns them into Arrow tables, Parquet, pandas and Hugging Face datasets with
:func:`~agui_transcripts.arrow.row_schema`. ``docs/dataset.md`` documents every column.
Messages of every target share one shape (:func:`message_row`), so a table's type does
not depend on the target it was written for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from .adapters.registry import DEFAULT_TARGET, render
from .adapters.registry import target as named_target
from .limits import Limits
from .logs import LogError, LogPaths, SkippedFile, find_logs, fold_log, map_logs
from .projection import Subagents
from .row_calls import RunCalls, tool_call_rows
from .row_deltas import DELTA_COLUMNS, cut_row, whole_rows
from .row_messages import RunMessages, message_row
from .row_runs import TOKENS, GrowingColumns
from .transcript import Transcript, response_among

__all__ = [
    "ROW_TARGETS",
    "SCHEMA_VERSION",
    "failed_row",
    "log_row",
    "log_rows",
    "message_row",
    "row_of",
    "rows_of_logs",
    "whole_rows",
]

#: Bumped whenever a column is added, removed, renamed or changes type.
SCHEMA_VERSION = "3"
#: One row per log, or one per run of each log.
Per = Literal["log", "run"]
#: The targets a row's ``messages`` can be written for.
ROW_TARGETS = ("agui", "openai", "ragas")
#: A row that holds its lists whole (see :mod:`agui_transcripts.row_deltas`).
_WHOLE = dict.fromkeys(DELTA_COLUMNS, 0)


def log_row(
    source: str,
    *,
    target: str = DEFAULT_TARGET,
    subagents: Subagents = "inline",
    strict: bool = False,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """The row of one log (with the run inputs recorded beside it), or its failure row."""
    (row,) = log_rows(source, target=target, subagents=subagents, strict=strict, limits=limits)
    return row


def log_rows(
    source: str,
    *,
    per: Per = "log",
    target: str = DEFAULT_TARGET,
    subagents: Subagents = "inline",
    strict: bool = False,
    limits: Limits | None = None,
) -> list[dict[str, Any]]:
    """The rows of one log: its one row (``per="log"``), or one row per run.

    This is the unit of work of every batch path: the command line's Parquet output,
    :func:`rows_of_logs` and the Ray pipeline all call it. A run's row is the
    conversation as it stood when that run ended (what a client held then: earlier runs
    included, its own pending calls still pending), with ``run_index`` saying which run;
    a run the log cuts off gets the row of the whole log. Each run's row but the first
    and the last holds what its run changed since the row before it
    (:mod:`~agui_transcripts.row_deltas`; :func:`whole_rows` restores them), so a log's
    rows grow with the log, not with runs times messages. A log that gives no
    transcript gives its one failed row either way.
    """
    _check_target(target)
    rows: list[dict[str, Any]] = []
    whole: dict[str, Any] = {}  # the last row's lists, whole (the builders' own)
    # Each run's end renders what its run added where it can (see .row_messages).
    run_messages = RunMessages(
        lambda transcript: render(transcript, target, ordered=True, subagents=subagents),
        each=named_target(target).each if per == "run" else None,
        untagged=subagents != "inline",
    )
    run_columns = GrowingColumns()
    run_calls = RunCalls()

    def add(view: Callable[[int], Transcript], events: int, *, per_run: bool = True) -> None:
        nonlocal whole
        # Calls settled for good at the last run's end are left as the fold holds them,
        # unless this run's end renders the whole conversation (then all are settled).
        stable = run_calls.stable if run_messages.may_go_on else 0
        message_rows = run_messages.rows(view(stable), (lambda: view(0)) if stable else None)
        transcript = run_messages.transcript
        assert transcript is not None
        if run_messages.kept is None:
            run_calls.restart()
        columns = run_columns.columns(transcript, run_messages.messages, run_messages.kept)
        calls = run_calls.columns(transcript, run_messages.messages, *run_messages.held)
        # The messages a run left as they were all came before it started: its response
        # is among the ones since (when the run's start is known).
        kept, runs = run_messages.kept, transcript.runs
        response = (
            transcript.response
            if kept is None or not runs or runs[-1].first_event_index is None
            else response_among(run_messages.messages[kept:], runs)
        )
        row = _row(
            transcript,
            message_rows,
            {**columns, **calls, "response": response},
            source=source,
            events=events,
            target=target,
        )
        if per_run and transcript.runs:
            row["run_index"] = len(transcript.runs) - 1
        # A later run's: what it changed since the row before (the builders know).
        shared = {
            "messages_from": run_messages.rows_now.shared,
            "tool_calls_from": run_calls.rows_now.shared,
            "runs_from": run_columns.shared,
        }
        whole = cut_row(row, shared if rows else None)
        rows.append(row)

    try:
        watch, seen = (add, run_messages.event) if per == "run" else (None, None)
        transcript, events = fold_log(
            source, strict=strict, limits=limits, at_run_end=watch, at_event=seen
        )
        if per == "log" or not rows or transcript.runs[-1].outcome == "truncated":
            folded = transcript  # the log, or its cut-off run
            add(lambda _: folded, events, per_run=per == "run")
        rows[-1].update(whole, **_WHOLE)  # the last row is whole
        return rows
    except LogError as error:
        return [failed_row(source, str(error), target=target)]
    except ImportError as error:  # the target's framework is missing
        return [failed_row(source, f"{source}: {error}", target=target)]
    except (ValueError, RecursionError) as error:
        return [failed_row(source, f"{source}: cannot be converted: {error}", target=target)]


def rows_of_logs(
    paths: LogPaths,
    *,
    target: str = DEFAULT_TARGET,
    subagents: Subagents = "inline",
    strict: bool = False,
    limits: Limits | None = None,
    jobs: int | None = 1,
    notes: list[SkippedFile] | None = None,
    exclude: Sequence[str] = (),
    per: Per = "log",
) -> Iterator[dict[str, Any]]:
    """The row of every log under ``paths`` (files, folders, URIs), in order, as made.

    ``paths`` is one path or several (``str`` or ``Path``). Folders are read by the
    command line's rules (:func:`~agui_transcripts.logs.find_logs`; what they skip, and
    why, goes to ``notes``; ``exclude`` globs leave files out). Logs are folded in this
    process unless ``jobs`` asks for worker processes (N, or None for every core; from
    a script, under a ``__main__`` guard). Rows stream: pass them to
    :func:`~agui_transcripts.arrow.write_parquet` and an archive of any size is
    converted in bounded memory. ``per="run"`` gives a row per run (:func:`log_rows`).
    """
    _check_target(target)
    sources = find_logs(paths, notes, exclude=exclude)
    for rows in map_logs(
        log_rows,
        sources,
        jobs=jobs,
        crashed=lambda source, reason: [failed_row(source, reason, target=target)],
        per=per,
        target=target,
        subagents=subagents,
        strict=strict,
        limits=limits,
    ):
        yield from rows


def row_of(
    transcript: Transcript,
    *,
    source: str,
    events: int,
    target: str = DEFAULT_TARGET,
    subagents: Subagents = "inline",
) -> dict[str, Any]:
    """The row of a transcript already folded (``source`` and ``events`` as recorded)."""
    _check_target(target)
    rendered = render(transcript, target, ordered=True, subagents=subagents)
    messages = [message_row(message) for message in rendered]
    columns = {
        **GrowingColumns().columns(transcript, transcript.messages, None),
        "tool_calls": tool_call_rows(transcript),
        "continuation": transcript.continuation().status,
        "response": transcript.response,
    }
    return _row(transcript, messages, columns, source=source, events=events, target=target)


def _row(
    transcript: Transcript,
    messages: list[dict[str, Any]],
    columns: dict[str, Any],
    *,
    source: str,
    events: int,
    target: str,
) -> dict[str, Any]:
    """A row; ``columns``: its run, diagnostic and call columns and response (see ``add``)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "source": source,
        "run_index": None,
        "ok": True,
        "error": None,
        "thread_id": transcript.thread_id,
        "run_ids": columns["run_ids"],
        "run_outcomes": columns["run_outcomes"],
        "run_times": columns["run_times"],
        "started_at_ms": transcript.runs[0].started_at if transcript.runs else None,
        "ended_at_ms": transcript.runs[-1].ended_at if transcript.runs else None,
        **{name: columns[name] for name in TOKENS},
        "events": events,
        "target": target,
        **_WHOLE,
        "messages": messages,
        "response": columns["response"],
        "tool_calls": columns["tool_calls"],
        "continuation": columns["continuation"],
        "truncated": columns["truncated"],
        "diagnostics": columns["diagnostics"],
        "errors": columns["errors"],
        "warnings": columns["warnings"],
    }


def failed_row(source: str, error: str, *, target: str = DEFAULT_TARGET) -> dict[str, Any]:
    """The row of a log that gave no transcript: every other column empty."""
    return {
        "schema_version": SCHEMA_VERSION,
        "source": source,
        "run_index": None,
        "ok": False,
        "error": error,
        "thread_id": None,
        "run_ids": [],
        "run_outcomes": [],
        "run_times": [],
        "started_at_ms": None,
        "ended_at_ms": None,
        **dict.fromkeys(TOKENS),
        "events": 0,
        "target": target,
        **_WHOLE,
        "messages": [],
        "response": None,
        "tool_calls": [],
        "continuation": None,
        "truncated": False,
        "diagnostics": [],
        "errors": 0,
        "warnings": 0,
    }


def _check_target(target: str) -> None:
    if target not in ROW_TARGETS:
        raise ValueError(f"rows are written for {', '.join(ROW_TARGETS)}, not {target!r}")
