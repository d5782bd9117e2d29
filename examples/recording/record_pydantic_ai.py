"""Record a real AG-UI stream from pydantic-ai's AGUIAdapter, driven by a scripted model.

Needs: pip install "pydantic-ai-slim[ag-ui]". No network or LLM: the model is a FunctionModel
whose replies are scripted, so the events are exactly what the adapter emits for them.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter


async def scripted_model(messages: list[ModelMessage], info: AgentInfo):
    returned = {
        p.tool_name
        for m in messages
        for p in getattr(m, "parts", [])
        if isinstance(p, ToolReturnPart)
    }
    if not returned:
        for piece in ["Let me look ", "that up ", "for you."]:
            yield piece
        yield {
            0: DeltaToolCall(
                name="get_weather", json_args='{"city": ', tool_call_id="call_weather_1"
            )
        }
        yield {0: DeltaToolCall(json_args='"Paris"}')}
        yield {
            1: DeltaToolCall(
                name="show_map",
                json_args='{"city": "Paris", "zoom": 11}',
                tool_call_id="call_map_1",
            )
        }
    elif "show_map" not in returned:
        return
    else:
        for piece in ["It is 18°C ", "and sunny in Paris; ", "the map is on your screen."]:
            yield piece


agent = Agent(
    FunctionModel(stream_function=scripted_model), instructions="You are a travel assistant."
)


@agent.tool_plain
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"18°C and sunny in {city}"


async def run(run_input: RunAgentInput, out) -> None:
    adapter = AGUIAdapter(agent=agent, run_input=run_input)
    encoder = EventEncoder()
    async for event in adapter.run_stream():
        out.write(encoder.encode(event))


async def main(target: Path) -> None:
    map_tool = {
        "name": "show_map",
        "description": "Show a city on the user's map.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zoom": {"type": "integer"}},
        },
    }
    first = {
        "threadId": "thread-paris",
        "runId": "run-1",
        "state": {},
        "tools": [map_tool],
        "context": [],
        "forwardedProps": {},
        "messages": [
            {
                "id": "user-1",
                "role": "user",
                "content": "What's the weather in Paris? Show me the city too.",
            }
        ],
    }
    with target.open("w", encoding="utf-8") as out:
        await run(RunAgentInput.model_validate(first), out)
    events = [
        json.loads(line[6:])
        for line in target.read_text(encoding="utf-8").splitlines()
        if line.startswith("data: ")
    ]
    text_id = next(e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START")
    result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
    history = first["messages"] + [
        {
            "id": text_id,
            "role": "assistant",
            "content": "Let me look that up for you.",
            "toolCalls": [
                {
                    "id": "call_weather_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_map_1",
                    "type": "function",
                    "function": {"name": "show_map", "arguments": '{"city": "Paris", "zoom": 11}'},
                },
            ],
        },
        {
            "id": result["messageId"],
            "role": "tool",
            "toolCallId": "call_weather_1",
            "content": result["content"],
        },
        {
            "id": "tool-result-map-1",
            "role": "tool",
            "toolCallId": "call_map_1",
            "content": "Map shown: Paris, zoom 11",
        },
    ]
    second = dict(first, runId="run-2", messages=history)
    with target.open("a", encoding="utf-8") as out:
        await run(RunAgentInput.model_validate(second), out)
    target.with_suffix(".input.json").write_text(
        json.dumps([first, second], indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
