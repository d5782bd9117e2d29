"""The drop-in's run_ag_ui_row against a real loopback server: is the answer finished?

An interrupted run used to come back as a clean answer (``error`` None, nothing else);
a subagent's turns could not be left out of what a tool-call metric scores.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from ragas.messages import ToolCall

from agui_transcripts import ragas as dropin
from tests.loopback import Server


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)


START: dict[str, Any] = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
APPROVAL: list[dict[str, Any]] = [
    START,
    {
        "type": "TOOL_CALL_START",
        "toolCallId": "c1",
        "toolCallName": "delete",
        "parentMessageId": "m",
    },
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"path": "/tmp/x"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r",
        "outcome": {
            "type": "interrupt",
            "interrupts": [{"id": "i1", "reason": "tool_approval", "toolCallId": "c1"}],
        },
    },
]
SUBAGENT: list[dict[str, Any]] = [
    START,
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "task", "parentMessageId": "m"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"},
    {
        "type": "TOOL_CALL_START",
        "toolCallId": "c2",
        "toolCallName": "search",
        "parentMessageId": "sm",
        "subagentRunId": "s1",
    },
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": "{}", "subagentRunId": "s1"},
    {"type": "TOOL_CALL_END", "toolCallId": "c2", "subagentRunId": "s1"},
    {
        "type": "TOOL_CALL_RESULT",
        "messageId": "r2",
        "toolCallId": "c2",
        "content": "found",
        "subagentRunId": "s1",
    },
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
    {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c1", "content": "done"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "Done."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def row(url: str, **options: Any) -> dict[str, Any]:
    return asyncio.run(dropin.run_ag_ui_row({"user_input": "go"}, url, **options))


def test_an_interrupted_run_says_so_with_its_pending_interrupts(server: Server) -> None:
    done = row(server.route("/approval", sse(APPROVAL)))
    assert done["error"] is None
    assert done["outcome"] == "interrupt"
    assert done["interrupts"] == [{"id": "i1", "reason": "tool_approval", "toolCallId": "c1"}]


def test_a_stream_cut_inside_its_run_is_truncated_and_a_finished_one_success(
    server: Server,
) -> None:
    cut = row(server.route("/cut", sse(APPROVAL[:3])))
    assert (cut["outcome"], cut["interrupts"]) == ("truncated", [])
    finished = row(server.route("/done", sse(SUBAGENT)))
    assert (finished["outcome"], finished["interrupts"], finished["error"]) == ("success", [], None)


def test_an_unreachable_endpoint_has_no_outcome(server: Server) -> None:
    failed = row(server.route("/gone", b"", status=500))
    assert failed["outcome"] is None
    assert failed["error"] is not None


# ragas 0.4 deprecates its metric classes' old import path but ships and documents it.
@pytest.mark.filterwarnings("ignore:Importing ToolCallAccuracy from 'ragas.metrics'")
@pytest.mark.filterwarnings("ignore:Length mismatch")  # what the inline score shows
def test_subagents_exclude_scores_the_top_level_agent_alone(server: Server) -> None:
    from ragas.metrics import ToolCallAccuracy

    url = server.route("/subagent", sse(SUBAGENT))
    expected = [ToolCall(name="task", args={})]

    def score(done: dict[str, Any]) -> float:
        sample = dropin.build_sample(
            "go", done["messages"], reference_tool_calls=[c.model_dump() for c in expected]
        )
        return float(ToolCallAccuracy().multi_turn_score(sample))

    inline = row(url)
    assert [c.name for c in inline["tool_calls"]] == ["task", "search"]
    excluded = row(url, subagents="exclude")
    assert [c.name for c in excluded["tool_calls"]] == ["task"]
    assert score(excluded) == 1.0
    assert score(inline) < 1.0
    messages = dropin.convert_to_ragas_messages(SUBAGENT, subagents="exclude")
    assert [m.content for m in messages if m.type == "tool"] == ["done"]
