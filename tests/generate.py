"""Deterministic random AG-UI streams that the reference client accepts.

``random_stream(seed)`` returns ``(events, run_inputs)``: one to three runs mixing text
(triads and chunks, several roles), tool calls (with and without parents, parallel,
results in and out of order, chunked, invalid JSON arguments), reasoning (spans,
messages, chunks, encrypted values), state, activity, steps, custom and raw events,
subagent lanes, messages snapshots, and every run ending (success, pending calls,
interrupt, cancelled, RUN_ERROR). Used for golden files and differential testing.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

Event = dict[str, Any]


class _Run:
    def __init__(self, rng: random.Random, prefix: str, known: list[str]) -> None:
        self.rng = rng
        self.prefix = prefix
        self.events: list[Event] = []
        self.counter = 0
        self.known = known  # assistant message ids held so far (for parents and snapshots)
        self.pending_results: list[tuple[str, str]] = []
        self.started_calls: list[str] = []
        self.subagents: list[str] = []

    def new_id(self, kind: str) -> str:
        self.counter += 1
        return f"{self.prefix}{kind}{self.counter}"

    def tag(self, event: Event, owner: str | None) -> Event:
        if owner is not None:
            event["subagentRunId"] = owner
        return event

    def owner(self) -> str | None:
        if self.subagents and self.rng.random() < 0.4:
            return self.rng.choice(self.subagents)
        return None

    def deltas(self, words: list[str]) -> list[str]:
        count = self.rng.randint(0, 3)
        return [self.rng.choice(words) for _ in range(count)]

    # -- items -----------------------------------------------------------------------

    def text(self) -> None:
        rng = self.rng
        mid = self.new_id("m")
        owner = self.owner()
        role = rng.choice(["assistant", "assistant", "assistant", "user", "system", "developer"])
        deltas = self.deltas(["Hello", " world", "! ", "caf\u00e9 ", "\u2615", "\n", ""])
        if rng.random() < 0.4:
            opener: Event = {"type": "TEXT_MESSAGE_CHUNK", "messageId": mid}
            if role != "assistant" or rng.random() < 0.5:
                opener["role"] = role
            if deltas:
                opener["delta"] = deltas[0]
            self.events.append(self.tag(opener, owner))
            for delta in deltas[1:]:
                chunk: Event = {"type": "TEXT_MESSAGE_CHUNK", "delta": delta}
                if rng.random() < 0.5 or owner is not None:
                    chunk["messageId"] = mid
                self.events.append(self.tag(chunk, owner))
            # The chunk stream is closed by whatever comes next in its lane.
            if owner is not None:
                self.events.append(self.tag({"type": "STEP_STARTED", "stepName": mid}, owner))
                self.events.append(self.tag({"type": "STEP_FINISHED", "stepName": mid}, owner))
        else:
            start: Event = {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": role}
            if rng.random() < 0.2:
                start["metadata"] = {"trace": rng.randint(1, 9)}
            self.events.append(self.tag(start, owner))
            for delta in deltas:
                self.events.append(
                    self.tag(
                        {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta}, owner
                    )
                )
            self.events.append(self.tag({"type": "TEXT_MESSAGE_END", "messageId": mid}, owner))
        if role == "assistant":
            self.known.append(mid)

    def tool_calls(self) -> None:
        rng = self.rng
        owner = None if rng.random() < 0.7 else self.owner()
        choice = rng.random()
        if choice < 0.3 and self.known and owner is None:
            parent: str | None = rng.choice(self.known)
        elif choice < 0.7:
            parent = self.new_id("p")
        else:
            parent = None
        count = rng.randint(1, 3)
        calls = []
        for _ in range(count):
            cid = self.new_id("c")
            name = rng.choice(["search", "get_weather", "confirm", "lookup"])
            args = rng.choice(
                [
                    '{"q": "agui"}',
                    '{"city": "Paris", "days": 2}',
                    "{}",
                    "",
                    "not json",
                    '{"a":1}{"b":2}',
                ]
            )
            pieces = [args[i : i + 7] for i in range(0, len(args), 7)] if args else []
            if rng.random() < 0.3 and owner is None:
                for i, piece in enumerate(pieces or [""]):
                    chunk: Event = (
                        {"type": "TOOL_CALL_CHUNK", "delta": piece}
                        if piece
                        else {"type": "TOOL_CALL_CHUNK"}
                    )
                    if i == 0:
                        chunk["toolCallId"] = cid
                        chunk["toolCallName"] = name
                        if parent is not None:
                            chunk["parentMessageId"] = parent
                    self.events.append(chunk)
                self.events.append({"type": "STEP_STARTED", "stepName": cid})
                self.events.append({"type": "STEP_FINISHED", "stepName": cid})
            else:
                start: Event = {"type": "TOOL_CALL_START", "toolCallId": cid, "toolCallName": name}
                if parent is not None:
                    start["parentMessageId"] = parent
                self.events.append(self.tag(start, owner))
                for piece in pieces:
                    self.events.append(
                        self.tag(
                            {"type": "TOOL_CALL_ARGS", "toolCallId": cid, "delta": piece}, owner
                        )
                    )
                self.events.append(self.tag({"type": "TOOL_CALL_END", "toolCallId": cid}, owner))
            calls.append(cid)
            self.started_calls.append(cid)
        if parent is not None and parent not in self.known:
            self.known.append(parent)
        elif parent is None:
            self.known.extend(calls[:1])
        answered = [c for c in calls if rng.random() < 0.75]
        if rng.random() < 0.3:
            answered.reverse()
        for cid in answered:
            tid = self.new_id("t")
            if rng.random() < 0.6:
                self.result(tid, cid, owner)
            else:
                self.pending_results.append((tid, cid))

    def result(self, tid: str, cid: str, owner: str | None = None) -> None:
        content: Any = self.rng.choice(["ok", "14:05", '{"temp": 21}', ""])
        if self.rng.random() < 0.15:
            content = [
                {"type": "text", "text": "Invoice"},
                {
                    "type": "document",
                    "source": {"type": "url", "value": "https://example.com/i.pdf"},
                },
            ]
        self.events.append(
            self.tag(
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": tid,
                    "toolCallId": cid,
                    "content": content,
                },
                owner,
            )
        )

    def flush_results(self, probability: float = 1.0) -> None:
        keep = []
        for tid, cid in self.pending_results:
            if self.rng.random() < probability:
                self.result(tid, cid)
            else:
                keep.append((tid, cid))
        self.pending_results = keep

    def reasoning(self) -> None:
        rng = self.rng
        rid = self.new_id("r")
        owner = self.owner()
        span = self.new_id("s") if rng.random() < 0.6 else None
        if span:
            self.events.append(self.tag({"type": "REASONING_START", "messageId": span}, owner))
        deltas = self.deltas(["Thinking", " about", " it."])
        if rng.random() < 0.4:
            first: Event = {"type": "REASONING_MESSAGE_CHUNK", "messageId": rid}
            if deltas:
                first["delta"] = deltas[0]
            self.events.append(self.tag(first, owner))
            for delta in deltas[1:]:
                self.events.append(
                    self.tag(
                        {"type": "REASONING_MESSAGE_CHUNK", "delta": delta, "messageId": rid}, owner
                    )
                )
        else:
            self.events.append(
                self.tag(
                    {"type": "REASONING_MESSAGE_START", "messageId": rid, "role": "reasoning"},
                    owner,
                )
            )
            for delta in deltas:
                self.events.append(
                    self.tag(
                        {"type": "REASONING_MESSAGE_CONTENT", "messageId": rid, "delta": delta},
                        owner,
                    )
                )
            self.events.append(self.tag({"type": "REASONING_MESSAGE_END", "messageId": rid}, owner))
        if rng.random() < 0.4:
            self.events.append(
                {
                    "type": "REASONING_ENCRYPTED_VALUE",
                    "subtype": "message",
                    "entityId": rid,
                    "encryptedValue": f"enc-{rid}",
                }
            )
        if span:
            self.events.append(self.tag({"type": "REASONING_END", "messageId": span}, owner))

    def state(self) -> None:
        rng = self.rng
        if rng.random() < 0.5:
            self.events.append(
                {"type": "STATE_SNAPSHOT", "snapshot": {"count": rng.randint(0, 5), "items": ["a"]}}
            )
        else:
            ops = rng.choice(
                [
                    [{"op": "add", "path": "/n", "value": rng.randint(0, 9)}],
                    [{"op": "replace", "path": "/count", "value": 7}],
                    [{"op": "add", "path": "/items/-", "value": "b"}],
                ]
            )
            self.events.append({"type": "STATE_DELTA", "delta": ops})

    def activity(self) -> None:
        aid = self.new_id("a")
        self.events.append(
            {
                "type": "ACTIVITY_SNAPSHOT",
                "messageId": aid,
                "activityType": "search",
                "content": {"q": "x", "found": 0},
            }
        )
        if self.rng.random() < 0.5:
            self.events.append(
                {
                    "type": "ACTIVITY_DELTA",
                    "messageId": aid,
                    "activityType": "search",
                    "patch": [{"op": "replace", "path": "/found", "value": 2}],
                }
            )

    def misc(self) -> None:
        self.events.append(
            self.rng.choice(
                [
                    {"type": "RAW", "event": {"vendor": 1}},
                    {"type": "CUSTOM", "name": "ping", "value": None},
                ]
            )
        )

    def snapshot(self) -> None:
        messages: list[Event] = []
        for mid in self.known[-2:]:
            messages.append({"id": mid, "role": "assistant", "content": f"snapshot of {mid}"})
        messages.append({"id": self.new_id("u"), "role": "user", "content": "from the snapshot"})
        self.events.append({"type": "MESSAGES_SNAPSHOT", "messages": messages})

    def subagent(self) -> None:
        sid = self.new_id("sub")
        self.events.append({"type": "SUBAGENT_STARTED", "subagentRunId": sid, "name": "worker"})
        self.subagents.append(sid)


def random_stream(seed: int) -> tuple[list[Event], list[dict[str, Any]]]:
    """One deterministic random stream (and its run inputs) for ``seed``."""
    rng = random.Random(seed)
    events: list[Event] = []
    inputs: list[dict[str, Any]] = []
    known: list[str] = []
    interrupted: list[str] = []
    for run_number in range(rng.randint(1, 3)):
        run_id = f"run{run_number + 1}"
        run = _Run(rng, f"x{seed}r{run_number + 1}", known)
        user = {
            "id": f"x{seed}u{run_number + 1}",
            "role": "user",
            "content": rng.choice(["Hi", "Weather?", "Go on"]),
        }
        run_input: dict[str, Any] = {
            "threadId": "thread",
            "runId": run_id,
            "messages": [user],
            "tools": [{"name": "confirm", "description": "Ask the user"}],
        }
        if interrupted:
            run_input["resume"] = [{"interruptId": i, "status": "resolved"} for i in interrupted]
            interrupted = []
        inputs.append(run_input)
        start: Event = {"type": "RUN_STARTED", "threadId": "thread", "runId": run_id}
        if rng.random() < 0.3:
            start["input"] = run_input
        events.append(start)
        steps = [
            run.text,
            run.text,
            run.tool_calls,
            run.tool_calls,
            run.reasoning,
            run.state,
            run.activity,
            run.misc,
            run.subagent,
        ]
        for _ in range(rng.randint(1, 7)):
            rng.choice(steps)()
            if run.pending_results and rng.random() < 0.4:
                run.flush_results(0.5)
        if rng.random() < 0.15:
            run.snapshot()
        for sid in run.subagents:
            run.events.append({"type": "SUBAGENT_FINISHED", "subagentRunId": sid})
        ending = rng.random()
        if ending < 0.1:
            run.events.append({"type": "RUN_ERROR", "message": "model failed", "code": "E_MODEL"})
        else:
            run.flush_results()
            finished: Event = {"type": "RUN_FINISHED", "threadId": "thread", "runId": run_id}
            if ending < 0.2 and run.started_calls:
                interrupt_id = f"i{seed}-{run_number + 1}"
                interrupted.append(interrupt_id)
                finished["outcome"] = {
                    "type": "interrupt",
                    "interrupts": [
                        {
                            "id": interrupt_id,
                            "reason": "approval",
                            "toolCallId": run.started_calls[-1],
                        }
                    ],
                }
            elif ending < 0.25:
                finished["outcome"] = {"type": "cancelled"}
            elif ending < 0.35:
                finished["outcome"] = {"type": "success"}
            run.events.append(finished)
        events.extend(run.events)
    return events, inputs


def random_thread(seeds: list[int]) -> tuple[list[Event], list[dict[str, Any]]]:
    """The streams of ``seeds`` one after another, with their run inputs: one thread."""
    events: list[Event] = []
    inputs: list[dict[str, Any]] = []
    for seed in seeds:
        more, more_inputs = random_stream(seed)
        events += more
        inputs += more_inputs
    return events, inputs


#: What a later run opens with: given the events up to its RUN_STARTED (included), the
#: run inputs up to its own (included) and how many runs ended before it.
Insert = Callable[[list[Event], list[Any], int], list[Event]]


def with_inserts(events: list[Event], inputs: list[Any], insert: Insert) -> list[Event]:
    """``events`` with what ``insert`` gives right after each RUN_STARTED.

    What earlier runs left is at hand (fold the events and inputs given, or those before
    the start), so an insert can do something to it: what sloppy producers do to
    earlier runs.
    """
    out: list[Event] = []
    ended = started = 0
    for event in events:
        out.append(event)
        kind = event["type"]
        if kind in ("RUN_FINISHED", "RUN_ERROR"):
            ended += 1
        elif kind == "RUN_STARTED":
            started += 1
            out += insert(out, inputs[:started], ended)
    return out


def to_jsonl(events: list[Event]) -> str:
    """The stream as JSONL text."""
    return "".join(json.dumps(event, ensure_ascii=False) + "\n" for event in events)


def one_message_runs(runs: int) -> list[Event]:
    """A thread of ``runs`` runs, each answering with one assistant message."""
    events: list[Event] = []
    for i in range(runs):
        events += [
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}"},
            {"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{i}", "delta": f"answer {i}"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"m{i}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}"},
        ]
    return events
