"""Inspect AI chat messages: the most lossless evaluation target.

``to_inspect`` renders a transcript (its ordered projection) as Inspect AI's
``ChatMessageSystem`` / ``ChatMessageUser`` / ``ChatMessageAssistant`` /
``ChatMessageTool``, keeping ids, invalid arguments (``ToolCall.parse_error``), tool
errors (``ToolCallError``) and reasoning (``ContentReasoning``, the encrypted value as its
``signature``). Needs the ``inspect`` extra.

What the format cannot hold, and what happens to it:

================================  ===============================================
AG-UI                             Inspect AI
================================  ===============================================
message and call ids              kept
developer messages                ``ChatMessageSystem``, ``metadata.agui_role``
reasoning messages                ``ContentReasoning`` leading the next assistant
``encryptedValue`` of reasoning   ``signature`` (``redacted`` when no text)
invalid or non-object arguments   ``arguments={}`` and ``parse_error``
tool ``error``                    ``ToolCallError("unknown", error)``
activity messages                 dropped (frontend-only)
user text and image parts         ``ContentText`` / ``ContentImage``
other user media parts            dropped, reported (``inspect-dropped``)
``subagentRunId``, metadata       dropped
content neither text nor parts    its JSON text (``message-content-invalid``)
================================  ===============================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._gc import holds_gc
from ..diagnostics import Diagnostic
from ..model import (
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    parse_arguments,
)
from ..projection import Policy, Subagents
from ..transcript import Transcript
from . import data_url, messages_of, report
from .target import Rendering

__all__ = ["to_inspect"]


def _inspect() -> tuple[Any, Any]:
    try:
        import inspect_ai.model as model
        import inspect_ai.tool as tool
    except ImportError as exc:
        raise ImportError(
            "the Inspect AI adapter needs inspect-ai: pip install 'agui-transcripts[inspect]'"
        ) from exc
    return model, tool


def _arguments(call: ToolCall) -> tuple[dict[str, Any], str | None]:
    raw = call.arguments
    value, error = parse_arguments(raw)
    if error is not None:
        return {}, f"Invalid JSON arguments ({error}): {raw}"
    if not isinstance(value, dict):
        return {}, f"Arguments are not a JSON object: {raw}"
    return value, None


@holds_gc
def to_inspect(
    source: Transcript | Sequence[Message],
    *,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    include_reasoning: bool = True,
    diagnostics: list[Diagnostic] | None = None,
) -> list[Any]:
    """Inspect AI ``ChatMessage`` objects for a transcript (or an ordered message list).

    Reasoning becomes a ``ContentReasoning`` part leading the assistant message after it
    (or an assistant message of its own when none follows); ``include_reasoning=False``
    leaves it out. Drops are appended to ``diagnostics`` when given.
    """
    model, tool = _inspect()
    messages = messages_of(source, policy=policy, diagnostics=diagnostics, subagents=subagents)
    names = {
        call.id: call.name
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or ()
    }
    out: list[Any] = []
    thoughts: list[Any] = []  # reasoning waiting for the assistant message it leads

    def flush_thoughts() -> None:
        if thoughts:
            out.append(model.ChatMessageAssistant(content=list(thoughts)))
            thoughts.clear()

    for message in messages:
        if isinstance(message, ReasoningMessage):
            if include_reasoning:
                thoughts.append(
                    model.ContentReasoning(
                        reasoning=message.text,
                        signature=message.encrypted_value,
                        redacted=not message.text and message.encrypted_value is not None,
                    )
                )
            continue
        if isinstance(message, AssistantMessage):
            content: Any = message.text
            if thoughts:
                content = [
                    *thoughts,
                    *([model.ContentText(text=message.text)] * bool(message.text)),
                ]
                thoughts.clear()
            calls = []
            for call in message.tool_calls or ():
                arguments, parse_error = _arguments(call)
                calls.append(
                    tool.ToolCall(
                        id=call.id,
                        function=call.name,
                        arguments=arguments,
                        parse_error=parse_error,
                    )
                )
            out.append(
                model.ChatMessageAssistant(id=message.id, content=content, tool_calls=calls or None)
            )
            continue
        flush_thoughts()
        if isinstance(message, (SystemMessage, DeveloperMessage)):
            metadata = {"agui_role": "developer"} if isinstance(message, DeveloperMessage) else None
            out.append(
                model.ChatMessageSystem(id=message.id, content=message.text, metadata=metadata)
            )
        elif isinstance(message, UserMessage):
            out.append(
                model.ChatMessageUser(id=message.id, content=_user(message, model, diagnostics))
            )
        elif isinstance(message, ToolMessage):
            error = (
                tool.ToolCallError(type="unknown", message=message.error)
                if message.error is not None
                else None
            )
            out.append(
                model.ChatMessageTool(
                    id=message.id,
                    content=message.text,
                    tool_call_id=message.tool_call_id,
                    function=names.get(message.tool_call_id),
                    error=error,
                )
            )
        elif not isinstance(message, ActivityMessage):  # pragma: no cover - every role is handled
            raise TypeError(f"cannot render a {type(message).__name__}")
    flush_thoughts()
    return out


def _user(message: UserMessage, model: Any, diagnostics: list[Diagnostic] | None) -> Any:
    if isinstance(message.content, str):
        return message.content
    parts: list[Any] = []
    for part in message.content:
        kind = part.get("type")
        raw_source = part.get("source")
        source: dict[str, Any] = raw_source if isinstance(raw_source, dict) else {}
        url = data_url(source)
        if kind == "text":
            parts.append(model.ContentText(text=str(part.get("text", ""))))
        elif kind == "image" and url:
            parts.append(model.ContentImage(image=url))
        else:
            report(
                diagnostics,
                "inspect-dropped",
                f"user message {message.id!r}: a {kind} part is not converted; dropped",
                message_id=message.id,
            )
    return parts


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    return [
        message.model_dump(mode="json", exclude_none=True)
        for message in to_inspect(transcript, subagents=subagents)
    ]


TARGET = Rendering("inspect", "inspect", _as_json, _inspect)
