"""pydantic-ai's AG-UI adapter serving an agent whose model is a scripted FunctionModel.

What the model does is decided by the last user message, so each test scenario picks a
behaviour by what it says:

- "weather in CITY": calls the server tool ``get_weather``, then answers with its result;
- "map of CITY": calls the client tool ``show_map`` (declared by the harness);
- "maps of A and B": calls ``show_map`` twice in parallel;
- "explode": calls the client tool ``explode`` (which raises in the harness's registry);
- "delete FILE": calls ``delete_file``, a server tool that requires approval (an interrupt);
- "fail": the model raises, which the adapter streams as RUN_ERROR;
- anything else: answers "You said: ...".

Serve it with ``uvicorn tests.agents.pydantic_ai_app:app``. The app also has
``/flaky``: the first request saying a given user message is cut off mid-stream (a
dropped connection); later ones are served as ``/`` serves them.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route


def _last_user_text(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ""


def _returns_since_user(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    """The tool results the model was given since the last user message."""
    found: list[ToolReturnPart] = []
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            if any(isinstance(p, UserPromptPart) for p in message.parts):
                break
            found.extend(p for p in message.parts if isinstance(p, ToolReturnPart))
    return list(reversed(found))


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    text = _last_user_text(messages)
    returns = _returns_since_user(messages)
    if text.startswith("fail"):
        raise RuntimeError("the model failed on purpose")
    if returns:
        summary = "; ".join(f"{r.tool_name}: {r.model_response_str()}" for r in returns)
        for piece in ("Done. ", summary):
            yield piece
        return
    calls: list[tuple[str, dict[str, Any]]] = []
    if match := re.search(r"weather in (\w+)", text):
        calls = [("get_weather", {"city": match[1]})]
    elif match := re.search(r"maps of (\w+) and (\w+)", text):
        calls = [("show_map", {"city": match[1]}), ("show_map", {"city": match[2]})]
    elif match := re.search(r"map of (\w+)", text):
        calls = [("show_map", {"city": match[1], "zoom": 11})]
    elif "explode" in text:
        calls = [("explode", {"power": 3})]
    elif match := re.search(r"delete (\S+)", text):
        calls = [("delete_file", {"path": match[1]})]
    if not calls:
        for piece in ("You said: ", text):
            yield piece
        return
    yield "Working on it."
    turn = sum(1 for m in messages if isinstance(m, ModelRequest))
    for index, (name, args) in enumerate(calls):
        call_id = f"call-{name}-{turn}-{index}"
        yield {index: DeltaToolCall(name=name, json_args=json.dumps(args), tool_call_id=call_id)}


agent = Agent(
    FunctionModel(stream_function=scripted),
    output_type=[str, DeferredToolRequests],
    instructions="You are a test agent.",
)


@agent.tool_plain
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"18°C and sunny in {city}"


@agent.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file (asks for approval)."""
    return f"deleted {path}"


async def run(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent)


_cut: set[str] = set()


async def flaky(request: Request) -> Response:
    """The first request saying a message: a few bytes, then the connection drops."""
    body = json.loads(await request.body())
    said = json.dumps(body.get("messages", [{}])[-1].get("content"))
    if said in _cut:
        return await AGUIAdapter.dispatch_request(request, agent=agent)
    _cut.add(said)

    async def cut_off() -> AsyncIterator[bytes]:
        yield b'data: {"type":"RUN_STARTED","threadId":"x",'
        raise ConnectionResetError("the connection drops on purpose")

    return StreamingResponse(cut_off(), media_type="text/event-stream")


app = Starlette(
    routes=[Route("/", run, methods=["POST"]), Route("/flaky", flaky, methods=["POST"])]
)
