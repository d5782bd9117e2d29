"""Type confusion: any value of the wrong JSON type, anywhere in a stream, is a diagnostic.

One stream holds every event type, a run input and a snapshot with every message role
and a tool call. Each of its values, at every depth, is replaced in turn by values of
every other JSON type (unhashable ones included: a list or an object where an id is
expected once raised ``TypeError`` from a set lookup) and the stream is folded as wire
dicts and as a JSONL file, then written out every way a user reads it. Nothing may
raise; the whole suite runs on both builds, and the compiled build's type checks are
where such a value once broke what pure Python read.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold
from agui_transcripts.adapters.registry import render
from agui_transcripts.cli import main
from agui_transcripts.html import render_html
from agui_transcripts.rows import row_of

Path_ = tuple[str | int, ...]

_MESSAGES: list[dict[str, Any]] = [
    {"id": "u1", "role": "user", "content": "hi", "name": "ann"},
    {"id": "s1", "role": "system", "content": "be brief"},
    {"id": "d1", "role": "developer", "content": "dev"},
    {
        "id": "a1",
        "role": "assistant",
        "content": "x",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "f", "arguments": "{}"},
                "encryptedValue": "e",
                "metadata": {"k": 1},
            }
        ],
        "encryptedValue": "e",
        "metadata": {"k": 1},
    },
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok", "error": "none"},
    {"id": "r1", "role": "reasoning", "content": "hm", "encryptedValue": "e"},
    {"id": "act1", "role": "activity", "activityType": "plan", "content": {"a": 1}},
    {"id": "u2", "role": "user", "content": [{"type": "text", "text": "look"}]},
]

STREAM: list[dict[str, Any]] = [
    {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r",
        "parentRunId": "p",
        "input": {
            "threadId": "t",
            "runId": "r",
            "messages": _MESSAGES,
            "tools": [{"name": "f", "description": "d", "parameters": {}}],
            "context": [{"description": "d", "value": "v"}],
            "state": {"a": 1},
            "forwardedProps": {},
        },
    },
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "name": "n"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a", "metadata": {"k": 1}},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "f", "parentMessageId": "m"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": "{}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c2"},
    {"type": "TOOL_CALL_RESULT", "messageId": "res", "toolCallId": "c2", "content": "ok"},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "k", "delta": "x", "role": "assistant"},
    {"type": "TOOL_CALL_CHUNK", "toolCallId": "c3", "toolCallName": "g", "delta": "{}"},
    {"type": "REASONING_START", "messageId": "rs"},
    {"type": "REASONING_MESSAGE_START", "messageId": "rs", "role": "reasoning"},
    {"type": "REASONING_MESSAGE_CONTENT", "messageId": "rs", "delta": "x"},
    {"type": "REASONING_MESSAGE_END", "messageId": "rs"},
    {"type": "REASONING_MESSAGE_CHUNK", "messageId": "rk", "delta": "x"},
    {"type": "REASONING_END", "messageId": "rs"},
    {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "message",
        "entityId": "m",
        "encryptedValue": "e",
    },
    {"type": "STEP_STARTED", "stepName": "s"},
    {"type": "STEP_FINISHED", "stepName": "s"},
    {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
    {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/b", "value": 1}]},
    {"type": "ACTIVITY_SNAPSHOT", "messageId": "act2", "activityType": "plan", "content": {}},
    {
        "type": "ACTIVITY_DELTA",
        "messageId": "act2",
        "activityType": "plan",
        "patch": [{"op": "add", "path": "/b", "value": 1}],
    },
    {"type": "MESSAGES_SNAPSHOT", "messages": _MESSAGES},
    {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "w"},
    {"type": "TEXT_MESSAGE_START", "messageId": "sm", "role": "assistant", "subagentRunId": "s1"},
    {"type": "TEXT_MESSAGE_END", "messageId": "sm", "subagentRunId": "s1"},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
    {"type": "CUSTOM", "name": "c", "value": 1},
    {"type": "RAW", "event": {}, "source": "s"},
    {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r",
        "result": {},
        "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "ask"}]},
    },
]

# A value of every JSON type, the unhashable ones first.
WRONG: tuple[Any, ...] = ([], {"a": 1}, ["x"], None, True, 0, -1, 2**70, 1.5, "", "x")


def _paths(value: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


def _replaced(index: int, path: Path_, value: Any) -> list[dict[str, Any]]:
    stream = copy.deepcopy(STREAM)
    holder: Any = stream[index]
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return stream


PLACES = [
    pytest.param(index, path, id=f"{event['type']}/{'/'.join(map(str, path))}")
    for index, event in enumerate(STREAM)
    for path in _paths(event)
    if path != ("type",)
]


def _written_every_way(events: Any) -> None:
    transcript = fold(events)
    transcript.to_dicts()
    transcript.ordered()
    for target in ("agui", "openai", "langchain"):
        render(transcript, target, ordered=True)
    row_of(transcript, source="log.jsonl", events=len(STREAM))
    render_html(transcript)


def test_the_stream_is_read_as_it_is() -> None:
    """Guard: the unchanged stream folds whole, so each replacement is what changes."""
    transcript = fold(copy.deepcopy(STREAM))
    assert [d.code for d in transcript.errors] == []
    assert {m["role"] for m in transcript.to_dicts()} >= {"user", "assistant", "tool"}
    assert len(PLACES) > 150


@pytest.mark.parametrize(("index", "path"), PLACES)
def test_a_value_of_the_wrong_type_is_read_without_raising(index: int, path: Path_) -> None:
    for value in WRONG:
        events = _replaced(index, path, value)
        _written_every_way(events)
        lines = "".join(json.dumps(event) + "\n" for event in events)
        _written_every_way(lines.encode())


@pytest.mark.slow
@pytest.mark.parametrize(("index", "path"), PLACES)
def test_the_commands_read_a_value_of_the_wrong_type(
    index: int, path: Path_, tmp_path: Path
) -> None:
    """check, show, the HTML page and Parquet rows: a diagnostic, never exit code 2."""
    unhashable: tuple[Any, ...] = ([], {"a": 1})
    for value in unhashable:
        log = tmp_path / "log.jsonl"
        log.write_text("".join(json.dumps(e) + "\n" for e in _replaced(index, path, value)))
        for command in (
            ["check", str(log)],
            ["show", str(log)],
            ["show", str(log), "--html", str(tmp_path / "page.html")],
            ["convert", str(log), "--format", "parquet", "--per", "run", "-o", str(tmp_path / "p")],
        ):
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                code = main(command)
            assert code in (0, 1), command


def test_a_field_of_the_wrong_type_is_said_and_dropped_in_both_builds() -> None:
    """The compiled build refused to store them; pure Python kept them and wrote them out."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
        "encryptedValue": ["e"],
        "metadata": [1],
    }
    message = {"id": "a1", "role": "assistant", "toolCalls": [call], "metadata": "m"}
    given = {"threadId": "t", "runId": "r", "messages": [message], "tools": ["x", {"name": "f"}]}
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": given},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "p", "activityType": "plan", "content": {}},
        {
            "type": "ACTIVITY_DELTA",
            "messageId": "p",
            "activityType": "plan",
            "patch": [{"op": "replace", "path": "", "value": 3}],
        },
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    transcript = fold(events)
    said = [(d.code, d.message) for d in transcript.diagnostics]
    assert [code for code, _ in said] == ["snapshot-message-invalid"] * 3 + ["patch-failed"]
    assert [message.split(": ", 1)[-1] for _, message in said[:3]] == [
        "input/messages/0/metadata is not an object; dropped",
        "input/messages/0/toolCalls/0/encryptedValue is not a string; dropped",
        "input/messages/0/toolCalls/0/metadata is not an object; dropped",
    ]
    assert "an activity's content is an object" in said[3][1]
    written = transcript.to_dicts()
    assert written[0]["toolCalls"] == [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]
    assert "metadata" not in written[0]
    assert written[1]["content"] == {}
    assert transcript.runs[0].tools == [{"name": "f"}]
    assert transcript.runs[0].input is not None
    assert transcript.runs[0].input["tools"] == ["x", {"name": "f"}]  # as it was sent
