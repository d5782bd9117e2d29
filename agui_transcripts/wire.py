"""AG-UI wire message dicts into model messages (snapshots, run inputs, adapters).

Reading is tolerant in the way the AG-UI processing rules ask: an unknown content part
is dropped with a warning (the rest of the message is kept), a retired ``binary`` part is
upgraded to the 1.0 part for its media type, ``null`` reads as absent, and a message
that cannot be read at all is reported and skipped, never guessed at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from ._codec import dumps
from .events import json_kind
from .model import (
    ActivityMessage,
    AssistantMessage,
    ContentPart,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    content_is_unfit,
)

__all__ = ["Report", "content_parts", "message_from_dict", "messages_from_dicts"]

Report = Callable[[str, str], None]
"""Receives (diagnostic code, message) for each repair or rejection."""

_PART_TYPES: Final = frozenset({"text", "image", "audio", "video", "document"})
_KNOWN_FIELDS: Final = {
    "id",
    "role",
    "content",
    "name",
    "subagentRunId",
    "metadata",
    "encryptedValue",
    "encryptedValueType",
    "toolCalls",
    "toolCallId",
    "error",
    "activityType",
}


def _ignore(code: str, message: str) -> None:
    return None


def content_parts(content: list[Any], where: str, report: Report) -> list[ContentPart]:
    """The AG-UI 1.0 content parts of ``content``; anything else reported and dropped."""
    parts: list[ContentPart] = []
    for index, part in enumerate(content):
        if not isinstance(part, dict):
            report("unknown-content-part", f"{where}/content/{index} is not an object; dropped")
            continue
        kind = part.get("type")
        if type(kind) is str and kind in _PART_TYPES:
            parts.append(part)
        elif kind == "binary":
            parts.append(_upgrade_binary(part))
            report(
                "legacy-content-part", f"{where}/content/{index}: retired 'binary' part upgraded"
            )
        else:
            report(
                "unknown-content-part",
                f"{where}/content/{index}: content part type {kind!r} is not part of AG-UI 1.0; "
                "dropped",
            )
    return parts


def _upgrade_binary(part: Mapping[str, Any]) -> ContentPart:
    mime = str(part.get("mimeType") or "application/octet-stream")
    family = mime.split("/", 1)[0]
    kind = family if family in ("image", "audio", "video") else "document"
    if part.get("url"):
        source: dict[str, Any] = {"type": "url", "value": part["url"], "mimeType": mime}
    elif part.get("data"):
        source = {"type": "data", "value": part["data"], "mimeType": mime}
    else:
        source = {"type": "file", "value": str(part.get("id", "")), "mimeType": mime}
    upgraded: ContentPart = {"type": kind, "source": source}
    if part.get("filename"):
        upgraded["metadata"] = {"filename": part["filename"]}
    return upgraded


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return dumps(value)


T = TypeVar("T")


def _typed(
    item: Mapping[str, Any], key: str, kind: type[T], where: str, report: Report
) -> T | None:
    """``item[key]`` if it is a ``kind``; absent or null is None, anything else reported."""
    value = item.get(key)
    if value is None or isinstance(value, kind):
        return value
    noun = "a string" if kind is str else "an object"
    report("snapshot-message-invalid", f"{where}/{key} is not {noun}; dropped")
    return None


def _tool_calls(raw: object, where: str, report: Report) -> list[ToolCall] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        report("snapshot-message-invalid", f"{where}/toolCalls is not an array; dropped")
        return None
    calls: list[ToolCall] = []
    for index, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("id"), str)
            or not isinstance(function, dict)
        ):
            report(
                "snapshot-message-invalid", f"{where}/toolCalls/{index} is not a tool call; dropped"
            )
            continue
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            report(
                "snapshot-message-invalid",
                f"{where}/toolCalls/{index}: arguments should be a JSON string; serialised",
            )
            arguments = dumps(arguments)
        field = f"{where}/toolCalls/{index}"
        call = ToolCall(
            item["id"],
            _text(function.get("name")),
            arguments,
            encrypted_value=_typed(item, "encryptedValue", str, field, report),
            metadata=_typed(item, "metadata", dict, field, report),
        )
        if isinstance(item.get("encryptedValueType"), str):
            call.encrypted_value_type = item["encryptedValueType"]
        calls.append(call)
    return calls


def message_from_dict(
    data: object, *, where: str = "message", report: Report | None = None
) -> Message | None:
    """Build a model message from an AG-UI wire dict (camelCase), or None if unreadable."""
    report = report or _ignore
    if type(data) is dict:  # dicts skip the ABC check
        fields: dict[str, Any] = data
    elif isinstance(data, Mapping):
        fields = dict(data)
    else:
        report("snapshot-message-invalid", f"{where} is not an object; skipped")
        return None
    return _message(fields, where, report)


def _message(data: dict[str, Any], where: str, report: Report) -> Message | None:
    message_id = data.get("id")
    role = data.get("role")
    if not isinstance(message_id, str):
        report("snapshot-message-invalid", f"{where} has no string id; skipped")
        return None
    name = data.get("name")
    if not isinstance(name, str):
        name = None
    subagent_run_id = data.get("subagentRunId")
    if not isinstance(subagent_run_id, str):
        subagent_run_id = None
    metadata = _typed(data, "metadata", dict, where, report)
    encrypted = _typed(data, "encryptedValue", str, where, report)
    content = data.get("content")
    # Content that is neither text nor content parts (an object, a number; parts on an
    # assistant message) is kept as it came, as the reference client keeps its own input;
    # what reads text reads its JSON text.
    odd = content_is_unfit(role, content)
    message: Message
    if role in ("developer", "system", "user", "reasoning"):
        if isinstance(content, list):
            parts = content_parts(content, where, report)
            value: str | list[ContentPart] = parts
            if role != "user":
                value = "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
        else:
            value = _text(content)
        # Each class called by name: a native call when compiled.
        if role == "user":
            message = UserMessage(message_id, value, name=name)
        elif role == "system":
            message = SystemMessage(message_id, value, name=name)
        elif role == "developer":
            message = DeveloperMessage(message_id, value, name=name)
        else:
            message = ReasoningMessage(message_id, value, name=name)
        message.subagent_run_id = subagent_run_id
        message.metadata = metadata
        message.encrypted_value = encrypted
    elif role == "assistant":
        message = AssistantMessage(
            message_id,
            None if content is None else _text(content),
            _tool_calls(data.get("toolCalls"), where, report),
            name=name,
            subagent_run_id=subagent_run_id,
            metadata=metadata,
            encrypted_value=encrypted,
        )
    elif role == "tool":
        tool_call_id = data.get("toolCallId")
        if not isinstance(tool_call_id, str):
            report(
                "snapshot-message-invalid", f"{where} is a tool message without toolCallId; skipped"
            )
            return None
        result: str | list[ContentPart] = (
            content_parts(content, where, report) if isinstance(content, list) else _text(content)
        )
        error = data.get("error")
        message = ToolMessage(
            message_id,
            tool_call_id,
            result,
            error=error if isinstance(error, str) else None,
            subagent_run_id=subagent_run_id,
            metadata=metadata,
            encrypted_value=encrypted,
        )
    elif role == "activity":
        message = ActivityMessage(
            message_id,
            _text(data.get("activityType")),
            content if isinstance(content, dict) else {},
            subagent_run_id=subagent_run_id,
            metadata=metadata,
        )
    else:
        report(
            "snapshot-message-invalid",
            f"{where} has role {role!r}, which AG-UI 1.0 does not define; skipped",
        )
        return None
    if odd:
        message.raw_content = content
        report(
            "message-content-invalid",
            f"{where}/content is {json_kind(content)}, neither text nor content parts: kept as "
            "it came; what reads text reads its JSON text",
        )
    if isinstance(data.get("encryptedValueType"), str) and not isinstance(message, ActivityMessage):
        message.encrypted_value_type = data["encryptedValueType"]
    message.extra = {k: v for k, v in data.items() if k not in _KNOWN_FIELDS}
    return message


def messages_from_dicts(
    items: object, *, where: str = "messages", report: Report | None = None
) -> list[Message]:
    """Build model messages from a list of wire dicts, skipping (and reporting) bad ones."""
    report = report or _ignore
    if not isinstance(items, list):
        report("snapshot-message-invalid", f"{where} is not an array; ignored")
        return []
    out: list[Message] = []
    for index, item in enumerate(items):
        message = message_from_dict(item, where=f"{where}/{index}", report=report)
        if message is not None:
            out.append(message)
    return out
