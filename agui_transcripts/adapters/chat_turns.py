"""Chat turns: the role/content view that conversation judges take.

``to_chat_turns`` renders a transcript as alternating ``{"role", "content"}`` turns of
plain text, the shape Opik's conversation metrics, MLflow's and Langfuse's judges and
most LLM-as-judge prompts take. Tool activity either becomes text inside the assistant
turn that made the calls (``tools="summarize"``, the default) or is left out
(``tools="drop"``); consecutive pieces of one side merge into one turn.

What the view cannot hold, and what happens to it:

================================  ===============================================
AG-UI                             chat turns
================================  ===============================================
message and call ids              dropped
tool calls and results            a line of text in the assistant turn, or dropped
tool ``error``                    ``error: <error>`` in that line
system and developer messages     dropped unless ``include_system`` (role system)
reasoning messages                dropped, reported (``chat-turns-dropped``)
activity messages                 dropped (frontend-only)
user content parts                text parts joined; media parts dropped, reported
``subagentRunId``, metadata       dropped
content neither text nor parts    its JSON text (``message-content-invalid``)
================================  ===============================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypedDict

from .._gc import holds_gc
from ..diagnostics import Diagnostic
from ..model import (
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..projection import Policy, Subagents
from ..transcript import Transcript
from . import messages_of, report
from .target import Rendering

__all__ = ["ChatTurn", "to_chat_turns"]


class ChatTurn(TypedDict):
    """One turn: who spoke, and what, as text."""

    role: Literal["system", "user", "assistant"]
    content: str


def _user_text(message: UserMessage, diagnostics: list[Diagnostic] | None) -> str:
    if isinstance(message.content, str):
        return message.content
    media = [p.get("type") for p in message.content if p.get("type") != "text"]
    if media:
        report(
            diagnostics,
            "chat-turns-dropped",
            f"user message {message.id!r}: {', '.join(map(str, media))} parts have no text "
            "form; dropped",
            message_id=message.id,
        )
    return message.text


@holds_gc
def to_chat_turns(
    source: Transcript | Sequence[Message],
    *,
    tools: Literal["summarize", "drop"] = "summarize",
    include_system: bool = False,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    diagnostics: list[Diagnostic] | None = None,
) -> list[ChatTurn]:
    """Role/content turns for a transcript (or an ordered list of messages).

    ``tools="summarize"`` writes each call as ``[tool name(arguments) -> result]`` in the
    assistant turn that made it; ``"drop"`` leaves tools out. ``include_system`` keeps
    system and developer messages as ``system`` turns. Drops are appended to
    ``diagnostics`` when given.
    """
    turns: list[ChatTurn] = []
    results = {}
    messages = messages_of(source, policy=policy, diagnostics=diagnostics, subagents=subagents)
    for message in messages:
        if isinstance(message, ToolMessage):
            results[message.tool_call_id] = message

    def add(role: Literal["system", "user", "assistant"], text: str) -> None:
        if not text:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n" + text
        else:
            turns.append({"role": role, "content": text})

    for message in messages:
        if isinstance(message, (SystemMessage, DeveloperMessage)):
            if include_system:
                add("system", message.text)
            else:
                report(
                    diagnostics,
                    "chat-turns-dropped",
                    f"{message.role} message {message.id!r} left out",
                    message_id=message.id,
                )
        elif isinstance(message, UserMessage):
            add("user", _user_text(message, diagnostics))
        elif isinstance(message, AssistantMessage):
            add("assistant", message.text)
            if tools == "summarize":
                for call in message.tool_calls or ():
                    add("assistant", _summary(call.name, call.arguments, results.get(call.id)))
        elif isinstance(message, ReasoningMessage):
            report(
                diagnostics,
                "chat-turns-dropped",
                f"reasoning message {message.id!r} left out",
                message_id=message.id,
            )
        elif not isinstance(message, (ToolMessage, ActivityMessage)):  # pragma: no cover
            raise TypeError(f"cannot render a {type(message).__name__}")
    return turns


def _summary(name: str, arguments: str, result: ToolMessage | None) -> str:
    if result is None:
        outcome = "no result"
    elif result.error is not None:
        outcome = f"error: {result.error}"
    else:
        outcome = result.text
    return f"[tool {name}({arguments}) -> {outcome}]"


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    return list(to_chat_turns(transcript, subagents=subagents))


TARGET = Rendering("chat-turns", None, _as_json)
