"""Streams written the way producers nobody here wrote send them (issue 33's shapes).

Each builder returns one shape seen in runs recorded by others from real models:
hand-written wrappers around provider APIs, framework adapters, recorders adding their
own keys. ``tests/test_real_producers.py`` holds the fold to what an evaluator must read
of each; ``tests/golden/build.py`` writes those the reference client folds as goldens.
"""

from __future__ import annotations

from typing import Any

from .streams import RF, RS, TCA, TCE, TCS, TMC, TME, TMS

Event = dict[str, Any]


def calculator_run(result: Event) -> list[Event]:
    """A hand-written wrapper: a call, its result as the wrapper spells it, the answer."""
    return [
        RS(),
        TCS("tc-1", "calculator", "m1"),
        TCA("tc-1", '{"expression": "42 * 17"}'),
        TCE("tc-1"),
        result,
        TMS("m2"),
        TMC("m2", "42 times 17 is 714."),
        TME("m2"),
        RF(),
    ]


RECORDER_KEYS = {"_timestamp": 1796119586.25, "_offset_ms": 12, "_index": 0}


def with_recorder_keys(events: list[Event]) -> list[Event]:
    """Each event as a recorder writes it: its own keys, and a producer's usage on some."""
    out = []
    for index, event in enumerate(events):
        extra: Event = {**RECORDER_KEYS, "_index": index}
        if event["type"] in ("TEXT_MESSAGE_END", "RUN_FINISHED"):
            extra["usage_metadata"] = {"input_tokens": 12, "output_tokens": 3}
        out.append({**event, **extra})
    return out


def chatty_run() -> list[Event]:
    """Text triads, a chunked answer and a call with its result: every delta kind."""
    return [
        *calculator_run(
            {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "tc-1", "content": "714"}
        )[:-1],
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m3", "role": "assistant", "delta": "One"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m3", "delta": " more"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": " thing."},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "tc-2", "toolCallName": "lookup", "delta": "{"},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "tc-2", "delta": "}"},
        RF(),
    ]


APPROVAL = {
    "id": "int-1",
    "reason": "tool_call",
    "toolCallId": "c1",
    "message": "Approve deleting /tmp/report.txt?",
}


ASKED = {"id": "u1", "role": "user", "content": "Delete /tmp/report.txt"}


RESUMED = [{"interruptId": "int-1", "status": "resolved", "payload": {"approved": True}}]


def approval_runs() -> tuple[list[Event], list[Event]]:
    """Run 1 asks approval for a call; run 2 executes it, its echo without the resume."""
    echo = {"threadId": "t", "runId": "r2", "messages": [ASKED], "tools": [], "context": []}
    events = [
        RS("r1"),
        TCS("c1", "delete_file", "a1"),
        TCA("c1", '{"path": "/tmp/report.txt"}'),
        TCE("c1"),
        RF("r1", outcome={"type": "interrupt", "interrupts": [APPROVAL]}),
        RS("r2", input=echo),
        {"type": "TOOL_CALL_RESULT", "messageId": "res1", "toolCallId": "c1", "content": "deleted"},
        TMS("a2"),
        TMC("a2", "Done: the file is gone."),
        TME("a2"),
        RF("r2"),
    ]
    sent = [
        {"threadId": "t", "runId": "r1", "messages": [ASKED], "tools": []},
        {"threadId": "t", "runId": "r2", "messages": [ASKED], "tools": [], "resume": RESUMED},
    ]
    return events, sent


FRANCE = {"id": "u1", "role": "user", "content": "Capital of France?"}


ITALY = {"id": "u2", "role": "user", "content": "And of Italy?"}


PARIS = {"id": "a1", "role": "assistant", "content": "Paris."}


def answer(message_id: str, text: str) -> list[Event]:
    return [TMS(message_id), TMC(message_id, text), TME(message_id)]


def snapshot_first_runs(client_ids: bool = True) -> tuple[list[Event], list[Event]]:
    """ag-ui-dify-adapter: each request's stream opens with the history, then RUN_STARTED.

    ``client_ids``: the client holds the answer under its own id (else the producer's).
    """
    events = [
        {"type": "MESSAGES_SNAPSHOT", "messages": [FRANCE]},
        RS("r1"),
        *answer("a1", "Paris."),
        RF("r1"),
        {"type": "MESSAGES_SNAPSHOT", "messages": [FRANCE, PARIS, ITALY]},
        {"type": "STATE_SNAPSHOT", "snapshot": {"turn": 2}},
        RS("r2"),
        *answer("a2", "Rome."),
        RF("r2"),
    ]
    # The client sends the thread as it holds it: the answer under the client's own id.
    held = {**PARIS, "id": "client-7f3a"} if client_ids else PARIS
    inputs = [
        {"threadId": "t", "runId": "r1", "messages": [FRANCE], "tools": []},
        {"threadId": "t", "runId": "r2", "messages": [FRANCE, held, ITALY], "tools": []},
    ]
    return events, inputs


BOOKING = {"text": "Book a table for four", "people": 4, "time": "19:30"}


def booking_run() -> tuple[list[Event], Event]:
    run_input = {
        "threadId": "t",
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": BOOKING}],
    }
    return [RS(), *answer("a1", "Booked: four people at 19:30."), RF()], run_input


OTHER_THREAD = [
    {"id": "old-u", "role": "user", "content": "Tell me a joke"},
    {"id": "old-a", "role": "assistant", "content": "Why did the chicken cross the road?"},
]


def reused_thread_run() -> tuple[list[Event], Event]:
    """A checkpoint of another conversation (a reused thread id) ends the run."""
    events = [
        RS(),
        *answer("ans", "The capital of France is Paris."),
        {"type": "MESSAGES_SNAPSHOT", "messages": OTHER_THREAD},
        RF(),
    ]
    return events, {"threadId": "t", "runId": "r1", "messages": [FRANCE]}


WEATHER_ARGS = '{"city": "Paris"}'


def call(call_id: str, name: str, arguments: str = "{}") -> Event:
    """A tool call as messages restate it (``toolCalls`` entries)."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def weather_call(call_id: str) -> Event:
    return call(call_id, "get_weather", WEATHER_ARGS)


def gemini_snapshot_runs(result_answers: str = "A") -> list[Event]:
    """llama-index's AG-UI workflow with Gemini: the call streamed as ``A``, restated under
    a fresh id in every snapshot, its result answering ``result_answers`` (``A``, or
    ``fresh`` for the snapshot's own id)."""

    def snapshot(step: int, *tail: Event) -> Event:
        call_id = f"B{step}"
        messages = [
            {"id": f"sys-{step}", "role": "system", "content": "You are a travel assistant."},
            FRANCE | {"content": "Weather in Paris?"},
            {"id": f"x{step}", "role": "assistant", "toolCalls": [weather_call(call_id)]},
        ]
        for message in tail:
            answered = call_id if result_answers == "fresh" else "A"
            messages.append(
                {**message, "toolCallId": answered} if "toolCallId" in message else message
            )
        return {"type": "MESSAGES_SNAPSHOT", "messages": messages}

    result = {"id": "y", "role": "tool", "toolCallId": "A", "content": "18°C and sunny"}
    final = {"id": "z", "role": "assistant", "content": "It is 18°C and sunny in Paris."}
    return [
        RS(),
        {
            "type": "TOOL_CALL_CHUNK",
            "toolCallId": "A",
            "toolCallName": "get_weather",
            "delta": WEATHER_ARGS,
        },
        snapshot(1),
        snapshot(2, result),
        {
            "type": "TEXT_MESSAGE_CHUNK",
            "messageId": "ans",
            "role": "assistant",
            "delta": final["content"],
        },
        snapshot(3, result, final),
        RF(),
    ]
