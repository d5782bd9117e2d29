"""The live Conversation, driven in-process: an ASGI app answering through httpx.

The app below is a plain ASGI callable (no web framework), so these tests run in the
main suite; ``tests/agents_compat`` drives real agents over loopback.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

from agui_transcripts import (
    Conversation,
    ConversationError,
    EndpointError,
    PayloadError,
    ScenarioError,
    TransportError,
    arun_endpoint,
    fold,
    read_scenarios,
    run_conversation,
    run_endpoint,
)

ROOT = Path(__file__).resolve().parent.parent
Reply = Callable[[dict[str, Any]], "tuple[int, bytes]"]


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def run(thread: str, run_id: str, *middle: dict[str, Any], outcome: Any = None) -> bytes:
    finished: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": thread, "runId": run_id}
    if outcome is not None:
        finished["outcome"] = outcome
    started = {"type": "RUN_STARTED", "threadId": thread, "runId": run_id}
    return sse(started, *middle, finished)


def text(message_id: str, content: str) -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": content},
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def call(call_id: str, name: str, arguments: str, parent: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": name,
            "parentMessageId": parent,
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": arguments},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]


class Agent:
    """An ASGI app: each POST gets the next reply, computed from the run input."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.received: list[dict[str, Any]] = []

    async def __call__(
        self,
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[dict[str, Any]]],
        send: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> None:
        assert scope["type"] == "http"
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        run_input = json.loads(body)
        self.received.append(run_input)
        status, payload = self.replies.pop(0)(run_input)
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


def weather_then_answer() -> Agent:
    """Run 1 calls the client's show_map; run 2 answers from its result."""

    def first(given: dict[str, Any]) -> tuple[int, bytes]:
        t, r = given["threadId"], given["runId"]
        return 200, run(
            t, r, *text("a1", "Showing."), *call("c1", "show_map", '{"city":"Oslo"}', "a1")
        )

    def second(given: dict[str, Any]) -> tuple[int, bytes]:
        result = given["messages"][-1]["content"]
        return 200, run(given["threadId"], given["runId"], *text("a2", f"Done: {result}"))

    return Agent(first, second)


def test_an_asgi_app_is_an_endpoint_and_a_client_round_is_one_transcript(
    tmp_path: Path,
) -> None:
    agent = weather_then_answer()

    def show_map(city: str) -> str:
        """Show a city."""
        return f"map of {city}"

    result = run_conversation(agent, "show me Oslo", tools=[show_map])
    assert (result.stop, result.runs, result.tool_rounds) == ("done", 2, 1)
    assert result.transcript.response == "Done: map of Oslo"
    first, second = agent.received
    assert first["tools"][0]["name"] == "show_map"
    assert second["tools"] == first["tools"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]
    log = result.conversation.save(tmp_path / "oslo")
    assert log.name == "oslo.sse"
    assert json.loads((tmp_path / "oslo.input.json").read_text()) == agent.received
    assert fold(log).to_dicts() == result.transcript.to_dicts()


def test_a_transcript_folded_from_a_log_or_outdated_cannot_be_continued(tmp_path: Path) -> None:
    agent = weather_then_answer()
    conversation = Conversation(agent, tools=[{"name": "show_map", "description": ""}])
    conversation.say("show me Oslo")
    first = conversation.run()
    log = conversation.save(tmp_path / "oslo")
    with pytest.raises(ValueError, match=r"Conversation\.from_log"):
        run_endpoint(agent, "more", transcript=fold(log))
    conversation.add_client_result("c1", "map of Oslo")
    with pytest.raises(ValueError, match="moved on"):
        run_endpoint(agent, "more", transcript=first)
    with pytest.raises(ValueError, match="cannot be merged"):
        run_endpoint(
            agent, {"threadId": "another", "runId": "r9"}, transcript=conversation.transcript
        )


def test_a_recording_continues_with_its_ownership(tmp_path: Path) -> None:
    agent = weather_then_answer()
    conversation = Conversation(agent, tools=[{"name": "show_map", "description": ""}])
    conversation.say("show me Oslo")
    conversation.run()
    log = conversation.save(tmp_path / "oslo")

    resumed = Conversation.from_log(log, agent, tools=[{"name": "show_map", "description": ""}])
    assert resumed.thread_id == conversation.thread_id
    assert resumed.transcript.continuation().client_calls == ["c1"]
    resumed.add_client_result("c1", "map of Oslo")
    transcript = resumed.run()
    assert transcript.response == "Done: map of Oslo"
    assert transcript.tool_calls["c1"].owner == "client"
    resumed.save(tmp_path / "oslo-2")
    assert fold(tmp_path / "oslo-2.sse").to_dicts() == transcript.to_dicts()


def test_the_resume_entry_carries_its_payload_and_the_interrupted_run_as_parent() -> None:
    schema = {"type": "object", "properties": {"approved": {"type": "boolean"}}}
    interrupt = {"id": "i1", "reason": "tool_call", "toolCallId": "c1", "responseSchema": schema}

    def ask(given: dict[str, Any]) -> tuple[int, bytes]:
        body = run(
            given["threadId"],
            "run-1",
            *text("a1", "May I?"),
            *call("c1", "delete", "{}", "a1"),
            outcome={"type": "interrupt", "interrupts": [interrupt]},
        )
        return 200, body

    def resumed(given: dict[str, Any]) -> tuple[int, bytes]:
        return 200, run(given["threadId"], "run-2", *text("a2", "Deleted."))

    agent = Agent(ask, resumed)
    conversation = Conversation(agent)
    conversation.say("delete it")
    conversation.run()
    with pytest.raises(ConversationError, match="interrupt"):
        conversation.say("something else")
    with pytest.raises(PayloadError, match=r"\$\.approved"):
        conversation.resume("i1", {"approved": "yes"})
    with pytest.raises(KeyError):
        conversation.resume("i2", {"approved": True})
    conversation.resume("i1", {"approved": True}, metadata={"by": "test"})
    sent = conversation.next_run_input()
    assert sent["resume"] == [
        {
            "interruptId": "i1",
            "status": "resolved",
            "payload": {"approved": True},
            "metadata": {"by": "test"},
        }
    ]
    assert sent["parentRunId"] == "run-1"
    assert conversation.run().response == "Deleted."
    assert agent.received[1] == sent | {"runId": agent.received[1]["runId"]}


def test_a_cut_off_run_ends_the_conversation_truncated() -> None:
    def cut(given: dict[str, Any]) -> tuple[int, bytes]:
        started = {"type": "RUN_STARTED", "threadId": given["threadId"], "runId": "r1"}
        return 200, sse(started, *text("a1", "Half"))[:-20]

    conversation = Conversation(Agent(cut))
    conversation.say("hi")
    transcript = conversation.run()
    assert transcript.runs[-1].outcome == "truncated"
    assert conversation.closed
    with pytest.raises(ConversationError, match="cut off"):
        conversation.say("again")


def test_a_refused_request_is_retried_before_any_event_and_an_http_error_is_not() -> None:
    def busy(given: dict[str, Any]) -> tuple[int, bytes]:
        return 503, b"busy"

    def fine(given: dict[str, Any]) -> tuple[int, bytes]:
        return 200, run(given["threadId"], given["runId"], *text("a1", "Hello."))

    agent = Agent(busy, fine)
    conversation = Conversation(agent, retries=1, backoff=0.01)
    conversation.say("hi")
    assert conversation.run().response == "Hello."
    assert len(conversation.inputs) == 1  # the refused attempt is not part of the thread
    with pytest.raises(TransportError, match="HTTP 503"):
        run_endpoint(Agent(busy), "hi")

    def wrong(given: dict[str, Any]) -> tuple[int, bytes]:
        return 422, b"bad input"

    with pytest.raises(EndpointError, match="HTTP 422") as raised:
        run_endpoint(Agent(wrong), "hi")
    assert not isinstance(raised.value, TransportError)


def test_run_endpoint_keeps_the_typed_keywords_of_arun_endpoint() -> None:
    sync = inspect.signature(run_endpoint)
    assert sync.parameters == inspect.signature(arun_endpoint).parameters
    assert not [p for p in sync.parameters.values() if p.kind is p.VAR_KEYWORD]
    assert sync.parameters["timeout"].annotation == "float"


def test_run_inside_an_event_loop_says_to_await() -> None:
    async def inside() -> None:
        conversation = Conversation(weather_then_answer())
        conversation.say("hi")
        with pytest.raises(ConversationError, match=r"await conversation\.arun"):
            conversation.run()

    asyncio.run(inside())


def test_a_bad_scenarios_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "scenarios.jsonl"
    path.write_text('{"name": "a", "turns": ["hi"]}\n\n{"name": "a b", "turns": []}\n')
    with pytest.raises(ScenarioError, match=r"line 3: name: String should match"):
        read_scenarios(path)
    path.write_text('{"name": "a", "turns": ["hi"]}\n{"name": "a", "turns": ["yo"]}\n')
    with pytest.raises(ScenarioError, match="line 2: the name 'a' is used on line 1"):
        read_scenarios(path)
    path.write_text("")
    with pytest.raises(ScenarioError, match="no scenario"):
        read_scenarios(path)


def test_the_run_command_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios.jsonl"
    scenarios.write_text('{"name": "a", "turns": ["hi"], "colour": 1}\n')

    def agui(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "agui_transcripts", "run", *args]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)

    done = agui(str(scenarios), "--endpoint", "http://127.0.0.1:9/", "-o", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "line 1: colour: Extra inputs are not permitted" in done.stderr
    scenarios.write_text('{"name": "a", "turns": ["hi"]}\n')
    done = agui(str(scenarios), "--endpoint", "no_such_module:app", "-o", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "cannot import 'no_such_module'" in done.stderr
    done = agui(
        str(scenarios), "--endpoint", "http://127.0.0.1:9/", "-o", str(tmp_path / "o"),
        "--retries", "0", "-q",
    )  # fmt: skip
    assert done.returncode == 1  # nobody listens: recorded as a failed conversation
    record = json.loads((tmp_path / "o" / "a.result.json").read_text())
    assert record["status"] == "transport_error"
    assert "ConnectError" in record["error"]


def test_a_live_transcript_pickles_as_a_plain_one() -> None:
    import dataclasses
    import pickle

    from agui_transcripts import Transcript
    from agui_transcripts.transcript import _PICKLED

    assert set(_PICKLED) == {f.name for f in dataclasses.fields(Transcript) if f.init}
    conversation = Conversation(weather_then_answer())
    conversation.say("show me Oslo")
    live = conversation.run()
    assert live.origin is not None
    copy = pickle.loads(pickle.dumps(live))
    assert copy.origin is None
    assert copy.to_dicts() == live.to_dicts()
    assert copy.continuation() == live.continuation()
