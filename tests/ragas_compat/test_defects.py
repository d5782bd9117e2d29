"""The defects of ragas 0.4.3's AG-UI integration (targets document 2.6), fixed.

Each test feeds the stream that shows a defect and asserts the corrected output of the
general adapter (``to_ragas`` on the fold), which keeps none of ragas's quirks; a few go
through the drop-in where the defect is in its API.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from unittest.mock import patch

import pytest
from ragas.dataset_schema import MultiTurnSample
from ragas.messages import AIMessage, HumanMessage, ToolMessage

from agui_transcripts import Diagnostic, fold, read_events
from agui_transcripts import ragas as dropin
from agui_transcripts.adapters.ragas import to_ragas
from tests.streams import (
    MS,
    RE,
    RF,
    RMC,
    RME,
    RMS,
    RS,
    STF,
    STS,
    TCA,
    TCE,
    TCK,
    TCR,
    TCS,
    TMC,
    TME,
    TMK,
    TMS,
    at,
)

Event = dict[str, Any]


def render(
    events: list[Any], policy: Any = "synthesize", **options: Any
) -> list[tuple[str, str, list[tuple[str, Any]]]]:
    """(type, content, [(tool, args)]) per ragas message; validates the conversation."""
    messages = to_ragas(fold(events, **options), policy=policy)
    MultiTurnSample(user_input=messages)
    return [
        (m.type, m.content, [(c.name, c.args) for c in getattr(m, "tool_calls", None) or []])
        for m in messages
    ]


def text(mid: str, content: str, role: Any = ...) -> list[Event]:
    return [TMS(mid, role), TMC(mid, content), TME(mid)]


# -- A: text chunks -------------------------------------------------------------------------


def test_a1_a2_a3_chunk_continuations_join() -> None:
    assert render([TMK("m1", "Hel"), TMK(delta="lo")]) == [("ai", "Hello", [])]
    assert render([TMK("m1", "Hel"), TMK("m1", "lo")]) == [("ai", "Hello", [])]
    assert render([TMK("m1", "Hel", role="assistant"), TMK("m1", "lo", role="assistant")]) == [
        ("ai", "Hello", [])
    ]


def test_a4_a5_missing_role_means_assistant() -> None:
    assert render([TMK("m1", "Hi")]) == [("ai", "Hi", [])]
    assert render([TMS("m1"), TMC("m1", "Hi"), TME("m1")]) == [("ai", "Hi", [])]


def test_a6_opening_chunk_without_delta() -> None:
    assert render([TMK("m1"), TMK(delta="later")]) == [("ai", "later", [])]


def test_a7_user_chunks() -> None:
    assert render([TMK("u1", "What is ", role="user"), TMK(delta="it?")]) == [
        ("human", "What is it?", [])
    ]


# -- B: runs and boundaries -----------------------------------------------------------------


def test_b1_chunked_text_around_a_chunked_call() -> None:
    events = [
        TMK("m1", "Look"),
        TMK(delta="ing up."),
        TCK("c1", "find", "{}", parent="m1"),
        TCR("t1", "c1", "found"),
        TMK("m2", "Fou"),
        TMK(delta="nd it."),
    ]
    assert render(events) == [
        ("ai", "Looking up.", [("find", {})]),
        ("tool", "found", []),
        ("ai", "Found it.", []),
    ]


def test_b2_f4_run_error_keeps_partial_text_and_marks_the_run() -> None:
    transcript = fold(
        [RS(), TMS("m1"), TMC("m1", "partial"), TCS("c1", "f", "m1"), TCA("c1", '{"a"'), RE("boom")]
    )
    # The call never finished its arguments: it is left out, with no result invented (O26).
    messages = to_ragas(transcript)
    assert [m.content for m in messages] == ["partial"]
    assert not messages[0].tool_calls
    assert transcript.runs[0].outcome == "error"


def test_b3_unanswered_frontend_call_stays_on_its_run() -> None:
    events = [
        RS("r1"),
        *text("m1", "Book it?"),
        TCS("c1", "confirm", "m1"),
        TCE("c1"),
        RF("r1"),
        RS("r2"),
        *text("m2", "Done."),
        RF("r2"),
    ]
    rendered = render(events)
    assert rendered[0] == ("ai", "Book it?", [("confirm", {})])
    assert rendered[-1] == ("ai", "Done.", [])


def test_b4_call_with_a_parent_at_run_end_is_kept() -> None:
    messages = to_ragas(fold([RS(), *text("m1", "Sure."), TCS("c1", "f", "m1"), TCE("c1"), RF()]))
    assert dropin.extract_tool_calls(messages)[0].name == "f"


def test_b5_content_for_an_id_left_open_by_run_error_is_reported() -> None:
    transcript = fold(
        [RS("r1"), TMS("m1"), TMC("m1", "a"), RE(), RS("r2"), TMC("m1", "b"), TME("m1"), RF("r2")]
    )
    assert "text-not-active" in [d.code for d in transcript.diagnostics]


def test_s2_run_context_ends_at_the_terminal() -> None:
    messages = to_ragas(fold([RS("r1"), RF("r1"), *text("m1", "late")]), metadata=True)
    assert messages[0].metadata["run_id"] is None


# -- C: tool chunks -------------------------------------------------------------------------


def test_c1_c2_c3_tool_chunk_continuations_assemble() -> None:
    expected = [("ai", "", [("f", {"a": 1})])]
    assert render([RS(), TCK("c1", "f", '{"a":'), TCK(delta="1}"), RF()], policy="keep") == expected
    assert (
        render([RS(), TCK("c1", "f", '{"a":'), TCK("c1", delta="1}"), RF()], policy="keep")
        == expected
    )
    assert (
        render([RS(), TCK("c1", "f", '{"a":'), TCK("c1", "f", "1}"), RF()], policy="keep")
        == expected
    )


def test_c5_an_idless_chunk_naming_another_tool_is_another_call() -> None:
    transcript = fold([TCK("chunk_1", "f", "{}"), TCK(name="g", delta='{"x": 1}')])
    assert [(r.name, r.parsed_arguments) for r in transcript.tool_calls.values()] == [
        ("f", {}),
        ("g", {"x": 1}),
    ]
    assert "chunk-missing-id" in [d.code for d in transcript.diagnostics]


# -- D: attachment and order ----------------------------------------------------------------


def test_d1_result_before_its_call_is_re_anchored() -> None:
    assert render([TCR("t1", "c1", "early"), TCS("c1", "f", "m"), TCE("c1")]) == [
        ("ai", "", [("f", {})]),
        ("tool", "early", []),
    ]


def test_d2_orphan_result_invents_nothing() -> None:
    diagnostics: list[Diagnostic] = []
    messages = to_ragas(fold([*text("m1", "Hi"), TCR("t1", "ghost", "?")]), diagnostics=diagnostics)
    assert [(m.type, m.content) for m in messages] == [("ai", "Hi")]
    assert "orphan-result" in [d.code for d in diagnostics]
    assert all(not getattr(m, "tool_calls", None) for m in messages)


def test_d3_d6_calls_attach_by_parent_id() -> None:
    events = [
        *text("m1", "First."),
        *text("m2", "Second."),
        TCS("c1", "f", "m1"),
        TCE("c1"),
        TCR("t1", "c1", "r"),
    ]
    # The call belongs to m1 (the fold attaches it there), never to m2; rendered after
    # m2's text, it gets a message of its own so nothing sits between it and its result.
    assert fold(events).tool_calls["c1"].message_id == "m1"
    assert render(events) == [
        ("ai", "First.", []),
        ("ai", "Second.", []),
        ("ai", "", [("f", {})]),
        ("tool", "r", []),
    ]


def test_d4_new_user_turn_then_tool_only_turn() -> None:
    events = [
        RS("r1"),
        *text("a1", "Hello."),
        RF("r1"),
        RS("r2"),
        TCS("c1", "f"),
        TCE("c1"),
        TCR("t1", "c1", "r"),
        RF("r2"),
    ]
    inputs = [
        {"threadId": "t", "runId": "r1", "messages": []},
        {
            "threadId": "t",
            "runId": "r2",
            "messages": [{"id": "u2", "role": "user", "content": "Again"}],
        },
    ]
    assert [(t, c) for t, c, _ in render(events, run_input=inputs)] == [
        ("ai", "Hello."),
        ("human", "Again"),
        ("ai", ""),
        ("tool", "r"),
    ]


def test_d5_parallel_calls_keep_start_order() -> None:
    events = [
        TCS("a", "first", "m"),
        TCS("b", "second", "m"),
        TCE("b"),
        TCE("a"),
        TCR("ta", "a"),
        TCR("tb", "b"),
    ]
    assert [n for n, _ in render(events)[0][2]] == ["first", "second"]


def test_d7_a_call_after_results_gets_its_own_message() -> None:
    events = [
        *text("m0", "Earlier reply"),
        TCS("c1", "f", "m1"),
        TCE("c1"),
        TCR("t1", "c1", "r1"),
        TCS("c2", "g", "m1"),
        TCE("c2"),
        TCR("t2", "c2", "r2"),
    ]
    assert render(events) == [
        ("ai", "Earlier reply", []),
        ("ai", "", [("f", {})]),
        ("tool", "r1", []),
        ("ai", "", [("g", {})]),
        ("tool", "r2", []),
    ]


def test_d8_text_open_across_two_tool_rounds() -> None:
    events = [
        TMS("m1"),
        TMC("m1", "One. "),
        TCS("a", "f", "m1"),
        TCE("a"),
        TCR("ta", "a", "ra"),
        TMC("m1", "Two. "),
        TCS("b", "g", "m1"),
        TCE("b"),
        TCR("tb", "b", "rb"),
        TMC("m1", "Three."),
        TME("m1"),
    ]
    assert render(events) == [
        ("ai", "One. ", [("f", {})]),
        ("tool", "ra", []),
        ("ai", "Two. ", [("g", {})]),
        ("tool", "rb", []),
        ("ai", "Three.", []),
    ]


# -- E: snapshots ---------------------------------------------------------------------------

CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "SF"}'},
}


def test_e1_snapshot_tool_only_assistant() -> None:
    assert render([MS({"id": "a", "role": "assistant", "toolCalls": [CALL]})])[0] == (
        "ai",
        "",
        [("get_weather", {"city": "SF"})],
    )


def test_e1b_f3_system_and_developer_are_counted() -> None:
    diagnostics: list[Diagnostic] = []
    to_ragas(
        fold(
            [
                MS({"id": "s", "role": "system", "content": "Be nice."}),
                *text("d", "dev", role="developer"),
            ]
        ),
        diagnostics=diagnostics,
    )
    assert [d.code for d in diagnostics] == ["ragas-dropped", "ragas-dropped"]


def test_e2_e3_s1_snapshots_merge_by_id() -> None:
    events: list[Event] = []
    history: list[dict[str, Any]] = []
    for run in range(1, 4):
        events += [RS(f"r{run}"), *text(f"m{run}", f"answer {run}")]
        history.append({"id": f"m{run}", "role": "assistant", "content": f"answer {run}"})
        events += [MS(*history), RF(f"r{run}")]
    events += [*text("m3", " again")]
    assert [c for _, c, _ in render(events)] == ["answer 1", "answer 2", "answer 3 again"]


def test_e4_multimodal_user_message_becomes_text() -> None:
    user = {
        "id": "u",
        "role": "user",
        "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image", "source": {"type": "url", "value": "https://x/y.png"}},
        ],
    }
    assert render([MS(user)]) == [("human", "What is this?", [])]


def test_e5_snapshot_as_a_wire_dict() -> None:
    assert [
        m.type
        for m in dropin.convert_messages_snapshot(MS({"id": "u", "role": "user", "content": "hi"}))
    ] == ["human"]


# -- F: what ragas ignores ------------------------------------------------------------------


def test_f1_reasoning_is_kept_for_other_targets() -> None:
    transcript = fold([RMS("r"), RMC("r", "hmm"), RME("r"), *text("a", "ok")])
    assert [m.role for m in transcript.messages] == ["reasoning", "assistant"]
    diagnostics: list[Diagnostic] = []
    assert [m.type for m in to_ragas(transcript, diagnostics=diagnostics)] == ["ai"]
    assert [d.code for d in diagnostics] == ["ragas-dropped"]


def test_f2_subagent_calls_stay_with_their_owner() -> None:
    events = [
        at(TCS("c1", "research", "s-msg"), "s1"),
        at(TCE("c1"), "s1"),
        *text("p1", "Parent speaks."),
        at(TCR("t1", "c1", "notes"), "s1"),
    ]
    messages = to_ragas(fold(events), metadata=True)
    assert [(m.type, (m.metadata or {}).get("subagent_run_id")) for m in messages] == [
        ("ai", "s1"),
        ("tool", "s1"),
        ("ai", None),
    ]


def test_f5_r1_result_parts_become_text() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert render([TCS("c1", "f", "m"), TCE("c1"), TCR("t1", "c1", parts)])[1] == (
        "tool",
        "a\nb",
        [],
    )


def test_f6_event_metadata_is_kept() -> None:
    messages = to_ragas(
        fold([TMS("m1", metadata={"trace": 7}), TMC("m1", "x"), TME("m1")]), metadata=True
    )
    assert messages[0].metadata["metadata"] == {"trace": 7}


def test_f7_nested_steps() -> None:
    events = [RS(), STS("outer"), STS("inner"), STF("inner"), *text("m1", "in outer")]
    [message] = dropin.convert_to_ragas_messages(events, metadata=True)
    assert message.metadata["step_name"] == "outer"


# -- G-I: malformed and repeated events -----------------------------------------------------


@pytest.mark.parametrize("raw", ["[1, 2]", '"Paris"', "null", "city=Paris", '{"a": 1'])
def test_g_non_object_arguments_are_wrapped(raw: str) -> None:
    assert render([TCS("c1", "f", "m"), TCA("c1", raw), TCE("c1")])[0][2] == [
        ("f", {"raw_args": raw})
    ]


def test_g6_chunk_delta_that_is_a_list() -> None:
    assert render(
        [{"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": [1]}]
    )[0][2] == [("f", {"raw_args": "[1]"})]


def test_h2_h3_repeated_starts_keep_content() -> None:
    assert render([TMS("m1"), TMC("m1", "Hel"), TMS("m1"), TMC("m1", "lo"), TME("m1")]) == [
        ("ai", "Hello", [])
    ]
    assert render([*text("m1", "Hi"), *text("m1", "Hi")]) == [("ai", "HiHi", [])]


def test_h4_duplicated_result_is_one_message() -> None:
    assert [
        t
        for t, _, _ in render(
            [TCS("c1", "f", "m"), TCE("c1"), TCR("t1", "c1", "x"), TCR("t1", "c1", "x")]
        )
    ] == ["ai", "tool"]


def test_i1_i3_late_content_and_arguments_are_kept_and_diagnosed() -> None:
    transcript = fold(
        [
            RS(),
            TMS("m1"),
            TME("m1"),
            TMC("m1", "late"),
            TCS("c1", "f", "m1"),
            TCE("c1"),
            TCA("c1", "{}"),
            RF(),
        ]
    )
    assert transcript.to_dicts()[0]["content"] == "late"
    assert transcript.tool_calls["c1"].arguments == "{}"
    codes = [d.code for d in transcript.diagnostics]
    assert "text-not-active" in codes
    assert "tool-not-active" in codes


def test_i2_order_by_start_not_end() -> None:
    events = [
        TMS("m1", "user"),
        TMS("m2"),
        TMC("m2", "answer"),
        TME("m2"),
        TMC("m1", "question"),
        TME("m1"),
    ]
    assert [t for t, _, _ in render(events)] == ["human", "ai"]


# -- J-K: intake and the endpoint -----------------------------------------------------------


def test_j1_j4_wire_dicts_and_thinking_events() -> None:
    events = [
        {"type": "THINKING_TEXT_MESSAGE_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hm"},
        {"type": "THINKING_TEXT_MESSAGE_END"},
        *text("m1", "Yes"),
    ]
    transcript = fold(events)
    assert [m.role for m in transcript.messages] == ["reasoning", "assistant"]


def test_k2_k3_sse_without_space_and_multi_line_data() -> None:
    stream = b'data:{"type":"TEXT_MESSAGE_CHUNK",\ndata:"messageId":"m1","delta":"hi"}\n\n'
    assert [m.content for m in to_ragas(fold(read_events(stream)))] == ["hi"]


def test_k8_multi_turn_input_keeps_tool_messages() -> None:
    from ragas.messages import ToolCall

    converted = dropin.convert_messages_to_ag_ui(
        [
            HumanMessage(content="Weather?"),
            AIMessage(content="", tool_calls=[ToolCall(name="w", args={})]),
            ToolMessage(content="sunny"),
        ]
    )
    assert [m.role for m in converted] == ["user", "assistant", "tool"]
    assert converted[2].tool_call_id == converted[1].tool_calls[0].id


def test_l3_bad_reference_calls_are_reported(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        sample = dropin.build_sample("q", [AIMessage(content="a")], reference_tool_calls="not json")
    assert "reference_tool_calls" in caplog.text
    assert sample.response == "a"


def test_r1_result_parts_through_run_ag_ui_row() -> None:
    from ag_ui.core import (
        RunStartedEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
    )

    events: list[Any] = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m"),
        ToolCallEndEvent(tool_call_id="c1"),
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "t1",
            "toolCallId": "c1",
            "content": [{"type": "text", "text": "parts"}],
        },
    ]

    async def fake(*args: Any, **kwargs: Any) -> list[Any]:
        return events

    with patch.object(dropin, "call_ag_ui_endpoint", fake):
        row = asyncio.run(dropin.run_ag_ui_row({"user_input": "go"}, "http://agent"))
    assert row["contexts"] == ["parts"]
    assert row["error"] is None


def test_h1_h5_duplicated_content_and_call_triads() -> None:
    assert render([TMS("m1"), TMC("m1", "Hello"), TMC("m1", "Hello"), TME("m1")]) == [
        ("ai", "HelloHello", [])
    ]
    triad = [TCS("c1", "f", "m"), TCA("c1", "{}"), TCE("c1")]
    assert render([*triad, *triad, TCR("t1", "c1", "r")]) == [
        ("ai", "", [("f", {})]),
        ("tool", "r", []),
    ]


def test_k6_one_bad_event_does_not_orphan_the_rest() -> None:
    stream = (
        b'{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m"}\n'
        b'{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":{"not":"a string"}}\n'
        b'{"type":"TOOL_CALL_END","toolCallId":"c1"}\n'
        b'{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"r"}\n'
    )
    assert render(list(read_events(stream))) == [
        ("ai", "", [("f", {"not": "a string"})]),
        ("tool", "r", []),
    ]
