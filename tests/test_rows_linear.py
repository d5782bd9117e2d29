"""Rows per run cost what each run changed: the work of a log of 2N runs is twice N's.

Each run's end used to render, read or copy the whole conversation (its messages, its
runs, its calls), so a log's rows cost runs times messages: 14 s for a 300 KB log. The
work is counted here, not timed: messages rendered as rows, runs and calls read into
rows, and call records copied to be settled. For every shape of thread a producer
writes (one message a run, a call and its result a run, a client's call answered in the
next run's input, a snapshot of the last turns ending each run; timed or not), every
target the core renders and every way of placing subagents, doubling the runs must
not much more than double the work.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import call_views, row_calls, row_messages, row_runs
from agui_transcripts.rows import log_rows

from .generate import one_message_runs

Event = dict[str, Any]


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


class _Work:
    """Counts what the row builders make, through the module names they call."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for module, name in (
            (row_messages, "message_row"),
            (row_runs, "_run_time_row"),
            (row_calls, "tool_call_rows"),
        ):
            monkeypatch.setattr(module, name, self._counting(getattr(module, name)))
        view = call_views.SettledCalls.view

        def counted_view(self_: call_views.SettledCalls, *args: Any) -> Any:
            calls, copies = view(self_, *args)
            self.count += len(copies)
            return calls, copies

        monkeypatch.setattr(call_views.SettledCalls, "view", counted_view)

    def _counting(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            made = function(*args, **kwargs)
            self.count += len(made) if isinstance(made, list) else 1
            return made

        return counted


def doubling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, target: str, subagents: Any
) -> tuple[int, int]:
    """The work of rows per run for ``shape`` at 150 runs and at 300."""
    counts = []
    for runs in (150, 300):
        path = tmp_path / f"{runs}.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in SHAPES[shape](runs)))
        with monkeypatch.context() as patch:
            work = _Work(patch)
            rows = log_rows(str(path), per="run", target=target, subagents=subagents)
            assert all(row["ok"] for row in rows), rows[0]
            counts.append(work.count)
    small, large = counts
    assert small >= 150  # each run's end makes something: the count sees the work
    return small, large


@pytest.mark.parametrize("subagents", ["inline", "apart", "exclude"])
@pytest.mark.parametrize("target", ["agui", "openai"])
@pytest.mark.parametrize("shape", SHAPES)
def test_twice_the_runs_cost_twice_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, target: str, subagents: str
) -> None:
    small, large = doubling(tmp_path, monkeypatch, shape, target, subagents)
    assert large <= 2.2 * small, (small, large)  # runs times messages would be about 4x
