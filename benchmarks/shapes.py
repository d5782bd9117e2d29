"""Deterministic AG-UI streams of the shapes the benchmark measures, as wire dicts.

Every generator yields events lazily (a 1M-event file is written without holding it) and
is a pure function of its size, so runs are comparable across machines and commits.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

Event = dict[str, Any]
Shape = Callable[[int], Iterator[Event]]

WORDS = ("the ", "weather ", "in ", "Paris ", "is ", "mild ", "today ", "and ")


def _deltas(count: int, seed: int) -> Iterator[str]:
    for i in range(count):
        yield WORDS[(seed + i) % len(WORDS)]


def _asked(run: str, turn: int) -> Event:
    """A run's start whose input holds the user's question (and nothing restated)."""
    return {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": run,
        "input": {
            "threadId": "t",
            "runId": run,
            "state": {},
            "messages": [{"id": f"u{turn}", "role": "user", "content": "Weather?"}],
            "tools": [],
            "context": [],
            "forwardedProps": {},
        },
    }


def mixed(size: int) -> Iterator[Event]:
    """Chat turns: a user turn, streamed text, two tool calls with results, an answer."""
    emitted = turn = 0
    while emitted < size:
        turn += 1
        run, m1, m2 = f"run-{turn}", f"a{turn}", f"b{turn}"
        events: list[Event] = [
            _asked(run, turn),
            {"type": "TEXT_MESSAGE_START", "messageId": m1, "role": "assistant"},
            *(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": m1, "delta": d}
                for d in _deltas(8, turn)
            ),
            {"type": "TEXT_MESSAGE_END", "messageId": m1},
        ]
        for k in range(2):
            call = f"c{turn}-{k}"
            events += [
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": call,
                    "toolCallName": "get_weather",
                    "parentMessageId": m1,
                },
                {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": '{"city": '},
                {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": '"Paris"}'},
                {"type": "TOOL_CALL_END", "toolCallId": call},
            ]
        for k in range(2):
            events.append(
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": f"r{turn}-{k}",
                    "toolCallId": f"c{turn}-{k}",
                    "content": "18C and sunny",
                    "role": "tool",
                }
            )
        events += [
            {"type": "TEXT_MESSAGE_START", "messageId": m2, "role": "assistant"},
            *(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": m2, "delta": d}
                for d in _deltas(8, turn + 3)
            ),
            {"type": "TEXT_MESSAGE_END", "messageId": m2},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": run},
        ]
        yield from events
        emitted += len(events)


def chunks(size: int) -> Iterator[Event]:
    """Chunk-heavy: text and tool-call chunks whose continuations carry no ids."""
    yield {"type": "RUN_STARTED", "threadId": "t", "runId": "run-1"}
    emitted, turn = 1, 0
    while emitted < size - 1:
        turn += 1
        message, call = f"m{turn}", f"c{turn}"
        yield {
            "type": "TEXT_MESSAGE_CHUNK",
            "messageId": message,
            "role": "assistant",
            "delta": "On it: ",
        }
        for d in _deltas(10, turn):
            yield {"type": "TEXT_MESSAGE_CHUNK", "delta": d}
        yield {
            "type": "TOOL_CALL_CHUNK",
            "toolCallId": call,
            "toolCallName": "search",
            "parentMessageId": message,
            "delta": '{"q": ',
        }
        yield {"type": "TOOL_CALL_CHUNK", "delta": '"weather"}'}
        yield {
            "type": "TOOL_CALL_RESULT",
            "messageId": f"r{turn}",
            "toolCallId": call,
            "content": "ok",
        }
        emitted += 14
    yield {"type": "RUN_FINISHED", "threadId": "t", "runId": "run-1"}


def tool_loop(size: int) -> Iterator[Event]:
    """One long agent loop: tool-only assistant messages, each call answered at once."""
    yield {"type": "RUN_STARTED", "threadId": "t", "runId": "run-1"}
    for i in range((size - 2) // 4):
        call = f"c{i}"
        yield {"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "step"}
        yield {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": f'{{"i": {i}}}'}
        yield {"type": "TOOL_CALL_END", "toolCallId": call}
        yield {
            "type": "TOOL_CALL_RESULT",
            "messageId": f"r{i}",
            "toolCallId": call,
            "content": "done",
        }
    yield {"type": "RUN_FINISHED", "threadId": "t", "runId": "run-1"}


def snapshots(size: int) -> Iterator[Event]:
    """Many short runs, each ending with a MESSAGES_SNAPSHOT of the last turns.

    The snapshot restates the run's own messages plus the previous turn's (as servers that
    snapshot a window do), so input size stays linear in the event count.
    """
    emitted = turn = 0
    previous: list[dict[str, Any]] = []
    while emitted < size:
        turn += 1
        run, message = f"run-{turn}", f"a{turn}"
        deltas = list(_deltas(6, turn))
        yield {"type": "RUN_STARTED", "threadId": "t", "runId": run}
        yield {"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"}
        for d in deltas:
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": d}
        yield {"type": "TEXT_MESSAGE_END", "messageId": message}
        current = [{"id": message, "role": "assistant", "content": "".join(deltas)}]
        yield {"type": "MESSAGES_SNAPSHOT", "messages": previous + current}
        yield {"type": "RUN_FINISHED", "threadId": "t", "runId": run}
        previous = current
        emitted += 11


def subagents(size: int) -> Iterator[Event]:
    """Parallel subagent lanes interleaving chunked text, each lane with its own calls."""
    lanes = ("sub-a", "sub-b", "sub-c")
    yield {"type": "RUN_STARTED", "threadId": "t", "runId": "run-1"}
    emitted, turn = 1, 0
    while emitted < size - 1:
        turn += 1
        for lane in lanes:
            yield {"type": "SUBAGENT_STARTED", "subagentRunId": f"{lane}-{turn}", "name": lane}
        for position, d in enumerate(_deltas(4, turn)):
            for lane in lanes:
                owner = f"{lane}-{turn}"
                if position == 0:
                    yield {
                        "type": "TEXT_MESSAGE_CHUNK",
                        "messageId": f"{owner}-m",
                        "role": "assistant",
                        "delta": d,
                        "subagentRunId": owner,
                    }
                else:
                    yield {"type": "TEXT_MESSAGE_CHUNK", "delta": d, "subagentRunId": owner}
        for lane in lanes:
            owner = f"{lane}-{turn}"
            yield {"type": "SUBAGENT_FINISHED", "subagentRunId": owner}
        emitted += 3 * 6
    yield {"type": "RUN_FINISHED", "threadId": "t", "runId": "run-1"}


def timed(size: int) -> Iterator[Event]:
    """``mixed`` with a timestamp (ms since the epoch) on every event, as producers send."""
    for index, event in enumerate(mixed(size)):
        yield {**event, "timestamp": 1_700_000_000_000 + index}


# Token-sized pieces of text and of a call's JSON arguments, 1-4 characters each.
TOKENS = ("The", " we", "ath", "er", " in", " Par", "is", " is", " m", "ild", ",", " 18", "C")
# A call's arguments, 61 characters: 31 deltas of one or two.
ARGUMENTS = '{"city": "Paris", "units": "metric", "when": "tomorrow 9:00"}'


def _tokens(pieces: tuple[str, ...], count: int, seed: int) -> Iterator[str]:
    for i in range(count):
        yield pieces[(seed + i) % len(pieces)]


def _recorded(size: int, turn_events: Callable[[int], list[Event]]) -> Iterator[Event]:
    """Turns of ``turn_events`` as a recorder logs them, up to ``size`` events.

    Every event carries the producer's ``timestamp`` and a recorder's own ``_timestamp``
    and ``_seq``, as logged runs do.
    """
    emitted = turn = 0
    while emitted < size:
        turn += 1
        for event in turn_events(turn):
            event["timestamp"] = 1_700_000_000_000 + emitted
            event["_timestamp"] = f"2026-12-04T10:00:{emitted % 60:02d}.{emitted % 1000:03d}Z"
            event["_seq"] = emitted
            emitted += 1
            yield event


def _text(message_id: str, count: int, seed: int) -> list[Event]:
    """An assistant message streamed one token per delta."""
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *(
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d}
            for d in _tokens(TOKENS, count, seed)
        ),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def _weather_turn(turn: int) -> list[Event]:
    run, m1, m2, call = f"run-{turn}", f"a{turn}", f"b{turn}", f"c{turn}"
    return [
        _asked(run, turn),
        *_text(m1, 150, turn),
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call,
            "toolCallName": "get_weather",
            "parentMessageId": m1,
        },
        *(
            {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": d}
            for d in (ARGUMENTS[i : i + 2] for i in range(0, len(ARGUMENTS), 2))
        ),
        {"type": "TOOL_CALL_END", "toolCallId": call},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": f"r{turn}",
            "toolCallId": call,
            "content": "18C and sunny",
            "role": "tool",
        },
        *_text(m2, 150, turn + 5),
        {"type": "RUN_FINISHED", "threadId": "t", "runId": run},
    ]


def per_token(size: int) -> Iterator[Event]:
    """Recorded from a real model: one delta per token and keys nobody reads on every event.

    Each run streams a text message of 150 token deltas, a call whose arguments come in 31
    deltas, its result and an answer of 150 more.
    """
    return _recorded(size, _weather_turn)


def _thinking_turn(turn: int) -> list[Event]:
    run, thought, answer = f"run-{turn}", f"th{turn}", f"a{turn}"
    return [
        _asked(run, turn),
        {"type": "REASONING_START", "messageId": thought},
        {"type": "REASONING_MESSAGE_START", "messageId": thought, "role": "reasoning"},
        *(
            {"type": "REASONING_MESSAGE_CONTENT", "messageId": thought, "delta": d}
            for d in _tokens(TOKENS, 200, turn)
        ),
        {"type": "REASONING_MESSAGE_END", "messageId": thought},
        {"type": "REASONING_END", "messageId": thought},
        *_text(answer, 100, turn + 3),
        {"type": "RUN_FINISHED", "threadId": "t", "runId": run},
    ]


def reasoning(size: int) -> Iterator[Event]:
    """Recorded from a reasoning model: 200 reasoning tokens, then an answer of 100.

    One delta per token and the recorder's keys on every event, as in ``per_token``.
    """
    return _recorded(size, _thinking_turn)


def long_thread(size: int) -> Iterator[Event]:
    """One thread of short runs whose inputs restate the whole history, as harnesses send.

    Each run's input holds every message so far (user turns, the assistant's calls, their
    results and answers) and a new user turn; the run answers with a call, its result and
    a streamed answer: 13 events a run, so 13k events are 1,000 runs (the file grows with
    the square of the runs, as such logs do).
    """
    history: list[dict[str, Any]] = []
    emitted = turn = 0
    while emitted < size:
        turn += 1
        run, call, answer = f"run-{turn}", f"c{turn}", f"b{turn}"
        history.append({"id": f"u{turn}", "role": "user", "content": f"Weather on day {turn}?"})
        yield {
            "type": "RUN_STARTED",
            "threadId": "t",
            "runId": run,
            "input": {
                "threadId": "t",
                "runId": run,
                "state": {},
                "messages": list(history),
                "tools": [],
                "context": [],
                "forwardedProps": {},
            },
        }
        yield {"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "get_weather"}
        yield {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": '{"day": '}
        yield {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": f"{turn}}}"}
        yield {"type": "TOOL_CALL_END", "toolCallId": call}
        yield {
            "type": "TOOL_CALL_RESULT",
            "messageId": f"r{turn}",
            "toolCallId": call,
            "content": "18C and sunny",
            "role": "tool",
        }
        yield {"type": "TEXT_MESSAGE_START", "messageId": answer, "role": "assistant"}
        words = list(_deltas(4, turn))
        for d in words:
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": answer, "delta": d}
        yield {"type": "TEXT_MESSAGE_END", "messageId": answer}
        yield {"type": "RUN_FINISHED", "threadId": "t", "runId": run}
        emitted += 13
        # What the next input restates: the call (under an assistant message the stream
        # never named, as clients write it), its result and the answer.
        history += [
            {
                "id": f"x{turn}",
                "role": "assistant",
                "toolCalls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": f'{{"day": {turn}}}'},
                    }
                ],
            },
            {"id": f"r{turn}", "role": "tool", "toolCallId": call, "content": "18C and sunny"},
            {"id": answer, "role": "assistant", "content": "".join(words)},
        ]


SHAPES: dict[str, Shape] = {
    "mixed": mixed,
    "timed": timed,
    "chunks": chunks,
    "tool_loop": tool_loop,
    "snapshots": snapshots,
    "subagents": subagents,
    "per_token": per_token,
    "reasoning": reasoning,
    "long_thread": long_thread,
}


def parse_size(text: str) -> int:
    """A stream size as the runners take it: ``600``, ``10k``, ``1m``."""
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * scale)


def write_jsonl(shape: Shape, size: int, path: str) -> int:
    """Write ``shape(size)`` as JSONL; returns the number of events written."""
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for event in shape(size):
            out.write(json.dumps(event, separators=(",", ":")))
            out.write("\n")
            count += 1
    return count
