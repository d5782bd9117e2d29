"""The reducer's rules (A1-A16), through whole folds: runs, real producers' streams, and
the recoveries beyond the reference client."""

from __future__ import annotations

from typing import Any

import pytest

from agui_transcripts import (
    AssistantMessage,
    fold,
)
from agui_transcripts.model import TextSegment, ToolCall
from tests.streams import (
    CU,
    MS,
    RAW,
    RE,
    REV,
    RF,
    RMC,
    RME,
    RMS,
    RS,
    SD,
    SS,
    TCA,
    TCE,
    TCK,
    TCR,
    TCS,
    TMC,
    TME,
    TMK,
    TMS,
    codes,
    text_open_across_a_result,
    user,
)

# -- runs ------------------------------------------------------------------------------------


def test_run_outcomes() -> None:
    transcript = fold(
        [
            RS("r1"),
            RF("r1", outcome={"type": "cancelled"}),
            RS("r2"),
            TMS("m"),
            TMC("m", "par"),
            RE("boom", code="E42"),
            RS("r3"),
            TCS("c1", "f"),
            TCE("c1"),
            RF(
                "r3",
                outcome={
                    "type": "interrupt",
                    "interrupts": [{"id": "i1", "reason": "ok", "toolCallId": "c1"}],
                },
            ),
            RS("r4"),
            RF("r4", result={"answer": 42}),
            RE("late"),
            RS("r5"),
            TMS("m5"),
        ]
    )
    runs = transcript.runs
    assert [r.outcome for r in runs] == ["cancelled", "error", "interrupt", "error", "truncated"]
    assert (runs[1].error_message, runs[1].error_code) == ("boom", "E42")
    assert runs[2].interrupts == [{"id": "i1", "reason": "ok", "toolCallId": "c1"}]
    assert (runs[3].failed_late, runs[3].result) == (True, {"answer": 42})
    assert transcript.to_dicts()[0] == {"id": "m", "role": "assistant", "content": "par"}


def test_unannounced_runs() -> None:
    transcript = fold([TMS("m1"), TMC("m1", "x"), TME("m1")])
    [run] = transcript.runs
    assert (run.announced, run.outcome) == (False, "truncated")
    assert codes(transcript) == ["first-event-not-run-started", "run-truncated"]


def test_pending_tool_calls_are_derived_when_not_listed() -> None:
    transcript = fold(
        [RS(), TCS("c1", "a"), TCE("c1"), TCS("c2", "b"), TCE("c2"), TCR("t1", "c1"), RF()]
    )
    assert transcript.runs[0].pending_tool_call_ids == ["c2"]


# -- real producers (protocol rules section 7) -----------------------------------------------


def test_q01_empty_parent_text_message() -> None:
    transcript = fold([RS(), TMS("m1"), TME("m1"), TCS("c1", "f", "m1"), TCE("c1"), RF()])
    assert transcript.to_dicts()[0]["content"] == ""
    assert codes(transcript) == ["owner-unknown"]


def test_q02_arguments_after_end_are_kept() -> None:
    transcript = fold(
        [
            RS(),
            TMS("m1"),
            TME("m1"),
            TCS("c1", "a", "m1"),
            TCA("c1", '{"x":'),
            TCE("c1"),
            TCS("c2", "b", "m1"),
            TCA("c1", "1}"),
            TCE("c2"),
            RF(),
        ]
    )
    assert transcript.tool_calls["c1"].arguments == '{"x":1}'
    assert "tool-not-active" in codes(transcript)


def test_q03_placeholder_result_before_run_error() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "f"),
            TCE("c1"),
            TCR("t1", "c1", "Tool execution was interrupted by an error."),
            RE("tool failed"),
        ]
    )
    assert transcript.to_dicts()[1]["content"] == "Tool execution was interrupted by an error."
    assert transcript.runs[0].outcome == "error"


def test_q05_q21_result_in_a_later_run_for_an_earlier_call() -> None:
    interrupt = {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "approve", "toolCallId": "c1"}],
    }
    transcript = fold(
        [
            RS("r1"),
            TMS("m1"),
            TMC("m1", "Shall I?"),
            TME("m1"),
            TCS("c1", "confirm_changes", "m1"),
            TCE("c1"),
            CU("function_approval_request", {"id": "c1"}),
            RF("r1", outcome=interrupt),
            RS("r2"),
            TCR("t1", "c1", "approved"),
            TMS("m2"),
            TMC("m2", "Done."),
            TME("m2"),
            RF("r2"),
        ]
    )
    assert [m.id for m in transcript.messages] == ["m1", "t1", "m2"]
    assert transcript.tool_calls["c1"].result_message_ids == ["t1"]


def test_q06_encrypted_value_on_a_tool_message() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "f"),
            TCE("c1"),
            TCR("t1", "c1", "x"),
            REV("message", "t1", "retry-meta"),
            RF(),
        ]
    )
    assert transcript.to_dicts()[1]["encryptedValue"] == "retry-meta"


def test_q07_history_resent_with_reminted_ids_adds_no_turns() -> None:
    run_inputs = [
        {"threadId": "t", "runId": "r1", "messages": [user("u1", "Hi")]},
        {
            "threadId": "t",
            "runId": "r2",
            "messages": [
                user("h1", "Hi"),
                {"id": "h2", "role": "assistant", "content": "Hello!"},
                user("u2", "Bye"),
            ],
        },
    ]
    transcript = fold(
        [RS("r1"), TMS("m1"), TMC("m1", "Hello!"), TME("m1"), RF("r1"), RS("r2"), RF("r2")],
        run_input=run_inputs,
    )
    assert [m.id for m in transcript.messages] == ["u1", "m1", "u2"]
    assert codes(transcript) == ["input-echo", "input-echo"]


def test_q07_an_input_of_new_turns_only_is_not_an_echo() -> None:
    run_inputs = [
        {"threadId": "t", "runId": "r1", "messages": [user("u1", "Hi")]},
        {"threadId": "t", "runId": "r2", "messages": [user("u2", "Hi")]},
    ]
    transcript = fold([RS("r1"), RF("r1"), RS("r2"), RF("r2")], run_input=run_inputs)
    assert [m.id for m in transcript.messages] == ["u1", "u2"]


def test_q09_raw_events_change_nothing() -> None:
    transcript = fold(
        [
            RS(),
            RAW({"event": "on_chat_model_stream"}),
            TMS("m1", rawEvent={"big": "x"}),
            TMC("m1", "a"),
            RAW(),
            TME("m1"),
            RF(),
        ]
    )
    assert transcript.to_dicts() == [{"id": "m1", "role": "assistant", "content": "a"}]


def test_q10_q35_snapshot_reids_a_streamed_result() -> None:
    transcript = fold(
        [
            RS(),
            TMS("a1"),
            TME("a1"),
            TCS("c1", "search", "a1"),
            TCE("c1"),
            TCR("c1", "c1", "found"),
            TMS("a2"),
            TMC("a2", "Here it is."),
            TME("a2"),
            MS(
                {
                    "id": "a1",
                    "role": "assistant",
                    "content": "",
                    "toolCalls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "search", "arguments": "{}"},
                        }
                    ],
                },
                {"id": "tool-9", "role": "tool", "toolCallId": "c1", "content": "found"},
                {"id": "a2", "role": "assistant", "content": "Here it is."},
            ),
            RF(),
        ]
    )
    assert [m.id for m in transcript.messages] == ["a1", "tool-9", "a2"]
    assert codes(transcript) == ["snapshot-id-remapped"]


def test_q11_q31_results_only_in_a_snapshot() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "f", "a1"),
            TCE("c1"),
            MS(
                {
                    "id": "a1",
                    "role": "assistant",
                    "toolCalls": [
                        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}
                    ],
                },
                {
                    "id": "t1",
                    "role": "tool",
                    "toolCallId": "c1",
                    "content": "Error: boom",
                    "error": "boom",
                },
            ),
            RF(),
        ]
    )
    assert transcript.to_dicts()[1] == {
        "id": "t1",
        "role": "tool",
        "toolCallId": "c1",
        "content": "Error: boom",
        "error": "boom",
    }
    assert transcript.tool_calls["c1"].result_message_ids == ["t1"]


def test_q12_q26_reasoning_survives_a_snapshot_without_it() -> None:
    transcript = fold([RS(), RMS("r1"), RMC("r1", "hmm"), RME("r1"), MS(user("u1", "hi")), RF()])
    assert [m.id for m in transcript.messages] == ["r1", "u1"]


def test_q13_call_replayed_on_resume_is_not_doubled() -> None:
    transcript = fold(
        [
            RS("r1"),
            TCS("c1", "transfer", "a1"),
            TCA("c1", '{"amount": 5}'),
            TCE("c1"),
            RF(
                "r1",
                outcome={
                    "type": "interrupt",
                    "interrupts": [{"id": "i1", "reason": "x", "toolCallId": "c1"}],
                },
            ),
            RS("r2"),
            TCS("c1", "transfer"),
            TCA("c1", '{"amount": '),
            TCA("c1", "5}"),
            TCE("c1"),
            TCR("t1", "c1", "sent"),
            RF("r2"),
        ]
    )
    assert [m.id for m in transcript.messages] == ["a1", "t1"]
    assert transcript.tool_calls["c1"].arguments == '{"amount": 5}'
    assert codes(transcript) == ["tool-call-replayed"]


def test_q13_call_redeclared_with_other_arguments() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "f"),
            TCA("c1", '{"a":1}'),
            TCE("c1"),
            TCS("c1", "f"),
            TCA("c1", '{"a":2}'),
            TCE("c1"),
            RF(),
        ]
    )
    assert transcript.tool_calls["c1"].arguments == '{"a":2}'
    assert codes(transcript) == ["tool-call-redeclared", "owner-unknown"]


def test_q14_model_failure_keeps_the_open_text() -> None:
    transcript = fold([RS(), TMS("m1"), TMC("m1", "The answer is"), RE("model timeout")])
    assert transcript.to_dicts() == [{"id": "m1", "role": "assistant", "content": "The answer is"}]
    assert transcript.runs[0].outcome == "error"
    assert codes(transcript) == []


def test_q17_subagent_messages_appended_by_the_final_snapshot() -> None:
    transcript = fold(
        [
            RS(),
            TMS("m1"),
            TMC("m1", "Delegating."),
            TME("m1"),
            MS(
                {"id": "m1", "role": "assistant", "content": "Delegating."},
                {"id": "s1-m", "role": "assistant", "content": "Sub result", "subagentRunId": "s1"},
            ),
            RF(),
        ]
    )
    assert transcript.to_dicts()[1] == {
        "id": "s1-m",
        "role": "assistant",
        "content": "Sub result",
        "subagentRunId": "s1",
    }


def test_q19_text_held_open_across_a_call_and_its_result() -> None:
    transcript = fold(text_open_across_a_result())
    # The reference client's content, and the arrival order kept for the projection.
    assert transcript.to_dicts()[0]["content"] == "Let me check. It rains."
    message = transcript.messages[0]
    assert isinstance(message, AssistantMessage)
    kinds = [
        (type(s).__name__, s.text if isinstance(s, TextSegment) else s.id) for s in message.segments
    ]
    assert kinds == [
        ("TextSegment", "Let me check. "),
        ("ToolCall", "c1"),
        ("TextSegment", "It rains."),
    ]
    assert isinstance(message.segments[1], ToolCall)


def test_q20_q25_parents_that_never_started() -> None:
    transcript = fold(
        [RS(), TCS("c1", "f", "p1"), TCE("c1"), TCS("c2", "g", "p2"), TCE("c2"), RF()]
    )
    assert [m.id for m in transcript.messages] == ["p1", "p2"]


def test_q22_q28_error_code_and_usage() -> None:
    transcript = fold(
        [RS(), RE("An error occurred", code="AGENT_ERROR", usage=[{"outputTokens": 3}])]
    )
    run = transcript.runs[0]
    assert (run.error_message, run.error_code, run.usage) == (
        "An error occurred",
        "AGENT_ERROR",
        [{"outputTokens": 3}],
    )
    assert transcript.diagnostics == []


def test_usage_as_one_object_is_malformed_but_kept() -> None:
    """AG-UI defines usage as a list of TokenUsage (one per model); an object is not one."""
    transcript = fold([RS(), RF(usage={"inputTokens": 5})])
    assert [d.code for d in transcript.diagnostics] == ["malformed-event"]
    assert "usage" in transcript.diagnostics[0].message
    assert transcript.runs[0].usage == {"inputTokens": 5}


def test_q27_json_encoded_string_result_is_kept_verbatim() -> None:
    transcript = fold(
        [RS(), TCS("c1", "time"), TCE("c1"), TCR("t1", "c1", '"14:05 in Berlin"'), RF()]
    )
    assert transcript.to_dicts()[1]["content"] == '"14:05 in Berlin"'


def test_q32_snapshot_reminting_ids_leaves_no_duplicates() -> None:
    transcript = fold(
        [
            RS(),
            TMK("m1", "Hello"),
            MS(
                {"id": "sys", "role": "system", "content": "Be nice."},
                user("u1", "Hi"),
                {"id": "x1", "role": "assistant", "content": "Hello"},
            ),
            RF(),
        ],
        run_input={"threadId": "t", "runId": "r1", "messages": [user("u1", "Hi")]},
    )
    assert [m.id for m in transcript.messages] == ["u1", "sys", "x1"]


def test_q33_arguments_only_in_raw_event() -> None:
    raw = {
        "event": "on_chat_model_end",
        "data": {
            "output": {"tool_calls": [{"id": "c1", "name": "weather", "args": {"city": "Rome"}}]}
        },
    }
    transcript = fold([RS(), TCS("c1", "weather"), TCE("c1", rawEvent=raw), RF()])
    assert transcript.tool_calls["c1"].parsed_arguments == {"city": "Rome"}
    assert codes(transcript) == ["tool-args-recovered", "owner-unknown"]


def test_q33_arguments_only_in_a_later_snapshot() -> None:
    transcript = fold(
        [
            RS(),
            TCS("c1", "weather", "a1"),
            TCE("c1"),
            MS(
                {
                    "id": "a1",
                    "role": "assistant",
                    "toolCalls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "weather", "arguments": '{"city":"Rome"}'},
                        }
                    ],
                }
            ),
            RF(),
        ]
    )
    assert transcript.tool_calls["c1"].parsed_arguments == {"city": "Rome"}


def test_q34_concatenated_arguments_are_flagged() -> None:
    transcript = fold(
        [RS(), TCS("c1", "search"), TCA("c1", '{"q":"a"}'), TCA("c1", '{"q":"b"}'), TCE("c1"), RF()]
    )
    record = transcript.tool_calls["c1"]
    assert (record.arguments, record.parsed_arguments) == ('{"q":"a"}{"q":"b"}', None)
    assert codes(transcript) == ["tool-arguments-concatenated", "owner-unknown"]


def test_q36_snapshot_message_with_text_and_calls() -> None:
    transcript = fold(
        [
            RS(),
            MS(
                {
                    "id": "a1",
                    "role": "assistant",
                    "content": "Calling.",
                    "toolCalls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                }
            ),
            RF(),
        ]
    )
    assert transcript.tool_calls["c1"].message_id == "a1"
    assert transcript.to_dicts()[0]["content"] == "Calling."


def test_q38_null_name_in_a_snapshot_reads_as_absent() -> None:
    transcript = fold(
        [
            RS(),
            MS({"id": "t1", "role": "tool", "toolCallId": "c0", "content": "x", "name": None}),
            RF(),
        ]
    )
    assert transcript.to_dicts() == [
        {"id": "t1", "role": "tool", "toolCallId": "c0", "content": "x"}
    ]


def test_q39_invalid_json_arguments_are_kept_raw() -> None:
    transcript = fold([RS(), TCS("c1", "f"), TCA("c1", "{not json"), TCE("c1"), RF()])
    record = transcript.tool_calls["c1"]
    assert record.arguments == "{not json"
    assert record.parse_error is not None
    assert codes(transcript) == ["tool-arguments-invalid", "owner-unknown"]


# -- recoveries beyond the reference ----------------------------------------------------------


def test_result_before_its_call_is_moved_after_it() -> None:
    transcript = fold([RS(), TCR("t1", "c1", "early"), TCS("c1", "f", "a1"), TCE("c1"), RF()])
    assert [m.id for m in transcript.messages] == ["a1", "t1"]
    assert codes(transcript) == ["result-before-call"]
    assert transcript.tool_calls["c1"].result_message_ids == ["t1"]


def test_result_whose_call_never_appears_is_kept_and_flagged() -> None:
    transcript = fold([RS(), TMS("m1"), TME("m1"), TCR("t1", "ghost", "?"), RF()])
    assert [m.id for m in transcript.messages] == ["m1", "t1"]
    assert "ghost" not in transcript.tool_calls
    assert codes(transcript) == ["orphan-result"]


def test_an_exact_result_replay_is_not_duplicated() -> None:
    transcript = fold(
        [RS(), TCS("c1", "f"), TCE("c1"), TCR("t1", "c1", "x"), TCR("t1", "c1", "x"), RF()]
    )
    assert [m.id for m in transcript.messages] == ["c1", "t1"]
    assert codes(transcript) == ["result-replayed"]


def test_truncated_stream_keeps_its_content() -> None:
    transcript = fold([RS(), TMK("m1", "partial an"), TCK("c1", "f", '{"a":')])
    assert transcript.to_dicts()[0]["content"] == "partial an"
    assert transcript.tool_calls["c1"].arguments == '{"a":'
    assert transcript.runs[0].outcome == "truncated"
    # A chunked call may resume until the run ends, so its arguments are judged then.
    assert codes(transcript) == ["run-truncated", "tool-arguments-invalid"]


def test_state_patches() -> None:
    transcript = fold(
        [
            RS(),
            SS({"items": ["a"]}),
            SD({"op": "add", "path": "/items/-", "value": "b"}),
            SD({"op": "replace", "path": "/missing/deep", "value": 1}),
            SD({"op": "increment", "path": "/n"}, {"op": "add", "path": "/n", "value": 1}),
            RF(),
        ]
    )
    assert transcript.state == {"items": ["a", "b"], "n": 1}
    assert codes(transcript) == ["patch-failed", "patch-op-dropped"]


def test_diagnostics_raised_while_closing_name_no_event() -> None:
    transcript = fold(
        [
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": "{"},
        ]
    )
    invalid = [d for d in transcript.diagnostics if d.code == "tool-arguments-invalid"]
    assert [d.event_index for d in invalid] == [None]
    assert "event -1" not in str(invalid[0])


def test_a_call_cut_by_a_step_and_continued_is_judged_whole() -> None:
    start = {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"}
    first = {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": '{"a":'}
    step = {"type": "STEP_STARTED", "stepName": "s"}
    rest = {"type": "TOOL_CALL_CHUNK", "delta": " 1}"}
    end = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"}
    continued = fold([start, first, step, rest, end])
    assert continued.tool_calls["c1"].call.arguments == '{"a": 1}'
    assert "tool-arguments-invalid" not in [d.code for d in continued.diagnostics]
    cut = fold([start, first, step, end])
    invalid = [d for d in cut.diagnostics if d.code == "tool-arguments-invalid"]
    assert [d.event_index for d in invalid] == [3]  # judged at the run's end


@pytest.mark.parametrize("parallel", [3, 20], ids=["few-calls", "indexed-calls"])
def test_a_reused_call_id_under_the_same_message_gets_its_own_arguments(parallel: int) -> None:
    """An id answered in run 1 and declared again in run 2 under the same parent message.

    The reference client keeps one call and appends the new arguments to the old ones
    ('{"i": 0}{"again": 1}'); the new occurrence is a call of its own, with its own text.
    """
    events: list[Any] = [RS("r1"), TMS("m1", "assistant"), TME("m1")]
    for i in range(parallel):
        events += [TCS(f"c{i}", "f", "m1"), TCA(f"c{i}", f'{{"i": {i}}}'), TCE(f"c{i}")]
    events += [TCR(f"t{i}", f"c{i}") for i in range(parallel)]
    events += [RF("r1"), RS("r2"), TCS("c0", "f", "m1"), TCA("c0", '{"again": 1}'), TCE("c0")]
    events.append(RF("r2"))
    transcript = fold(events)
    calls = transcript.to_dicts()[0]["toolCalls"]
    assert [c["function"]["arguments"] for c in calls if c["id"] == "c0"] == [
        '{"i": 0}',
        '{"again": 1}',
    ]
    assert "tool-call-id-reused" in [d.code for d in transcript.diagnostics]
