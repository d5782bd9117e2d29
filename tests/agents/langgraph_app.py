"""ag-ui-langgraph serving a LangGraph agent whose chat model is scripted (no LLM).

The last user message picks the behaviour:

- "weather in CITY": calls the server tool ``get_weather`` (a ToolNode), then answers;
- "map of CITY": calls the client tool ``show_map`` (declared by the harness in the run
  input; the graph ends and the result comes back in the next run);
- "delete FILE": asks for approval with LangGraph's ``interrupt()``, which the adapter
  ends the run with as an AG-UI interrupt (with a ``responseSchema``), then deletes or
  reports the denial when resumed;
- anything else: answers "You said: ...".

Serve it with ``uvicorn tests.agents.langgraph_app:app``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

APPROVAL = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"18°C and sunny in {city}"


class ScriptedModel(BaseChatModel):
    """A call when the turn asks for one and has no result yet, else an answer."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        turn = sum(1 for m in messages if m.type == "human")
        text = next((str(m.content) for m in reversed(messages) if m.type == "human"), "")
        if messages and isinstance(messages[-1], ToolMessage):
            return AIMessage(content=f"Done. {messages[-1].content}")
        if match := re.search(r"weather in (\w+)", text):
            name, args = "get_weather", {"city": match[1]}
        elif match := re.search(r"map of (\w+)", text):
            name, args = "show_map", {"city": match[1]}
        elif match := re.search(r"delete (\S+)", text):
            name, args = "delete_file", {"path": match[1]}
        else:
            return AIMessage(content=f"You said: {text}")
        call = {"name": name, "args": args, "id": f"call_{name}_{turn}"}
        return AIMessage(content="Working on it.", tool_calls=[call])

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        yield ChatGenerationChunk(message=AIMessageChunk(content=str(reply.content)))
        for index, call in enumerate(reply.tool_calls):
            chunk = tool_call_chunk(
                name=call["name"], args=json.dumps(call["args"]), id=call["id"], index=index
            )
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[chunk]))


# The graph's end node, typed: without langgraph installed the type checker sees END as Any.
FINISH: str = END


class State(MessagesState):
    tools: list[Any]


def build_graph() -> Any:
    model = ScriptedModel()

    def agent(state: State) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: State) -> str:
        last = state["messages"][-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return FINISH
        name = last.tool_calls[0]["name"]
        if name == "delete_file":
            return "approve"
        client = {t.get("name") for t in state.get("tools") or [] if isinstance(t, dict)}
        return FINISH if name in client else "tools"

    def approve(state: State) -> dict[str, list[BaseMessage]]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        call = last.tool_calls[0]
        answer = interrupt(
            {
                "reason": "tool_call",
                "message": f"Delete {call['args']['path']}?",
                "toolCallId": call["id"],
                "responseSchema": APPROVAL,
            }
        )
        approved = isinstance(answer, dict) and answer.get("approved") is True
        content = f"deleted {call['args']['path']}" if approved else "the user denied it"
        return {"messages": [ToolMessage(content=content, tool_call_id=call["id"])]}

    graph = StateGraph(State)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_node("approve", approve)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", "approve", FINISH])
    graph.add_edge("tools", "agent")
    graph.add_edge("approve", "agent")
    return graph.compile(checkpointer=MemorySaver())


app = FastAPI()
add_langgraph_fastapi_endpoint(
    app,
    LangGraphAgent(
        name="scripted",
        graph=build_graph(),
        emit_interrupt_outcome=True,
        emit_raw_events=False,
    ),
    "/",
)
