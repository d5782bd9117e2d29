"""The ordered projection: the seed PR's cases, scenarios O01-O10, policies, and the sweep."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import (
    AssistantMessage,
    Message,
    ProjectionError,
    SourceMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    fold,
    is_synthetic,
    messages_from_parts,
)
from tests.builds import requires_interpreted
from tests.checkers import all_problems, anthropic_grouping, openai_strict, ragas_shape
from tests.streams import RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS, text_open_across_a_result

Event = dict[str, Any]


def shape(messages: list[Message]) -> list[str]:
    """A(a,b) for calls, A"x" for text, t(a) for results, t*(a) for synthetic ones."""
    out = []
    for message in messages:
        wire = message.to_dict()
        if wire["role"] == "assistant":
            text = f'"{wire["content"]}"' if wire.get("content") else ""
            calls = ",".join(c["id"] for c in wire.get("toolCalls") or [])
            out.append(f"A{text}({calls})" if calls else f"A{text}")
        elif wire["role"] == "tool":
            out.append(f"t{'*' if is_synthetic(message) else ''}({wire['toolCallId']})")
        else:
            out.append(f'{wire["role"][0].upper()}"{wire.get("content")}"')
    return out


# -- the reverse direction: framework messages with ordered parts (seed PR #8005) -----------


def call(cid: str) -> ToolCallPart:
    return ToolCallPart(cid, "f", "{}")


def result(cid: str) -> ToolResultPart:
    return ToolResultPart(cid, f"r{cid}")


def text(value: str) -> TextPart:
    return TextPart(value)


def split(*messages: list[Any]) -> list[str]:
    sources = [
        SourceMessage(f"m{i + 1}", "assistant", list(parts)) for i, parts in enumerate(messages)
    ]
    projection = messages_from_parts(sources)
    wire = [m.to_dict() for m in projection.messages]
    assert all_problems(wire) == []
    return shape(projection.messages)


def test_seed_call_result_round_trips_in_order() -> None:
    assert split([call("a"), result("a")]) == ["A(a)", "t(a)"]


def test_seed_text_before_a_result_whose_call_is_in_an_earlier_message() -> None:
    assert split([call("a")], [text("lead"), result("a")]) == ["A(a)", "t(a)", 'A"lead"']


def test_seed_interleaved_batches() -> None:
    expected = ["A(a,b)", "t(a)", "t(b)", "A(c)", "t(c)"]
    assert (
        split([call("a"), call("b"), result("a"), call("c"), result("b"), result("c")]) == expected
    )
    assert (
        split([call("a"), call("b"), result("a"), call("c"), result("c"), result("b")]) == expected
    )


def test_seed_parallel_results_and_trailing_summary() -> None:
    assert split([call("a"), call("b"), result("b"), result("a"), text("sum")]) == [
        "A(a,b)",
        "t(b)",
        "t(a)",
        'A"sum"',
    ]


def test_split_ids_keep_the_source_id_first_and_never_suffix_it() -> None:
    projection = messages_from_parts(
        [SourceMessage("m1", "assistant", [call("a"), result("a"), call("b"), result("b")])]
    )
    ids = [m.id for m in projection.messages]
    assert ids[0] == "m1"
    assert len(set(ids)) == 4
    assert not any(i.startswith("m1") for i in ids[1:])
    again = messages_from_parts(
        [SourceMessage("m1", "assistant", [call("a"), result("a"), call("b"), result("b")])]
    )
    assert [m.id for m in again.messages] == ids  # deterministic


def test_user_turn_with_tool_results_first_anthropic_style() -> None:
    sources = [
        SourceMessage("a1", "assistant", [text("Checking."), call("x")]),
        SourceMessage("u1", "user", [ToolResultPart("x", "42"), TextPart("thanks")]),
    ]
    projection = messages_from_parts(sources)
    assert shape(projection.messages) == ['A"Checking."(x)', "t(x)", 'U"thanks"']
    assert [m.id for m in projection.messages][:2] == ["a1", "u1"]


# -- scenarios O01-O10 (ordering-and-ownership section 5) -----------------------------------


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([[call("a"), result("a")]], ["A(a)", "t(a)"]),  # O01
        ([[call("a"), result("a"), text("sum")]], ["A(a)", "t(a)", 'A"sum"']),  # O02
        ([[call("a")], [text("lead"), result("a")]], ["A(a)", "t(a)", 'A"lead"']),  # O03
        (
            [[call("a"), call("b"), result("a"), call("c"), result("b"), result("c")]],
            ["A(a,b)", "t(a)", "t(b)", "A(c)", "t(c)"],
        ),  # O04
        (
            [[call("a"), call("b"), result("a"), call("c"), result("c"), result("b")]],
            ["A(a,b)", "t(a)", "t(b)", "A(c)", "t(c)"],
        ),  # O05
        (
            [[call("a")], [call("c"), result("a"), result("c")]],
            ["A(a)", "t(a)", "A(c)", "t(c)"],
        ),  # O06
        ([[call("a"), call("b"), result("b"), result("a")]], ["A(a,b)", "t(b)", "t(a)"]),  # O07
        (
            [[call("a"), call("b"), result("a"), call("c")], [result("b"), result("c")]],
            ["A(a,b)", "t(a)", "t(b)", "A(c)", "t(c)"],
        ),  # O08
        (
            [[call("a"), call("b"), result("a"), text("x")], [result("b")]],
            ["A(a,b)", "t(a)", "t(b)", 'A"x"'],
        ),  # O09
        ([[call("a")], [text("hmm")], [result("a")]], ["A(a)", "t(a)", 'A"hmm"']),  # O10
    ],
    ids=[f"O{n:02d}" for n in range(1, 11)],
)
def test_scenarios_o01_to_o10(messages: list[list[Any]], expected: list[str]) -> None:
    assert split(*messages) == expected


def test_o12_o13_through_ag_ui_events() -> None:
    dependent = fold(
        [
            RS(),
            TCS("a", "f", "m"),
            TCE("a"),
            TCR("ra", "a"),
            TCS("b", "f", "m"),
            TCE("b"),
            TCR("rb", "b"),
            TMS("3"),
            TMC("3", "done"),
            TME("3"),
            RF(),
        ]
    )
    assert shape(dependent.ordered()) == ["A(a)", "t(a)", "A(b)", "t(b)", 'A"done"']
    other_id = fold(
        [
            RS(),
            TCS("a", "f", "1"),
            TCE("a"),
            TMS("2"),
            TMC("2", "hmm"),
            TME("2"),
            TCR("ra", "a"),
            RF(),
        ]
    )
    assert shape(other_id.ordered()) == ["A(a)", "t(a)", 'A"hmm"']
    lead_in = fold(
        [
            RS(),
            TCS("a", "f", "1"),
            TCE("a"),
            TMS("1"),
            TMC("1", "hmm"),
            TME("1"),
            TCR("ra", "a"),
            RF(),
        ]
    )
    assert shape(lead_in.ordered()) == ['A"hmm"(a)', "t(a)"]


def test_text_held_open_across_a_result_moves_after_it() -> None:
    transcript = fold(text_open_across_a_result())
    ordered = transcript.ordered()
    assert shape(ordered) == ['A"Let me check. "(c1)', "t(c1)", 'A"It rains."']
    assert ordered[0].id == "m1"
    assert ordered[2].id != "m1"
    assert transcript.to_dicts()[0]["content"] == "Let me check. It rains."  # the fold is untouched


# -- unanswered calls and results that are not simple -------------------------------------


PENDING = [
    RS(),
    TMS("m"),
    TMC("m", "Booking."),
    TME("m"),
    TCS("a", "confirm", "m"),
    TCA("a", "{}"),
    TCE("a"),
    RF(),
]


def test_policies_for_a_trailing_open_call() -> None:
    transcript = fold(PENDING, client_tools=["confirm"])
    synthesized = transcript.ordered()
    assert shape(synthesized) == ['A"Booking."(a)', "t*(a)"]
    assert synthesized[1].to_dict()["error"] == "the client has not answered it yet"
    assert openai_strict([m.to_dict() for m in synthesized]) == []
    assert shape(transcript.ordered("trim")) == ['A"Booking."']
    kept = transcript.ordered("keep")
    assert shape(kept) == ['A"Booking."(a)']
    assert openai_strict([m.to_dict() for m in kept], open_end=True) == []
    with pytest.raises(ProjectionError, match="have no result at the end"):
        transcript.ordered("raise")


def test_a_user_turn_closes_open_calls() -> None:
    inputs = [
        {
            "threadId": "t",
            "runId": "r1",
            "messages": [],
            "tools": [{"name": "confirm", "description": ""}],
        },
        {
            "threadId": "t",
            "runId": "r2",
            "messages": [{"id": "u2", "role": "user", "content": "never mind"}],
        },
    ]
    transcript = fold(
        [*PENDING, RS("r2"), TMS("m2"), TMC("m2", "OK."), TME("m2"), RF("r2")], run_input=inputs
    )
    assert shape(transcript.ordered()) == ['A"Booking."(a)', "t*(a)", 'U"never mind"', 'A"OK."']
    assert shape(transcript.ordered("keep")) == [
        'A"Booking."(a)',
        "t*(a)",
        'U"never mind"',
        'A"OK."',
    ]
    with pytest.raises(ProjectionError, match="before a later turn"):
        transcript.ordered("raise")


def test_orphan_duplicate_early_and_late_results() -> None:
    early = fold([RS(), TCR("ra", "a", "x"), TCS("a", "f", "m"), TCE("a"), RF()])
    assert shape(early.ordered()) == ["A(a)", "t(a)"]
    orphan = fold([RS(), TMS("m"), TMC("m", "hi"), TME("m"), TCR("rz", "z", "?"), RF()])
    projection = orphan.project()
    assert shape(projection.messages) == ['A"hi"']
    assert [d.code for d in projection.diagnostics] == ["orphan-result"]
    duplicate = fold(
        [RS(), TCS("a", "f", "m"), TCE("a"), TCR("r1", "a", "x"), TCR("r2", "a", "y"), RF()]
    )
    projection = duplicate.project()
    assert shape(projection.messages) == ["A(a)", "t(a)"]
    assert projection.messages[1].id == "r1"
    assert [d.code for d in projection.diagnostics] == ["duplicate-result"]
    sources = [
        SourceMessage("a1", "assistant", [call("a")]),
        SourceMessage("u1", "user", [text("skip it")]),
        SourceMessage("a2", "assistant", [result("a")]),
    ]
    # A real result that comes after a later turn answers its call there: a synthetic
    # result never stands in for a real one (I7, issue 16).
    late = messages_from_parts(sources)
    assert shape(late.messages) == ["A(a)", "t(a)", 'U"skip it"']
    assert [d.code for d in late.diagnostics] == ["late-result-anchored"]


def test_synthetic_results_never_count_as_real() -> None:
    transcript = fold(PENDING, client_tools=["confirm"])
    ordered = transcript.ordered()
    real = [m for m in ordered if m.role == "tool" and not is_synthetic(m)]
    assert real == []
    assert transcript.tool_calls["a"].results == []


def _inputs(*runs: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"threadId": "t", "runId": run, "messages": messages} for run, messages in runs]


NEXT_TURN = [{"id": "u2", "role": "user", "content": "next"}]
SECOND_RUN = [RS("r2"), TMS("m2"), TMC("m2", "ok"), TME("m2"), RF("r2")]


@pytest.mark.parametrize(
    ("events", "run_input", "subagents", "expected"),
    [
        pytest.param(
            [
                RS(),
                TCS("a", "f", "m1"),
                TCE("a"),
                TCR("t1", "a"),
                RF(),
                RS("r2"),
                TCS("a", "f", "m2"),
                TCE("a"),
                RF("r2"),
            ],
            None,
            "inline",
            ["A(a)", "t(a)", "A(a)", "t*(a)"],
            id="a-reused-id-unanswered-the-second-time",
        ),
        pytest.param(
            [
                RS(),
                TCS("a", "f", "m1"),
                TCE("a"),
                TCS("b", "f", "m1"),
                TCE("b"),
                TCR("tb", "b"),
                RF(),
                *SECOND_RUN,
            ],
            _inputs(("r1", []), ("r2", NEXT_TURN)),
            "inline",
            ["A(a,b)", "t(b)", "t*(a)", 'U"next"', 'A"ok"'],
            id="one-of-two-parallel-calls-before-a-later-turn",
        ),
        pytest.param(
            [
                RS(),
                TMS("m0"),
                TMC("m0", "top"),
                TME("m0"),
                TCS("s", "f", "ms", subagentRunId="sub"),
                TCE("s", subagentRunId="sub"),
                RF(),
            ],
            None,
            "apart",
            ['A"top"', "A(s)", "t*(s)"],
            id="a-subagent-call-kept-apart",
        ),
        pytest.param(
            [
                RS(),
                TCS("a", "f", "m1"),
                TCE("a"),
                RF(),
                *SECOND_RUN[:-1],
                TCR("late", "a"),
                RF("r2"),
            ],
            _inputs(("r1", []), ("r2", NEXT_TURN)),
            "inline",
            ["A(a)", "t(a)", 'U"next"', 'A"ok"'],
            id="a-late-real-result-answers-instead",
        ),
    ],
)
def test_a_synthetic_result_is_never_dropped(
    events: list[Event], run_input: Any, subagents: Any, expected: list[str]
) -> None:
    """Every call the output keeps has exactly one answer, right after its batch.

    Its real result when the conversation has one anywhere, else a synthetic one, which
    stays whatever follows: a reused id, a later turn, a subagent's own part.
    """
    ordered = fold(events, run_input=run_input).ordered(subagents=subagents)
    assert shape(ordered) == expected
    assert all_problems([m.to_dict() for m in ordered]) == []
    calls = [c.id for m in ordered if isinstance(m, AssistantMessage) for c in m.tool_calls or ()]
    answers = [m.tool_call_id for m in ordered if isinstance(m, ToolMessage)]
    assert sorted(answers) == sorted(calls)  # one answer per call


def test_a_late_result_answers_the_first_of_two_calls_sharing_an_id() -> None:
    """Framework messages reuse an id: the one real answer goes to the call it follows
    first (I7), and the later call, left without one, keeps its synthetic answer."""
    projection = messages_from_parts(
        [
            SourceMessage("a1", "assistant", [call("a")]),
            SourceMessage("u1", "user", [text("try again")]),
            SourceMessage("a2", "assistant", [call("a")]),
            SourceMessage("a3", "assistant", [result("a")]),
        ]
    )
    assert shape(projection.messages) == ["A(a)", "t(a)", 'U"try again"', "A(a)", "t*(a)"]
    assert [d.code for d in projection.diagnostics] == ["late-result-anchored"]


# -- the exhaustive sweep -----------------------------------------------------------------


def orderings(n: int) -> Iterator[tuple[str, ...]]:
    """Every sequence of n calls (c1..cn) and their results (r1..rn), each result after its call."""

    def extend(
        prefix: tuple[str, ...], called: frozenset[int], answered: frozenset[int]
    ) -> Iterator[tuple[str, ...]]:
        if len(answered) == n:
            yield prefix
            return
        for k in range(1, n + 1):
            if k not in called:
                yield from extend((*prefix, f"c{k}"), called | {k}, answered)
            elif k not in answered:
                yield from extend((*prefix, f"r{k}"), called, answered | {k})

    return extend((), frozenset(), frozenset())


def with_text(sequence: tuple[str, ...], allow_text: bool) -> Iterator[tuple[str, ...]]:
    yield sequence
    if allow_text:
        for position in range(len(sequence) + 1):
            yield (*sequence[:position], "x", *sequence[position:])


def events_for(messages: list[tuple[str, ...]], run_cut: bool) -> list[Event]:
    events: list[Event] = [RS("r1")]
    for number, items in enumerate(messages, start=1):
        if number == 2 and run_cut:
            events += [RF("r1"), RS("r2")]
        key = f"m{number}"
        for item in items:
            if item == "x":
                events += [TMS(key), TMC(key, "note"), TME(key)]
            elif item.startswith("c"):
                events += [TCS(item, "f", key), TCA(item, "{}"), TCE(item)]
            else:
                events.append(TCR(f"t{item[1:]}", f"c{item[1:]}", f"result {item[1:]}"))
    events.append(RF("r2" if run_cut and len(messages) > 1 else "r1"))
    return events


def parts_for(items: tuple[str, ...]) -> list[Any]:
    parts: list[Any] = []
    for item in items:
        if item == "x":
            parts.append(TextPart("note"))
        elif item.startswith("c"):
            parts.append(ToolCallPart(item, "f", "{}"))
        else:
            parts.append(ToolResultPart(f"c{item[1:]}", f"result {item[1:]}"))
    return parts


def check_output(messages: list[Message], sequence: tuple[str, ...]) -> None:
    wire = [m.to_dict() for m in messages]
    problems = all_problems(wire)
    assert problems == [], (sequence, problems, wire)
    real = [
        w
        for m, w in zip(messages, wire, strict=True)
        if w["role"] == "tool" and not is_synthetic(m)
    ]
    expected = sorted(f"result {s[1:]}" for s in sequence if s.startswith("r"))
    assert sorted(w["content"] for w in real) == expected, (sequence, wire)
    assert len(real) == len(expected)
    texts = [str(w["content"]) for w in wire if w["role"] == "assistant" and w.get("content")]
    assert "".join(texts) == "note" * sequence.count("x"), (sequence, wire)


def sweep_cases() -> Iterator[tuple[tuple[str, ...], int]]:
    for n in range(1, 5):
        for base in orderings(n):
            for sequence in with_text(base, allow_text=n < 4):
                for cut in range(len(sequence)):
                    yield sequence, cut


@pytest.mark.slow
def test_the_exhaustive_sweep_both_directions() -> None:
    checked = 0
    for sequence, cut in sweep_cases():
        messages = [sequence[:cut], sequence[cut:]] if cut else [sequence]
        projection = messages_from_parts(
            [
                SourceMessage(f"m{i + 1}", "assistant", parts_for(items))
                for i, items in enumerate(messages)
            ]
        )
        check_output(projection.messages, sequence)
        checked += 1
        for run_cut in (False, True) if cut else (False,):
            transcript = fold(events_for(messages, run_cut))
            check_output(transcript.ordered(), sequence)
            checked += 1
    assert checked > 60_000, checked


def test_the_sweep_counts() -> None:
    assert [sum(1 for _ in orderings(n)) for n in range(1, 5)] == [1, 6, 90, 2520]


def test_checkers_catch_what_consumers_reject() -> None:
    call_a = {
        "id": "a",
        "role": "assistant",
        "toolCalls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": ""}}],
    }
    tool_a = {"id": "t", "role": "tool", "toolCallId": "a", "content": "x"}
    text = {"id": "x", "role": "assistant", "content": "hmm"}
    assert openai_strict([tool_a, call_a]) != []
    assert openai_strict([call_a, text, tool_a]) != []
    assert openai_strict([call_a]) != []
    assert openai_strict([call_a, tool_a, tool_a]) != []
    assert anthropic_grouping([call_a, {"id": "u", "role": "user", "content": "hi"}]) != []
    assert anthropic_grouping([call_a, tool_a, text]) == []
    assert ragas_shape([call_a, text, tool_a]) != []
    assert ragas_shape([tool_a]) != []
    assert all_problems([call_a, tool_a, text]) == []


def test_sweep_catches_a_broken_projection(monkeypatch: pytest.MonkeyPatch) -> None:
    requires_interpreted("it patches a method of the projector, which compiled code calls natively")
    from agui_transcripts import projection as module

    original = module._Projector._text

    def eager(self: Any, item: Any) -> None:  # never defer text: the MAF G2 gap
        self.out.append(AssistantMessage(f"x{len(self.out)}", item.text))

    monkeypatch.setattr(module._Projector, "_text", eager)
    failures = 0
    for sequence, cut in itertools.islice(sweep_cases(), 2000):
        messages = [sequence[:cut], sequence[cut:]] if cut else [sequence]
        projection = messages_from_parts(
            [
                SourceMessage(f"m{i + 1}", "assistant", parts_for(items))
                for i, items in enumerate(messages)
            ]
        )
        if all_problems([m.to_dict() for m in projection.messages]):
            failures += 1
    monkeypatch.setattr(module._Projector, "_text", original)
    assert failures > 0


GOLDEN_STREAMS = sorted((Path(__file__).parent / "golden" / "streams").glob("*.jsonl"))


@pytest.mark.parametrize("stream", GOLDEN_STREAMS, ids=lambda p: p.name.removesuffix(".jsonl"))
def test_golden_streams_project_cleanly(stream: Path) -> None:
    inputs_path = stream.parent / (stream.name.removesuffix(".jsonl") + ".input.json")
    run_input = json.loads(inputs_path.read_text()) if inputs_path.exists() else None
    transcript = fold(stream, run_input=run_input)
    projection = transcript.project()
    wire = [m.to_dict() for m in projection.messages]
    assert all_problems(wire) == []
    # Every real result is in the projection exactly once, or reported.
    reported = {d.message_id for d in projection.diagnostics}
    real = [m.id for m in projection.messages if m.role == "tool" and not is_synthetic(m)]
    assert len(real) == len(set(real))
    for message in transcript.messages:
        if message.role == "tool":
            assert message.id in real or message.id in reported, message.id
