"""A small AG-UI agent with a scripted "model", to try the harness without an LLM.

It is a plain ASGI application (no web framework): the harness runs it in-process,
``uvicorn examples.scripted_agent:app`` serves it on a port. What it does is decided by
the last user message:

- "weather in CITY": calls its own (server) tool ``get_weather`` and answers;
- "map of CITY": calls the client's ``show_map`` (see ``tools`` below) and answers once the
  client's result comes back in the next run;
- "delete FILE": asks for approval (an AG-UI interrupt with a ``responseSchema``) and
  deletes, or not, when the next run resumes it;
- anything else: "You said: ...".

    from agui_transcripts import approve_all, run_conversation
    from examples.scripted_agent import app, tools

    result = run_conversation(app, ["map of Paris"], tools=tools, interrupts=approve_all)
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from agui_transcripts import ClientTools

#: The client's tools: what a harness declares to the agent and runs when it is asked.
tools = ClientTools()


@tools.tool
def show_map(city: str, zoom: int = 10) -> str:
    """Show a city on the user's map."""
    return f"The map of {city} is shown at zoom {zoom}."


APPROVAL = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}
_ids = itertools.count(1)


def _reply(run_input: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of one run, from its input."""
    thread, run = run_input.get("threadId", "thread"), run_input.get("runId", "run")
    events: list[dict[str, Any]] = [{"type": "RUN_STARTED", "threadId": thread, "runId": run}]
    messages = run_input.get("messages") or []
    outcome: dict[str, Any] = {"type": "success"}
    resume = run_input.get("resume") or []
    last = messages[-1] if messages else {}
    if resume:
        call_id = resume[0]["interruptId"].removeprefix("approve-")
        path = _arguments(messages, call_id).get("path", "?")
        if resume[0].get("status") == "resolved" and (resume[0].get("payload") or {}).get(
            "approved"
        ):
            events.append(_result(call_id, f"deleted {path}"))
            events += _text(f"Deleted {path}.")
        else:
            events.append(_result(call_id, "not approved"))
            events += _text(f"I did not delete {path}.")
    elif last.get("role") == "tool":
        events += _text(f"Done: {last.get('content')}")
    else:
        said = str(last.get("content", ""))
        if match := re.search(r"weather in (\w+)", said):
            call_id = _call(events, "get_weather", {"city": match[1]}, "Checking.")
            events.append(_result(call_id, f"18°C and sunny in {match[1]}"))
            events += _text(f"It is 18°C and sunny in {match[1]}.")
        elif match := re.search(r"map of (\w+)", said):
            _call(events, "show_map", {"city": match[1]}, "Let me show you.")
        elif match := re.search(r"delete (\S+)", said):
            call_id = _call(events, "delete_file", {"path": match[1]}, "I need your approval.")
            interrupt = {
                "id": f"approve-{call_id}",
                "reason": "tool_call",
                "message": f"Delete {match[1]}?",
                "toolCallId": call_id,
                "responseSchema": APPROVAL,
            }
            outcome = {"type": "interrupt", "interrupts": [interrupt]}
        else:
            events += _text(f"You said: {said}")
    events.append({"type": "RUN_FINISHED", "threadId": thread, "runId": run, "outcome": outcome})
    return events


def _text(content: str) -> list[dict[str, Any]]:
    message_id = f"msg-{next(_ids)}"
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": content},
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def _call(events: list[dict[str, Any]], name: str, arguments: dict[str, Any], preface: str) -> str:
    text = _text(preface)
    message_id, call_id = text[0]["messageId"], f"call-{next(_ids)}"
    events += text
    events += [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": name,
            "parentMessageId": message_id,
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": json.dumps(arguments)},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]
    return call_id


def _result(call_id: str, content: str) -> dict[str, Any]:
    return {
        "type": "TOOL_CALL_RESULT",
        "messageId": f"result-{call_id}",
        "toolCallId": call_id,
        "content": content,
    }


def _arguments(messages: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    for message in messages:
        for call in message.get("toolCalls") or []:
            if call.get("id") == call_id:
                parsed: dict[str, Any] = json.loads(call["function"]["arguments"])
                return parsed
    return {}


async def app(
    scope: dict[str, Any],
    receive: Callable[[], Awaitable[dict[str, Any]]],
    send: Callable[[dict[str, Any]], Awaitable[None]],
) -> None:
    """POST a RunAgentInput, get the run's events as server-sent events."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    try:
        events = _reply(json.loads(body))
    except (ValueError, KeyError, TypeError) as error:
        await send({"type": "http.response.start", "status": 422, "headers": []})
        await send({"type": "http.response.body", "body": str(error).encode()})
        return
    headers = [(b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in events:
        chunk = f"data: {json.dumps(event)}\n\n".encode()
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b""})
