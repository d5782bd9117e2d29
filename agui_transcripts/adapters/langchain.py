"""LangChain messages (langchain-core 1.x): ``to_langchain`` and ``from_langchain``.

Built directly from the transcript's ordered projection, never through LangChain's
OpenAI helpers (they drop invalid calls and tool errors). Install with
``pip install agui-transcripts[langchain]``.

================================  ===============================================
AG-UI                             LangChain
================================  ===============================================
system / developer                ``SystemMessage`` (developer tagged with
                                  ``additional_kwargs["__openai_role__"]``)
user text / media parts           ``HumanMessage``; media as v1 blocks
                                  (``image``/``audio``/``video``/``file``)
assistant calls, JSON object      ``tool_calls``
assistant calls, other arguments  ``invalid_tool_calls`` (raw string, id kept)
raw argument text                 ``additional_kwargs["tool_calls"]`` (OpenAI
                                  shape), so the round trip is exact
reasoning message                 a ``reasoning`` block on the next AIMessage
                                  (encrypted value in ``extras``)
tool result                       ``ToolMessage`` (``status="error"`` and
                                  ``additional_kwargs["error"]`` for errors)
run usage (RUN_FINISHED)          ``usage_metadata`` of the run's last AIMessage
activity messages                 dropped, reported (``langchain-dropped``)
other AG-UI fields                ``subagentRunId``, ``metadata`` and
                                  ``encryptedValue`` in ``additional_kwargs["agui"]``
content neither text nor parts    its JSON text (``message-content-invalid``)
================================  ===============================================
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from .._gc import holds_gc
from ..diagnostics import RULES, Diagnostic
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
    MediaPart,
    Part,
    Policy,
    ReasoningPart,
    SourceMessage,
    Subagents,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    is_synthetic,
    messages_from_parts,
)
from ..transcript import Transcript
from . import messages_of
from .target import Rendering

__all__ = ["from_langchain", "to_langchain"]

_MEDIA = {"image": "image", "audio": "audio", "video": "video", "document": "file"}
_MEDIA_BACK = {block: part for part, block in _MEDIA.items()}


def _import() -> Any:
    try:
        from langchain_core import messages
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "the LangChain adapter needs langchain-core: pip install 'agui-transcripts[langchain]'"
        ) from exc
    return messages


def _extras(message: Message) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if message.subagent_run_id is not None:
        extra["subagentRunId"] = message.subagent_run_id
    if message.metadata is not None:
        extra["metadata"] = message.metadata
    if message.encrypted_value is not None:
        extra["encryptedValue"] = message.encrypted_value
    return {"agui": extra} if extra else {}


def _block(part: dict[str, Any]) -> dict[str, Any]:
    if part.get("type") == "text":
        return {"type": "text", "text": str(part.get("text", ""))}
    source = part.get("source") if isinstance(part.get("source"), dict) else {}
    assert isinstance(source, dict)
    block: dict[str, Any] = {"type": _MEDIA.get(str(part.get("type")), "file")}
    if source.get("type") == "data":
        block["base64"] = source.get("value")
    elif source.get("type") == "url":
        block["url"] = source.get("value")
    else:
        block["file_id"] = source.get("value")
    if source.get("mimeType"):
        block["mime_type"] = source["mimeType"]
    if part.get("metadata"):
        block["extras"] = {"metadata": part["metadata"]}
    return block


def _call_args(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    value, error = parse_arguments(raw)
    if error is not None:
        return None, f"arguments are not valid JSON: {error}"
    if not isinstance(value, dict):
        return None, f"arguments are JSON but not an object ({type(value).__name__})"
    return value, None


def _usage(runs: Sequence[Any]) -> dict[int, dict[str, Any]]:
    """LangChain usage_metadata per run, from RUN_FINISHED/RUN_ERROR usage entries."""
    out: dict[int, dict[str, Any]] = {}
    for run in runs:
        entries = (
            run.usage
            if isinstance(run.usage, list)
            else [run.usage]
            if isinstance(run.usage, dict)
            else []
        )
        if not entries:
            continue
        total = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
        cache_read = cache_creation = reasoning = 0
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            total["input_tokens"] += int(entry.get("inputTokens") or 0)
            total["output_tokens"] += int(entry.get("outputTokens") or 0)
            total["total_tokens"] += int(entry.get("totalTokens") or 0)
            cache_read += int(entry.get("cachedInputTokens") or 0)
            cache_creation += int(entry.get("cacheWriteInputTokens") or 0)
            reasoning += int(entry.get("reasoningTokens") or 0)
        if not total["total_tokens"]:
            total["total_tokens"] = total["input_tokens"] + total["output_tokens"]
        usage: dict[str, Any] = dict(total)
        if cache_read or cache_creation:
            usage["input_token_details"] = {
                "cache_read": cache_read,
                "cache_creation": cache_creation,
            }
        if reasoning:
            usage["output_token_details"] = {"reasoning": reasoning}
        out[run.index] = usage
    return out


def _last_assistant_per_run(transcript: Transcript) -> dict[str, int]:
    """Id of each run's last assistant message (by arrival), mapped to the run index."""
    last: dict[int, str] = {}
    for message in transcript.messages:
        run = transcript.run_of(message)
        if isinstance(message, AssistantMessage) and run is not None:
            last[run.index] = message.id
    return {message_id: run for run, message_id in last.items()}


@holds_gc
def to_langchain(
    source: Transcript | Sequence[Message],
    *,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    include_reasoning: bool = True,
    include_encrypted: bool = True,
    diagnostics: list[Diagnostic] | None = None,
) -> list[Any]:
    """LangChain messages for a transcript (or an ordered list of AG-UI messages)."""
    lc = _import()
    usage_by_message: dict[str, dict[str, Any]] = {}
    if isinstance(source, Transcript):
        usage = _usage(source.runs)
        usage_by_message = {
            message_id: usage[run]
            for message_id, run in _last_assistant_per_run(source).items()
            if run in usage
        }
    out: list[Any] = []
    reasoning: list[dict[str, Any]] = []
    for message in messages_of(source, policy=policy, diagnostics=diagnostics, subagents=subagents):
        if isinstance(message, ReasoningMessage):
            if include_reasoning:
                block: dict[str, Any] = {
                    "type": "reasoning",
                    "reasoning": message.text,
                    "id": message.id,
                }
                if include_encrypted and message.encrypted_value is not None:
                    block["extras"] = {"encrypted_value": message.encrypted_value}
                reasoning.append(block)
            continue
        if reasoning and not isinstance(message, AssistantMessage):
            out.append(lc.AIMessage(content=reasoning))
            reasoning = []
        if isinstance(message, (SystemMessage, DeveloperMessage)):
            kwargs = _extras(message)
            if isinstance(message, DeveloperMessage):
                kwargs["__openai_role__"] = "developer"
            out.append(
                lc.SystemMessage(
                    content=message.text, id=message.id, name=message.name, additional_kwargs=kwargs
                )
            )
        elif isinstance(message, UserMessage):
            content = message.content
            human = content if isinstance(content, str) else [_block(p) for p in content]
            out.append(
                lc.HumanMessage(
                    content=human,
                    id=message.id,
                    name=message.name,
                    additional_kwargs=_extras(message),
                )
            )
        elif isinstance(message, AssistantMessage):
            out.append(_ai(lc, message, reasoning, usage_by_message.get(message.id)))
            reasoning = []
        elif isinstance(message, ToolMessage):
            out.append(_tool(lc, message))
        elif isinstance(message, ActivityMessage) and diagnostics is not None:
            diagnostics.append(
                Diagnostic(
                    "langchain-dropped",
                    RULES["langchain-dropped"].severity,
                    f"activity message {message.id!r} is frontend-only; not rendered",
                    message_id=message.id,
                )
            )
    if reasoning:
        out.append(lc.AIMessage(content=reasoning))
    return out


def _ai(
    lc: Any,
    message: AssistantMessage,
    reasoning: list[dict[str, Any]],
    usage: dict[str, Any] | None,
) -> Any:
    text = message.content or ""
    content: Any = text
    if reasoning:
        content = [*reasoning, {"type": "text", "text": text}]
    tool_calls = []
    invalid = []
    raw = []
    for call in message.tool_calls or ():
        args, error = _call_args(call.arguments)
        if args is None:
            invalid.append(
                {
                    "name": call.name,
                    "args": call.arguments,
                    "id": call.id,
                    "error": error,
                    "type": "invalid_tool_call",
                }
            )
        else:
            tool_calls.append({"name": call.name, "args": args, "id": call.id, "type": "tool_call"})
        raw.append(
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
        )
    kwargs = _extras(message)
    if raw:
        kwargs["tool_calls"] = raw
        if message.content == "":
            kwargs.setdefault("agui", {})["emptyContent"] = True  # "" and absent differ in AG-UI
    extra: dict[str, Any] = {}
    if usage is not None:
        extra["usage_metadata"] = usage
    return lc.AIMessage(
        content=content,
        id=message.id,
        name=message.name,
        tool_calls=tool_calls,
        invalid_tool_calls=invalid,
        additional_kwargs=kwargs,
        **extra,
    )


def _tool(lc: Any, message: ToolMessage) -> Any:
    content = message.content
    body: Any = content if isinstance(content, str) else [_block(p) for p in content]
    kwargs = _extras(message)
    if message.error is not None:
        kwargs["error"] = message.error
        if body == "":
            body = message.error
    if is_synthetic(message):
        kwargs["synthetic"] = True
    return lc.ToolMessage(
        content=body,
        tool_call_id=message.tool_call_id,
        id=message.id,
        status="error" if message.error is not None else "success",
        additional_kwargs=kwargs,
    )


def _text_of(content: Any) -> tuple[str, list[dict[str, Any]], list[MediaPart]]:
    """Text, reasoning blocks and media parts of a LangChain content value."""
    if isinstance(content, str):
        return content, [], []
    texts: list[str] = []
    reasoning: list[dict[str, Any]] = []
    media: list[MediaPart] = []
    for block in content or []:
        if isinstance(block, str):
            texts.append(block)
        elif block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "reasoning":
            reasoning.append(block)
        elif block.get("type") in _MEDIA_BACK:
            media.append(MediaPart(_part(block)))
    return "".join(texts), reasoning, media


def _part(block: dict[str, Any]) -> dict[str, Any]:
    if "base64" in block:
        source: dict[str, Any] = {"type": "data", "value": block["base64"]}
    elif "url" in block:
        source = {"type": "url", "value": block["url"]}
    else:
        source = {"type": "file", "value": block.get("file_id")}
    if block.get("mime_type"):
        source["mimeType"] = block["mime_type"]
    part: dict[str, Any] = {"type": _MEDIA_BACK[block["type"]], "source": source}
    metadata = (block.get("extras") or {}).get("metadata")
    if metadata:
        part["metadata"] = metadata
    return part


def from_langchain(messages: Iterable[Any], *, policy: Policy = "synthesize") -> list[Message]:
    """AG-UI messages from LangChain messages, every call before its result."""
    sources: list[SourceMessage] = []
    extras: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for index, message in enumerate(messages):
        kind = message.type
        message_id = message.id or f"langchain-{index}"  # deterministic; LangChain ids are optional
        kwargs = dict(message.additional_kwargs or {})
        if kwargs.get("agui"):
            extras[message_id] = kwargs["agui"]
        text, reasoning, media = _text_of(message.content)
        parts: list[Part] = [
            ReasoningPart(
                str(b.get("reasoning", "")),
                (b.get("extras") or {}).get("encrypted_value"),
                b.get("id"),
            )
            for b in reasoning
        ]
        if kind == "system":
            role = "developer" if kwargs.get("__openai_role__") == "developer" else "system"
            sources.append(SourceMessage(message_id, role, [TextPart(text)], name=message.name))
        elif kind == "human":
            sources.append(
                SourceMessage(
                    message_id,
                    "user",
                    [TextPart(text), *media] if media else [TextPart(text)],
                    name=message.name,
                )
            )
        elif kind == "ai":
            raw = {
                c["id"]: c["function"]["arguments"]
                for c in kwargs.get("tool_calls") or []
                if isinstance(c, dict)
            }
            empty = bool(kwargs.get("agui", {}).get("emptyContent"))
            if text or empty or not (message.tool_calls or message.invalid_tool_calls):
                parts.append(TextPart(text))
            calls = [
                (c["id"], c["name"], raw.get(c["id"], json.dumps(c["args"])))
                for c in message.tool_calls
            ]
            calls += [
                (c["id"], c["name"], raw.get(c["id"], c.get("args") or ""))
                for c in message.invalid_tool_calls
            ]
            order = {c["id"]: i for i, c in enumerate(kwargs.get("tool_calls") or [])}
            calls.sort(key=lambda c: order.get(c[0], len(order)))
            parts += [ToolCallPart(str(i), str(n), str(a)) for i, n, a in calls]
            if message.id is None and not text and not calls:
                parts = [p for p in parts if not isinstance(p, TextPart)]  # a reasoning carrier
            sources.append(SourceMessage(message_id, "assistant", parts, name=message.name))
        elif kind == "tool":
            error = kwargs.get("error")
            if error is None and getattr(message, "status", "success") == "error":
                error = text
            body: Any = (
                text if not media else [{"type": "text", "text": text}, *(m.part for m in media)]
            )
            if error is not None:
                errors[message_id] = str(error)
                if body == error:
                    body = ""
            sources.append(
                SourceMessage(
                    message_id, "tool", [ToolResultPart(str(message.tool_call_id), body, error)]
                )
            )
    out = messages_from_parts(sources, policy=policy).messages
    for message in out:
        extra = {k: v for k, v in extras.get(message.id, {}).items() if k != "emptyContent"}
        if extra:
            message.subagent_run_id = extra.get("subagentRunId")
            message.metadata = extra.get("metadata")
            if "encryptedValue" in extra:
                message.encrypted_value = extra["encryptedValue"]
    return out


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    from langchain_core.messages import messages_to_dict

    return list(messages_to_dict(to_langchain(transcript, subagents=subagents)))


TARGET = Rendering("langchain", "langchain", _as_json, _import)
