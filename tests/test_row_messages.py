"""Each run's row, built from what earlier runs left, equals one built from scratch.

Rows per run render only the messages a run added when nothing says the earlier ones
changed (:mod:`agui_transcripts.row_messages`), and read only the runs and diagnostics
that may have changed (:mod:`agui_transcripts.row_runs`). The oracle is the whole
rendering and reading at every run's end, side by side in the same fold: on every
recorded and golden log, and on generated threads (timed or not) whose later runs do
what sloppy producers do to earlier runs (stream into an earlier message, answer or
redeclare an earlier call, restate it under a new id, continue a chunk with no id,
snapshot), each of which must fall back, and whose clean runs must not.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import fold
from agui_transcripts.adapters.registry import render, target
from agui_transcripts.logs import fold_log
from agui_transcripts.projection import Subagents
from agui_transcripts.row_messages import RunMessages
from agui_transcripts.row_runs import GrowingColumns
from agui_transcripts.rows import log_row, log_rows, whole_rows
from agui_transcripts.transcript import Transcript

from .generate import Insert, one_message_runs, random_thread, with_inserts
from .test_dataset import CORPUS
from .test_row_deltas import _cut, _same_but_source

Event = dict[str, Any]
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


#: The row targets the core renders message by message (ragas's: tests/ragas_compat).
TARGETS = ("agui", "openai")


def _side_by_side(
    source: str, name: str = "agui", subagents: Subagents = "inline"
) -> tuple[int, int]:
    """Fold ``source`` with resumable builders and whole ones; equal rows at each run's
    end. Returns the runs and how many of them the resumable one rendered whole."""

    def _whole(transcript: Transcript) -> list[Any]:
        return render(transcript, name, ordered=True, subagents=subagents)

    kept = RunMessages(_whole, each=target(name).each, untagged=subagents != "inline")
    whole = RunMessages(_whole, each=None)
    growing = GrowingColumns()
    ends = 0

    def at_end(view: Callable[[int], Transcript], events: int) -> None:
        nonlocal ends
        ends += 1
        transcript = view(0)
        assert kept.rows(transcript) == whole.rows(transcript), f"run end {ends}"
        columns = growing.columns(transcript, kept.messages, kept.kept)
        fresh = GrowingColumns().columns(transcript, transcript.messages, None)
        assert columns == fresh, f"run end {ends}"

    fold_log(source, at_run_end=at_end, at_event=kept.event)
    assert whole.whole_renders == ends
    return ends, kept.whole_renders


def _write(folder: Path, events: list[Event], inputs: list[Any] | None = None) -> str:
    log = folder / "log.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events))
    if inputs:
        (folder / "log.input.json").write_text(json.dumps(inputs))
    return str(log)


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize("source", CORPUS, ids=lambda s: Path(s).name)
def test_every_recorded_log_renders_the_same_run_by_run(source: str, name: str) -> None:
    _side_by_side(source, name)


@pytest.mark.parametrize("subagents", ["apart", "exclude"])
@pytest.mark.parametrize("source", CORPUS, ids=lambda s: Path(s).name)
def test_subagents_apart_or_left_out_render_the_same_run_by_run(
    source: str, subagents: Subagents
) -> None:
    _side_by_side(source, "agui", subagents)


@pytest.mark.parametrize("name", TARGETS)
def test_runs_that_only_add_render_only_what_they_add(tmp_path: Path, name: str) -> None:
    assert _side_by_side(_write(tmp_path, one_message_runs(60)), name) == (60, 1)


@pytest.mark.parametrize("subagents", ["apart", "exclude"])
def test_without_subagents_every_way_renders_only_what_runs_add(
    tmp_path: Path, subagents: Subagents
) -> None:
    assert _side_by_side(_write(tmp_path, one_message_runs(60)), "agui", subagents) == (60, 1)


def test_a_subagents_message_renders_whole_from_then_on(tmp_path: Path) -> None:
    events = one_message_runs(6)
    third = [i for i, e in enumerate(events) if e["type"] == "RUN_STARTED"][2]
    events[third + 1 : third + 4] = [
        {**event, "subagentRunId": "sub"} for event in events[third + 1 : third + 4]
    ]
    source = _write(tmp_path, events)
    assert _side_by_side(source, "agui", "exclude") == (6, 5)  # the first and from the third
    assert _side_by_side(source, "agui", "apart") == (6, 5)
    assert _side_by_side(source, "agui", "inline") == (6, 1)


def test_inputs_restating_the_history_leave_it_kept(tmp_path: Path) -> None:
    # Each run's input restates every earlier message (its calls under re-minted
    # message ids), as harnesses send: skipped or added at the end, never an edit.
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from shapes import long_thread
    finally:
        sys.path.remove(str(BENCHMARKS))
    events = list(long_thread(13 * 40))
    runs = sum(e["type"] == "RUN_FINISHED" for e in events)
    assert _side_by_side(_write(tmp_path, events)) == (runs, 1)


# What a later run of a sloppy producer does to an earlier one: each names an earlier
# message or call, or leaves the chunk layer to say which message it continues.
def _into_earlier_text(ids: dict[str, list[str]]) -> list[Event]:
    target = ids["assistant"][0]
    return [{"type": "TEXT_MESSAGE_CONTENT", "messageId": target, "delta": " (more)"}]


def _answer_earlier_call(ids: dict[str, list[str]]) -> list[Event]:
    call = ids["calls"][0]
    return [{"type": "TOOL_CALL_RESULT", "messageId": "late-r", "toolCallId": call, "content": "x"}]


def _redeclare_earlier_call(ids: dict[str, list[str]]) -> list[Event]:
    call = ids["calls"][0]
    return [
        {"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "again"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": call},
        {"type": "TOOL_CALL_RESULT", "messageId": "again-r", "toolCallId": call, "content": "y"},
    ]


def _restart_earlier_message(ids: dict[str, list[str]]) -> list[Event]:
    target = ids["assistant"][-1]
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": target, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": target, "delta": "again"},
        {"type": "TEXT_MESSAGE_END", "messageId": target},
    ]


def _idless_chunk(ids: dict[str, list[str]]) -> list[Event]:
    return [{"type": "TEXT_MESSAGE_CHUNK", "delta": " tail"}]


def _call_under_earlier_parent(ids: dict[str, list[str]]) -> list[Event]:
    parent = ids["assistant"][0]
    return [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "p1",
            "toolCallName": "t",
            "parentMessageId": parent,
        },
        {"type": "TOOL_CALL_END", "toolCallId": "p1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "p1-r", "toolCallId": "p1", "content": "z"},
    ]


def _encrypt_earlier_message(ids: dict[str, list[str]]) -> list[Event]:
    target = ids["assistant"][0]
    return [
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": target,
            "encryptedValue": "sealed",
        }
    ]


def _encrypt_earlier_call(ids: dict[str, list[str]]) -> list[Event]:
    call = ids["calls"][0]
    return [
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "tool-call",
            "entityId": call,
            "encryptedValue": "sealed",
        }
    ]


def _activity_over_earlier(ids: dict[str, list[str]]) -> list[Event]:
    target = ids["assistant"][-1]
    return [
        {"type": "ACTIVITY_SNAPSHOT", "messageId": target, "activityType": "plan", "content": {}}
    ]


def _idless_reasoning_chunk(ids: dict[str, list[str]]) -> list[Event]:
    return [{"type": "REASONING_MESSAGE_CHUNK", "delta": " more thought"}]


def _snapshot_editing(ids: dict[str, list[str]], held: list[dict[str, Any]]) -> list[Event]:
    edited = [dict(m) for m in held]
    for message in edited:
        if isinstance(message.get("content"), str):
            message["content"] += " (edited)"
            break
    return [{"type": "MESSAGES_SNAPSHOT", "messages": edited}]


SLOPPY = {
    "into-earlier-text": _into_earlier_text,
    "answer-earlier-call": _answer_earlier_call,
    "redeclare-earlier-call": _redeclare_earlier_call,
    "restart-earlier-message": _restart_earlier_message,
    "idless-chunk": _idless_chunk,
    "call-under-earlier-parent": _call_under_earlier_parent,
    "encrypt-earlier-message": _encrypt_earlier_message,
    "encrypt-earlier-call": _encrypt_earlier_call,
    "activity-over-earlier": _activity_over_earlier,
    "idless-reasoning-chunk": _idless_reasoning_chunk,
}
#: The edits that need an earlier call (the others, an earlier assistant message).
ON_CALLS = frozenset({"answer-earlier-call", "redeclare-earlier-call", "encrypt-earlier-call"})


def _held_ids(events: list[Event], inputs: list[Any]) -> tuple[dict[str, list[str]], list[Any]]:
    transcript = fold(events, run_input=inputs)
    ids: dict[str, list[str]] = {"assistant": [], "calls": []}
    for message in transcript.messages:
        if message.role == "assistant":
            ids["assistant"].append(message.id)
    ids["calls"] = list(transcript.tool_calls)
    return ids, transcript.to_dicts()


def _edits_at(edits: dict[int, str]) -> Insert:
    """The run after run k (for k in ``edits``) opens with what ``edits[k]`` does to the
    messages held then."""

    def edit(events: list[Event], given: list[Any], ended: int) -> list[Event]:
        if ended not in edits:
            return []
        ids, held = _held_ids(events[:-1], given[:-1])
        name = edits[ended]
        if name == "snapshot":
            return _snapshot_editing(ids, held)
        return SLOPPY[name](ids) if ids["calls" if name in ON_CALLS else "assistant"] else []

    return edit


def _sloppy_thread(seeds: list[int], edits: dict[int, str]) -> tuple[list[Event], list[Any]]:
    """The streams of ``seeds`` one after another, with ``edits`` (see _edits_at)."""
    events, inputs = random_thread(seeds)
    return with_inserts(events, inputs, _edits_at(edits)), inputs


def _tidy_thread(kinds: list[str]) -> tuple[list[Event], list[dict[str, Any]]]:
    """A thread as a well-behaved harness records it.

    Each run's input (most runs have one) restates the history (some messages under new
    ids), a client's result answers the run before it (in the input, or as the next
    run's first event), and each run streams text, server calls with results, reasoning
    or a client call left for the next run. Returns the events and the wire history.
    """
    events: list[Event] = []
    history: list[dict[str, Any]] = []
    pending: str | None = None
    echoed: list[Event] = []  # the client's result as the next run's first event
    for r, kind in enumerate(kinds):
        new = [{"id": f"u{r}", "role": "user", "content": f"turn {r}"}]
        if pending is not None:
            result = {"id": f"cr{r}", "role": "tool", "toolCallId": pending, "content": "yes"}
            if r % 3:
                new.insert(0, result)
            else:
                history.append(result)
                echoed = [
                    {
                        "type": "TOOL_CALL_RESULT",
                        "messageId": f"cr{r}",
                        "toolCallId": pending,
                        "content": "yes",
                    }
                ]
            pending = None
        restated = [
            {**m, "id": f"re-{m['id']}"} if m["role"] == "assistant" and r % 2 else m
            for m in history
        ]
        start: Event = {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{r}"}
        if r % 4 != 3 or len(new) > 1:  # every fourth run goes on with no input
            history += new
            start["input"] = {"threadId": "t", "runId": f"r{r}", "messages": restated + new}
        events.append(start)
        events += echoed
        echoed = []
        if kind == "reasoning":
            events += [
                {"type": "REASONING_START", "messageId": f"th{r}"},
                {"type": "REASONING_MESSAGE_START", "messageId": f"th{r}", "role": "reasoning"},
                {"type": "REASONING_MESSAGE_CONTENT", "messageId": f"th{r}", "delta": "hmm"},
                {"type": "REASONING_MESSAGE_END", "messageId": f"th{r}"},
                {"type": "REASONING_END", "messageId": f"th{r}"},
            ]
        events += [
            {"type": "TEXT_MESSAGE_START", "messageId": f"a{r}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"a{r}", "delta": f"answer {r}"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"a{r}"},
        ]
        assistant: dict[str, Any] = {"id": f"a{r}", "role": "assistant", "content": f"answer {r}"}
        history.append(assistant)
        if kind in ("calls", "client"):
            call = f"c{r}"
            events += [
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": call,
                    "toolCallName": "t",
                    "parentMessageId": f"a{r}",
                },
                {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{}"},
                {"type": "TOOL_CALL_END", "toolCallId": call},
            ]
            assistant["toolCalls"] = [
                {"id": call, "type": "function", "function": {"name": "t", "arguments": "{}"}}
            ]
            if kind == "calls":
                events.append(
                    {
                        "type": "TOOL_CALL_RESULT",
                        "messageId": f"cr{r}",
                        "toolCallId": call,
                        "content": "ok",
                    }
                )
                history.append(
                    {"id": f"cr{r}", "role": "tool", "toolCallId": call, "content": "ok"}
                )
            else:
                pending = call
        events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{r}"})
    return events, history


KINDS = st.sampled_from(["text", "calls", "client", "reasoning"])
EDITS = st.sampled_from([*SLOPPY, "snapshot"])


def _timed(events: list[Event], usage: bool) -> list[Event]:
    """``events`` with a timestamp on each, and each run's usage on its end if asked."""
    out = []
    for i, event in enumerate(events):
        stamped = {**event, "timestamp": 1_700_000_000_000 + 10 * i}
        if usage and event["type"] == "RUN_FINISHED":
            stamped["usage"] = {"inputTokens": i, "outputTokens": 2 * i}
        out.append(stamped)
    return out


@given(
    kinds=st.lists(KINDS, min_size=1, max_size=9),
    edits=st.dictionaries(st.integers(1, 8), EDITS, max_size=3),
    timed=st.sampled_from(["untimed", "timed", "timed with usage"]),
    name=st.sampled_from(TARGETS),
)
def test_tidy_threads_render_what_runs_add_and_fall_back_on_edits(
    tmp_path_factory: pytest.TempPathFactory,
    kinds: list[str],
    edits: dict[int, str],
    timed: str,
    name: str,
) -> None:
    events, _ = _tidy_thread(kinds)
    events = with_inserts(events, [], _edits_at(edits))
    if timed != "untimed":
        events = _timed(events, usage=timed == "timed with usage")
    folder = tmp_path_factory.mktemp("tidy")
    source = _write(folder, events)
    runs, whole = _side_by_side(source, name)
    assert runs == len(kinds)
    if not edits:
        assert whole == 1  # only the first run's end renders the whole conversation
    # Whole rows (calls and continuation included) are those of the log cut at each run.
    for row in whole_rows(log_rows(source, per="run", target=name)):
        expected = log_row(_cut(source, row["run_index"] + 1, folder), target=name)
        assert _same_but_source(row, expected), row["run_index"]


@given(
    seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=3),
    edits=st.dictionaries(st.integers(1, 8), st.sampled_from([*SLOPPY, "snapshot"]), max_size=3),
    name=st.sampled_from(TARGETS),
)
def test_what_later_runs_do_to_earlier_ones_renders_the_same(
    tmp_path_factory: pytest.TempPathFactory, seeds: list[int], edits: dict[int, str], name: str
) -> None:
    events, inputs = _sloppy_thread(seeds, edits)
    _side_by_side(_write(tmp_path_factory.mktemp("thread"), events, inputs), name)


@pytest.mark.parametrize("edit", [*SLOPPY, "snapshot"])
def test_a_run_naming_an_earlier_message_renders_whole(tmp_path: Path, edit: str) -> None:
    events = one_message_runs(4)
    calls = [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c0",
            "toolCallName": "t",
            "parentMessageId": "m0",
        },
        {"type": "TOOL_CALL_END", "toolCallId": "c0"},
        {"type": "TOOL_CALL_RESULT", "messageId": "c0-r", "toolCallId": "c0", "content": "ok"},
    ]
    events[4:4] = calls  # run 1's message gets a call and its result
    third = [i for i, e in enumerate(events) if e["type"] == "RUN_STARTED"][2]
    ids, held = _held_ids(events[:third], [])
    added = _snapshot_editing(ids, held) if edit == "snapshot" else SLOPPY[edit](ids)
    events[third + 1 : third + 1] = added
    runs, whole = _side_by_side(_write(tmp_path, events))
    # The first run's end and the third's, and the fourth's where the third left the
    # conversation out of order; never the second's.
    assert runs == 4
    assert whole in (2, 3)


def _run_by_scan(runs: list[Any], seq: int) -> Any:
    """The run under way at event ``seq``: the last started before the first that starts
    after it."""
    found = None
    for run in runs:
        if run.first_event_index is not None:
            if run.first_event_index > seq:
                break
            found = run
    return found


@given(seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=4))
def test_views_at_each_run_end_find_each_messages_run_as_a_scan_does(
    tmp_path_factory: pytest.TempPathFactory, seeds: list[int]
) -> None:
    # The views of one fold share one index of its runs, read further as runs come.
    events, inputs = _sloppy_thread(seeds, {})
    source = _write(tmp_path_factory.mktemp("runs"), events, inputs)

    def at_end(view: Callable[[int], Transcript], events: int) -> None:
        transcript = view(0)
        for message in transcript.messages:
            assert transcript.run_of(message) is _run_by_scan(transcript.runs, message.seq)

    fold_log(source, at_run_end=at_end)
    folded, _ = fold_log(source)
    for message in folded.messages:
        assert folded.run_of(message) is _run_by_scan(folded.runs, message.seq)
