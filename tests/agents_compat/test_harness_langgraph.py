"""The harness against ag-ui-langgraph, served by uvicorn on loopback."""

from __future__ import annotations

from pathlib import Path

from agui_transcripts import UserMessage, approve_all, deny_all, run_conversation
from tests.agents.client_tools import registry

from .checks import folds_back, roles


def test_a_server_tool_through_a_tool_node(langgraph_url: str, tmp_path: Path) -> None:
    result = run_conversation(langgraph_url, "weather in Paris", tools=registry)
    assert (result.stop, result.runs) == ("done", 1)
    [record] = result.transcript.tool_calls.values()
    assert (record.state, record.owner) == ("resolved_server", "server")
    assert result.transcript.response == "Done. 18°C and sunny in Paris"
    folds_back(result, tmp_path)


def test_a_client_tool_ends_the_graph_and_its_result_comes_back(
    langgraph_url: str, tmp_path: Path
) -> None:
    result = run_conversation(langgraph_url, "map of Rome", tools=registry)
    assert (result.stop, result.runs, result.tool_rounds) == ("done", 2, 1)
    call_id = next(iter(result.transcript.tool_calls))
    assert result.transcript.tool_calls[call_id].owner == "client"
    assert roles(result.transcript) == ["user", "assistant", f"tool:{call_id}", "assistant"]
    assert result.transcript.response == "Done. map of Rome at zoom 10"
    folds_back(result, tmp_path)


def test_a_langgraph_interrupt_approved_and_denied(langgraph_url: str, tmp_path: Path) -> None:
    approved = run_conversation(langgraph_url, "delete a.txt", interrupts=approve_all)
    denied = run_conversation(langgraph_url, "delete b.txt", interrupts=deny_all)
    assert approved.transcript.runs[0].outcome == "interrupt"
    assert approved.transcript.response == "Done. deleted a.txt"
    assert denied.transcript.response == "Done. the user denied it"
    for result in (approved, denied):
        assert (result.stop, result.runs) == ("done", 2)
        resumed = result.conversation.inputs[1]
        assert resumed["parentRunId"] == result.transcript.runs[0].run_id
        folds_back(result, tmp_path)


def test_a_multi_turn_conversation_keeps_one_thread(langgraph_url: str, tmp_path: Path) -> None:
    turns = ["hello", "weather in Lima", "map of Quito"]
    result = run_conversation(langgraph_url, turns, tools=registry)
    assert (result.stop, result.runs) == ("done", 4)
    assert [m.content for m in result.transcript.messages if isinstance(m, UserMessage)] == turns
    assert {r.state for r in result.transcript.tool_calls.values()} == {
        "resolved_server",
        "resolved_client",
    }
    folds_back(result, tmp_path)
