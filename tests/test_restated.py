"""Restated history read in proportion to what each input adds (``restated``).

A thread whose every input re-sends the conversation must read the same whether each
input's known beginning is skipped or the whole input is reconciled again: the property
below folds generated threads both ways. The tables behind the skip are checked on
their own, and a long thread's inputs share their messages instead of holding n² copies.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import Transcript, fold
from agui_transcripts.events import EventIntake
from agui_transcripts.message_list import MessageList
from agui_transcripts.model import UserMessage
from agui_transcripts.reduce import Reducer
from agui_transcripts.restated import SharedMessages, StatedMessages

from .builds import requires_interpreted
from .generate import random_stream

Event = dict[str, Any]
SEEDS = st.integers(0, 2**32)


def _runs(events: list[Event]) -> list[int]:
    return [i for i, event in enumerate(events) if event["type"] == "RUN_STARTED"]


def _restating(seed: int) -> tuple[list[Event], list[dict[str, Any]]]:
    """``random_stream(seed)`` whose inputs each restate the conversation before them.

    Each run's input re-sends what a client holds (ids kept, or some re-minted, some
    left out, as sloppy clients do), then the run's own new messages; the producer
    echoes it in ``RUN_STARTED`` or not.
    """
    events, inputs = random_stream(seed)
    rng = random.Random(seed)
    starts = _runs(events)
    resent_inputs = [inputs[0]]
    resent_events = list(events)
    for run, start in enumerate(starts[1:], start=1):
        held = fold(resent_events[:start], run_input=resent_inputs[:run])
        history = [m for m in held.to_dicts() if m["role"] != "activity"]
        style = rng.choice(["kept", "kept", "reminted", "partial"])
        if style == "reminted":
            history = [
                {**m, "id": f"r{run}-{n}"} if n % 3 == 0 else m for n, m in enumerate(history)
            ]
        elif style == "partial" and history:
            del history[rng.randrange(len(history))]
        resent_inputs.append({**inputs[run], "messages": history + inputs[run]["messages"]})
        if "input" in events[start]:
            resent_events[start] = {**events[start], "input": resent_inputs[run]}
    return resent_events, resent_inputs


def _without_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    requires_interpreted("the reducer calls the skip natively: it cannot be switched off")
    monkeypatch.setattr(StatedMessages, "known_prefix", lambda self, items, held: (0, set()))


def _read(transcript: Transcript) -> tuple[Any, ...]:
    """Everything a user reads, ids included; each diagnostic once (repeats aside)."""
    diagnostics = list(dict.fromkeys((d.code, d.message) for d in transcript.diagnostics))
    return (
        transcript.to_dicts(),
        [m.to_dict() for m in transcript.ordered()],
        {call_id: (r.state, r.results) for call_id, r in transcript.tool_calls.items()},
        [run.to_dict() for run in transcript.runs],
        transcript.continuation().status,
        diagnostics,
    )


@given(seed=SEEDS, with_input=st.booleans())
def test_skipping_the_known_beginning_of_each_input_reads_the_same(
    seed: int, with_input: bool
) -> None:
    events, inputs = _restating(seed)
    run_input = inputs if with_input else None
    skipped = fold(events, run_input=run_input)
    with pytest.MonkeyPatch.context() as patch:
        _without_skip(patch)
        whole = fold(events, run_input=run_input)
    assert _read(skipped) == _read(whole)


def _answering(seed: int) -> list[Event]:
    """``random_stream(seed)`` followed by runs whose inputs answer and restate calls.

    Each input is what a sloppy client sends back: held tool messages (as held, under a
    re-minted id, or saying something else), new answers to known calls (and to unknown
    ones), held messages by id, now and then one twice, and the next turn (a user's,
    now and then saying what an earlier one said); the run then calls a tool again.
    """
    events, _ = random_stream(seed)
    rng = random.Random(seed)
    for run in range(rng.randint(1, 4)):
        held = fold(events)
        history = [m for m in held.to_dicts() if m["role"] != "activity"]
        calls = [*held.tool_calls, "nobody"]
        messages: list[dict[str, Any]] = []
        for n in range(rng.randint(1, 4)):
            shape = rng.choice(["held", "held", "reminted", "other", "new", "by id"])
            tools = [m for m in history if m["role"] == "tool"]
            if shape in ("held", "reminted", "other") and tools:
                message = dict(rng.choice(tools))
                if shape != "held":
                    message["id"] = f"re{run}-{n}"
                if shape == "other":
                    message["content"] = "something else"
            elif shape == "by id" and history:
                message = dict(rng.choice(history))
            else:
                call = rng.choice(calls)
                message = {"id": f"new{run}-{n}", "role": "tool", "toolCallId": call}
                message["content"] = rng.choice(["ok", "no"])
            messages.append(message)
            if rng.random() < 0.1:
                messages.append(dict(message))
        for n in range(rng.choice([0, 0, 1, 2])):  # the user's next turn after the answers
            said = [m["content"] for m in history if m["role"] == "user"]
            content = rng.choice(said) if said and rng.random() < 0.5 else f"next {run}"
            role = rng.choice(["user", "user", "assistant", "system"])
            turn = {"id": f"turn{run}-{n}", "role": role, "content": content}
            messages.insert(0 if rng.random() < 0.2 else len(messages), turn)
        run_id = f"answer{run}"
        call_id = f"again{run}"
        run_input = {"threadId": "thread", "runId": run_id, "messages": messages}
        events += [
            {"type": "RUN_STARTED", "threadId": "thread", "runId": run_id, "input": run_input},
            {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": "search"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": "{}"},
            {"type": "TOOL_CALL_END", "toolCallId": call_id},
            {"type": "RUN_FINISHED", "threadId": "thread", "runId": run_id},
        ]
    return events


@given(seed=SEEDS)
def test_inputs_of_answers_read_the_same_by_index_as_against_everything_held(seed: int) -> None:
    requires_interpreted("the reducer calls its index natively: it cannot be switched off")
    events = _answering(seed)
    indexed = fold(events)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Reducer, "_restatable", lambda self, messages: None)
        whole = fold(events)
    assert _read(indexed) == _read(whole)


def _thread(runs: int) -> list[Event]:
    """A thread whose every input restates the whole history (ids kept), then asks."""
    events: list[Event] = []
    history: list[dict[str, Any]] = []
    for turn in range(runs):
        history.append({"id": f"u{turn}", "role": "user", "content": f"question {turn}"})
        run_input = {"threadId": "t", "runId": f"r{turn}", "messages": list(history)}
        answer = {"id": f"a{turn}", "role": "assistant", "content": f"answer {turn}"}
        events += [
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{turn}", "input": run_input},
            {"type": "TEXT_MESSAGE_START", "messageId": f"a{turn}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"a{turn}", "delta": f"answer {turn}"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"a{turn}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{turn}"},
        ]
        history.append(answer)
    return events


def test_a_long_threads_inputs_share_their_messages() -> None:
    transcript = fold(_thread(60))
    assert [m.id for m in transcript.messages][-2:] == ["u59", "a59"]
    assert transcript.diagnostics == []
    first = transcript.runs[1].input
    last = transcript.runs[-1].input
    assert first is not None
    assert last is not None
    # The first user turn, restated by every input, is one dict held by all of them.
    assert last["messages"][0] is first["messages"][0]
    # Each input's last message, its new question, still makes a new turn.
    assert all(run.new_turn for run in transcript.runs)


def test_shared_messages_give_one_dict_per_id_and_content() -> None:
    shared = EventIntake().shared

    def read(*contents: str) -> list[Any]:
        messages = [{"id": f"m{n}", "role": "user", "content": c} for n, c in enumerate(contents)]
        normalized = shared.normalize_input({"messages": messages}, frozenset())
        return list(normalized["messages"])

    one = read("hi", "there")
    again = read("hi", "there", "more")
    changed = read("ho", "there")
    assert again[0] is one[0]
    assert again[1] is one[1]
    assert changed[0] is not one[0]
    assert changed[0]["content"] == "ho"
    assert changed[1] is one[1]
    # snake_case keys are renamed as everywhere else; what is not a list is left to the fold.
    snake = shared.normalize_input({"thread_id": "t", "messages": [{}, {}]}, frozenset())
    assert snake == {"threadId": "t", "messages": [{}, {}]}
    assert shared.normalize_input({"messages": "x"}, frozenset()) == {"messages": "x"}


def test_shared_messages_survive_a_message_nested_past_the_recursion_limit() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = {"k": deep}
    shared = SharedMessages(lambda value, keep, depth: value)
    first = shared.normalize_input({"messages": [{"id": "m", "content": deep}, {}]}, frozenset())
    other: Any = "leaf"
    for _ in range(5000):
        other = {"k": other}
    second = shared.normalize_input({"messages": [{"id": "m", "content": other}, {}]}, frozenset())
    assert second["messages"][0] is not first["messages"][0]  # not compared: read anew


def test_the_known_prefix_stops_at_the_first_message_not_read_or_not_held() -> None:
    stated = StatedMessages()
    read = [{"id": f"m{n}", "role": "user", "content": str(n)} for n in range(4)]
    for item in read[:3]:
        stated.note(item, item["id"])
    held = {"m0", "m1", "m2"}
    assert stated.known_prefix(read, held.__contains__) == (3, {"m0", "m1", "m2"})
    assert stated.known_prefix([dict(read[0]), read[1]], held.__contains__) == (2, {"m0", "m1"})
    assert stated.known_prefix([{**read[0], "content": "x"}], held.__contains__) == (0, set())
    assert stated.known_prefix(read, {"m0", "m2"}.__contains__) == (1, {"m0"})
    assert stated.known_prefix(["m0", read[0]], held.__contains__) == (0, set())


def test_the_tail_after_the_stated_messages_only_when_they_come_first() -> None:
    messages = MessageList()
    for name in ("a", "b", "c", "d"):
        messages.append(UserMessage(id=name, content=name))
    assert [m.id for m in messages.tail_after({"a", "b"}) or []] == ["c", "d"]
    assert messages.tail_after({"a", "b", "c", "d"}) == []
    assert messages.tail_after({"a", "c"}) is None  # b, unstated, sits among them
    messages.append(UserMessage(id="a", content="again"))  # a repeated id
    assert messages.tail_after({"a", "b", "c", "d"}) is None


def test_an_input_that_leaves_out_a_held_message_is_reconciled_whole() -> None:
    # The second input restates a and c but not b, then b's words under a new id: b
    # sits among the stated messages, so the input is matched against all that is held,
    # not only against what came after c (where b2, said after c, is new).
    def run(turn: int, messages: list[dict[str, Any]]) -> list[Event]:
        return [
            {
                "type": "RUN_STARTED",
                "threadId": "t",
                "runId": f"r{turn}",
                "input": {"messages": messages},
            },
            {"type": "TEXT_MESSAGE_START", "messageId": f"x{turn}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"x{turn}", "delta": f"answer {turn}"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"x{turn}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{turn}"},
        ]

    a, b, c = ({"id": n, "role": "user", "content": f"say {n}"} for n in "abc")
    answer = {"id": "x0", "role": "assistant", "content": "answer 0"}
    events = run(0, [a, b, c]) + run(
        1, [a, c, {**b, "id": "b2"}, answer, {"id": "d", "role": "user", "content": "more"}]
    )
    skipped = fold(events)
    with pytest.MonkeyPatch.context() as patch:
        _without_skip(patch)
        whole = fold(events)
    assert _read(skipped) == _read(whole)
    assert [m.id for m in skipped.messages] == ["a", "b", "c", "x0", "b2", "d", "x1"]
