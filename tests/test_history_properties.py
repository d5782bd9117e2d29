"""Restating history changes nothing a user reads.

Metamorphic properties on :func:`tests.generate.random_stream`: each transformation
restates what the stream already said (a final snapshot with every id re-minted or kept,
the history re-sent in each run's input under new ids, client results delivered through
the next input instead of ``add_client_result``); none may change ``ordered()`` (compared
without message ids), the call states or the continuation status.

And on every stream we have (goldens, deviations, conformance, generated; with and
without their run inputs): ``ordered()`` keeps every real tool result exactly once per
call occurrence, right after its call, and never puts a synthetic result where a real
one exists.

CI runs a bounded number of examples; ``HYPOTHESIS_PROFILE=long`` runs many.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import Collector, Transcript, fold
from agui_transcripts.model import AssistantMessage, Message, ToolMessage
from agui_transcripts.projection import is_synthetic

from .checkers import openai_strict
from .generate import random_stream

Event = dict[str, Any]
SEEDS = st.integers(0, 2**32)
# Seeds of the shapes two properties need, found once: drawing any seed and discarding
# most would trip hypothesis's filtering health check.
_CANDIDATES = range(1500)
HERE = Path(__file__).parent


def view(transcript: Transcript) -> tuple[Any, ...]:
    """What a user reads, ids aside: the ordered conversation, call states, next step."""
    conversation = []
    for message in transcript.ordered():
        calls = tuple(
            (call.id, call.name, call.arguments)
            for call in (message.tool_calls or () if isinstance(message, AssistantMessage) else ())
        )
        answered = message.tool_call_id if isinstance(message, ToolMessage) else None
        synthetic = is_synthetic(message)
        conversation.append(
            (message.role, message.text, calls, answered, message.subagent_run_id, synthetic)
        )
    states = {call_id: record.state for call_id, record in transcript.tool_calls.items()}
    return tuple(conversation), states, transcript.continuation().status


def _reminted(messages: list[dict[str, Any]], tag: str) -> list[dict[str, Any]]:
    return [{**message, "id": f"{tag}-{n}"} for n, message in enumerate(messages)]


def _restated(transcript: Transcript) -> list[dict[str, Any]]:
    """The conversation as a producer restates it: activity left out (Q12, Q26)."""
    return [m for m in transcript.to_dicts() if m["role"] != "activity"]


def _before_terminal(events: list[Event]) -> int:
    """Where the last run's terminal event stands."""
    for index in range(len(events) - 1, -1, -1):
        if events[index]["type"] in ("RUN_FINISHED", "RUN_ERROR"):
            return index
    return len(events)


@given(seed=SEEDS, remint=st.booleans(), with_input=st.booleans())
def test_a_final_snapshot_restating_the_conversation_changes_nothing(
    seed: int, remint: bool, with_input: bool
) -> None:
    events, inputs = random_stream(seed)
    run_input = inputs if with_input else None
    plain = fold(events, run_input=run_input)
    history = _restated(plain)
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": _reminted(history, "snap") if remint else history,
    }
    at = _before_terminal(events)
    restated = fold([*events[:at], snapshot, *events[at:]], run_input=run_input)
    assert view(restated) == view(plain)


def _runs(events: list[Event]) -> list[int]:
    return [i for i, event in enumerate(events) if event["type"] == "RUN_STARTED"]


MANY_RUNS = st.sampled_from([s for s in _CANDIDATES if len(_runs(random_stream(s)[0])) > 1])


@given(seed=MANY_RUNS)
def test_history_resent_under_new_ids_in_each_input_changes_nothing(seed: int) -> None:
    events, inputs = random_stream(seed)
    starts = _runs(events)
    plain = fold(events, run_input=inputs)
    resent_inputs = [inputs[0]]
    resent_events = list(events)
    for run, start in enumerate(starts[1:], start=1):
        held = fold(events[:start], run_input=inputs[:run])
        messages = _reminted(_restated(held), f"dump{run}") + inputs[run]["messages"]
        resent_inputs.append({**inputs[run], "messages": messages})
        if "input" in events[start]:
            resent_events[start] = {**events[start], "input": resent_inputs[run]}
    resent = fold(resent_events, run_input=resent_inputs)
    assert view(resent) == view(plain)


def _pending_client(seed: int) -> tuple[list[Event], list[dict[str, Any]], list[str]] | None:
    events, inputs = random_stream(seed)
    transcript = fold(events, run_input=inputs, client_tools=["confirm", "search", "lookup"])
    calls = transcript.continuation().client_calls
    return (events, inputs, calls) if calls else None


def _next_run(run_input: dict[str, Any]) -> list[Event]:
    start = {"type": "RUN_STARTED", "threadId": "thread", "runId": "next", "input": run_input}
    return [
        start,
        {"type": "TEXT_MESSAGE_START", "messageId": "next-text", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "next-text", "delta": "Thanks."},
        {"type": "TEXT_MESSAGE_END", "messageId": "next-text"},
        {"type": "RUN_FINISHED", "threadId": "thread", "runId": "next"},
    ]


PENDING_CLIENT = st.sampled_from([s for s in _CANDIDATES if _pending_client(s) is not None])


@given(seed=PENDING_CLIENT)
def test_client_results_delivered_through_the_input_or_added_read_the_same(seed: int) -> None:
    found = _pending_client(seed)
    assert found is not None
    events, inputs, calls = found
    tools = ["confirm", "search", "lookup"]

    added = Collector(run_input=inputs, client_tools=tools)
    for event in events:
        added.feed(event)
    for call_id in calls:
        added.add_client_result(call_id, f"answer to {call_id}")
    interrupts = dict.fromkeys(added.transcript.continuation().interrupts, "resolved")
    for event in _next_run(added.transcript.next_run_input(run_id="next", resume=interrupts)):
        added.feed(event)

    delivered = Collector(run_input=inputs, client_tools=tools)
    for event in events:
        delivered.feed(event)
    run_input = delivered.transcript.next_run_input(run_id="next", resume=interrupts)
    run_input["messages"] = _reminted(run_input["messages"], "client") + [
        {"id": f"result-{n}", "role": "tool", "toolCallId": c, "content": f"answer to {c}"}
        for n, c in enumerate(calls)
    ]
    for event in _next_run(run_input):
        delivered.feed(event)

    first, second = added.close(), delivered.close()
    assert view(first) == view(second)
    assert first.continuation().undelivered == []


# -- every stream we have: real results kept, once, after their calls -------------------------


def _corpus() -> list[tuple[str, Any, Any]]:
    """(name, source, run inputs) for every stream the suite has."""
    streams: list[tuple[str, Any, Any]] = []
    for folder in (
        "golden/streams",
        "golden/reference-cases",
        "golden/deviations",
        "golden/recordings",
    ):
        for path in sorted([*(HERE / folder).glob("*.jsonl"), *(HERE / folder).glob("*.sse")]):
            companion = path.with_name(path.stem + ".input.json")
            run_input = json.loads(companion.read_text()) if companion.exists() else None
            streams.append((f"{folder}/{path.stem}", path, run_input))
    for path in sorted((HERE / "conformance/ag-ui-spec/streams").glob("*.json")):
        streams.append((f"spec/{path.stem}", json.loads(path.read_text())["stream"], None))
    for path in sorted((HERE / "conformance/ag-ui-validate/fixtures").rglob("*.jsonl")):
        streams.append((f"validate/{path.parent.name}/{path.stem}", path, None))
    for seed in range(200):
        events, generated = random_stream(seed)
        streams.append((f"random/{seed}", events, generated))
    return streams


CORPUS = _corpus()


def _real_results_kept(transcript: Transcript) -> list[str]:
    """Problems with ``ordered()``'s results, against what the transcript holds."""
    problems: list[str] = []
    ordered = transcript.ordered()
    ids = Counter(m.id for m in ordered)
    problems += [f"{i} appears {n} times" for i, n in ids.items() if n > 1]
    occurrences: Counter[str] = Counter()
    real_out: Counter[str] = Counter()
    synthetic_out: Counter[str] = Counter()
    for message in ordered:
        if isinstance(message, AssistantMessage):
            occurrences.update(call.id for call in message.tool_calls or ())
        elif isinstance(message, ToolMessage):
            (synthetic_out if is_synthetic(message) else real_out)[message.tool_call_id] += 1
    aliases = transcript.call_aliases  # results answering a re-minted id answer the call
    real_in = Counter(
        aliases.get(m.tool_call_id, m.tool_call_id)
        for m in transcript.messages
        if isinstance(m, ToolMessage) and aliases.get(m.tool_call_id, m.tool_call_id) in occurrences
    )
    for call_id, count in occurrences.items():
        wanted = min(count, real_in[call_id])
        if real_out[call_id] != wanted:
            problems.append(f"{call_id}: {real_out[call_id]} real results, {wanted} expected")
        if synthetic_out[call_id] > count - wanted:
            problems.append(f"{call_id}: a synthetic result where a real one exists")
    problems += openai_strict([m.to_dict() for m in ordered])
    return problems


def _kept_as_held(transcript: Transcript, message: Message) -> bool:
    """The transcript's own result, or a copy answering the id of a call restated anew."""
    if any(held is message for held in transcript.messages):
        return True
    return isinstance(message, ToolMessage) and any(
        held.id == message.id
        and isinstance(held, ToolMessage)
        and transcript.call_aliases.get(held.tool_call_id) == message.tool_call_id
        for held in transcript.messages
    )


@pytest.mark.parametrize(
    ("events", "run_input"),
    [
        pytest.param(events, run_input, id=f"{name}{'' if run_input else '-no-input'}")
        for (name, events, given_input), run_input in itertools.chain.from_iterable(
            [((n, e, i), i), ((n, e, i), None)] if i else [((n, e, i), None)] for n, e, i in CORPUS
        )
    ],
)
def test_ordered_keeps_every_real_result_once_after_its_call(events: Any, run_input: Any) -> None:
    transcript = fold(events, run_input=run_input)
    assert _real_results_kept(transcript) == []
    for message in transcript.ordered():
        if isinstance(message, ToolMessage) and not is_synthetic(message):
            assert _kept_as_held(transcript, message)  # the transcript's own result
