"""Adapters: transcripts in the shapes evaluation frameworks and providers take.

Each adapter is a pure function of a :class:`~agui_transcripts.Transcript` (rendered from
its ordered projection, so every call precedes its result) or of a list of messages. Each
imports its framework lazily and documents what it loses in its module docstring.
Importing this package imports no framework.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from ..diagnostics import RULES, Diagnostic
from ..model import Message, ToolMessage
from ..projection import Policy, Subagents
from ..transcript import Transcript

__all__ = ["data_url", "messages_of", "report", "stable_id", "tool_text"]


def messages_of(
    source: Transcript | Sequence[Message],
    *,
    policy: Policy = "synthesize",
    diagnostics: list[Diagnostic] | None = None,
    subagents: Subagents = "inline",
) -> list[Message]:
    """The messages an adapter renders: a transcript's ordered projection, or a given list.

    A list of messages is taken as already ordered (``subagents`` applies to a
    transcript). The projection's diagnostics are appended to ``diagnostics`` when it is
    given.
    """
    if isinstance(source, Transcript):
        projection = source.project(policy, subagents=subagents)
        if diagnostics is not None:
            diagnostics.extend(projection.diagnostics)
        return projection.messages
    if subagents == "inline":
        return list(source)
    top = [message for message in source if message.subagent_run_id is None]
    if subagents == "exclude":
        return top
    return top + [message for message in source if message.subagent_run_id is not None]


def report(
    diagnostics: list[Diagnostic] | None,
    code: str,
    message: str,
    *,
    message_id: str | None = None,
    tool_call_id: str | None = None,
) -> None:
    """Append an adapter's diagnostic (what it dropped or repaired) when one is asked for."""
    if diagnostics is not None:
        severity = RULES[code].severity
        diagnostics.append(
            Diagnostic(code, severity, message, message_id=message_id, tool_call_id=tool_call_id)
        )


def data_url(source: dict[str, Any]) -> str | None:
    """An AG-UI media source as a URL: its own, or a ``data:`` URL of its base64 value."""
    if source.get("type") == "url":
        return str(source.get("value"))
    if source.get("type") == "data":
        mime = source.get("mimeType", "application/octet-stream")
        return f"data:{mime};base64,{source.get('value')}"
    return None


def tool_text(message: ToolMessage) -> str:
    """A tool result as text, its ``error`` leading as ``Error: ...``.

    For formats with no error field: a failure must stay a failure.
    """
    text = message.text
    if message.error is None:
        return text
    return f"Error: {message.error}" + (f"\n{text}" if text and text != message.error else "")


def stable_id(prefix: str, index: int, item: dict[str, Any]) -> str:
    """A deterministic id for an item of a format that has none (position and content)."""
    digest = hashlib.sha1(
        f"{index}\x1f{json.dumps(item, sort_keys=True, default=str)}".encode()
    ).hexdigest()
    return f"{prefix}-{digest[:16]}"
