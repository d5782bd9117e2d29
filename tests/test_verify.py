"""Verification: every V rule, with the reference client's wording in strict mode."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agui_transcripts import DiagnosticSink, ProtocolError, Verifier, check
from tests.streams import (
    AD,
    AS,
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
    RZE,
    RZS,
    SD,
    SS,
    STF,
    STS,
    SUE,
    SUF,
    SUS,
    TCA,
    TCE,
    TCR,
    TCS,
    TMC,
    TME,
    TMK,
    TMS,
    at,
)

Event = dict[str, Any]


def codes(*events: Event) -> list[str]:
    return [d.code for d in check(list(events))]


def rejects(*events: Event, match: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(match)):
        check(list(events), strict=True)


def test_a_clean_run_is_quiet() -> None:
    assert (
        codes(
            RS(),
            STS("plan"),
            TMS("m1"),
            TMC("m1", "hi"),
            TME("m1"),
            TCS("c1", "f", "m1"),
            TCA("c1", "{}"),
            TCE("c1"),
            TCR("t1", "c1"),
            STF("plan"),
            SS({"k": 1}),
            RF(),
        )
        == []
    )


def test_v1_first_event() -> None:
    rejects(TMS("m1"), match="First event must be 'RUN_STARTED'")
    assert codes(TMS("m1"), TME("m1"), RF()) == ["first-event-not-run-started"]
    assert codes(RE("x")) == []


def test_v2_only_a_new_run_after_run_error() -> None:
    rejects(
        RS(),
        RE("boom"),
        TMS("m1"),
        match="Cannot send event type 'TEXT_MESSAGE_START': "
        "The run has already errored with 'RUN_ERROR'",
    )
    assert (
        codes(RS(), RE("first failed"), RS("r2"), TMS("m"), TMC("m", "x"), TME("m"), RF("r2")) == []
    )
    assert codes(RS(), RE(), RE()) == ["event-after-run-error"]


def test_v3_after_run_finished() -> None:
    rejects(
        RS(),
        TMS("m"),
        TME("m"),
        RF(),
        TMS("m2"),
        match="The run has already finished with 'RUN_FINISHED'",
    )
    assert codes(RS(), TMS("m"), TMC("m", "x"), TME("m"), RF(), RE("flush failed")) == [
        "late-run-error"
    ]
    # Lenient: the stray events are read as an unannounced run and checked as one.
    assert codes(RS(), RF(), TMS("m2"), TME("m2")) == ["event-after-run-finished", "run-truncated"]


def test_v4_nested_run_started_and_reset() -> None:
    rejects(RS(), RS("r2"), match="Cannot send 'RUN_STARTED' while a run is still active")
    # A new run resets what was open and who owns what.
    assert (
        codes(
            RS(),
            at(TMS("m1"), "s1"),
            TME("m1"),
            RF(),
            RS("r2"),
            at(TMS("m1"), "s2"),
            TME("m1"),
            RF("r2"),
        )
        == []
    )


def test_v5_null_attribution() -> None:
    rejects(RS(), at(TMS("m1"), None), match="with 'subagentRunId: null'. The field is optional")
    interrupt = {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "x", "subagentRunId": None}],
    }
    rejects(RS(), RF(outcome=interrupt), match="'subagentRunId: null'")
    rejects(RS(), SUS("s1"), SUF("s1", outcome={"type": "paused"}), match="outcome.type")
    rejects(
        RS(),
        SUS("s1"),
        SUF("s1", outcome={"type": "suspended", "interruptIds": [1]}),
        match="interruptIds",
    )


def test_v6_start_of_an_open_message() -> None:
    rejects(RS(), TMS("m"), TMS("m"), match="A text message with ID 'm' is already in progress")
    assert (
        codes(RS(), TMS("m"), TMC("m", "a"), TME("m"), TMS("m"), TMC("m", "b"), TME("m"), RF())
        == []
    )


def test_v7_content_without_start() -> None:
    rejects(RS(), TMC("m9", "x"), RF(), match="No active text message found with ID 'm9'")
    assert codes(RS(), TME("m9"), RF()) == ["text-not-active"]


def test_v8_tool_calls() -> None:
    rejects(
        RS(), TCS("c", "f"), TCS("c", "f"), match="A tool call with ID 'c' is already in progress"
    )
    rejects(RS(), TCA("c", "{}"), match="No active tool call found with ID 'c'")
    # Arguments after END (a pydantic-ai quirk, Q2) are outside the open window.
    assert codes(RS(), TCS("c", "f"), TCA("c", "{"), TCE("c"), TCA("c", "}"), RF()) == [
        "tool-not-active"
    ]


def test_v9_results_are_not_checked_against_calls() -> None:
    assert codes(RS(), TCR("t1", "never-seen"), TCS("c", "f"), TCR("t2", "c"), TCE("c"), RF()) == []


def test_v10_steps() -> None:
    rejects(RS(), STS("n"), STS("n"), match="Step \"n\" is already active for 'STEP_STARTED'")
    rejects(RS(), STF("n"), match="Cannot send 'STEP_FINISHED' for step \"n\" that was not started")
    rejects(
        RS(),
        at(STS("n"), "s1"),
        STF("n"),
        match="that step is open under subagent 's1'. "
        "A step must be finished by whoever started it.",
    )
    assert codes(RS(), STS("n"), at(STS("n"), "s1"), at(STF("n"), "s1"), STF("n"), RF()) == []


def test_v11_reasoning_spans_and_messages_are_separate() -> None:
    assert codes(RS(), RZS("r"), RMS("r"), RMC("r", "x"), RME("r"), RZE("r"), RF()) == []
    rejects(RS(), RZS("r"), RZS("r"), match="A reasoning span with ID 'r' is already in progress")
    rejects(RS(), RZE("r"), match="No active reasoning span found with ID 'r'")
    rejects(RS(), RZS("r"), RMC("r", "x"), match="No active reasoning message found with ID 'r'")
    rejects(
        RS(),
        {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "user"},
        match='expected "reasoning"',
    )


def test_v12_ownership() -> None:
    rejects(
        RS(),
        at(TMS("m"), "s1"),
        at(TMC("m", "x"), "s2"),
        match="Cannot send 'TEXT_MESSAGE_CONTENT': subagentRunId 's2' does not match the text "
        "message 'm' opener's subagent 's1'.",
    )
    # Continuations may omit the tag; owners outlive the close for the rest of the run.
    assert codes(RS(), at(TMS("m"), "s1"), TMC("m", "x"), TME("m"), RF()) == []
    assert codes(RS(), at(TMS("m"), "s1"), TME("m"), at(TMS("m"), "s2"), TME("m"), RF()) == [
        "owner-mismatch"
    ]
    assert codes(RS(), TCS("c", "f"), at(TCE("c"), "s1"), RF()) == ["owner-mismatch"]
    assert codes(RS(), at(RMS("r"), "s1"), at(RME("r"), "s2"), RF()) == ["owner-mismatch"]
    assert codes(RS(), at(AS("a", "t", {}), "s1"), at(AD("a", "t", []), "s2"), RF()) == [
        "owner-mismatch"
    ]
    assert codes(
        RS(), at(TCS("c", "f"), "s1"), TCE("c"), at(REV("tool-call", "c", "v"), "s2"), RF()
    ) == ["owner-mismatch"]


def test_v13_a_call_belongs_to_its_parent_message() -> None:
    rejects(
        RS(),
        at(TMS("m"), "s1"),
        TME("m"),
        at(TCS("c", "f", "m"), "s2"),
        match="A tool call belongs to the message that carries it.",
    )
    # An untagged call inherits the parent's owner.
    assert codes(
        RS(), at(TMS("m"), "s1"), TME("m"), TCS("c", "f", "m"), at(TCE("c"), "s2"), RF()
    ) == ["owner-mismatch"]


@pytest.mark.parametrize(
    ("opened", "noun"),
    [
        ([STS("n")], "steps"),
        ([TMS("m")], "text messages"),
        ([RMS("r")], "reasoning messages"),
        ([RZS("r")], "reasoning spans"),
        ([TCS("c", "f")], "tool calls"),
        ([SUS("s-open")], "subagents"),
    ],
)
def test_v14_run_finished_needs_everything_closed(opened: list[Event], noun: str) -> None:
    rejects(RS(), *opened, RF(), match=f"Cannot send 'RUN_FINISHED' while {noun} are still active")
    # RUN_ERROR abandons everything open.
    assert codes(RS(), *opened, RE()) == []


def test_v14_cancelled_still_requires_closing() -> None:
    rejects(
        RS(),
        TMS("m1"),
        TMC("m1", "partial"),
        RF(outcome={"type": "cancelled"}),
        match="while text messages",
    )
    assert (
        codes(RS(), TMS("m1"), TMC("m1", "partial"), TME("m1"), RF(outcome={"type": "cancelled"}))
        == []
    )


def test_v15_subagents() -> None:
    rejects(RS(), SUS("s1", name=...), match="SUBAGENT_STARTED.name")
    rejects(RS(), SUF("s9"), match="no active subagent found with ID 's9'")
    rejects(RS(), SUE("s9"), match="no active subagent found with ID 's9'")
    rejects(RS(), SUS("s1"), SUE("s1", message=...), match="SUBAGENT_ERROR.message")
    rejects(RS(), SUS("s1"), SUS("s1"), match="already active")
    rejects(RS(), SUS("s1"), SUF("s1"), SUS("s1"), match="already ended in this run")
    rejects(
        RS(), SUS("s2", parentSubagentRunId="s1"), match="parentSubagentRunId 's1' was not started"
    )
    assert (
        codes(RS(), SUS("s1"), SUS("s2", parentSubagentRunId="s1"), SUF("s2"), SUF("s1"), RF())
        == []
    )
    # Attribution without SUBAGENT_STARTED is legal.
    assert codes(RS(), at(TMS("m"), "s-unannounced"), TME("m"), RF()) == []


def test_v16_ownership_is_seeded_from_history() -> None:
    snapshot = MS(
        {
            "id": "m",
            "role": "assistant",
            "content": "",
            "subagentRunId": "s1",
            "toolCalls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    assert codes(RS(), snapshot, at(TCS("c2", "f", "m"), "s2"), TCE("c2"), RF()) == [
        "owner-mismatch"
    ]
    assert codes(RS(), snapshot, at(REV("tool-call", "c", "v"), "s2"), RF()) == ["owner-mismatch"]
    # Input messages seed only ids not yet claimed; snapshots override.
    run_input = {
        "threadId": "t",
        "runId": "r1",
        "messages": [{"id": "m", "role": "assistant", "subagentRunId": "s1"}],
    }
    assert codes(RS(input=run_input), at(TMS("m"), "s2"), TME("m"), RF()) == ["owner-mismatch"]
    assert (
        codes(RS(input=run_input), MS({"id": "m", "role": "assistant"}), TMS("m"), TME("m"), RF())
        == []
    )


def test_v17_state_custom_raw_and_activity_targets_are_not_checked() -> None:
    assert (
        codes(
            RS(),
            at(SD({"op": "add", "path": "/x", "value": 1}), "s1"),
            CU(),
            RAW(),
            AD("nope", "t", []),
            RF(),
        )
        == []
    )


def test_v18_several_runs_and_run_ids() -> None:
    assert (
        codes(RS("r1"), TMS("a"), TME("a"), RF("r1"), RS("r2"), TMS("b"), TME("b"), RF("r2")) == []
    )
    assert codes(RS("r1"), RF("r2")) == ["run-id-mismatch"]


def test_v19_malformed_known_values() -> None:
    rejects(
        RS(),
        TMS("m"),
        TMC("m", 42),
        match="TEXT_MESSAGE_CONTENT.delta: expected string, received number",
    )
    rejects(RS(), {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m"}, match="delta: Required")
    rejects(RS(), TMS("m", role="tool"), match="TEXT_MESSAGE_START.role: invalid value 'tool'")
    rejects(RS(), RF(outcome=[]), match="expected object, received array")
    rejects(
        RS(), RF(outcome={"type": "interrupt", "interrupts": []}), match="at least one interrupt"
    )
    rejects(
        RS(),
        RF(outcome={"type": "success", "pendingToolCallIds": "c1"}),
        match="pendingToolCallIds",
    )
    rejects(
        RS(), TCR("t", "c", content=5), match="content: expected string or array, received number"
    )
    rejects(RS(), TCR("t", "c", role="assistant"), match='expected "tool"')
    rejects(RS(), REV("weird", "m", "v"), match="subtype")
    rejects(
        RS(),
        {"type": "STATE_DELTA", "delta": {}},
        match="STATE_DELTA.delta: expected array, received object",
    )
    rejects(
        RS(), TMS("m", timestamp="yesterday"), match="timestamp: expected number, received string"
    )


def test_v19_unknown_values_are_stripped_with_a_warning() -> None:
    diagnostics = check(
        [RS(), TMS("m", role="narrator"), TME("m"), RF(outcome={"type": "paused"})], strict=True
    )
    assert [(d.code, d.severity) for d in diagnostics] == [
        ("unknown-role", "warning"),
        ("unknown-outcome", "warning"),
    ]


def test_v20_truncation() -> None:
    diagnostics = check([RS(), TMS("m"), TMC("m", "partial")])
    assert [(d.code, d.severity) for d in diagnostics] == [("run-truncated", "warning")]
    assert "text messages m" in diagnostics[0].message
    assert check([RS(), TMK("m1", "x")], strict=True)[0].code == "run-truncated"
    empty = check([])
    assert [(d.code, d.severity) for d in empty] == [("empty-stream", "warning")]
    assert "not a finished conversation" in empty[0].message


def test_an_empty_stream_is_a_warning_even_in_strict_mode() -> None:
    """The reference client accepts an empty stream, so strict mode must not raise."""
    assert [d.code for d in check([], strict=True)] == ["empty-stream"]


def test_w5_protocol_versions() -> None:
    assert codes(RS(protocolVersion="1.0"), RF()) == []
    assert codes(RS(protocolVersion="1.1"), RF()) == []
    newer = check([RS(protocolVersion="1.2"), RF()])
    assert [d.code for d in newer] == ["protocol-version"]
    assert "'1.1'" in newer[0].message
    assert "cannot interpret" in check([RS(protocolVersion="draft"), RF()])[0].message


def test_verifier_is_sans_io_and_reports_event_indices() -> None:
    sink = DiagnosticSink()
    verifier = Verifier(sink)
    for index, event in enumerate([RS(), TMC("m", "x"), RF()]):
        verifier.feed(event, index=index)
    verifier.close()
    assert [(d.code, d.event_index) for d in sink.diagnostics] == [("text-not-active", 1)]
    assert verifier.run_state == "finished"


def test_diagnostic_indices_point_at_the_input_event() -> None:
    # The END synthesized for the chunk is judged at RUN_FINISHED's index.
    diagnostics = check([RS(), at(TMK("m1", "a"), "s1"), SUS("s2"), RF()])
    assert [(d.code, d.event_index) for d in diagnostics] == [("run-finished-while-open", 3)]
