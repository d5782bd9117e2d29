"""Tool ownership and the continuation predicate: scenarios O11-O30 and the seed PR's cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import Collector, Transcript, fold
from tests.streams import RE, RF, RS, TCE, TCR, TCS, TMC, TME, TMS, codes

Event = dict[str, Any]
GOLDEN = Path(__file__).parent / "golden"


def states(transcript: Transcript) -> dict[str, str]:
    return {call_id: record.state for call_id, record in transcript.tool_calls.items()}


def status(transcript: Transcript) -> str:
    return transcript.continuation().status


def run_input(
    run: str,
    messages: list[dict[str, Any]] | None = None,
    tools: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "threadId": "t",
        "runId": run,
        "messages": messages or [],
        "tools": [{"name": name, "description": name} for name in tools or []],
        **extra,
    }


def text(mid: str, content: str) -> list[Event]:
    return [TMS(mid), TMC(mid, content), TME(mid)]


def call(cid: str, name: str, parent: Any = ...) -> list[Event]:
    return [TCS(cid, name, parent), TCE(cid)]


def fed(events: list[Event], **options: Any) -> Collector:
    collector = Collector(**options)
    for event in events:
        collector.feed(event)
    return collector


USER = {"id": "u1", "role": "user", "content": "Go"}


def test_o11_server_answered_call_is_done() -> None:
    transcript = fold(
        [
            RS(),
            *text("1", "I'll check"),
            *call("a", "weather", "1"),
            TCR("ra", "a", "sun"),
            *text("2", "Sunny"),
            RF(),
        ]
    )
    record = transcript.tool_calls["a"]
    assert (record.state, record.owner, record.evidence, record.resolving_run_index) == (
        "resolved_server",
        "server",
        "server_result_same_run",
        0,
    )
    assert status(transcript) == "done"


def test_o12_o13_dependent_calls_and_interleaved_text() -> None:
    o12 = fold(
        [
            RS(),
            *call("a", "f"),
            TCR("ra", "a"),
            *call("b", "g"),
            TCR("rb", "b"),
            *text("3", "done"),
            RF(),
        ]
    )
    assert states(o12) == {"a": "resolved_server", "b": "resolved_server"}
    assert status(o12) == "done"
    o13 = fold([RS(), *call("a", "f", "1"), *text("2", "hmm"), TCR("ra", "a"), RF()])
    assert states(o13) == {"a": "resolved_server"}


def test_o14_client_tool_round_trip() -> None:
    collector = fed(
        [
            RS("r1"),
            *call("a", "confirm"),
            RF("r1", outcome={"type": "success", "pendingToolCallIds": ["a"]}),
        ],
        run_input=[run_input("r1", [USER], ["confirm"])],
    )
    transcript = collector.transcript
    record = transcript.tool_calls["a"]
    assert (record.state, record.owner, record.evidence) == (
        "pending_client",
        "client",
        "client_tools_name",
    )
    assert transcript.continuation().client_calls == ["a"]
    assert transcript.awaiting_client()

    collector.add_client_result("a", "confirmed", message_id="ta")
    transcript = collector.transcript
    assert states(transcript) == {"a": "resolved_client"}
    assert transcript.continuation().undelivered == ["a"]
    assert transcript.needs_continuation()

    next_input = transcript.next_run_input(run_id="r2")
    assert [m["id"] for m in next_input["messages"]] == ["u1", "a", "ta"]
    assert next_input["tools"] == [{"name": "confirm", "description": "confirm"}]

    # The next run carries the result; the agent finishes.
    events = [RS("r1"), *call("a", "confirm"), RF("r1"), RS("r2"), *text("m2", "ok"), RF("r2")]
    done = fold(events, run_input=[run_input("r1", [USER], ["confirm"]), next_input])
    record = done.tool_calls["a"]
    assert (record.state, record.delivered, record.resolving_run_index) == (
        "resolved_client",
        True,
        1,
    )
    assert status(done) == "done"


def test_o15_client_result_appended_after_trailing_text_still_continues() -> None:
    collector = fed(
        [RS(), *call("a", "confirm"), *text("2", "Please confirm"), RF()],
        run_input=[run_input("r1", [], ["confirm"])],
    )
    collector.add_client_result("a", "yes", message_id="ta")
    transcript = collector.transcript
    assert [m.id for m in transcript.messages] == ["a", "ta", "2"]
    assert status(transcript) == "ready_to_continue"


def test_o16_mixed_turn_across_two_runs() -> None:
    inputs = [run_input("r1", [USER], ["get_user_location"])]
    run1 = [
        RS("r1"),
        *call("c1", "get_user_location", "a1"),
        *call("c2", "get_weather", "a1"),
        RF("r1"),
    ]
    after_one = fold(run1, run_input=inputs)
    assert states(after_one) == {"c1": "pending_client", "c2": "pending_server"}
    cont = after_one.continuation()
    assert (cont.status, cont.client_calls, cont.server_pending) == (
        "awaiting_client",
        ["c1"],
        ["c2"],
    )

    history = [m.to_dict() for m in after_one.messages] + [
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "Paris"}
    ]
    inputs.append(run_input("r2", history, ["get_user_location"]))
    after_two = fold(
        [*run1, RS("r2"), TCR("t2", "c2", "sunny"), *text("m2", "Sunny in Paris"), RF("r2")],
        run_input=inputs,
    )
    assert states(after_two) == {"c1": "resolved_client", "c2": "resolved_server_late"}
    assert [m.id for m in after_two.messages] == ["u1", "a1", "t1", "t2", "m2"]
    assert status(after_two) == "done"


def test_o17_unknown_owner_counts_as_client_by_default() -> None:
    transcript = fold(
        [
            RS(),
            *call("c1", "get_user_location"),
            *call("c2", "get_weather"),
            RF(outcome={"type": "success", "pendingToolCallIds": ["c1", "c2"]}),
        ]
    )
    assert states(transcript) == {"c1": "pending_unattributed", "c2": "pending_unattributed"}
    assert transcript.tool_calls["c1"].evidence == "pending_list"
    assert transcript.continuation().client_calls == ["c1", "c2"]
    assert transcript.continuation(unattributed_is_client=False).status == "done"
    assert "owner-unknown" in codes(transcript)


def test_o18_mixed_turn_continues_for_the_client_call_only() -> None:
    collector = fed(
        [
            RS(),
            *call("s1", "search"),
            TCR("rs1", "s1", "shirts"),
            *call("c1", "addToCart"),
            RF(outcome={"type": "success", "pendingToolCallIds": ["c1"]}),
        ],
        run_input=[run_input("r1", [], ["addToCart"])],
    )
    assert states(collector.transcript) == {"s1": "resolved_server", "c1": "pending_client"}
    assert collector.transcript.continuation().client_calls == ["c1"]
    collector.add_client_result("c1", "added", message_id="tc1")
    assert status(collector.transcript) == "ready_to_continue"
    assert collector.transcript.continuation().undelivered == ["c1"]


def test_o19_declared_client_tool_answered_by_the_server() -> None:
    transcript = fold(
        [
            RS(),
            *call("x", "algolia_search"),
            TCR("rx", "x", "[...]"),
            *text("m", "Here are shirts"),
            RF(),
        ],
        run_input=[run_input("r1", [], ["algolia_search"])],
    )
    assert states(transcript) == {"x": "resolved_server"}
    assert transcript.tool_calls["x"].owner == "server"
    assert status(transcript) == "done"
    assert codes(transcript) == ["server-answered-client-tool"]


def test_o20_client_fallback_never_replaces_the_server_result() -> None:
    run1 = [
        RS("r1"),
        *call("x", "algolia_search", "a1"),
        TCR("rx", "x", "[shirts]"),
        *text("m", "Here are shirts"),
        RF("r1"),
    ]
    first = fold(run1, run_input=[run_input("r1", [USER], ["algolia_search"])])
    history = [m.to_dict() for m in first.messages] + [
        {
            "id": "fallback",
            "role": "tool",
            "toolCallId": "x",
            "content": "No tool implemented for algolia_search",
        }
    ]
    transcript = fold(
        [*run1, RS("r2"), RF("r2")],
        run_input=[
            run_input("r1", [USER], ["algolia_search"]),
            run_input("r2", history, ["algolia_search"]),
        ],
    )
    record = transcript.tool_calls["x"]
    assert (record.state, record.result_message_ids) == ("resolved_server", ["rx"])
    assert "client-result-for-server-call" in codes(transcript)
    assert status(transcript) == "done"


def test_o21_a_partly_answered_batch_keeps_awaiting() -> None:
    collector = fed(
        [
            RS(),
            *call("a", "f", "m"),
            *call("b", "g", "m"),
            RF(outcome={"type": "success", "pendingToolCallIds": ["a", "b"]}),
        ],
        run_input=[run_input("r1", [], ["f", "g"])],
    )
    collector.add_client_result("a", "A", message_id="ta")
    assert collector.transcript.continuation().client_calls == ["b"]
    assert status(collector.transcript) == "awaiting_client"
    collector.add_client_result("b", "B", message_id="tb")
    assert status(collector.transcript) == "ready_to_continue"
    assert [m.id for m in collector.transcript.messages] == ["m", "ta", "tb"]


INTERRUPT = {
    "type": "interrupt",
    "interrupts": [{"id": "i1", "reason": "approve", "toolCallId": "a"}],
}


def test_o22_interrupt_resolved_in_the_next_run() -> None:
    run1 = [RS("r1"), *call("a", "send_email", "m"), RF("r1", outcome=INTERRUPT)]
    after_one = fold(run1)
    assert states(after_one) == {"a": "pending_interrupt"}
    cont = after_one.continuation()
    assert (cont.status, cont.interrupts) == ("awaiting_resume", ["i1"])
    with pytest.raises(ValueError, match="not addressed by resume: i1"):
        after_one.next_run_input()
    resumed = after_one.next_run_input(run_id="r2", resume={"i1": "resolved"})
    assert resumed["resume"] == [{"interruptId": "i1", "status": "resolved"}]
    transcript = fold(
        [*run1, RS("r2"), TCR("ra", "a", "sent"), *text("m2", "Sent"), RF("r2")],
        run_input=[run_input("r1"), resumed],
        strict=True,
    )
    assert states(transcript) == {"a": "resolved_server_late"}
    assert status(transcript) == "done"


def test_o23_interrupt_cancelled() -> None:
    inputs = [
        run_input("r1"),
        run_input("r2", resume=[{"interruptId": "i1", "status": "cancelled"}]),
    ]
    transcript = fold(
        [
            RS("r1"),
            *call("a", "send_email", "m"),
            RF("r1", outcome=INTERRUPT),
            RS("r2"),
            *text("m2", "Not sending"),
            RF("r2"),
        ],
        run_input=inputs,
    )
    record = transcript.tool_calls["a"]
    assert (record.state, record.abandoned_reason) == ("abandoned", "interrupt cancelled")
    assert status(transcript) == "done"


def test_o24_new_user_turn_abandons_the_client_call() -> None:
    inputs = [
        run_input("r1", [USER], ["confirm"]),
        run_input("r2", [USER, {"id": "u2", "role": "user", "content": "never mind"}], ["confirm"]),
    ]
    transcript = fold(
        [RS("r1"), *call("a", "confirm"), RF("r1"), RS("r2"), RF("r2")], run_input=inputs
    )
    record = transcript.tool_calls["a"]
    assert (record.state, record.abandoned_reason) == (
        "abandoned",
        "a new user turn came without its result",
    )
    assert status(transcript) == "done"


def test_o25_run_error_abandons_what_is_open() -> None:
    transcript = fold([RS(), *call("a", "f"), *call("b", "g"), TCR("ra", "a"), RE("boom")])
    assert states(transcript) == {"a": "resolved_server", "b": "abandoned"}
    assert transcript.tool_calls["b"].abandoned_reason == "run error"
    assert status(transcript) == "done"


def test_o26_a_call_that_never_ended_is_invalid() -> None:
    transcript = fold(
        [RS(), TCS("a", "f"), {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '{"x":'}, RF()]
    )
    assert states(transcript) == {"a": "invalid"}
    assert "run-finished-while-open" in codes(transcript)
    streaming = fed([RS(), TCS("a", "f")]).transcript
    assert states(streaming) == {"a": "streaming"}


def test_o27_an_input_result_for_an_unknown_call_is_an_orphan() -> None:
    inputs = [
        run_input("r1"),
        run_input("r2", [{"id": "tz", "role": "tool", "toolCallId": "z", "content": "?"}]),
    ]
    transcript = fold([RS("r1"), *text("m", "hi"), RF("r1"), RS("r2"), RF("r2")], run_input=inputs)
    assert "z" not in transcript.tool_calls
    assert "orphan-result" in codes(transcript)
    assert status(transcript) == "done"


def test_o28_result_before_call_still_resolves_the_call() -> None:
    transcript = fold([RS(), TCR("ra", "a", "x"), *call("a", "f", "m"), RF()])
    assert states(transcript) == {"a": "resolved_server"}
    assert "result-before-call" in codes(transcript)


def test_o29_echoed_history_adds_nothing() -> None:
    run1 = [RS("r1"), *call("a", "f", "m"), TCR("ra", "a", "x"), RF("r1")]
    first = fold(run1)
    history = [m.to_dict() for m in first.messages]
    transcript = fold(
        [*run1, RS("r2"), RF("r2")], run_input=[run_input("r1"), run_input("r2", history)]
    )
    assert [m.id for m in transcript.messages] == ["m", "ra"]
    record = transcript.tool_calls["a"]
    assert (record.state, record.result_message_ids) == ("resolved_server", ["ra"])
    assert status(transcript) == "done"


def test_o30_a_reused_call_id_is_a_new_occurrence() -> None:
    inputs = [
        run_input("r1", [USER]),
        run_input("r2", [USER, {"id": "u2", "role": "user", "content": "again"}]),
        run_input(
            "r3",
            [
                USER,
                {"id": "u2", "role": "user", "content": "again"},
                {"id": "u3", "role": "user", "content": "skip"},
            ],
        ),
    ]
    transcript = fold(
        [
            RS("r1"),
            *call("x", "f", "m1"),
            TCR("rx", "x"),
            RF("r1"),
            RS("r2"),
            *call("x", "f", "m2"),
            RF("r2"),
            RS("r3"),
            RF("r3"),
        ],
        run_input=inputs,
    )
    record = transcript.tool_calls["x"]
    assert (record.occurrence, record.message_id, record.state) == (1, "m2", "abandoned")
    assert record.result_message_ids == []
    assert "tool-call-id-reused" in codes(transcript)


# -- the seed PR (instantsearch #7173) ---------------------------------------------------------


def test_seed_server_only_turn_is_done_never_resent() -> None:
    transcript = fold(
        [
            RS(),
            *call("c1", "algolia_search_index"),
            TCR("t1", "c1", "hits"),
            *text("m", "Here you go."),
            RF(),
        ],
        client_tools=["algolia_search_index"],
    )
    assert states(transcript) == {"c1": "resolved_server"}
    assert status(transcript) == "done"
    assert not transcript.needs_continuation()


def test_seed_mixed_turn_awaits_only_the_client_call() -> None:
    collector = fed(
        [
            RS(),
            *call("s", "algolia_search_index"),
            TCR("ts", "s", "hits"),
            *call("c", "addToCart"),
            RF(),
        ],
        client_tools=["addToCart", "algolia_search_index"],
    )
    cont = collector.transcript.continuation()
    assert (cont.status, cont.client_calls) == ("awaiting_client", ["c"])
    collector.add_client_result("c", "added", message_id="tc")
    assert status(collector.transcript) == "ready_to_continue"


def test_seed_client_fallback_for_a_server_answered_call() -> None:
    collector = fed(
        [RS(), *call("s", "search"), TCR("ts", "s", "real output"), RF()], client_tools=["search"]
    )
    assert collector.add_client_result("s", "No tool implemented for search") is None
    transcript = collector.transcript
    assert [m.text for m in transcript.messages][1] == "real output"
    assert len(transcript.messages) == 2
    assert "client-result-for-server-call" in codes(transcript)
    assert status(transcript) == "done"


# -- two-run streams from the reference tool's cases and the conformance corpus ----------------


def test_reference_case_two_requests_frontend_tool() -> None:
    stream = GOLDEN / "reference-cases" / "17-two-requests-frontend-tool.jsonl"
    inputs = json.loads(
        (GOLDEN / "reference-cases" / "17-two-requests-frontend-tool.input.json").read_text()
    )
    transcript = fold(stream, run_input=inputs)
    [record] = transcript.tool_calls.values()
    assert (record.state, record.owner, record.delivered, record.resolving_run_index) == (
        "resolved_client",
        "client",
        True,
        1,
    )
    assert status(transcript) == "done"
    after_first_run = fold(stream, run_input=inputs[:1])
    assert after_first_run.tool_calls[record.id].state == "abandoned"  # run 2 ended unanswered


def test_reference_case_interrupt_outcome() -> None:
    transcript = fold(GOLDEN / "reference-cases" / "10-interrupt-outcome.jsonl")
    assert set(states(transcript).values()) == {"pending_interrupt"}
    assert status(transcript) == "awaiting_resume"


def test_conformance_interrupt_outcome() -> None:
    path = (
        Path(__file__).parent
        / "conformance"
        / "ag-ui-spec"
        / "streams"
        / "run-finished-interrupt-outcome-accepted.json"
    )
    fixture = json.loads(path.read_text())
    transcript = fold(fixture["stream"])
    cont = transcript.continuation()
    assert cont.status == "awaiting_resume"
    assert cont.interrupts == [i["id"] for i in fixture["stream"][-1]["outcome"]["interrupts"]]


def test_scenarios_s21_to_s23() -> None:
    s21 = fold(
        GOLDEN / "streams" / "scenario-S21.jsonl",
        run_input=json.loads((GOLDEN / "streams" / "scenario-S21.input.json").read_text()),
    )
    assert (s21.tool_calls["c1"].state, status(s21)) == ("pending_client", "awaiting_client")
    s22 = fold(GOLDEN / "streams" / "scenario-S22.jsonl")
    assert states(s22) == {"c1": "resolved_server", "c2": "pending_unattributed"}
    assert s22.tool_calls["c2"].evidence == "pending_list"
    s23 = fold(GOLDEN / "streams" / "scenario-S23.jsonl")
    assert (s23.tool_calls["c1"].state, status(s23)) == ("pending_interrupt", "awaiting_resume")
