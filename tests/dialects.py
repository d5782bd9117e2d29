"""Producer dialects: a well-formed stream rewritten the way real producers send it.

Each dialect takes a stream of :func:`tests.generate.random_stream` (with its run inputs)
and returns what a producer nobody here wrote would send for the same conversation:
results under another field name, a recorder's keys on every event, snapshots that
re-mint message and call ids, history before RUN_STARTED, an input echo without the
resume, a final snapshot that leaves out streamed messages. ``tests/
test_dialect_properties.py`` holds the fold to the conversation of the original stream.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agui_transcripts import Transcript, fold
from agui_transcripts.schema import snake_case

Event = dict[str, Any]
Input = dict[str, Any]
_TERMINAL = ("RUN_FINISHED", "RUN_ERROR")


@dataclass
class Sloppy:
    """A stream as a producer sent it, and what the original stream is known to say."""

    events: list[Event]
    #: Whether the reference client accepts it and ends with the original's messages.
    same_messages: bool = False
    #: Message ids of the original a final snapshot left out on purpose.
    dropped: set[str] = field(default_factory=set)


Dialect = Callable[[list[Event], list[Input] | None, random.Random], Sloppy]


def _history(events: list[Event], inputs: list[Input] | None) -> Transcript:
    return fold(events, run_input=inputs)


def _restated(transcript: Transcript) -> list[Event]:
    """The conversation as producers restate it: activity left out."""
    return [m for m in transcript.to_dicts() if m["role"] != "activity"]


def _terminals(events: list[Event]) -> list[int]:
    return [i for i, event in enumerate(events) if event["type"] in _TERMINAL]


def field_aliases(events: list[Event], inputs: list[Input] | None, rng: random.Random) -> Sloppy:
    """Results under ``result``, often without a messageId; keys in the SDK's snake_case."""
    out = []
    for event in events:
        event = dict(event)
        if event["type"] == "TOOL_CALL_RESULT" and rng.random() < 0.7:
            event["result"] = event.pop("content")
            if rng.random() < 0.6:
                del event["messageId"]
        if rng.random() < 0.3:
            event = {("type" if k == "type" else snake_case(k)): v for k, v in event.items()}
        out.append(event)
    return Sloppy(out)


RECORDER_KEYS: Event = {"_timestamp": 1796119586.25, "_offset_ms": 0, "_index": 0}


def recorder_keys(events: list[Event], inputs: list[Input] | None, rng: random.Random) -> Sloppy:
    """A recorder's own keys on every event, and a producer's usage on some."""
    out = []
    for index, event in enumerate(events):
        extra: Event = {**RECORDER_KEYS, "_offset_ms": 10 * index, "_index": index}
        if event["type"].endswith("_END") or event["type"] in _TERMINAL:
            extra["usage_metadata"] = {"input_tokens": rng.randint(1, 99)}
        out.append({**event, **extra})
    return Sloppy(out, same_messages=True)


def reminting_snapshot(
    events: list[Event], inputs: list[Input] | None, rng: random.Random
) -> Sloppy:
    """Before a run's end, a snapshot of the conversation with every message and call id
    re-minted; each result answers its call's new id or keeps the streamed one."""
    terminals = _terminals(events)
    at = rng.choice(terminals) if terminals else len(events)
    held = _restated(_history(events[:at], inputs))
    calls: dict[str, str] = {}
    messages = []
    for n, message in enumerate(held):
        message = {**message, "id": f"snap-{n}"}
        if message.get("toolCalls"):
            restated = []
            for call in message["toolCalls"]:
                calls[call["id"]] = fresh = f"snap-call-{len(calls)}"
                restated.append({**call, "id": fresh})
            message["toolCalls"] = restated
        elif message["role"] == "tool" and message["toolCallId"] in calls and rng.random() < 0.5:
            message["toolCallId"] = calls[message["toolCallId"]]
        messages.append(message)
    snapshot = {"type": "MESSAGES_SNAPSHOT", "messages": messages}
    return Sloppy([*events[:at], snapshot, *events[at:]])


def history_before_run_started(
    events: list[Event], inputs: list[Input] | None, rng: random.Random
) -> Sloppy:
    """Each request's stream opens with the thread so far and the state, then RUN_STARTED
    (ag-ui-dify-adapter): the history the client sent, under the ids it held."""
    out: list[Event] = []
    run = 0
    for index, event in enumerate(events):
        if event["type"] == "RUN_STARTED":
            so_far = _history(events[:index], inputs[:run] if inputs else None)
            held = _restated(so_far)
            ids = {message["id"] for message in held}
            sent = inputs[run]["messages"] if inputs and run < len(inputs) else []
            held += [message for message in sent if message["id"] not in ids]
            out.append({"type": "MESSAGES_SNAPSHOT", "messages": held})
            if rng.random() < 0.5:
                out.append({"type": "STATE_SNAPSHOT", "snapshot": so_far.state})
            run += 1
        out.append(event)
    return Sloppy(out)


def echo_without_resume(
    events: list[Event], inputs: list[Input] | None, rng: random.Random
) -> Sloppy:
    """Every RUN_STARTED echoes the run's input, leaving out what it resumed."""
    if not inputs:
        return Sloppy(list(events))
    out = []
    run = 0
    for event in events:
        if event["type"] == "RUN_STARTED" and run < len(inputs):
            echo = {k: v for k, v in inputs[run].items() if k != "resume"}
            event = {**event, "input": echo}
            run += 1
        out.append(event)
    return Sloppy(out, same_messages=True)


def dropping_snapshot(
    events: list[Event], inputs: list[Input] | None, rng: random.Random
) -> Sloppy:
    """A final snapshot (a checkpoint of another conversation, a trimmed window) that
    leaves out some of what was streamed and keeps the rest under the same ids."""
    terminals = _terminals(events)
    at = terminals[-1] if terminals else len(events)
    held = _restated(_history(events[:at], inputs))
    spoken = [m for m in held if m.get("content") or m.get("toolCalls")]
    if not spoken:
        return Sloppy(list(events))
    left_out = set(rng.sample([m["id"] for m in spoken], rng.randint(1, len(spoken))))
    # A call left out takes its results with it (a result alone may go: its call is then
    # unanswered, as the snapshot says).
    gone = {c["id"] for m in held if m["id"] in left_out for c in m.get("toolCalls") or ()}
    left_out |= {m["id"] for m in held if m["role"] == "tool" and m["toolCallId"] in gone}
    kept = [m for m in held if m["id"] not in left_out]
    snapshot = {"type": "MESSAGES_SNAPSHOT", "messages": kept}
    return Sloppy([*events[:at], snapshot, *events[at:]], dropped=left_out)


DIALECTS: dict[str, Dialect] = {
    "field-aliases": field_aliases,
    "recorder-keys": recorder_keys,
    "reminting-snapshot": reminting_snapshot,
    "history-before-run-started": history_before_run_started,
    "echo-without-resume": echo_without_resume,
    "dropping-snapshot": dropping_snapshot,
}
