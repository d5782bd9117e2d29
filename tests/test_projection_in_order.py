"""The projection's in-order path gives exactly what the projector gives.

A transcript that arrived in order (text before calls, results right after their calls,
message order equal to arrival order) is projected in one pass, without the projector's
items, sort and queues. These tests hold that pass to the projector on every golden
stream and on random streams, whole and corrupted, under every policy, and check that
each way a transcript can be out of order sends it to the projector.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import AssistantMessage, Message, ProjectionError, fold, is_synthetic
from agui_transcripts.projection import (
    Policy,
    Projection,
    _already_ordered,
    _ReasonsFor,
    _reorder,
    project,
)
from agui_transcripts.transcript import Transcript
from tests.generate import random_stream
from tests.streams import RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS
from tests.test_properties import corrupt

GOLDEN = Path(__file__).parent / "golden"
POLICIES: list[Policy] = ["synthesize", "trim", "keep", "raise"]
CORRUPTIONS = ("drop", "repeat", "swap", "swap", "cut")


def _golden() -> Iterator[tuple[str, Transcript]]:
    for path in sorted(GOLDEN.rglob("*.jsonl")):
        if path.name == "corpus.jsonl":
            continue  # the differential records, not a stream
        inputs_path = path.with_name(path.name.removesuffix(".jsonl") + ".input.json")
        run_input = json.loads(inputs_path.read_text()) if inputs_path.exists() else None
        yield path.name, fold(path, run_input=run_input)


def _random() -> Iterator[tuple[str, Transcript]]:
    for seed in range(150):
        events, inputs = random_stream(seed)
        yield f"random {seed}", fold(events, run_input=inputs)
        rng = random.Random(seed)
        for round_ in range(3):
            actions = [
                (rng.choice(CORRUPTIONS), rng.randrange(1 << 30)) for _ in range(rng.randint(1, 4))
            ]
            yield f"random {seed} corrupted {round_}", fold(corrupt(events, actions))


@cache
def corpus() -> list[tuple[str, Transcript]]:
    return [*_golden(), *_random()]


def _described(message: Message) -> dict[str, Any]:
    """Everything a consumer can read of a projected message."""
    out: dict[str, Any] = message.to_dict()
    out["seq"] = message.seq
    out["subagent_run_id"] = message.subagent_run_id
    if isinstance(message, AssistantMessage):
        out["encrypted_value_type"] = message.encrypted_value_type
        out["segments"] = [
            (type(segment).__name__, segment.seq, getattr(segment, "stretch", None))
            for segment in message.segments
        ]
        out["calls"] = [(c.seq, c.encrypted_value_type) for c in message.tool_calls or ()]
    return out


def _settled(make: Callable[[], Projection], describe: Callable[[Message], Any]) -> Any:
    """A projection's messages (as ``describe`` sees them) and diagnostics, or its error."""
    try:
        projection = make()
    except ProjectionError as error:
        return ("raised", str(error))
    return (
        [describe(m) for m in projection.messages],
        [(d.code, d.message, d.tool_call_id, d.message_id) for d in projection.diagnostics],
    )


def _outcome(transcript: Transcript, policy: Policy, *, projector: bool) -> Any:
    """The projection (or the error) through ``project``, or through the projector alone."""
    if projector:
        reasons = _ReasonsFor(transcript.tool_calls)
        return _settled(lambda: _reorder(transcript, policy, "inline", reasons), _described)
    return _settled(lambda: project(transcript, policy=policy), _described)


@pytest.mark.parametrize("policy", POLICIES)
def test_the_in_order_path_gives_what_the_projector_gives(policy: Policy) -> None:
    for name, transcript in corpus():
        if _already_ordered(transcript) is None:
            continue
        fast = _outcome(transcript, policy, projector=False)
        assert fast == _outcome(transcript, policy, projector=True), name


def test_the_in_order_path_keeps_the_transcripts_own_messages() -> None:
    for name, transcript in corpus():
        if _already_ordered(transcript) is None:
            continue
        own = {id(message) for message in transcript.messages}
        for message in transcript.ordered():
            if isinstance(message, AssistantMessage) or is_synthetic(message):
                assert id(message) not in own, name  # new, as the projector makes them
            else:
                assert id(message) in own, name


def _read(message: Message) -> Any:
    """What a reader of a projected message sees: an assistant's text joined, its calls."""
    if not isinstance(message, AssistantMessage):
        return message.to_dict()
    return (
        message.id,
        message.content or "",
        [
            (c.id, c.name, c.arguments, c.encrypted_value, c.metadata)
            for c in message.tool_calls or ()
        ],
        (message.name, message.metadata, message.subagent_run_id, message.encrypted_value),
    )


def _read_outcome(transcript: Transcript, policy: Policy, *, copy: bool) -> Any:
    return _settled(lambda: project(transcript, policy=policy, copy=copy), _read)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_reader_sees_the_same_projection_without_copies(policy: Policy) -> None:
    for name, transcript in corpus():
        before = transcript.to_dicts()
        shared = _read_outcome(transcript, policy, copy=False)
        assert shared == _read_outcome(transcript, policy, copy=True), name
        assert transcript.to_dicts() == before, name  # trim edits copies only


@pytest.mark.parametrize("policy", POLICIES)
def test_without_copies_the_in_order_path_hands_over_its_own_messages(policy: Policy) -> None:
    checked = 0
    for name, transcript in corpus():
        if _already_ordered(transcript) is None:
            continue
        own = {id(message) for message in transcript.messages}
        try:
            messages = project(transcript, policy=policy, copy=False).messages
        except ProjectionError:
            continue
        for message in messages:
            if isinstance(message, AssistantMessage):
                assert (id(message) in own) == (policy != "trim"), name
                checked += 1
    assert checked >= 200


def test_the_corpus_takes_both_paths() -> None:
    in_order = [_already_ordered(t) for _, t in corpus()]
    taken = [found for found in in_order if found is not None]
    assert len(taken) >= 200
    assert len(in_order) - len(taken) >= 200
    # Some end with calls open, which the policies then settle.
    assert sum(1 for _, batch in taken if batch is not None) >= 20


def _conversation(*middle: dict[str, Any]) -> list[dict[str, Any]]:
    return [RS(), TMS("m1"), TMC("m1", "Looking."), *middle, RF()]


OUT_OF_ORDER = {
    "text after a call": _conversation(
        TCS("a", "f", "m1"), TCE("a"), TMC("m1", " More."), TME("m1"), TCR("r", "a", "x")
    ),
    "a call for an earlier message": _conversation(
        TME("m1"),
        TMS("m2"),
        TMC("m2", "Meanwhile."),
        TME("m2"),
        TCS("a", "f", "m1"),
        TCE("a"),
        TCR("r", "a", "x"),
    ),
    "an orphan result": _conversation(TME("m1"), TCR("r", "z", "x")),
    "a second result": _conversation(
        TME("m1"), TCS("a", "f", "m1"), TCE("a"), TCR("r1", "a", "x"), TCR("r2", "a", "y")
    ),
    "text while a call is open": _conversation(
        TME("m1"),
        TCS("a", "f", "m1"),
        TCE("a"),
        TMS("m2"),
        TMC("m2", "Still waiting."),
        TME("m2"),
        TCR("r", "a", "x"),
    ),
    "a reused call id": _conversation(
        TME("m1"),
        TCS("a", "f", "m1"),
        TCE("a"),
        TCR("r1", "a", "x"),
        TCS("a", "f", "m2"),
        TCE("a"),
        TCR("r2", "a", "y"),
    ),
    "a call whose arguments never finished": _conversation(
        TME("m1"), TCS("a", "f", "m1"), TCA("a", '{"x": ')
    ),
}


@pytest.mark.parametrize("events", OUT_OF_ORDER.values(), ids=OUT_OF_ORDER.keys())
def test_what_is_out_of_order_goes_to_the_projector(events: list[dict[str, Any]]) -> None:
    transcript = fold(events)
    assert _already_ordered(transcript) is None
    for policy in POLICIES:
        expected = _outcome(transcript, policy, projector=True)
        assert _outcome(transcript, policy, projector=False) == expected


def test_an_ordered_conversation_takes_the_in_order_path() -> None:
    transcript = fold(_conversation(TME("m1"), TCS("a", "f", "m1"), TCE("a"), TCR("r", "a", "x")))
    found = _already_ordered(transcript)
    assert found is not None
    messages, open_batch = found
    assert [m.to_dict() for m in messages] == [m.to_dict() for m in transcript.messages]
    assert open_batch is None
