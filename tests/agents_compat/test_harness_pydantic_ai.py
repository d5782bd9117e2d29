"""The harness against pydantic-ai's AG-UI adapter, served by uvicorn on loopback."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import (
    ClientTools,
    Conversation,
    ConversationError,
    InterruptAnswer,
    ToolMessage,
    Transcript,
    TransportError,
    UserMessage,
    approve_all,
    deny_all,
    run_conversation,
    run_dataset,
    run_endpoint,
)
from tests.agents.client_tools import registry

from .checks import folds_back, roles


def test_a_server_tool_is_the_servers_and_answered_in_its_run(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    result = run_conversation(pydantic_ai_url, "weather in Paris", tools=registry)
    assert (result.stop, result.runs, result.tool_rounds) == ("done", 1, 0)
    [record] = result.transcript.tool_calls.values()
    assert (record.name, record.state, record.owner) == (
        "get_weather",
        "resolved_server",
        "server",
    )
    assert "18°C and sunny in Paris" in result.transcript.response
    folds_back(result, tmp_path)


def test_a_client_tool_runs_with_validated_arguments_and_its_result_goes_back(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    seen: list[tuple[str, int]] = []
    tools = ClientTools()

    @tools.tool
    def show_map(city: str, zoom: int = 10) -> str:
        """Show a city on the user's map."""
        seen.append((city, zoom))
        return f"map of {city} at zoom {zoom}"

    result = run_conversation(pydantic_ai_url, "map of Rome", tools=tools)
    assert (result.stop, result.runs, result.tool_rounds) == ("done", 2, 1)
    assert seen == [("Rome", 11)]
    transcript = result.transcript
    call_id = next(iter(transcript.tool_calls))
    assert transcript.tool_calls[call_id].state == "resolved_client"
    assert transcript.tool_calls[call_id].owner == "client"
    assert roles(transcript) == ["user", "assistant", f"tool:{call_id}", "assistant"]
    # Every run declared the tool with its schema; the second carried the result.
    first, second = result.conversation.inputs
    assert first["tools"] == second["tools"] == tools.definitions()
    assert second["messages"][-1]["content"] == "map of Rome at zoom 11"
    assert "map of Rome at zoom 11" in transcript.response
    folds_back(result, tmp_path)


def test_a_client_tool_that_raises_answers_with_an_error_result(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    result = run_conversation(pydantic_ai_url, "explode it", tools=registry)
    assert result.stop == "done"
    [result_message] = [m for m in result.transcript.messages if isinstance(m, ToolMessage)]
    assert result_message.error == "ValueError: boom x3"
    assert "boom x3" in result.transcript.response  # the agent read the failure
    folds_back(result, tmp_path)


def test_parallel_client_calls_run_concurrently(pydantic_ai_url: str, tmp_path: Path) -> None:
    started: list[str] = []
    both = asyncio.Event()
    tools = ClientTools(timeout=5)

    @tools.tool
    async def show_map(city: str, zoom: int = 10) -> str:
        """Show a city on the user's map."""
        started.append(city)
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)  # only returns once the other call runs too
        return f"map of {city}"

    result = run_conversation(pydantic_ai_url, "maps of Oslo and Bergen", tools=tools)
    assert result.stop == "done"
    assert sorted(started) == ["Bergen", "Oslo"]
    transcript = result.transcript
    calls = list(transcript.tool_calls)
    assert len(calls) == 2
    assert all(transcript.tool_calls[c].state == "resolved_client" for c in calls)
    ordered = roles(transcript)
    assert ordered[:2] == ["user", "assistant"]
    assert sorted(ordered[2:4]) == sorted(f"tool:{c}" for c in calls)
    folds_back(result, tmp_path)


def test_an_approved_interrupt_resumes_with_a_checked_payload_and_its_parent_run(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    result = run_conversation(pydantic_ai_url, "delete a.txt", interrupts=approve_all)
    assert (result.stop, result.runs) == ("done", 2)
    first_run = result.transcript.runs[0]
    assert first_run.outcome == "interrupt"
    [interrupt] = first_run.interrupts
    assert "responseSchema" in interrupt
    resumed = result.conversation.inputs[1]
    assert resumed["resume"] == [
        {"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}
    ]
    assert resumed["parentRunId"] == first_run.run_id
    assert "deleted a.txt" in result.transcript.response
    [record] = result.transcript.tool_calls.values()
    assert (record.state, record.owner) == ("resolved_server_late", "server")
    folds_back(result, tmp_path)


def test_a_denied_interrupt_is_answered_and_the_tool_does_not_run(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    result = run_conversation(pydantic_ai_url, "delete b.txt", interrupts=deny_all)
    assert result.stop == "done"
    assert result.conversation.inputs[1]["resume"][0]["payload"]["approved"] is False
    assert "deleted b.txt" not in result.transcript.response
    assert "denied" in result.transcript.response
    folds_back(result, tmp_path)


def test_a_payload_against_the_response_schema_is_never_sent(pydantic_ai_url: str) -> None:
    def sloppy(interrupt: dict[str, Any], transcript: Transcript) -> InterruptAnswer:
        return InterruptAnswer("resolved", {"approved": "yes"})

    result = run_conversation(pydantic_ai_url, "delete c.txt", interrupts=sloppy)
    assert (result.stop, result.runs) == ("awaiting_resume", 1)
    assert result.error is not None
    assert "responseSchema" in result.error
    assert "$.approved" in result.error


def test_an_interrupt_without_a_policy_stops_the_conversation_awaiting_resume(
    pydantic_ai_url: str,
) -> None:
    result = run_conversation(pydantic_ai_url, "delete d.txt")
    assert result.stop == "awaiting_resume"
    assert result.transcript.continuation().status == "awaiting_resume"
    assert not result.passed


def test_a_scripted_user_speaks_each_turn_once_the_agent_is_done(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    turns = ["hello", "weather in Lima", "map of Quito"]
    result = run_conversation(pydantic_ai_url, turns, tools=registry)
    assert (result.stop, result.runs, result.tool_rounds) == ("done", 4, 1)
    transcript = result.transcript
    users = [m.content for m in transcript.messages if isinstance(m, UserMessage)]
    assert users == turns
    assert [r.new_turn for r in transcript.runs] == [True, True, True, False]
    assert "map of Quito" in transcript.response
    folds_back(result, tmp_path)


def test_a_user_simulator_reads_the_transcript_and_decides(pydantic_ai_url: str) -> None:
    asked: list[str] = []

    async def user(transcript: Transcript) -> str | None:
        asked.append(transcript.response)
        if not transcript.runs:
            return "weather in Nice"
        return "and now a map of Nice" if len(asked) == 2 else None

    result = run_conversation(pydantic_ai_url, "unused", tools=registry, user=user)
    assert result.stop == "done"
    assert asked[0] == ""
    assert "Nice" in asked[1]
    assert "map of Nice" in result.transcript.response


def test_an_agent_error_stops_the_conversation_and_is_not_retried(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    result = run_conversation(pydantic_ai_url, "fail now")
    assert (result.stop, result.runs) == ("error", 1)
    assert result.error == "the model failed on purpose"
    folds_back(result, tmp_path)
    record = run_dataset(
        pydantic_ai_url,
        [{"name": "fails", "turns": ["fail now"]}],
        output=tmp_path / "runs",
        progress=None,
    ).records[0]
    assert (record.status, record.attempts, record.passed) == ("error", 1, False)


def test_a_dropped_connection_restarts_the_conversation_after_a_backoff(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    flaky = pydantic_ai_url + "flaky"
    with pytest.raises(TransportError):
        run_conversation(flaky, "weather in Porto")
    run = run_dataset(
        flaky,
        [{"name": "porto", "turns": ["weather in Faro"]}],
        output=tmp_path / "runs",
        backoff=0.05,
        progress=None,
    )
    [record] = run.records
    assert (record.status, record.attempts, record.passed) == ("done", 2, True)
    # Only the conversation that got through is recorded.
    inputs = json.loads((tmp_path / "runs" / "porto.input.json").read_text())
    assert len(inputs) == 1


def test_a_new_turn_over_an_unanswered_call_is_refused(pydantic_ai_url: str) -> None:
    map_tool = {"name": "show_map", "description": "Show a map.", "parameters": {}}
    conversation = Conversation(pydantic_ai_url, tools=[map_tool])
    conversation.say("map of Lyon")
    transcript = conversation.run()
    call_id = transcript.continuation().client_calls[0]
    with pytest.raises(ConversationError, match=call_id):
        conversation.say("never mind")
    conversation.add_client_result(call_id, "map of Lyon shown")
    assert conversation.transcript.continuation().undelivered == [call_id]
    assert conversation.run().tool_calls[call_id].state == "resolved_client"
    assert conversation.transcript.continuation().status == "done"


def test_run_endpoint_continues_its_own_transcript_across_runs(pydantic_ai_url: str) -> None:
    first = run_endpoint(pydantic_ai_url, "weather in Bern")
    second = run_endpoint(pydantic_ai_url, "hello again", transcript=first)
    assert len(second.runs) == 2
    assert second.thread_id == first.thread_id
    # The first run's server call stays the server's: ownership is carried, not redone.
    [record] = second.tool_calls.values()
    assert (record.state, record.owner, record.evidence) == (
        "resolved_server",
        "server",
        "server_result_same_run",
    )
    with pytest.raises(ValueError, match="moved on"):
        run_endpoint(pydantic_ai_url, "stale", transcript=first)
