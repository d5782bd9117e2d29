"""Properties that hold for every stream, well-formed or corrupted.

Streams come from :func:`tests.generate.random_stream` (every event family, chunks in
parent and subagent lanes, parallel calls, snapshots, several runs), then a list of
corruptions drawn by hypothesis: events dropped, repeated, swapped, the stream cut,
fields of the wrong type, unknown types and fields, nulls, huge and empty deltas, deep
nesting, arguments that are not a JSON object, ids reused across runs.

CI runs a bounded number of examples. For a long run::

    HYPOTHESIS_PROFILE=long pytest tests/test_properties.py

"""

from __future__ import annotations

import contextlib
import json
import random
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import ProtocolError, Transcript, fold

from .checkers import openai_strict
from .generate import random_stream

Event = dict[str, Any]
DELTA_TYPES = frozenset(
    {
        "TEXT_MESSAGE_CONTENT",
        "TOOL_CALL_ARGS",
        "REASONING_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_CHUNK",
        "REASONING_MESSAGE_CHUNK",
    }
)
WRONG_VALUES: list[Any] = [None, 0, 1.5, True, [], {}, ["x"], {"k": "v"}, ""]


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"d": value}
    return value


def corrupt(events: list[Event], actions: list[tuple[str, int]]) -> list[Event]:
    """Apply ``actions`` (name, seed) to a copy of ``events``."""
    out = [dict(e) for e in events]
    for name, seed in actions:
        if not out:
            break
        rng = random.Random(seed)
        i = rng.randrange(len(out))
        event = out[i]
        if name == "drop":
            del out[i]
        elif name == "repeat":
            out.insert(i, dict(event))
        elif name == "swap" and i + 1 < len(out):
            out[i], out[i + 1] = out[i + 1], out[i]
        elif name == "cut":
            del out[i:]
        elif name == "wrong-type":
            fields = [k for k in event if k != "type"]
            if fields:
                event[rng.choice(fields)] = rng.choice(WRONG_VALUES)
        elif name == "unknown-type":
            out.insert(i, {"type": f"VENDOR_{seed % 7}", "value": seed})
        elif name == "unknown-field":
            event[f"x{seed % 5}"] = {"n": seed}
        elif name == "null":
            fields = [k for k in event if k != "type"]
            if fields:
                event[rng.choice(fields)] = None
        elif name == "huge-delta" and "delta" in event:
            event["delta"] = "h" * 200_000
        elif name == "empty-delta" and "delta" in event:
            event["delta"] = ""
        elif name == "deep":
            key = rng.choice(("content", "snapshot", "value", "metadata", "delta"))
            event[key] = _nested(rng.choice((50, 400, 2000)))
        elif name == "bad-arguments" and event["type"] in ("TOOL_CALL_ARGS", "TOOL_CALL_CHUNK"):
            event["delta"] = rng.choice(("[1, 2", '"a string"', "42", "{} {}", "\x00"))
        elif name == "deep-arguments" and event["type"] in ("TOOL_CALL_ARGS", "TOOL_CALL_CHUNK"):
            depth = rng.choice((300, 1100, 3000))
            event["delta"] = rng.choice(("[" * depth, '{"a":' * depth, "[" * depth + "]" * depth))
        elif name == "patch-chain":
            ops: list[Event] = []
            for n in range(rng.randint(1, 30)):
                kind = rng.choice(("copy", "move", "add", "copy"))
                if kind == "add":
                    ops.append({"op": "add", "path": f"/k{n}", "value": {"n": n}})
                else:
                    ops.append(
                        {"op": kind, "from": rng.choice(("", "/k0", "/count")), "path": f"/k{n}"}
                    )
            kind = rng.choice(("STATE_DELTA", "ACTIVITY_DELTA"))
            key = "delta" if kind == "STATE_DELTA" else "patch"
            out.insert(i, {"type": kind, "messageId": "x-activity", key: ops})
        elif name == "surrogate-split" and isinstance(event.get("delta"), str):
            # A JavaScript producer slicing by UTF-16 length cuts an emoji in two.
            halves = ["\ud83d", "\ude00"]
            event["delta"] += halves[0]
            follow = dict(event, delta=halves[1] + "!")
            out.insert(i + 1, follow)
        elif name == "reuse-id":
            ids = [
                e[k]
                for e in out[:i]
                for k in ("messageId", "toolCallId", "runId")
                if isinstance(e.get(k), str)
            ]
            keys = [k for k in ("messageId", "toolCallId", "runId") if k in event]
            if ids and keys:
                event[rng.choice(keys)] = rng.choice(ids)
    return out


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "drop",
                "repeat",
                "swap",
                "cut",
                "wrong-type",
                "unknown-type",
                "unknown-field",
                "null",
                "huge-delta",
                "empty-delta",
                "deep",
                "bad-arguments",
                "deep-arguments",
                "patch-chain",
                "surrogate-split",
                "reuse-id",
            ]
        ),
        st.integers(0, 2**32),
    ),
    max_size=8,
)
SEEDS = st.integers(0, 2**32)


def _utf16(text: str) -> bytes:
    """UTF-16 code units, where a joined pair and its two halves look the same."""
    return text.encode("utf-16-le", "surrogatepass")


def _texts(transcript: Transcript) -> str:
    """Everything a delta can end up in: message texts and call arguments."""
    parts: list[str] = []
    for message in transcript.messages:
        parts.append(getattr(message, "text", ""))
        for call in getattr(message, "tool_calls", None) or ():
            parts.append(call.arguments)
    return "\x00".join(parts)


@given(seed=SEEDS, actions=ACTIONS)
def test_lenient_fold_never_raises_and_is_deterministic(seed: int, actions: Any) -> None:
    events = corrupt(random_stream(seed)[0], actions)
    first = fold([dict(e) for e in events])
    second = fold([dict(e) for e in events])
    assert first.to_dicts() == second.to_dicts()
    assert [str(d) for d in first.diagnostics] == [str(d) for d in second.diagnostics]
    assert [m.to_dict() for m in first.ordered()] == [m.to_dict() for m in second.ordered()]


@given(seed=SEEDS, actions=ACTIONS)
def test_strict_mode_raises_only_protocol_errors(seed: int, actions: Any) -> None:
    events = corrupt(random_stream(seed)[0], actions)
    transcript = None
    with contextlib.suppress(ProtocolError):
        transcript = fold(events, strict=True)
    if transcript is not None:
        assert transcript.errors == []  # strict mode lets no error-level finding through


@given(seed=SEEDS, actions=ACTIONS)
def test_every_delta_is_kept_or_named(seed: int, actions: Any) -> None:
    events = corrupt(random_stream(seed)[0], actions)
    transcript = fold([dict(e) for e in events])
    texts = _texts(transcript)
    reported = {d.event_index for d in transcript.diagnostics}
    named = " ".join(d.message for d in transcript.diagnostics)
    snapshot_at = [i for i, e in enumerate(events) if e.get("type") == "MESSAGES_SNAPSHOT"]
    last_id: dict[object, object] = {}  # the id an id-less chunk most likely continues
    for index, event in enumerate(events):
        kind = event.get("type")
        item = event.get("messageId", event.get("toolCallId"))
        if isinstance(item, str):
            last_id[kind] = item
        elif isinstance(kind, str) and kind.endswith("_CHUNK"):
            item = last_id.get(kind)
        delta = event.get("delta")
        if kind not in DELTA_TYPES or not isinstance(delta, str) or not delta:
            continue
        if any(at > index for at in snapshot_at):
            continue  # a later snapshot is authoritative: it may replace the message
        in_json = json.dumps(delta, ensure_ascii=False)[1:-1]
        assert (
            delta in texts
            or in_json in texts
            or _utf16(delta) in _utf16(texts)  # surrogate halves joined into their character
            or index in reported
            or (isinstance(item, str) and repr(item) in named)  # a later loss, named
        ), (index, event)


@given(seed=SEEDS, actions=ACTIONS)
def test_tool_results_and_calls_are_never_invented_or_lost(seed: int, actions: Any) -> None:
    events, inputs = random_stream(seed)
    events = corrupt(events, actions)
    transcript = fold([dict(e) for e in events], run_input=inputs or None)
    given_ids: set[str] = set()
    for event in events:
        for key in ("messageId", "toolCallId"):
            if isinstance(event.get(key), str):
                given_ids.add(event[key])
        for message in _messages_in(event) + [m for run in inputs for m in run.get("messages", [])]:
            given_ids.add(str(message.get("id")))
            for call in message.get("toolCalls") or ():
                given_ids.add(str(call.get("id")))
    # Ids the chunk layer mints for an id-less item are a reported recovery.
    given_ids |= {i for d in transcript.diagnostics for i in re.findall(r"'([^']*)'", d.message)}
    held = transcript.to_dicts()
    for message in held:
        if message["role"] == "tool":
            assert message["id"] in given_ids  # never invented
            assert message["toolCallId"] in given_ids
        for call in message.get("toolCalls") or ():
            assert call["id"] in given_ids
    held_tool_ids = {m["id"] for m in held if m["role"] == "tool"}
    reported = {d.event_index for d in transcript.diagnostics}
    named = " ".join(d.message for d in transcript.diagnostics)
    snapshot_at = [i for i, e in enumerate(events) if e.get("type") == "MESSAGES_SNAPSHOT"]
    for index, event in enumerate(events):
        if event.get("type") != "TOOL_CALL_RESULT" or not isinstance(event.get("messageId"), str):
            continue
        if any(at > index for at in snapshot_at) or not isinstance(event.get("toolCallId"), str):
            continue
        assert (
            event["messageId"] in held_tool_ids
            or index in reported
            or repr(event["messageId"]) in named  # a later loss, named
        ), (index, event)


def _messages_in(event: Event) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for holder in (event, event.get("input")):
        messages = holder.get("messages") if isinstance(holder, dict) else None
        if isinstance(messages, list):
            found += [m for m in messages if isinstance(m, dict)]
    return found


@given(seed=SEEDS, actions=ACTIONS)
def test_ordered_output_passes_the_openai_checker(seed: int, actions: Any) -> None:
    events = corrupt(random_stream(seed)[0], actions)
    transcript = fold(events)
    assert openai_strict([m.to_dict() for m in transcript.ordered()]) == []


@given(seed=SEEDS)
def test_redelivered_history_adds_nothing(seed: int) -> None:
    events, inputs = random_stream(seed)
    transcript = fold(events, run_input=inputs or None)
    history = [m for m in transcript.to_dicts() if m["role"] != "activity"]
    again = [
        *events,
        {
            "type": "RUN_STARTED",
            "threadId": "thread",
            "runId": "again",
            "input": {
                "threadId": "thread",
                "runId": "again",
                "messages": history,
                "resume": [
                    {"interruptId": i, "status": "cancelled"}
                    for i in transcript.continuation().interrupts
                ],
            },
        },
        {"type": "RUN_FINISHED", "threadId": "thread", "runId": "again"},
    ]
    assert fold(again, run_input=inputs or None).to_dicts() == transcript.to_dicts()
