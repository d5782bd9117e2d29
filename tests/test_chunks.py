"""Chunk expansion: rules C1-C24, the scenarios, the seed PR's cases, the Rust tests."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agui_transcripts import ChunkNormalizer, DiagnosticSink, ProtocolError, check, normalize_all
from agui_transcripts.chunks import continuation_name
from tests.streams import (
    AD,
    AS,
    CU,
    MS,
    RAW,
    RE,
    REV,
    RF,
    RMK,
    RS,
    SD,
    SS,
    STS,
    SUF,
    SUS,
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
    short,
)

Event = dict[str, Any]


def expand(*events: Event) -> tuple[list[str], list[str]]:
    """Expanded events (short form) and the diagnostic codes, lenient."""
    sink = DiagnosticSink()
    normalizer = ChunkNormalizer(sink)
    out = [item for event in events for item in normalizer.feed(event)] + normalizer.close()
    return short(out), [d.code for d in sink.diagnostics]


def rejects(*events: Event, match: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(match)):
        normalize_all(list(events), strict=True)


def deltas(events: list[Event], item_id: str) -> str:
    return "".join(
        e["delta"]
        for e in events
        if e["type"].endswith(("CONTENT", "ARGS"))
        and item_id in (e.get("messageId"), e.get("toolCallId"))
    )


# -- opening (C1-C6) -----------------------------------------------------------------------


def test_c1_first_text_chunk_defaults_role_to_assistant() -> None:
    assert expand(TMK("m1", "hi")) == (["TMS m1", "TMC m1 'hi'", "TME m1"], [])
    assert expand(TMK("m1", "hi", role="user", name="ann")) == (
        ["TMS m1 role=user name=ann", "TMC m1 'hi'", "TME m1"],
        [],
    )


def test_c2_reasoning_chunk_role_is_stripped() -> None:
    out, codes = expand(RMK("r1", "think", role="assistant"))
    assert out == ["RMS r1", "RMC r1 'think'", "RME r1"]
    assert codes == ["chunk-role-stripped"]
    events = normalize_all([RMK("r1", "x")])
    assert events[0] == {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}


def test_c3_first_tool_chunk_needs_id_and_name() -> None:
    rejects(TCK(delta="{}"), match="First TOOL_CALL_CHUNK must have a toolCallId")
    rejects(TCK("c1", delta="{}"), match="First TOOL_CALL_CHUNK must have a toolCallName")
    # Lenient: the arguments are kept under an empty name.
    assert expand(TCK("c1", delta='{"q":1}')) == (
        ["TCS c1 ", "TCA c1 '{\"q\":1}'", "TCE c1"],
        ["chunk-missing-name"],
    )


def test_c3_parent_message_id_is_copied_onto_the_start() -> None:
    assert expand(TCK("c1", "search", "{}", parent="m1"))[0] == [
        "TCS c1 search p=m1",
        "TCA c1 '{}'",
        "TCE c1",
    ]


def test_c4_first_chunk_without_id_is_rejected() -> None:
    rejects(TMK(delta="orphan"), match="First TEXT_MESSAGE_CHUNK must have a messageId")
    rejects(RMK(delta="x"), match="First REASONING_MESSAGE_CHUNK must have a messageId")


def test_c4_lenient_keeps_the_text_under_a_minted_id() -> None:
    out, codes = expand(TMK(delta="orphan"), TMK(delta=" text"))
    assert out == [
        "TMS minted-text-1",
        "TMC minted-text-1 'orphan'",
        "TMC minted-text-1 ' text'",
        "TME minted-text-1",
    ]
    assert codes == ["chunk-missing-id"]


def test_c5_order_end_start_content() -> None:
    assert expand(TMK("m1", "a"), TMK("m2", "b"))[0] == [
        "TMS m1",
        "TMC m1 'a'",
        "TME m1",
        "TMS m2",
        "TMC m2 'b'",
        "TME m2",
    ]


def test_c5_payload_without_delta_rides_a_zero_length_content() -> None:
    events = normalize_all(
        [
            TMK("m1", rawEvent={"raw": 1}),
            TMK(metadata={"k": "v"}),
            TMK(delta="x", timestamp=5),
        ]
    )
    assert events == [
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "", "rawEvent": {"raw": 1}},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "", "metadata": {"k": "v"}},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "x", "timestamp": 5},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    ]


def test_c5_opener_metadata_goes_on_the_start() -> None:
    events = normalize_all([TMK("m1", "x", metadata={"a": 1})])
    assert events[0]["metadata"] == {"a": 1}
    assert "metadata" not in events[1]


def test_c5_opener_with_no_delta_opens_and_closes() -> None:
    assert expand(TMK("m1"))[0] == ["TMS m1", "TME m1"]


def test_c6_null_delta_is_malformed() -> None:
    rejects(TMK("m1", None), match="delta: expected string, received null")
    assert expand(TMK("m1", None)) == (["TMS m1", "TME m1"], ["chunk-delta-null"])


def test_c6_non_string_id_is_malformed() -> None:
    out, codes = expand(TMK("m1", "a"), TMK(7, "b"))
    assert out == ["TMS m1", "TMC m1 'a'", "TMC m1 'b'", "TME m1"]
    assert codes == ["chunk-invalid-id"]


# -- continuation and lanes (C7-C10, C22-C24) -----------------------------------------------


def test_c7_idless_chunk_continues_its_lane() -> None:
    assert expand(TMK("m1", "Chunks "), TMK(delta="expand."))[0] == [
        "TMS m1",
        "TMC m1 'Chunks '",
        "TMC m1 'expand.'",
        "TME m1",
    ]


def test_c8_id_open_in_another_lane_continues_there() -> None:
    out, codes = expand(at(TMK("m1", "a"), "s1"), TMK("m1", "b"))
    assert out == ["TMS m1 @s1", "TMC m1 'a' @s1", "TMC m1 'b' @s1", "TME m1 @s1"]
    assert codes == []


def test_c8_tag_naming_another_lane_is_fatal() -> None:
    rejects(
        at(TMK("m1", "a"), "s1"),
        at(TMK("m1", "b"), "s2"),
        match="Cannot continue text message 'm1': chunk subagentRunId 's2' does not match the "
        "open stream's subagent 's1'",
    )
    out, codes = expand(at(TMK("m1", "a"), "s1"), at(TMK("m1", "b"), "s2"))
    assert out == ["TMS m1 @s1", "TMC m1 'a' @s1", "TMC m1 'b' @s2", "TME m1 @s1"]
    assert codes == ["chunk-owner-mismatch"]


def test_c9_other_kind_closes_the_lane() -> None:
    assert expand(TMK("m1", "x"), TCK("c1", "f", "{}"))[0] == [
        "TMS m1",
        "TMC m1 'x'",
        "TME m1",
        "TCS c1 f",
        "TCA c1 '{}'",
        "TCE c1",
    ]


def test_c10_reopening_a_closed_id_starts_a_new_bracket() -> None:
    out, _ = expand(TMK("m1", "a1"), TMK("m2", "b1"), TMK(delta="b2"), TMK("m1", "a2"))
    assert out == [
        "TMS m1",
        "TMC m1 'a1'",
        "TME m1",
        "TMS m2",
        "TMC m2 'b1'",
        "TMC m2 'b2'",
        "TME m2",
        "TMS m1",
        "TMC m1 'a2'",
        "TME m1",
    ]


def test_c22_synthesized_events_carry_the_lane_owner() -> None:
    events = normalize_all([at(TMK("m1", "a"), "s1"), TMK("m1", "b")])
    assert [e.get("subagentRunId") for e in events] == ["s1", "s1", "s1", "s1"]


def test_c24_null_attribution_is_preserved_for_the_verifier() -> None:
    events = normalize_all([at(TMK("m1", "a"), None)])
    assert [e["subagentRunId"] for e in events] == [None, None, None]
    with pytest.raises(ProtocolError, match="'subagentRunId: null'"):
        check([RS(), at(TMK("m1", "a"), None), RF()], strict=True)


# -- repeated fields (C11, C12) ---------------------------------------------------------------


def test_c11_conflicting_role_is_fatal_and_leniently_keeps_the_opener() -> None:
    rejects(
        TMK("msg-1", "a", role="user"),
        TMK("msg-1", "b", role="assistant"),
        match="Cannot continue text message 'msg-1': chunk role 'assistant' does not match "
        "the open stream's role 'user'",
    )
    out, codes = expand(TMK("m1", "a", role="user"), TMK("m1", "b", role="assistant"))
    assert out == ["TMS m1 role=user", "TMC m1 'a'", "TMC m1 'b'", "TME m1"]
    assert codes == ["chunk-field-conflict"]


def test_c11_conflict_with_the_defaulted_role() -> None:
    assert expand(TMK("m1", "a"), TMK("m1", "b", role="assistant"))[1] == []
    rejects(
        TMK("m1", "a"),
        TMK("m1", "b", role="user"),
        match="does not match the open stream's role 'assistant'",
    )


def test_c11_introducing_a_name_or_tool_field_conflicts() -> None:
    rejects(
        TMK("m1", "a"),
        TMK(delta="b", name="bob"),
        match="chunk name 'bob' does not match the open stream's name (absent)",
    )
    rejects(
        TCK("tc-1", "search", "{"),
        TCK("tc-1", "delete", "}"),
        match="Cannot continue tool call 'tc-1': chunk toolCallName 'delete' does not match the "
        "open stream's toolCallName 'search'",
    )
    rejects(
        TCK("c1", "f", "{", parent="msg-1"),
        TCK(delta="}", parent="msg-2"),
        match="chunk parentMessageId 'msg-2' does not match the open stream's "
        "parentMessageId 'msg-1'",
    )


def test_c12_a_new_id_is_an_opener_not_a_conflict() -> None:
    assert expand(TMK("m1", "a", role="user"), TMK("m2", "b", role="assistant")) == (
        ["TMS m1 role=user", "TMC m1 'a'", "TME m1", "TMS m2", "TMC m2 'b'", "TME m2"],
        [],
    )


# -- closing (C13-C21) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "closer",
    [
        TMS("x"),
        TMC("x", "d"),
        TME("x"),
        TCS("c9", "f"),
        TCA("c9", "{}"),
        TCE("c9"),
        TCR("t9", "c9"),
        SS(),
        SD(),
        CU(),
        STS("step"),
        {"type": "STEP_FINISHED", "stepName": "step"},
        {"type": "REASONING_START", "messageId": "r9"},
        {"type": "REASONING_MESSAGE_START", "messageId": "r9", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r9", "delta": "x"},
        {"type": "REASONING_MESSAGE_END", "messageId": "r9"},
        {"type": "REASONING_END", "messageId": "r9"},
    ],
)
def test_c14_closers_end_their_own_lane_first(closer: Event) -> None:
    out, _ = expand(TMK("m1", "a"), at(TMK("m2", "b"), "s1"), closer)
    assert out[:5] == ["TMS m1", "TMC m1 'a'", "TMS m2 @s1", "TMC m2 'b' @s1", "TME m1"]
    assert out[6] == "TME m2 @s1"  # the subagent's lane stays open until the end
    tagged, _ = expand(TMK("m1", "a"), at(TMK("m2", "b"), "s1"), at(closer, "s1"))
    assert tagged[4] == "TME m2 @s1"


@pytest.mark.parametrize(
    "exempt",
    [RAW(), AS("a1", "search", {}), AD("a1", "search", []), REV("message", "m1", "v"), SUS("s9")],
)
def test_c15_exempt_events_close_nothing(exempt: Event) -> None:
    out, codes = expand(TMK("m1", "Half "), exempt, TMK(delta="and half."))
    assert out[:2] == ["TMS m1", "TMC m1 'Half '"]
    assert out[3:] == ["TMC m1 'and half.'", "TME m1"]
    assert codes == []


@pytest.mark.parametrize("boundary", [RS("r2"), RF(), RE(), MS()])
def test_c16_run_events_close_every_lane_in_opening_order(boundary: Event) -> None:
    out, _ = expand(at(TMK("m1", "a"), "s1"), TMK("m2", "b"), boundary)
    assert out[4:6] == ["TME m1 @s1", "TME m2"]
    assert out[6] == short([boundary])[0]


def test_c17_subagent_terminal_closes_its_own_lane() -> None:
    out, codes = expand(
        SUS("s1"),
        at(TMK("m1", "half "), "s1"),
        at(TMK(delta="assembled"), "s1"),
        TMK("m2", "parent"),
        SUF("s1"),
    )
    assert out == [
        "SUS @s1",
        "TMS m1 @s1",
        "TMC m1 'half ' @s1",
        "TMC m1 'assembled' @s1",
        "TMS m2",
        "TMC m2 'parent'",
        "TME m1 @s1",
        "SUF @s1",
        "TME m2",
    ]
    assert codes == []


def test_c17_untagged_terminal_closes_nothing() -> None:
    out, _ = expand(TMK("m1", "a"), {"type": "SUBAGENT_FINISHED"})
    assert out == ["TMS m1", "TMC m1 'a'", "SUF", "TME m1"]


def test_c18_unknown_event_neither_closes_nor_splits() -> None:
    events = [RS(), TMK("m1", "before"), {"type": "FUTURE_EVENT"}, TMK(delta=" and after"), RF()]
    assert short(normalize_all(events)) == [
        "RS",
        "TMS m1",
        "TMC m1 'before'",
        "TMC m1 ' and after'",
        "TME m1",
        "RF",
    ]


def test_c19_explicit_end_of_a_chunked_item_is_not_duplicated() -> None:
    out, codes = expand(TMK("m1", "a"), TME("m1"))
    assert out == ["TMS m1", "TMC m1 'a'", "TME m1"]
    assert codes == ["chunk-spelling-mixed"]
    rejects(TMK("m1", "a"), TMC("m1", "b"), match="No active text message found with ID 'm1'")


def test_c19_chunk_after_explicit_start_is_absorbed() -> None:
    out, codes = expand(TMS("m1"), TMC("m1", "a"), TMK(delta="b"), TMK("m1", "c"), TME("m1"))
    assert out == ["TMS m1", "TMC m1 'a'", "TMC m1 'b'", "TMC m1 'c'", "TME m1"]
    assert codes == ["chunk-missing-id", "chunk-spelling-mixed"]


def test_c20_run_end_closes_chunks_so_run_finished_verifies() -> None:
    assert check([RS(), TMK("m1", "x"), RF()]) == []


def test_c21_close_emits_the_owed_ends() -> None:
    normalizer = ChunkNormalizer()
    normalizer.feed(TMK("m1", "Hel"))
    normalizer.feed(TMK(delta="lo!"))
    normalizer.feed(at(TCK("c1", "f"), "s1"))
    assert short(normalizer.close()) == ["TME m1", "TCE c1 @s1"]
    assert normalizer.close() == []


def test_a_closed_stream_is_held_only_while_it_may_be_continued() -> None:
    """A stream closed hard (its subagent finished, say) leaves nothing behind.

    The layer is idle again (the delta lane asks), and a long run of subagents or
    messages does not grow it; only a call is remembered, for reopening (C12). A soft
    boundary's close is held, so that an id-less chunk continues it.
    """
    normalizer = ChunkNormalizer()
    normalizer.feed(RS())
    for n in range(3):
        lane = f"sub-{n}"
        normalizer.feed(SUS(lane))
        normalizer.feed(at(TMK(f"m{n}", "hi"), lane))
        normalizer.feed(at(TMK(delta="!"), lane))
        assert not normalizer.is_idle()
        normalizer.feed(SUF(lane))
        assert normalizer.is_idle()
    assert normalizer._closed == {}  # texts are never reopened: none is kept
    normalizer.feed(TMK("m9", "a"))
    normalizer.feed(STS("think"))  # a soft boundary: "m9" may go on
    assert not normalizer.is_idle()
    assert "TMC m9 'b'" in short(normalizer.feed(TMK(delta="b")))


# -- the scenarios at chunk level (S01-S13, S36-S39) ------------------------------------------


def test_s01_s02_triad_and_chunks() -> None:
    assert expand(RS(), TMS("m1"), TMC("m1", "Hel"), TMC("m1", "lo"), TME("m1"), RF())[0] == [
        "RS",
        "TMS m1",
        "TMC m1 'Hel'",
        "TMC m1 'lo'",
        "TME m1",
        "RF",
    ]
    assert expand(RS(), TMK("m1", "Chunks "), TMK(delta="expand."), RF())[0] == [
        "RS",
        "TMS m1",
        "TMC m1 'Chunks '",
        "TMC m1 'expand.'",
        "TME m1",
        "RF",
    ]


def test_s03_new_id_closes_and_idless_continues_the_new_one() -> None:
    events = normalize_all([RS(), TMK("m1", "a"), TMK("m2", "b"), TMK(delta="c"), RF()])
    assert (deltas(events, "m1"), deltas(events, "m2")) == ("a", "bc")


def test_s04_reopen_appends() -> None:
    events = normalize_all([TMK("m1", "a1"), TMK("m2", "b1"), TMK(delta="b2"), TMK("m1", "a2")])
    assert (deltas(events, "m1"), deltas(events, "m2")) == ("a1a2", "b1b2")


def test_s05_to_s08_rejections() -> None:
    rejects(RS(), TMK(delta="orphan"), RF(), match="First TEXT_MESSAGE_CHUNK must have a messageId")
    rejects(
        RS(),
        TCK("c1", delta='{"q":1}'),
        RF(),
        match="First TOOL_CALL_CHUNK must have a toolCallName",
    )
    rejects(
        RS(),
        TMK("m1", "a", role="user"),
        TMK("m1", "b", role="assistant"),
        RF(),
        match="does not match the open stream's role",
    )
    assert check([RS(), TMK("m1", "a"), TMK("m1", "b", role="assistant"), RF()]) == []
    rejects(RS(), TMK("m1", "a"), TMK("m1", "b", role="user"), RF(), match="does not match")


def test_s09_identical_repeat_is_accepted() -> None:
    stream = [
        RS(),
        TMS("m1"),
        TMC("m1", "Searching."),
        TME("m1"),
        TCK("c1", "search", '{"q":', parent="m1"),
        TCK("c1", "search", '"agui"}', parent="m1"),
        RF(),
    ]
    assert check(stream) == []
    events = normalize_all(stream)
    assert deltas(events, "c1") == '{"q":"agui"}'


def test_s10_raw_does_not_close() -> None:
    assert check([RS(), TMK("m1", "Half "), RAW(), TMK(delta="and half."), RF()]) == []


def test_s11_custom_closes_and_the_idless_chunk_is_rejected() -> None:
    stream = [RS(), TMK("m1", "Half "), CU(), TMK(delta="and half."), RF()]
    rejects(*stream, match="First TEXT_MESSAGE_CHUNK must have a messageId")
    # Lenient: only a custom event came between, so the producer's message continues.
    out, codes = expand(*stream)
    assert out == [
        "RS",
        "TMS m1",
        "TMC m1 'Half '",
        "TME m1",
        "CU",
        "TMS m1",
        "TMC m1 'and half.'",
        "TME m1",
        "RF",
    ]
    assert codes == ["chunk-missing-id"]


def test_s12_activity_does_not_close() -> None:
    stream = [RS(), TMK("m1", "Half "), AS("a1", "web_search", {"q": "x"}), TMK(delta="done"), RF()]
    assert check(stream) == []
    assert deltas(normalize_all(stream), "m1") == "Half done"


def test_s13_state_between_chunks() -> None:
    with_id = [RS(), TMK("m1", "Hel"), SD(), TMK("m1", "lo"), RF()]
    assert check(with_id) == []
    assert deltas(normalize_all(with_id), "m1") == "Hello"
    without_id = [RS(), TMK("m1", "Hel"), SD(), TMK(delta="lo"), RF()]
    rejects(*without_id, match="First TEXT_MESSAGE_CHUNK must have a messageId")
    events = normalize_all(without_id)
    assert deltas(events, "m1") == "Hello"


def test_s36_parallel_subagents_assemble_in_their_lanes() -> None:
    stream = [
        RS(),
        SUS("s1"),
        SUS("s2"),
        at(TMK("m1", "A "), "s1"),
        at(TMK("m2", "B "), "s2"),
        at(TMK(delta="one"), "s1"),
        at(TMK(delta="two"), "s2"),
        SUF("s1"),
        SUF("s2"),
        RF(),
    ]
    assert check(stream) == []
    events = normalize_all(stream)
    assert (deltas(events, "m1"), deltas(events, "m2")) == ("A one", "B two")


def test_s37_ambiguous_untagged_chunk() -> None:
    stream = [RS(), at(TMK("m1", "A"), "s1"), at(TMK("m2", "B"), "s2"), TMK(delta="?"), RF()]
    rejects(
        *stream,
        match="Ambiguous TEXT_MESSAGE_CHUNK: it carries neither a messageId nor a subagentRunId, "
        "but 2 lanes have an open text message",
    )
    events = normalize_all(stream)  # lenient: the most recently opened stream
    assert (deltas(events, "m1"), deltas(events, "m2")) == ("A", "B?")


def test_s38_untagged_chunk_goes_to_the_parent_lane() -> None:
    stream = [RS(), at(TMK("m1", "theirs "), "s1"), TMK("m2", "mine "), TMK(delta="too"), RF()]
    assert check(stream) == []
    events = normalize_all(stream)
    assert (deltas(events, "m1"), deltas(events, "m2")) == ("theirs ", "mine too")


def test_s39_end_attributed_to_another_subagent() -> None:
    stream = [RS(), at(TCS("c1", "lookup"), "s1"), TCA("c1", "{}"), at(TCE("c1"), "s2"), RF()]
    with pytest.raises(ProtocolError, match="does not match"):
        check(stream, strict=True)
    assert [d.code for d in check(stream)] == ["owner-mismatch"]


# -- the seed PR (ragas #3023): its regressions and its review's boundary table ----------------


def test_seed_continuation_chunks_are_merged() -> None:
    events = normalize_all(
        [
            TMK("msg-1", "The weather ", role="assistant"),
            TMK("msg-1", "in SF is "),
            TMK("msg-1", "sunny, 72F."),
        ]
    )
    assert deltas(events, "msg-1") == "The weather in SF is sunny, 72F."
    assert short(events)[0] == "TMS msg-1"


def test_seed_continuation_without_id_continues_the_open_message() -> None:
    events = normalize_all([TMK("msg-1", "a", role="assistant"), TMK(delta="b"), TMK(delta="c")])
    assert short(events) == [
        "TMS msg-1",
        "TMC msg-1 'a'",
        "TMC msg-1 'b'",
        "TMC msg-1 'c'",
        "TME msg-1",
    ]


def test_seed_continuation_keeps_the_opening_role() -> None:
    events = normalize_all([TMK("msg-1", "a", role="user"), TMK(delta="b")])
    assert short(events)[0] == "TMS msg-1 role=user"
    assert deltas(events, "msg-1") == "ab"


def test_seed_boundary_tool_call_then_result_then_idless_chunk() -> None:
    out, codes = expand(
        TMK("m1", "Checking."),
        TCS("c1", "weather", "m1"),
        TCE("c1"),
        TCR("t1", "c1"),
        TMK(delta="It is sunny."),
    )
    assert out[:3] == ["TMS m1", "TMC m1 'Checking.'", "TME m1"]
    assert out[-3:] == [
        "TMS minted-text-1",
        "TMC minted-text-1 'It is sunny.'",
        "TME minted-text-1",
    ]
    assert codes == ["chunk-missing-id"]


def test_seed_boundary_run_boundary_then_idless_chunk() -> None:
    out, codes = expand(
        RS("r1"), TMK("m1", "run one"), RF("r1"), RS("r2"), TMK(delta="run two"), RF("r2")
    )
    assert "TMC m1 'run two'" not in out
    assert "TMC minted-text-1 'run two'" in out
    assert codes == ["chunk-missing-id"]


def test_seed_boundary_triad_between() -> None:
    out, codes = expand(TMK("m1", "a"), TMS("m2"), TMC("m2", "b"), TME("m2"), TMK(delta="c"))
    assert out[:3] == ["TMS m1", "TMC m1 'a'", "TME m1"]
    assert "TMC m1 'c'" not in out
    assert "TMC minted-text-1 'c'" in out
    assert codes == ["chunk-missing-id"]


def test_seed_boundary_system_chunk_then_roleless_chunk() -> None:
    out, codes = expand(
        TMK("m1", "a", role="assistant"), TMK("s1", "rules", role="system"), TMK(delta=" more")
    )
    assert out == [
        "TMS m1",
        "TMC m1 'a'",
        "TME m1",
        "TMS s1 role=system",
        "TMC s1 'rules'",
        "TMC s1 ' more'",
        "TME s1",
    ]
    assert codes == []


# -- the Rust normalizer's tests (protocol rules section 8.3) ------------------------------


def test_rust_01_never_terminated_stream_is_closed_at_end() -> None:
    events = normalize_all([TMK("m1", "Hel"), TMK(delta="lo!")])
    assert short(events) == ["TMS m1", "TMC m1 'Hel'", "TMC m1 'lo!'", "TME m1"]
    assert deltas(events, "m1") == "Hello!"


def test_rust_02_03_idless_openers_and_nameless_tool_are_errors() -> None:
    rejects(TMK(delta="x"), match="must have a messageId")
    rejects(TCK(name="f", delta="x"), match="must have a toolCallId")
    rejects(TCK("c1", delta="x"), match="must have a toolCallName")


def test_rust_04_chunks_close_each_other() -> None:
    events = normalize_all([TMK("m1", "a1"), TMK("m2", "b1"), TMK(delta="b2"), TMK("m1", "a2")])
    assert [short([e])[0].split()[0] for e in events].count("TMS") == 3
    assert (deltas(events, "m1"), deltas(events, "m2")) == ("a1a2", "b1b2")


def test_rust_05_tool_chunk_closes_text_and_verifies() -> None:
    stream = [RS(), TMK("m1", "Let me look."), TCK("c1", "search", "{}", parent="m1"), RF()]
    assert short(normalize_all(stream))[1:7] == [
        "TMS m1",
        "TMC m1 'Let me look.'",
        "TME m1",
        "TCS c1 search p=m1",
        "TCA c1 '{}'",
        "TCE c1",
    ]
    assert check(stream) == []


def test_rust_06_run_finished_closes_before_itself() -> None:
    assert short(normalize_all([RS(), TMK("m1", "x"), RF()]))[-2:] == ["TME m1", "RF"]


def test_rust_07_explicit_end_after_chunks_is_not_duplicated() -> None:
    events = normalize_all([RS(), TMK("m1", "x"), TME("m1"), RF()])
    assert short(events).count("TME m1") == 1


def test_rust_08_bare_chunk_after_explicit_start_is_absorbed() -> None:
    events = normalize_all([RS(), TMS("m1"), TMC("m1", "a"), TMK(delta="b"), TME("m1"), RF()])
    assert short(events) == ["RS", "TMS m1", "TMC m1 'a'", "TMC m1 'b'", "TME m1", "RF"]


def test_rust_09_state_between_chunks_keeps_one_message() -> None:
    events = normalize_all([TMK("m1", "a"), SS(), TMK(delta="b")])
    assert {e["messageId"] for e in events if "messageId" in e} == {"m1"}
    assert deltas(events, "m1") == "ab"


def test_rust_10_split_and_unsplit_assemble_the_same_text() -> None:
    split = normalize_all([TMK("m1", "Hel"), TMK(delta="lo"), TMK(delta=" world")])
    whole = normalize_all([TMK("m1", "Hello world")])
    assert deltas(split, "m1") == deltas(whole, "m1") == "Hello world"


def test_rust_11_interleaved_messages_and_calls() -> None:
    stream = [
        RS(),
        TMK("m1", "a"),
        TCK("c1", "f", "1"),
        TMK("m2", "b"),
        TCK("c2", "g", "2"),
        TMK("m1", "c"),
        TCK("c1", "f", "3"),
        RF(),
    ]
    kinds = [s.split()[0] for s in short(normalize_all(stream))]
    for start, content, end in (("TMS", "TMC", "TME"), ("TCS", "TCA", "TCE")):
        assert (kinds.count(start), kinds.count(content), kinds.count(end)) == (3, 3, 3)
    assert kinds[-2:] == ["TCE", "RF"]
    assert check(stream) == []


def test_rust_12_raw_and_activity_never_close() -> None:
    out, _ = expand(TMK("m1", "a"), RAW(), AS("x", "t", {}), TMK(delta="b"))
    assert out == ["TMS m1", "TMC m1 'a'", "RAW", "AS x", "TMC m1 'b'", "TME m1"]


def test_rust_13_14_fields_carried_onto_starts() -> None:
    events = normalize_all([TMK("m1", "x", role="user", name="ann"), TCK("c1", "f", parent="m1")])
    assert events[0] == {
        "type": "TEXT_MESSAGE_START",
        "messageId": "m1",
        "role": "user",
        "name": "ann",
    }
    assert events[3] == {
        "type": "TOOL_CALL_START",
        "toolCallId": "c1",
        "toolCallName": "f",
        "parentMessageId": "m1",
    }


def test_rust_15_reasoning_chunks() -> None:
    events = normalize_all([RMK("r1", "Think"), RMK(delta="ing")])
    assert short(events) == ["RMS r1", "RMC r1 'Think'", "RMC r1 'ing'", "RME r1"]


def test_rust_16_deltaless_chunk_opens_and_closes() -> None:
    assert short(normalize_all([TMK("m1")])) == ["TMS m1", "TME m1"]


def test_rust_17_is_open() -> None:
    normalizer = ChunkNormalizer()
    assert not normalizer.is_open()
    normalizer.feed(TMK("m1", "a"))
    normalizer.feed(at(TCK("c1", "f"), "s1"))
    assert normalizer.is_open()
    assert normalizer.is_open("m1")
    assert normalizer.is_open(subagent_run_id="s1")
    assert normalizer.is_open("c1", subagent_run_id="s1")
    assert not normalizer.is_open("c1", subagent_run_id="s2")
    assert normalizer.open_streams() == [("text", "m1", None), ("tool", "c1", "s1")]
    normalizer.feed(RF())
    assert not normalizer.is_open("m1")
    assert not normalizer.is_open(subagent_run_id="s1")


def test_rust_19_20_results_close_their_chunked_calls_first() -> None:
    out, _ = expand(TCK("c1", "f", "{}"), TCR("t1", "c1"))
    assert out == ["TCS c1 f", "TCA c1 '{}'", "TCE c1", "TCR t1-> c1"]
    out, _ = expand(TCK("c1", "f", "{}"), TCK("c2", "g", "{}"), TCR("t1", "c1"), TCR("t2", "c2"))
    assert out == [
        "TCS c1 f",
        "TCA c1 '{}'",
        "TCE c1",
        "TCS c2 g",
        "TCA c2 '{}'",
        "TCE c2",
        "TCR t1-> c1",
        "TCR t2-> c2",
    ]


def test_rust_21_result_closes_a_chunked_message_of_its_owner() -> None:
    assert expand(TMK("m1", "x"), TCR("t1", "c0"))[0] == [
        "TMS m1",
        "TMC m1 'x'",
        "TME m1",
        "TCR t1-> c0",
    ]


def test_rust_22_result_for_an_ended_call_adds_no_end() -> None:
    assert expand(TCS("c1", "f"), TCE("c1"), TCR("t1", "c1"))[0] == [
        "TCS c1 f",
        "TCE c1",
        "TCR t1-> c1",
    ]


def test_rust_23_24_lanes() -> None:
    events = normalize_all(
        [
            at(TMK("m1", "a"), "s1"),
            at(TMK("m2", "b"), "s2"),
            at(TMK(delta="c"), "s1"),
            at(TMK(delta="d"), "s2"),
        ]
    )
    assert (deltas(events, "m1"), deltas(events, "m2")) == ("ac", "bd")
    sole = normalize_all([at(TMK("m1", "a"), "s1"), TMK(delta="b")])
    assert deltas(sole, "m1") == "ab"


def test_rust_25_ambiguous_and_empty_tagged_lane() -> None:
    rejects(at(TMK("m1", "a"), "s1"), at(TMK("m2", "b"), "s2"), TMK(delta="c"), match="Ambiguous")
    rejects(
        at(TMK("m1", "a"), "s1"),
        at(TMK(delta="c"), "s3"),
        match="First TEXT_MESSAGE_CHUNK must have a messageId "
        "(subagent 's3' has no text message open)",
    )


def test_rust_26_subagent_result_closes_only_its_lane() -> None:
    out, _ = expand(
        TMK("m1", "p"), at(TCK("c1", "f", "{}"), "s1"), at(TCR("t1", "c1"), "s1"), TMK(delta="q")
    )
    assert out == [
        "TMS m1",
        "TMC m1 'p'",
        "TCS c1 f @s1",
        "TCA c1 '{}' @s1",
        "TCE c1 @s1",
        "TCR t1-> c1 @s1",
        "TMC m1 'q'",
        "TME m1",
    ]


def test_rust_27_tag_naming_another_owners_open_id() -> None:
    with pytest.raises(ProtocolError, match="does not match the open stream's subagent"):
        check([RS(), at(TMK("m1", "a"), "s1"), at(TMK("m1", "b"), "s2"), RF()], strict=True)


def test_rust_18_the_fold_assembles_raw_chunks_itself() -> None:
    from agui_transcripts import fold

    transcript = fold(
        [RS(), TMK("m1", "Hel"), TMK(delta="lo"), TCK("c1", "f", "{}", parent="m1"), RF()]
    )
    assert transcript.to_dicts() == [
        {
            "id": "m1",
            "role": "assistant",
            "content": "Hello",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    ]


_ABSENT = object()


@pytest.mark.parametrize("chunk_type", ["TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK"])
@pytest.mark.parametrize("item_id", [_ABSENT, "m1", 7, None])
@pytest.mark.parametrize("tag", [_ABSENT, "sub-1", 7, None])
@pytest.mark.parametrize("extra", [0, 1])
def test_a_continuation_is_named_only_when_it_holds_its_delta_and_string_names(
    chunk_type: str, item_id: object, tag: object, extra: int
) -> None:
    """The rule, stated once: a name only for type, delta, and an id and a lane each
    absent or a string, nothing else among the keys that count."""
    id_key = "messageId" if chunk_type == "TEXT_MESSAGE_CHUNK" else "toolCallId"
    event: dict[str, Any] = {"type": chunk_type, "delta": "x"}
    if item_id is not _ABSENT:
        event[id_key] = item_id
    if tag is not _ABSENT:
        event["subagentRunId"] = tag
    if extra:
        event["name"] = "other"  # a key an AG-UI event defines: it counts
    named = (
        not extra
        and (item_id is _ABSENT or isinstance(item_id, str))
        and (tag is _ABSENT or isinstance(tag, str))
    )
    name = continuation_name(event)
    assert (name is not None) == named
    if name is not None and item_id is not _ABSENT and tag is not _ABSENT:
        assert name[1:] == (item_id, tag)
    # Counted keys given apart (keys no event defines left out) read the same.
    assert (continuation_name({**event, "_seq": 1}, size=len(event)) is not None) == named
