"""Record real AG-UI streams from llama-index's AGUIChatWorkflow, driven by a scripted model.

Needs: pip install "llama-index-protocols-ag-ui==0.6.0" fastapi. No network or LLM: the
function-calling model below replays scripted replies, so the events are exactly what the
workflow emits for them, captured as the SSE body its router serves.

The workflow speaks in chunks only, has no TOOL_CALL_RESULT events (results exist only in
its snapshots) and sends a MESSAGES_SNAPSHOT after each step, re-minting the id of every
message it made itself (Q29-Q32). Two runs on one thread: a server tool answered in run
1, then a frontend tool the client answers in run 2's input.

    python examples/recording/record_llama_index.py OUT_DIR
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow
from llama_index.protocols.ag_ui.router import AGUIWorkflowRouter


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"18°C and sunny in {city}"


def show_map(city: str) -> str:
    """Show a city on the user's map (the frontend answers)."""
    return "shown"


class ScriptedLLM(FunctionCallingLLM):
    """Calls get_weather, then show_map, then answers: one step per tool result."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True, is_function_calling_model=True)

    def _reply(self, messages: Sequence[ChatMessage]) -> ChatMessage:
        # The workflow hands back client results as user messages with a tool_call_id.
        results = [
            m for m in messages if m.role.value == "tool" or m.additional_kwargs.get("tool_call_id")
        ]
        if not results:
            calls = [{"id": "call_weather_1", "name": "get_weather", "args": {"city": "Paris"}}]
            return ChatMessage(
                role="assistant", content="Let me check.", additional_kwargs={"tool_calls": calls}
            )
        if len(results) == 1:
            calls = [{"id": "call_map_1", "name": "show_map", "args": {"city": "Paris"}}]
            return ChatMessage(
                role="assistant", content="", additional_kwargs={"tool_calls": calls}
            )
        return ChatMessage(
            role="assistant", content="It is 18°C in Paris; the map is on your screen."
        )

    def _prepare_chat_with_tools(
        self, tools: Any, user_msg: Any = None, chat_history: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        messages = list(chat_history or [])
        if user_msg is not None:
            messages.append(user_msg)
        return {"messages": messages}

    def get_tool_calls_from_response(
        self, response: ChatResponse, error_on_no_tool_call: bool = True, **kwargs: Any
    ) -> list[ToolSelection]:
        calls = response.message.additional_kwargs.get("tool_calls") or []
        return [
            ToolSelection(tool_id=c["id"], tool_name=c["name"], tool_kwargs=c["args"])
            for c in calls
        ]

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return ChatResponse(message=self._reply(messages))

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        reply = self._reply(messages)
        text = ""
        for word in str(reply.content or "").split(" ") if reply.content else []:
            delta = word if not text else " " + word
            text += delta
            yield ChatResponse(message=ChatMessage(role="assistant", content=text), delta=delta)
        yield ChatResponse(message=reply, delta="")

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.chat(messages)

    async def astream_chat(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseAsyncGen:
        async def gen() -> AsyncGenerator[ChatResponse, None]:
            for response in self.stream_chat(messages):
                yield response

        return gen()

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError

    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        raise NotImplementedError

    async def acomplete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponse:
        raise NotImplementedError

    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        raise NotImplementedError


async def _serve(run_input: dict[str, Any]) -> str:
    async def factory() -> AGUIChatWorkflow:
        return AGUIChatWorkflow(
            llm=ScriptedLLM(),
            backend_tools=[get_weather],
            frontend_tools=[show_map],
            system_prompt="You are a travel assistant.",
            timeout=60,
        )

    response = await AGUIWorkflowRouter(factory).run(RunAgentInput.model_validate(run_input))
    body = ""
    async for piece in response.body_iterator:
        body += piece if isinstance(piece, str) else piece.decode("utf-8")
    return body


async def record(out: Path) -> None:
    from agui_transcripts import fold, read_events

    base = {"threadId": "thread-1", "state": {}, "context": [], "forwardedProps": {}}
    tools = [{"name": "show_map", "description": "Show a city on the map", "parameters": {}}]
    user = {"id": "user-1", "role": "user", "content": "Weather in Paris, on the map?"}
    inputs = [{**base, "runId": "run-1", "tools": tools, "messages": [user]}]
    body = await _serve(inputs[0])
    # The client answers its frontend tool and sends the thread back.
    transcript = fold(read_events(body.encode("utf-8")), run_input=inputs)
    held = transcript.next_run_input(run_id="run-2")["messages"]
    answer = {"id": "result-map-1", "role": "tool", "toolCallId": "call_map_1", "content": "shown"}
    inputs.append({**base, "runId": "run-2", "tools": tools, "messages": [*held, answer]})
    body += await _serve(inputs[1])
    out.mkdir(parents=True, exist_ok=True)
    (out / "llama-index-weather-map.sse").write_text(body)
    (out / "llama-index-weather-map.input.json").write_text(json.dumps(inputs, indent=1) + "\n")
    print(f"{body.count('data:')} events written to {out / 'llama-index-weather-map.sse'}")


if __name__ == "__main__":
    asyncio.run(record(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
