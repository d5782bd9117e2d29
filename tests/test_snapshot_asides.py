"""A snapshot keeps held reasoning and activity without reading them, and changes nothing.

A ``MESSAGES_SNAPSHOT`` that carries no reasoning and no activity keeps the held ones
where they are; the reducer links their runs back whole instead of walking them (every
snapshot walked them all: 4,000 reasoning messages each followed by an empty snapshot,
a 1 MB log, took 6 s, 66 s on a slower machine). The property folds generated streams
of text, reasoning, activity, calls and results, with snapshots restating the
conversation as sloppy producers do (messages left out, ids re-minted, text changed,
an id of a held reasoning message reused, reasoning or activity carried now and then),
both ways: keeping aside, and reconciling against everything held.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import Collector, Transcript, fold
from agui_transcripts.reduce import Reducer

from .builds import requires_interpreted
from .test_restated import _read

Event = dict[str, Any]


def _snapshot(rng: random.Random, held: list[dict[str, Any]], step: int) -> Event:
    """What a producer's dump of ``held`` looks like after ``rng``'s edits."""
    carried = [m for m in held if m["role"] not in ("reasoning", "activity")]
    if rng.random() < 0.15:  # now and then the snapshot carries one of the other kinds
        carried += [m for m in held if m["role"] in ("reasoning", "activity")][:1]
    messages = []
    for n, message in enumerate(carried):
        edit = rng.choice(["keep"] * 6 + ["drop", "remint", "text"])
        if edit == "drop":
            continue
        message = dict(message)
        if edit == "remint":
            message["id"] = f"s{step}-{n}"
        elif edit == "text" and isinstance(message.get("content"), str):
            message["content"] = message["content"] + " (edited)"
        messages.append(message)
    if rng.random() < 0.3:
        messages.append({"id": f"u{step}", "role": "user", "content": f"question {step}"})
    asides = [m for m in held if m["role"] in ("reasoning", "activity")]
    if asides and rng.random() < 0.1:  # a held reasoning or activity id, restated otherwise
        messages.append({"id": rng.choice(asides)["id"], "role": "assistant", "content": "x"})
    if messages and rng.random() < 0.1:
        messages.append(dict(rng.choice(messages)))  # an id twice
    if rng.random() < 0.1:
        rng.shuffle(messages)
    return {"type": "MESSAGES_SNAPSHOT", "messages": messages}


def _stream(seed: int) -> list[Event]:
    rng = random.Random(seed)
    collector = Collector()
    events: list[Event] = []

    def emit(*more: Event) -> None:
        for event in more:
            events.append(event)
            collector.feed(event)

    emit({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    for step in range(rng.randint(3, 25)):
        kind = rng.choice(["text", "reasoning", "reasoning", "activity", "call", "snapshot"])
        item = f"{kind[0]}{step}"
        if kind == "text":
            emit(
                {"type": "TEXT_MESSAGE_START", "messageId": item, "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": item, "delta": f"say {step}"},
                {"type": "TEXT_MESSAGE_END", "messageId": item},
            )
        elif kind == "reasoning":
            emit(
                {"type": "REASONING_MESSAGE_START", "messageId": item, "role": "reasoning"},
                {"type": "REASONING_MESSAGE_CONTENT", "messageId": item, "delta": f"think {step}"},
                {"type": "REASONING_MESSAGE_END", "messageId": item},
            )
        elif kind == "activity":
            emit(
                {
                    "type": "ACTIVITY_SNAPSHOT",
                    "messageId": item,
                    "activityType": "plan",
                    "content": {"step": step},
                }
            )
        elif kind == "call":
            texts = [m.id for m in collector.transcript.messages if m.role == "assistant"]
            parent = rng.choice(texts) if texts and rng.random() < 0.7 else f"p{step}"
            start = {"type": "TOOL_CALL_START", "toolCallId": item, "toolCallName": "f"}
            emit(
                {**start, "parentMessageId": parent},
                {"type": "TOOL_CALL_ARGS", "toolCallId": item, "delta": "{}"},
                {"type": "TOOL_CALL_END", "toolCallId": item},
            )
            if rng.random() < 0.7:
                result = {"type": "TOOL_CALL_RESULT", "messageId": f"r{step}", "toolCallId": item}
                emit({**result, "content": f"result {step}"})
        else:
            emit(_snapshot(rng, collector.transcript.to_dicts(), step))
    emit({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    return events


def _without_asides(patch: pytest.MonkeyPatch) -> None:
    requires_interpreted("the reducer calls the check natively: it cannot be switched off")
    patch.setattr(Reducer, "_keeps_asides", lambda self, snapshot: False)


@given(seed=st.integers(0, 2**32))
def test_keeping_reasoning_and_activity_aside_reads_the_same(seed: int) -> None:
    events = _stream(seed)
    aside = fold(events)
    with pytest.MonkeyPatch.context() as patch:
        _without_asides(patch)
        whole = fold(events)
    assert _read(aside) == _read(whole)
    assert [m.id for m in aside.superseded] == [m.id for m in whole.superseded]


def _empty_snapshots(count: int) -> list[Event]:
    events: list[Event] = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]
    for n in range(count):
        events += [
            {"type": "REASONING_MESSAGE_START", "messageId": f"m{n}", "role": "reasoning"},
            {"type": "REASONING_MESSAGE_CONTENT", "messageId": f"m{n}", "delta": "x"},
            {"type": "REASONING_MESSAGE_END", "messageId": f"m{n}"},
            {"type": "MESSAGES_SNAPSHOT", "messages": []},
        ]
    return [*events, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]


def test_empty_snapshots_keep_every_reasoning_message_in_order() -> None:
    transcript: Transcript = fold(_empty_snapshots(300))
    assert [m.id for m in transcript.messages] == [f"m{n}" for n in range(300)]
    assert transcript.errors == []
