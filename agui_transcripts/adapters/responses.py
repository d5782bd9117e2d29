"""OpenAI Responses input items: the one OpenAI shape that keeps reasoning.

``to_responses`` renders a transcript (its ordered projection) as the items the
Responses API and the openai-agents SDK take as input history (``to_input_list()``):
messages, ``function_call`` / ``function_call_output`` pairs joined by ``call_id``, and
``reasoning`` items with their summary and ``encrypted_content``. The items are plain
dicts shaped as the ``openai`` package's TypedDicts; no ``openai`` import is needed.
``from_responses`` reads such items back into AG-UI messages.

What the format cannot hold, and what happens to it:

================================  ===============================================
AG-UI                             Responses items
================================  ===============================================
user, system, developer ids       dropped (input messages have no id)
assistant message ids             kept (``id`` of the output message)
reasoning text                    ``summary`` of a ``reasoning`` item
``encryptedValue`` of reasoning   ``encrypted_content``, unmodified
activity messages                 dropped (frontend-only)
tool ``error``                    no field: ``"Error: <error>"`` leads the output
tool content parts                text parts joined into the output string
user image / document parts       ``input_image`` / ``input_file`` parts
user audio and video parts        dropped, reported (``responses-dropped``)
invalid JSON arguments            kept verbatim in ``arguments``
``subagentRunId``, metadata       dropped
content neither text nor parts    its JSON text (``message-content-invalid``)
================================  ===============================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    ToolMessage,
    UserMessage,
)
from ..projection import (
    Policy,
    SourceMessage,
    Subagents,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    messages_from_parts,
)
from ..transcript import Transcript
from . import data_url, messages_of, report, stable_id, tool_text
from .target import Rendering

__all__ = ["ResponseItem", "from_responses", "to_responses"]

ResponseItem = dict[str, Any]
"""One input item (a message, ``function_call``, ``function_call_output`` or ``reasoning``)."""


def _input_content(
    message: UserMessage, diagnostics: list[Diagnostic] | None
) -> str | list[dict[str, Any]]:
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        raw_source = part.get("source")
        source: dict[str, Any] = raw_source if isinstance(raw_source, dict) else {}
        url = data_url(source)
        if kind == "text":
            parts.append({"type": "input_text", "text": str(part.get("text", ""))})
        elif kind == "image" and url:
            parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
        elif kind == "document" and source.get("type") == "data":
            file: dict[str, Any] = {"type": "input_file", "file_data": url}
            filename = (part.get("metadata") or {}).get("filename")
            if filename:
                file["filename"] = filename
            parts.append(file)
        elif kind == "document" and url:
            parts.append({"type": "input_file", "file_url": url})
        else:
            report(
                diagnostics,
                "responses-dropped",
                f"user message {message.id!r}: a {kind} part has no Responses input form; dropped",
                message_id=message.id,
            )
    return parts


@holds_gc
def to_responses(
    source: Transcript | Sequence[Message],
    *,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    include_system: bool = True,
    include_reasoning: bool = True,
    diagnostics: list[Diagnostic] | None = None,
) -> list[ResponseItem]:
    """Responses input items for a transcript (or an ordered list of messages).

    ``policy`` decides unanswered calls (see :meth:`Transcript.ordered`): with the default
    every ``function_call`` has its ``function_call_output``, as the API requires.
    ``include_system`` keeps system and developer messages, ``include_reasoning`` the
    reasoning items. Drops are appended to ``diagnostics`` when given.
    """
    items: list[ResponseItem] = []
    for message in messages_of(source, policy=policy, diagnostics=diagnostics, subagents=subagents):
        if isinstance(message, (SystemMessage, DeveloperMessage)):
            if include_system:
                items.append({"type": "message", "role": message.role, "content": message.text})
        elif isinstance(message, UserMessage):
            content = _input_content(message, diagnostics)
            items.append({"type": "message", "role": "user", "content": content})
        elif isinstance(message, AssistantMessage):
            if message.text:
                items.append(
                    {
                        "type": "message",
                        "id": message.id,
                        "role": "assistant",
                        "status": "completed",
                        "content": [
                            {"type": "output_text", "text": message.text, "annotations": []}
                        ],
                    }
                )
            for call in message.tool_calls or ():
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": call.arguments,
                    }
                )
        elif isinstance(message, ToolMessage):
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": tool_text(message),
                }
            )
        elif isinstance(message, ReasoningMessage):
            if include_reasoning:
                item: ResponseItem = {
                    "type": "reasoning",
                    "id": message.id,
                    "summary": (
                        [{"type": "summary_text", "text": message.text}] if message.text else []
                    ),
                }
                if message.encrypted_value is not None:
                    item["encrypted_content"] = message.encrypted_value
                items.append(item)
        elif not isinstance(message, ActivityMessage):  # pragma: no cover - every role is handled
            raise TypeError(f"cannot render a {type(message).__name__}")
    return items


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("input_text", "output_text")
        )
    return ""


def from_responses(
    items: Iterable[dict[str, Any]], *, policy: Policy = "synthesize"
) -> list[Message]:
    """AG-UI messages from Responses items, every call before its result.

    A ``function_call`` joins the assistant message before it (or starts one);
    ``function_call_output`` becomes a tool message; ``reasoning`` a reasoning message
    (summary texts joined, ``encrypted_content`` kept as ``encryptedValue``). Ids the items
    lack are derived from position and content. Other item types are skipped.
    """
    sources: list[SourceMessage] = []
    reasoning: list[tuple[int, ReasoningMessage]] = []
    for index, item in enumerate(items):
        kind = item.get("type", "message")
        sid = str(item.get("id") or stable_id("responses", index, item))
        if kind == "message":
            role = str(item.get("role"))
            if role in ("system", "developer", "user", "assistant"):
                sources.append(SourceMessage(sid, role, [TextPart(_text_of(item.get("content")))]))
        elif kind == "function_call":
            call = ToolCallPart(
                str(item.get("call_id")), str(item.get("name", "")), str(item.get("arguments", ""))
            )
            last = sources[-1] if sources else None
            if last is not None and last.role == "assistant":
                last.parts.append(call)
            else:
                sources.append(SourceMessage(sid, "assistant", [call]))
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else _text_of(output)
            sources.append(
                SourceMessage(sid, "tool", [ToolResultPart(str(item.get("call_id")), text)])
            )
        elif kind == "reasoning":
            summary = item.get("summary") or []
            text = "".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
            message = ReasoningMessage(sid, text)
            if isinstance(item.get("encrypted_content"), str):
                message.encrypted_value = item["encrypted_content"]
            reasoning.append((len(sources), message))
    messages = messages_from_parts(sources, policy=policy).messages
    # Reasoning items keep their place: before the message that followed them.
    for before, message in reasoning:
        messages.insert(_index_of_source(messages, sources, before), message)
    return messages


def _index_of_source(messages: list[Message], sources: list[SourceMessage], position: int) -> int:
    """Where the message built from ``sources[position]`` sits (the end when past them)."""
    if position >= len(sources):
        return len(messages)
    wanted = sources[position].id
    for index, message in enumerate(messages):
        if message.id == wanted:
            return index
    return len(messages)


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    return to_responses(transcript, subagents=subagents)


TARGET = Rendering("responses", None, _as_json)
