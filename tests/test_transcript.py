"""The transcript a fold ends with: its fields, its messages' validity, run_of, HTML."""

from __future__ import annotations

import importlib.metadata
from typing import Any

import ag_ui.core as core
import pytest

from agui_transcripts import (
    AssistantMessage,
    ToolMessage,
    UserMessage,
    fold,
)
from tests.streams import (
    AS,
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
    TCR,
    TCS,
    TMC,
    TME,
    TMS,
    user,
)

# -- the transcript ------------------------------------------------------------------------


def _run_of_by_scan(transcript: Any, message: Any) -> Any:
    """run_of's meaning, the slow way: scan the runs in order up to the first that starts
    after the message; the last one that started is the answer."""
    found = None
    for run in transcript.runs:
        start = run.first_event_index
        if start is None:
            continue
        if start > message.seq:
            break
        found = run
    return found


def test_transcript_fields() -> None:
    transcript = fold(
        [
            RS(input={"threadId": "t", "runId": "r1", "messages": [user("u1", "Weather?")]}),
            TMS("m1"),
            TMC("m1", "Checking."),
            TME("m1"),
            TCS("c1", "weather", "m1"),
            TCA("c1", '{"city": '),
            TCA("c1", '"Oslo"}'),
            TCE("c1"),
            TCR("t1", "c1", "rain"),
            TMS("m2"),
            TMC("m2", "It rains."),
            TME("m2"),
            SS({"n": 1}),
            SD({"op": "replace", "path": "/n", "value": 2}),
            RF(usage=[{"provider": "openai", "model": "gpt-x", "inputTokens": 5}]),
        ]
    )
    assert [type(m) for m in transcript.messages] == [
        UserMessage,
        AssistantMessage,
        ToolMessage,
        AssistantMessage,
    ]
    assert transcript.to_dicts()[1] == {
        "id": "m1",
        "role": "assistant",
        "content": "Checking.",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    }
    record = transcript.tool_calls["c1"]
    assert (record.name, record.arguments, record.parsed_arguments, record.parse_error) == (
        "weather",
        '{"city": "Oslo"}',
        {"city": "Oslo"},
        None,
    )
    assert (record.message_id, record.run_index, record.result_message_ids) == ("m1", 0, ["t1"])
    [run] = transcript.runs
    assert (run.thread_id, run.run_id, run.outcome, run.usage) == (
        "t",
        "r1",
        "success",
        [{"provider": "openai", "model": "gpt-x", "inputTokens": 5}],
    )
    assert transcript.state == {"n": 2}
    assert transcript.response == "It rains."
    assert transcript.thread_id == "t"
    assert transcript.diagnostics == []


def test_messages_validate_as_ag_ui_1_0_messages() -> None:
    if int(importlib.metadata.version("ag-ui-protocol").split(".")[0]) < 1:
        pytest.skip("the 1.0 message schema needs ag-ui-protocol 1.x (the other CI leg)")
    from pydantic import TypeAdapter

    transcript = fold(
        [
            RS(
                input={
                    "threadId": "t",
                    "runId": "r1",
                    "messages": [
                        user("u1", "hi"),
                        {"id": "d1", "role": "developer", "content": "be brief"},
                    ],
                }
            ),
            {"type": "TEXT_MESSAGE_START", "messageId": "s1", "role": "system", "name": "boot"},
            TME("s1"),
            RMS("r1"),
            RMC("r1", "hmm"),
            RME("r1"),
            REV("message", "r1", "opaque"),
            TCS("c1", "f", "a1", metadata={"k": 1}),
            TCE("c1"),
            TCR("t1", "c1", [{"type": "text", "text": "done"}]),
            AS("x1", "progress", {"pct": 10}),
            TMS("a1", subagentRunId="s9"),
            TMC("a1", "ok"),
            TME("a1"),
            RF(),
        ]
    )
    adapter: TypeAdapter[Any] = TypeAdapter(core.Message)
    for wire in transcript.to_dicts():
        model = adapter.validate_python(wire)
        assert model.model_dump(by_alias=True, exclude_none=True, mode="json") == wire


def test_notebook_html_is_escaped_and_script_free() -> None:
    transcript = fold(
        [
            RS(),
            TMS("m1"),
            TMC("m1", "<b>bold</b> & more"),
            TME("m1"),
            TCS("c1", "f", "m1"),
            TCA("c1", '{"q": "<x>"}'),
            TCE("c1"),
            RF(),
        ]
    )
    page = transcript._repr_html_()
    assert page.startswith("<style>")
    assert "<script" not in page
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in page
    assert "{&quot;q&quot;: &quot;&lt;x&gt;&quot;}" in page
    assert "no result (" in page


@pytest.mark.parametrize("seed", range(40))
def test_run_of_names_the_run_each_message_arrived_in(seed: int) -> None:
    from tests.generate import random_stream

    events, _ = random_stream(seed)
    transcript = fold(events)
    assert transcript.runs
    for message in transcript.messages:
        assert transcript.run_of(message) is _run_of_by_scan(transcript, message)


def test_run_of_with_runs_out_of_order_unstarted_or_added_later() -> None:
    from agui_transcripts.model import RunRecord
    from agui_transcripts.transcript import Transcript

    def run(index: int, start: int | None) -> RunRecord:
        return RunRecord(index=index, first_event_index=start)

    transcript = Transcript(
        messages=[],
        runs=[run(0, 4), run(1, None), run(2, 10), run(3, 7)],
        tool_calls={},
        state={},
        diagnostics=[],
    )
    for seq in (-1, 3, 4, 5, 7, 9, 10, 11):
        message = UserMessage(f"u{seq}", "hi")
        message.seq = seq
        assert transcript.run_of(message) is _run_of_by_scan(transcript, message), seq
    late = UserMessage("late", "hi")
    late.seq = 20
    assert transcript.run_of(late) is transcript.runs[3]
    transcript.runs.append(run(4, 15))  # the index follows the runs
    assert transcript.run_of(late) is transcript.runs[4]
