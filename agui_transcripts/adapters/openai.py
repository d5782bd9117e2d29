"""OpenAI Chat Completions message dicts: the interchange format most harnesses take.

``to_openai`` renders a transcript (its ordered projection: one tool message per result,
right after the assistant message declaring the calls, no trailing open call) as plain
dicts typed with the TypedDicts below; no ``openai`` import is needed. ``from_openai``
reads such a list back into AG-UI messages. Agentevals/openevals, LiteLLM, Langfuse,
MLflow, Opik and most home-made harnesses take this shape.

What the format cannot hold, and what happens to it:

================================  ===============================================
AG-UI                             Chat Completions
================================  ===============================================
message ids                       dropped (call ids are kept)
reasoning messages                dropped, reported (``openai-dropped``)
activity messages                 dropped (frontend-only)
tool ``error``                    no field: ``"Error: <error>"`` leads the content
tool content parts                text parts joined into the content string
video parts, document URLs        dropped, reported (``openai-dropped``)
image / audio / document data     ``image_url`` / ``input_audio`` / ``file`` parts
invalid JSON arguments            kept verbatim (``repair=True`` wraps them as JSON)
``subagentRunId``, metadata       dropped
content neither text nor parts    its JSON text (``message-content-invalid``)
================================  ===============================================
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
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
    parse_arguments,
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

__all__ = [
    "ChatMessage",
    "from_openai",
    "to_openai",
]


class FunctionCall(TypedDict):
    """``function`` of a tool call: ``arguments`` is a JSON string."""

    name: str
    arguments: str


class ToolCallParam(TypedDict):
    """One call in an assistant message."""

    id: str
    type: Literal["function"]
    function: FunctionCall


class _Named(TypedDict, total=False):
    name: str


class SystemMessageParam(_Named):
    """A system prompt."""

    role: Literal["system"]
    content: str


class DeveloperMessageParam(_Named):
    """A developer instruction."""

    role: Literal["developer"]
    content: str


class UserMessageParam(_Named):
    """A user turn: text or content parts."""

    role: Literal["user"]
    content: str | list[dict[str, Any]]


class _AssistantRequired(TypedDict):
    role: Literal["assistant"]
    content: str | None


class AssistantMessageParam(_AssistantRequired, total=False):
    """An assistant turn; ``content`` is None only beside ``tool_calls``."""

    tool_calls: list[ToolCallParam]
    name: str


class ToolMessageParam(TypedDict):
    """A tool result for one call."""

    role: Literal["tool"]
    tool_call_id: str
    content: str


ChatMessage = (
    SystemMessageParam
    | DeveloperMessageParam
    | UserMessageParam
    | AssistantMessageParam
    | ToolMessageParam
)


def _user_parts(
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
        if kind == "text":
            parts.append({"type": "text", "text": str(part.get("text", ""))})
        elif kind == "image" and data_url(source):
            parts.append({"type": "image_url", "image_url": {"url": data_url(source)}})
        elif kind == "audio" and source.get("type") == "data":
            audio_format = str(source.get("mimeType", "audio/wav")).split("/")[-1]
            parts.append(
                {
                    "type": "input_audio",
                    "input_audio": {"data": source.get("value"), "format": audio_format},
                }
            )
        elif kind == "document" and source.get("type") == "data":
            file: dict[str, Any] = {"file_data": data_url(source)}
            filename = (part.get("metadata") or {}).get("filename")
            if filename:
                file["filename"] = filename
            parts.append({"type": "file", "file": file})
        else:
            report(
                diagnostics,
                "openai-dropped",
                f"user message {message.id!r}: a {kind} part with a {source.get('type')} source "
                "has no Chat Completions form; dropped",
                message_id=message.id,
            )
    return parts


def _arguments(raw: str, repair: bool, call_id: str, diagnostics: list[Diagnostic] | None) -> str:
    if not repair:
        return raw
    if not raw.strip():
        return "{}"
    value, _ = parse_arguments(raw)
    if isinstance(value, dict):
        return raw
    report(
        diagnostics,
        "openai-arguments-repaired",
        f"tool call {call_id!r}: arguments are not a JSON object; wrapped as "
        '{"_raw_arguments": ...} for consumers that parse them',
        tool_call_id=call_id,
    )
    return json.dumps({"_raw_arguments": raw}, ensure_ascii=False)


@holds_gc
def to_openai(
    source: Transcript | Sequence[Message],
    *,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    repair: bool = False,
    include_system: bool = True,
    diagnostics: list[Diagnostic] | None = None,
) -> list[ChatMessage]:
    """Chat Completions messages for a transcript (or an ordered list of messages).

    ``policy`` decides unanswered calls (see :meth:`Transcript.ordered`); ``repair``
    makes every ``arguments`` string a JSON object; ``include_system`` keeps system and
    developer messages. Drops and repairs are appended to ``diagnostics`` when given.
    """
    out: list[ChatMessage] = []
    for message in messages_of(source, policy=policy, diagnostics=diagnostics, subagents=subagents):
        turn = _chat_message(message, repair, include_system, diagnostics)
        if turn is not None:
            out.append(turn)
    return out


def _chat_message(
    message: Message, repair: bool, include_system: bool, diagnostics: list[Diagnostic] | None
) -> ChatMessage | None:
    """One message's Chat Completions form (None: it has none, or is left out)."""
    if isinstance(message, (SystemMessage, DeveloperMessage)):
        if not include_system:
            return None
        turn: SystemMessageParam | DeveloperMessageParam
        if isinstance(message, SystemMessage):
            turn = {"role": "system", "content": message.text}
        else:
            turn = {"role": "developer", "content": message.text}
        if message.name:
            turn["name"] = message.name
        return turn
    if isinstance(message, UserMessage):
        user: UserMessageParam = {"role": "user", "content": _user_parts(message, diagnostics)}
        if message.name:
            user["name"] = message.name
        return user
    if isinstance(message, AssistantMessage):
        assistant: AssistantMessageParam = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            assistant["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": _arguments(call.arguments, repair, call.id, diagnostics),
                    },
                }
                for call in message.tool_calls
            ]
        elif assistant["content"] is None:
            assistant["content"] = ""
        if message.name:
            assistant["name"] = message.name
        return assistant
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": tool_text(message)}
    if isinstance(message, ReasoningMessage):
        report(
            diagnostics,
            "openai-dropped",
            f"reasoning message {message.id!r} has no Chat Completions form; dropped",
            message_id=message.id,
        )
        return None
    if isinstance(message, ActivityMessage):
        return None
    raise TypeError(f"cannot render a {type(message).__name__}")  # pragma: no cover - every role


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def from_openai(
    messages: Iterable[dict[str, Any]], *, policy: Policy = "synthesize"
) -> list[Message]:
    """AG-UI messages from Chat Completions messages, every call before its result.

    Ids are deterministic (derived from position and content) since the format has none;
    call ids are kept. A ``tool`` message becomes a tool message; its ``Error: ``
    prefix is not parsed back into ``error``.
    """
    sources: list[SourceMessage] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        sid = str(message.get("id") or stable_id("openai", index, message))
        name = message.get("name") if isinstance(message.get("name"), str) else None
        if role in ("system", "developer", "user"):
            sources.append(
                SourceMessage(
                    sid, str(role), [TextPart(_content_text(message.get("content")))], name=name
                )
            )
        elif role == "assistant":
            parts: list[Any] = []
            text = _content_text(message.get("content"))
            if text:
                parts.append(TextPart(text))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                parts.append(
                    ToolCallPart(
                        str(call.get("id")),
                        str(function.get("name", "")),
                        str(function.get("arguments", "")),
                    )
                )
            sources.append(SourceMessage(sid, "assistant", parts or [TextPart("")], name=name))
        elif role == "tool":
            result = ToolResultPart(
                str(message.get("tool_call_id")), _content_text(message.get("content"))
            )
            sources.append(SourceMessage(sid, "tool", [result]))
    return messages_from_parts(sources, policy=policy).messages


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    return list(to_openai(transcript, subagents=subagents))


def _each(transcript: Transcript, messages: Sequence[Message]) -> list[list[Any]]:
    turns = (_chat_message(message, False, True, None) for message in messages)
    return [[] if turn is None else [turn] for turn in turns]


TARGET = Rendering("openai", None, _as_json, each=_each)
