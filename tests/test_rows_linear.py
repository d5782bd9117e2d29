"""Rows per run cost what each run changed: the work of a log of 2N runs is twice N's.

Each run's end used to render, read or copy the whole conversation (its messages, its
runs, its calls), so a log's rows cost runs times messages: 14 s for a 300 KB log. The
work is counted here, not timed: the lines of the package's Python that run, the fold's
included. For every shape of thread a producer writes (one message a run, a call and
its result a run, a client's call answered in the next run's input, a snapshot of the
last turns ending each run; timed or not), every target the core renders and every way
of placing subagents, doubling the runs must not much more than double the work.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import pytest

import agui_transcripts
from agui_transcripts.rows import log_rows

from .generate import one_message_runs

Event = dict[str, Any]
T = TypeVar("T")


def _calls_answered(runs: int) -> list[Event]:
    """Each run calls a server tool, gets its result and answers."""
    events: list[Event] = []
    for i in range(runs):
        events += [
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}"},
            {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "look"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": f"c{i}", "delta": '{"q": 1}'},
            {"type": "TOOL_CALL_END", "toolCallId": f"c{i}"},
            {
                "type": "TOOL_CALL_RESULT",
                "toolCallId": f"c{i}",
                "messageId": f"x{i}",
                "content": "1",
            },
            {"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{i}", "delta": f"answer {i}"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"m{i}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}"},
        ]
    return events


def _client_round_trips(runs: int) -> list[Event]:
    """Each run ends with a client's call; the next run's input carries its answer."""
    events: list[Event] = []
    for i in range(runs):
        given: list[Event] = []
        if i:
            given = [{"id": f"t{i}", "role": "tool", "toolCallId": f"c{i - 1}", "content": "ok"}]
        run_input = {"threadId": "t", "runId": f"r{i}", "messages": given}
        events += [
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}", "input": run_input},
            {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "ask"},
            {"type": "TOOL_CALL_END", "toolCallId": f"c{i}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}"},
        ]
    return events


def _window_snapshots(runs: int) -> list[Event]:
    """Each run ends with a snapshot of the last two turns (a server that keeps a window)."""
    events: list[Event] = []
    previous: list[Event] = []
    for i in range(runs):
        current = [{"id": f"m{i}", "role": "assistant", "content": f"answer {i}"}]
        events += [
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}"},
            {"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{i}", "delta": f"answer {i}"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"m{i}"},
            {"type": "MESSAGES_SNAPSHOT", "messages": previous + current},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}"},
        ]
        previous = current
    return events


def _timed(events: list[Event]) -> list[Event]:
    return [{**event, "timestamp": 1_700_000_000_000 + 10 * i} for i, event in enumerate(events)]


SHAPES: dict[str, Callable[[int], list[Event]]] = {
    "one message a run": one_message_runs,
    "a call answered a run": _calls_answered,
    "client round trips": _client_round_trips,
    "window snapshots": _window_snapshots,
    "timed one message a run": lambda runs: _timed(one_message_runs(runs)),
    "timed window snapshots": lambda runs: _timed(_window_snapshots(runs)),
}


PACKAGE = str(Path(agui_transcripts.__file__).parent)


def _lines_run(work: Callable[[], T]) -> tuple[int, T]:
    """How many lines of the package's Python ``work`` runs (the fold's included), and its result.

    Lines, not seconds: a count that does not move with the machine's load, and that
    sees any loop of the package's Python (the compiled build's modules run none).
    """
    count = 0

    def in_line(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return in_line

    def called(frame: FrameType, event: str, arg: object) -> Any:
        return in_line if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(called)
    try:
        result = work()
    finally:
        sys.settrace(None)
    return count, result


def doubling(tmp_path: Path, shape: str, target: str, subagents: Any) -> tuple[int, int]:
    """The lines rows per run run for ``shape`` at 150 runs and at 300."""
    counts = []
    for runs in (150, 300):
        path = tmp_path / f"{runs}.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in SHAPES[shape](runs)))
        lines, rows = _lines_run(
            partial(log_rows, str(path), per="run", target=target, subagents=subagents)
        )
        counts.append(lines)
        assert len(rows) == runs, len(rows)
        assert all(row["ok"] for row in rows), rows[0]
    small, large = counts
    assert small >= 150 * 20  # each run's end runs lines of its own: the count sees them
    return small, large


@pytest.mark.parametrize("subagents", ["inline", "apart", "exclude"])
@pytest.mark.parametrize("target", ["agui", "openai"])
@pytest.mark.parametrize("shape", SHAPES)
def test_twice_the_runs_cost_twice_the_work(
    tmp_path: Path, shape: str, target: str, subagents: str
) -> None:
    small, large = doubling(tmp_path, shape, target, subagents)
    assert large <= 2.2 * small, (small, large)  # runs times messages would be about 4x
