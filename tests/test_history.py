"""History reconciliation: one conversation, however a producer restates it.

Producers restate the conversation in snapshots and in later runs' inputs, often under
re-minted ids. Each numbered shape below is one way that used to come out wrong. Where
the reference client defines the outcome, the stream is a golden in
``tests/golden/streams/history-*`` (``test_golden`` compares it exactly); where we depart
from the reference on purpose, the stream and the reference's result are in
``tests/golden/deviations/`` and the test states the difference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import Collector, fold
from agui_transcripts.adapters.agui import to_dicts
from agui_transcripts.adapters.chat_turns import to_chat_turns
from agui_transcripts.adapters.langchain import to_langchain
from agui_transcripts.adapters.openai import to_openai
from agui_transcripts.adapters.responses import to_responses
from agui_transcripts.projection import is_synthetic, project
from agui_transcripts.transcript import Transcript

from .checkers import openai_strict
from .streams import MS, RF, RS, TCA, TCE, TCK, TCR, TCS, TMC, TME, TMS
from .test_projection import shape

GOLDEN = Path(__file__).parent / "golden"


def _fold(name: str, **options: Any) -> Transcript:
    folder = "deviations" if name.startswith("deviation-") else "streams"
    stream = GOLDEN / folder / f"{name}.jsonl"
    inputs = stream.with_name(f"{name}.input.json")
    run_input = json.loads(inputs.read_text(encoding="utf-8")) if inputs.exists() else None
    return fold(stream, run_input=run_input, **options)


def _reference(name: str) -> list[dict[str, Any]]:
    path = GOLDEN / "deviations" / f"{name}.expected.json"
    messages: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["messages"]
    return messages


def _codes(transcript: Transcript, code: str) -> list[tuple[str | None, str | None]]:
    return [(d.message_id, d.tool_call_id) for d in transcript.diagnostics if d.code == code]


def _inp(run: str, messages: list[dict[str, Any]], tools: list[str] | None = None) -> Any:
    listed = [{"name": name, "description": name} for name in tools or []]
    return {"threadId": "t", "runId": run, "messages": messages, "tools": listed}


# -- 1. a snapshot that re-mints every id -----------------------------------------------------


def test_1_a_snapshot_reminting_every_id_keeps_the_snapshots_order() -> None:
    transcript = _fold("history-snapshot-remints-every-id", strict=True)
    expected = ['U"Weather in Paris?"', 'A"Let me check"(c1)', "t(c1)", 'A"Sunny in Paris."']
    assert shape(transcript.messages) == expected
    assert shape(transcript.ordered()) == expected
    assert [m.id for m in transcript.ordered()] == ["X1", "X2", "X3", "X4"]
    # Each restated message is reported once, naming the snapshot's id.
    assert _codes(transcript, "snapshot-id-remapped") == [("X1", None), ("X2", None), ("X3", "c1")]
    record = transcript.tool_calls["c1"]
    assert record.result_message_ids == ["X3"]
    assert (record.state, record.arguments) == ("resolved_server", '{"city":"Paris"}')
    assert transcript.continuation().status == "done"


def test_1_snapshots_per_step_keep_the_system_prompt_first() -> None:
    transcript = _fold("history-snapshot-per-step-remints", strict=True)
    # The reference client's list (checked by test_golden) keeps the user turn, which
    # has its id, before the re-minted system prompt; the conversation does not.
    assert [m.role for m in transcript.messages][:2] == ["user", "system"]
    assert shape(transcript.ordered()) == [
        'S"You are a weather bot."',
        'U"Weather in Paris?"',
        'A"Let me check"',
        "A(c1)",
        "t(c1)",
        'A"Sunny in Paris."',
    ]
    remapped = [message_id for message_id, _ in _codes(transcript, "snapshot-id-remapped")]
    assert remapped == ["s1-a", "s1-b", "sys-2", "s2-a", "s2-b", "s2-d"]


def test_1_streamed_reasoning_keeps_its_place_among_restated_messages() -> None:
    transcript = _fold("history-snapshot-remints-around-reasoning", strict=True)
    assert [m.id for m in transcript.messages] == ["r-1", "X1", "X2"]  # the reference's
    assert [m.id for m in transcript.ordered()] == ["X1", "r-1", "X2"]


# -- 2. history echoed under new message ids --------------------------------------------------


def test_2_an_input_restating_history_under_new_ids_adds_only_what_is_new() -> None:
    name = "deviation-history-echo-new-ids"
    transcript = _fold(name)
    reference = _reference(name)
    # The reference adds the re-sent assistant message again; we recognise it.
    assert [m["id"] for m in reference] == ["u1", "a1", "t1", "dump-7", "u2", "a2"]
    assert transcript.to_dicts() == [m for m in reference if m["id"] != "dump-7"]
    assert _codes(transcript, "input-echo") == [("dump-7", None)]
    expected = ['U"Weather?"', 'A"Checking"(c1)', "t(c1)", 'U"Thanks"', 'A"You\'re welcome."']
    assert shape(transcript.ordered()) == expected
    assert list(transcript.tool_calls) == ["c1"]
    assert transcript.continuation().status == "done"


def test_2_echoes_are_recognised_without_the_whole_history() -> None:
    """The input need not start with everything held, under the same ids."""
    run_1 = [RS("r1"), TMS("a1"), TMC("a1", "Hi!"), TME("a1"), TCS("c1", "f", "a1"), TCE("c1")]
    run_1 += [TCR("t1", "c1", "done"), RF("r1")]
    echo = {"id": "x", "role": "assistant", "content": "Hi!", "toolCalls": [_call("c1")]}
    inputs = [
        _inp("r1", [{"id": "u1", "role": "user", "content": "hello"}]),
        _inp("r2", [echo, {"id": "u2", "role": "user", "content": "bye"}]),
    ]
    transcript = fold([*run_1, RS("r2"), RF("r2")], run_input=inputs)
    assert shape(transcript.messages) == ['U"hello"', 'A"Hi!"(c1)', "t(c1)", 'U"bye"']


def test_2_a_turn_repeating_an_earlier_one_is_a_new_turn() -> None:
    """Matching by content alone needs restated history around it."""
    run_1 = [RS("r1"), TMS("a1"), TMC("a1", "Hello"), TME("a1"), RF("r1")]
    inputs = [
        _inp("r1", [{"id": "u1", "role": "user", "content": "hi"}]),
        _inp("r2", [{"id": "u2", "role": "user", "content": "hi"}]),
    ]
    transcript = fold([*run_1, RS("r2"), RF("r2")], run_input=inputs)
    assert shape(transcript.messages) == ['U"hi"', 'A"Hello"', 'U"hi"']
    assert _codes(transcript, "input-echo") == []


def _call(call_id: str, name: str = "f", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# -- 3. delivered results ---------------------------------------------------------------------


def test_3_a_client_result_restated_in_the_next_input_counts_as_delivered() -> None:
    collector = Collector()
    run_1 = [RS("r1", input=_inp("r1", [], ["show_map"])), TCS("c9", "show_map", "a1")]
    for event in [*run_1, TCA("c9", "{}"), TCE("c9"), RF("r1")]:
        collector.feed(event)
    collector.add_client_result("c9", "Map shown")
    assert collector.transcript.continuation().status == "ready_to_continue"
    # The harness sends the result under an id of its own.
    run_input = collector.transcript.next_run_input(run_id="r2")
    for message in run_input["messages"]:
        if message["role"] == "tool":
            message["id"] = "harness-7"
    for event in [RS("r2", input=run_input), TMS("a2"), TMC("a2", "There."), TME("a2")]:
        collector.feed(event)
    assert _codes(collector.transcript, "input-echo") == [("harness-7", "c9")]
    collector.feed(RF("r2"))
    transcript = collector.close()
    continuation = transcript.continuation()
    assert (continuation.status, continuation.undelivered) == ("done", [])
    assert transcript.tool_calls["c9"].delivered
    assert [m.role for m in transcript.messages].count("tool") == 1


# -- 4. a call id reused in a later turn ------------------------------------------------------


def test_4_a_reused_call_id_keeps_each_occurrence_in_its_turn() -> None:
    name = "deviation-call-id-reused-next-turn"
    transcript = _fold(name)
    reference = _reference(name)
    # The reference appends turn 2's arguments to turn 1's call, answered long ago.
    assert reference[1]["toolCalls"][0]["function"]["arguments"] == '{}{"day":2}'
    assert [m["id"] for m in reference] == ["u1", "a1", "t1", "u2"]
    ours = transcript.to_dicts()
    assert [m["id"] for m in ours] == ["u1", "a1", "t1", "u2", "a2"]
    turn_1 = {**reference[1], "toolCalls": [_call("c1", "get_weather")]}
    assert ours[:4] == [reference[0], turn_1, reference[2], reference[3]]
    assert ours[4]["toolCalls"] == [_call("c1", "get_weather", '{"day":2}')]
    assert shape(transcript.ordered()) == [
        'U"Weather?"',
        'A"Checking"(c1)',
        "t(c1)",
        'U"And tomorrow?"',
        "A(c1)",
        "t*(c1)",
    ]


def test_4_the_later_occurrence_is_abandoned_by_a_new_turn_or_answered_by_its_own_result() -> None:
    stream = GOLDEN / "deviations" / "deviation-call-id-reused-next-turn.jsonl"
    events = [json.loads(line) for line in stream.read_text(encoding="utf-8").splitlines()]
    inputs = json.loads(stream.with_name(stream.stem + ".input.json").read_text())
    answered = fold([*events[:-1], TCR("t2", "c1", "rain"), RF("r2")], run_input=inputs)
    assert shape(answered.ordered()) == [
        'U"Weather?"',
        'A"Checking"(c1)',
        "t(c1)",
        'U"And tomorrow?"',
        "A(c1)",
        "t(c1)",
    ]
    assert [m.id for m in answered.ordered()][-1] == "t2"
    turn_3 = _inp("r3", [{"id": "u3", "role": "user", "content": "never mind"}])
    skipped = fold([*events, RS("r3"), RF("r3")], run_input=[*inputs, turn_3])
    record = skipped.tool_calls["c1"]
    assert (record.state, record.abandoned_reason) == (
        "abandoned",
        "a new user turn came without its result",
    )
    assert shape(skipped.ordered())[3:] == ['U"And tomorrow?"', "A(c1)", "t*(c1)", 'U"never mind"']


# -- 5. a call reopened by a chunk ------------------------------------------------------------


def test_5_a_chunked_call_resumed_later_appends_as_the_reference_does() -> None:
    for strict in (False, True):
        transcript = _fold("history-chunk-call-resumed", strict=strict)
        assert transcript.tool_calls["tool-1"].arguments == '{"arg1":"more"}'
        assert transcript.tool_calls["tool-1"].parsed_arguments == {"arg1": "more"}
        codes = {d.code for d in transcript.diagnostics}
        assert not codes & {"tool-call-redeclared", "tool-arguments-invalid"}


def test_5_a_chunked_call_left_unfinished_is_judged_at_the_run_end() -> None:
    transcript = fold([RS(), TCK("c1", "f", '{"a":', parent="m1"), TMS("m2"), TME("m2"), RF()])
    assert _codes(transcript, "tool-arguments-invalid") == [(None, "c1")]


# -- 6. a synthetic result never replaces a real one ------------------------------------------


def test_6_subagent_recording_without_run_input_keeps_every_real_result() -> None:
    name = "deviation-langgraph-subagent-no-input"
    transcript = _fold(name, strict=True)
    ordered = transcript.ordered()
    assert shape(ordered) == [
        'U"Book me a flight"',
        "A(call_task)",
        "t(call_task)",
        "A(call_search)",
        "t(call_search)",
        'A"Found 3 flights"',
        'A"I found 3 flights."',
    ]
    assert not any(is_synthetic(m) for m in ordered)
    assert openai_strict([m.to_dict() for m in ordered]) == []
    # Against the reference: the same messages, but each result the checkpoint re-ids
    # stays right after its call instead of moving behind the final answer.
    reference = _reference(name)
    assert [m["id"] for m in reference] == ["m1", "h-user", "sm1", "sm2", "m3", "ck-1", "ck-2"]
    ours = transcript.to_dicts()
    assert [m["id"] for m in ours] == ["m1", "ck-1", "h-user", "sm1", "ck-2", "sm2", "m3"]
    assert sorted(ours, key=lambda m: m["id"]) == sorted(reference, key=lambda m: m["id"])


def test_6_a_real_result_after_a_later_user_turn_answers_its_call() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "f", "a1"),
            TCE("c1"),
            TMS("u1", "user"),
            TMC("u1", "stop"),
            TME("u1"),
            TCR("t1", "c1", "ok"),
            RF(),
        ]
    )
    projection = project(transcript)
    assert shape(projection.messages) == ["A(c1)", "t(c1)", 'U"stop"']
    assert [(d.code, d.message_id) for d in projection.diagnostics] == [
        ("late-result-anchored", "t1")
    ]


# -- 7. a parallel batch answered call by call ------------------------------------------------


def test_7_a_parallel_batch_answered_call_by_call_stays_whole() -> None:
    collector = Collector(client_tools=["f"])
    for event in [RS(), TCS("a", "f", "m"), TCE("a"), TCS("b", "f", "m"), TCE("b"), RF()]:
        collector.feed(event)
    collector.add_client_result("a", "A")
    collector.add_client_result("b", "B")
    ordered = collector.transcript.ordered()
    assert shape(ordered) == ["A(a,b)", "t(a)", "t(b)"]
    assert ordered[0].id == "m"  # no split, no minted id


# -- 8. a call whose arguments never finished -------------------------------------------------


def test_8_a_call_whose_arguments_never_finished_is_left_out() -> None:
    transcript = fold(
        [
            RS(),
            TMS("m"),
            TMC("m", "Let me"),
            TME("m"),
            TCS("c1", "f", "m"),
            TCA("c1", '{"a":'),
            RF(),
        ]
    )
    assert transcript.tool_calls["c1"].state == "invalid"
    assert [d.code for d in transcript.errors] == ["run-finished-while-open"]
    projection = transcript.project()
    assert shape(projection.messages) == ['A"Let me"']
    assert [(d.code, d.tool_call_id) for d in projection.diagnostics] == [
        ("invalid-call-dropped", "c1")
    ]
    alone = fold([RS(), TCS("c1", "f", "m"), TCA("c1", '{"a":'), RF()])
    assert alone.ordered() == []


# -- 9. subagent turns ------------------------------------------------------------------------


def test_9_subagent_turns_inline_excluded_or_apart() -> None:
    transcript = _fold("deviation-langgraph-subagent-no-input")
    inline = transcript.ordered()
    assert [m.subagent_run_id for m in inline] == [None, None, None, "s1", "s1", "s1", None]
    alone = transcript.ordered(subagents="exclude")
    assert shape(alone) == [
        'U"Book me a flight"',
        "A(call_task)",
        "t(call_task)",
        'A"I found 3 flights."',
    ]
    apart = transcript.ordered(subagents="apart")
    assert shape(apart) == [*shape(alone), "A(call_search)", "t(call_search)", 'A"Found 3 flights"']
    assert [m.subagent_run_id for m in apart][4:] == ["s1", "s1", "s1"]
    assert openai_strict([m.to_dict() for m in apart]) == []
    with pytest.raises(ValueError, match="subagents must be one of"):
        transcript.ordered(subagents="hidden")  # type: ignore[arg-type]


def test_9_a_subagents_untagged_result_belongs_with_its_call() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "search", "m1", subagentRunId="s1"),
            TCE("c1", subagentRunId="s1"),
            TCR("t1", "c1", "found"),
            TMS("m2"),
            TMC("m2", "Done."),
            TME("m2"),
            RF(),
        ]
    )
    assert shape(transcript.ordered(subagents="exclude")) == ['A"Done."']


@pytest.mark.parametrize(
    "adapter",
    [to_openai, to_responses, to_chat_turns, to_langchain, to_dicts],
    ids=lambda adapter: adapter.__name__,
)
def test_9_every_adapter_chooses_where_subagent_turns_go(adapter: Any) -> None:
    transcript = _fold("deviation-langgraph-subagent-no-input")
    options: dict[str, Any] = {"ordered": True} if adapter is to_dicts else {}
    inline = adapter(transcript, **options)
    excluded = adapter(transcript, subagents="exclude", **options)
    apart = adapter(transcript, subagents="apart", **options)
    assert inline != excluded
    assert inline != apart
    subagent_call = '"q":"flights"'
    assert subagent_call in repr(inline)
    assert subagent_call in repr(apart)
    assert subagent_call not in repr(excluded)


def test_9_a_message_list_is_split_by_attribution_too() -> None:
    messages = _fold("deviation-langgraph-subagent-no-input").ordered()
    assert to_openai(messages, subagents="exclude") == to_openai(
        [m for m in messages if m.subagent_run_id is None]
    )


def test_snapshot_result_placed_after_its_call_when_the_snapshot_reids_it() -> None:
    """The old rule kept the streamed place, which put the result first (shape 1)."""
    transcript = fold(
        [
            RS(),
            TCS("c1", "f", "m1"),
            TCE("c1"),
            TCR("c1", "c1", "ok"),
            MS(
                {"id": "m1", "role": "assistant", "toolCalls": [_call("c1")]},
                {"id": "T", "role": "tool", "toolCallId": "c1", "content": "ok"},
            ),
            RF(),
        ]
    )
    assert [m.id for m in transcript.messages] == ["m1", "T"]
