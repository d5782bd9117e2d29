"""Record real AG-UI streams from ag-ui-langgraph's LangGraphAgent, driven by a scripted model.

Needs: pip install "ag-ui-langgraph==0.0.47" fastapi, and this project. No network or LLM:
the chat model below replays scripted replies (text streamed word by word, tool calls
streamed as chunks), so the events are exactly what the adapter emits for them.

Two runs on one thread, as an application drives them: run 2's input is the history the
client holds after run 1 (``Transcript.next_run_input``) plus the next user turn. The
adapter restates the conversation in MESSAGES_SNAPSHOTs with its checkpoint's ids.

    python examples/recording/record_langgraph.py OUT_DIR
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui_langgraph import LangGraphAgent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from agui_transcripts import fold


@tool
def get_weather(city: str, day: str = "today") -> str:
    """The weather in a city."""
    return f"{day}: 18°C and sunny in {city}" if day == "today" else f"{day}: rain in {city}"


class ScriptedModel(BaseChatModel):
    """Replies by script: a call when the turn has no tool result yet, else an answer."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        turn = sum(1 for m in messages if m.type == "human")
        answered = messages and isinstance(messages[-1], ToolMessage)
        if not answered:
            args = {"city": "Paris"} if turn == 1 else {"city": "Paris", "day": "tomorrow"}
            call = {"name": "get_weather", "args": args, "id": f"call_weather_{turn}"}
            return AIMessage(content="Let me check.", tool_calls=[call])
        last = messages[-1].content
        return AIMessage(content=f"Here it is: {last}.")

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        words = str(reply.content).split(" ")
        for n, word in enumerate(words):
            text = word if n == len(words) - 1 else word + " "
            yield ChatGenerationChunk(message=AIMessageChunk(content=text))
        for index, call in enumerate(reply.tool_calls):
            # As chat providers stream a call: its name and id first, then the arguments.
            arguments = json.dumps(call["args"])
            middle = len(arguments) // 2
            pieces = [(call["name"], call["id"], ""), (None, None, arguments[:middle])]
            pieces.append((None, None, arguments[middle:]))
            for name, call_id, piece in pieces:
                chunk = {"name": name, "args": piece, "id": call_id, "index": index}
                yield ChatGenerationChunk(
                    message=AIMessageChunk(content="", tool_call_chunks=[chunk])
                )


def build_graph() -> Any:
    model = ScriptedModel()

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", END])
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=MemorySaver())


def _wire(event: Any) -> dict[str, Any]:
    wire: dict[str, Any] = event.model_dump(mode="json", by_alias=True, exclude_none=True)
    wire.pop("rawEvent", None)  # large framework internals (Q9), not needed to fold
    return wire


async def record(out: Path, name: str, *, client_reads_snapshots: bool) -> None:
    """Two runs; run 2's input is what the client holds after run 1, plus a new turn.

    A client that reads snapshots holds the checkpoint's ids; one that does not holds
    the streamed ids, which the adapter's checkpoint does not know.
    """
    agent = LangGraphAgent(name="weather", graph=build_graph(), emit_raw_events=False)
    user_1 = {"id": "user-1", "role": "user", "content": "Weather in Paris?"}
    user_2 = {"id": "user-2", "role": "user", "content": "And tomorrow?"}
    base = {"threadId": "thread-1", "state": {}, "tools": [], "context": [], "forwardedProps": {}}
    inputs = [{**base, "runId": "run-1", "messages": [user_1]}]
    events: list[dict[str, Any]] = []
    for run in range(2):
        if run == 1:
            seen = [e for e in events if client_reads_snapshots or e["type"] != "MESSAGES_SNAPSHOT"]
            held = fold(seen, run_input=inputs).next_run_input(run_id="run-2")
            inputs.append({**base, "runId": "run-2", "messages": [*held["messages"], user_2]})
        async for event in agent.run(RunAgentInput.model_validate(inputs[run])):
            events.append(_wire(event))
    out.mkdir(parents=True, exist_ok=True)
    stream = out / f"{name}.jsonl"
    stream.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
    (out / f"{name}.input.json").write_text(json.dumps(inputs, indent=1) + "\n")
    print(f"{len(events)} events written to {stream}")


async def main(out: Path) -> None:
    await record(out, "langgraph-weather-snapshot-client", client_reads_snapshots=True)
    await record(out, "langgraph-weather-stream-client", client_reads_snapshots=False)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
