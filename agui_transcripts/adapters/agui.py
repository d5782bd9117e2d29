"""AG-UI messages: wire dicts, ``ag_ui.core`` models, and back.

The transcript's messages *are* AG-UI 1.0 messages, so nothing is lost in ``to_dicts``.
``to_agui_models`` builds the installed ag-ui-protocol's own ``Message`` models; what
they cannot hold is turned into text and reported (``agui-model-degraded``): content
parts in a tool message on 0.1.x, and content that is neither text nor parts (an object
a client sent, kept by ``to_dicts`` as the reference client keeps it) on any version.
``from_agui`` reads a ``MESSAGES_SNAPSHOT`` or ``RunAgentInput.messages`` history
(models or dicts, either key spelling).

================================  ===============================================
AG-UI 1.0                         ``ag_ui.core`` models
================================  ===============================================
tool content parts (0.1.x)        text parts joined with newlines, reported
content neither text nor parts    its JSON text, reported (``to_dicts`` keeps it)
everything else                   kept
================================  ===============================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._codec import dumps
from .._gc import holds_gc
from ..diagnostics import RULES, Diagnostic
from ..events import normalize_run_input
from ..model import ActivityMessage, Message
from ..projection import Policy, Subagents
from ..transcript import Transcript
from ..wire import messages_from_dicts
from . import messages_of
from .target import Rendering

__all__ = ["from_agui", "to_agui_models", "to_dicts"]


def to_dicts(
    source: Transcript | Sequence[Message],
    *,
    ordered: bool = False,
    for_input: bool = False,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
) -> list[dict[str, Any]]:
    """Wire dicts (camelCase, absent fields omitted).

    With ``ordered`` a transcript is rendered from its projection (every call before its
    result, unanswered calls per ``policy``, subagent turns per ``subagents``); otherwise
    as the reference client holds it. ``for_input`` leaves activity
    messages out, as a ``RunAgentInput.messages`` list must (A10).
    """
    if isinstance(source, Transcript) and not ordered:
        messages: list[Message] = source.messages
    else:
        messages = messages_of(source, policy=policy, subagents=subagents)
    return [m.to_dict() for m in messages if not (for_input and isinstance(m, ActivityMessage))]


@holds_gc
def to_agui_models(
    source: Transcript | Sequence[Message],
    *,
    ordered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
) -> list[Any]:
    """``ag_ui.core`` ``Message`` models of the installed ag-ui-protocol version.

    ``ordered``, ``policy`` and ``subagents`` are as for :func:`to_dicts`.
    """
    from ag_ui.core import Message as SDKMessage
    from pydantic import TypeAdapter, ValidationError

    adapter: TypeAdapter[Any] = TypeAdapter(SDKMessage)
    models = []
    for wire in to_dicts(source, ordered=ordered, policy=policy, subagents=subagents):
        try:
            models.append(adapter.validate_python(wire))
        except ValidationError:
            degraded = _degrade(wire)
            models.append(adapter.validate_python(degraded))
            if diagnostics is not None:
                diagnostics.append(
                    Diagnostic(
                        "agui-model-degraded",
                        RULES["agui-model-degraded"].severity,
                        f"message {wire['id']!r} holds content this ag-ui-protocol version "
                        "cannot hold; turned into text",
                        message_id=wire["id"],
                    )
                )
    return models


def _degrade(wire: dict[str, Any]) -> dict[str, Any]:
    content = wire.get("content")
    if wire.get("role") == "tool" and isinstance(content, list):
        text = "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
        return {**wire, "content": text}
    if content is not None and not isinstance(content, (str, list)):
        return {**wire, "content": dumps(content)}  # an object a client sent, as text
    return wire


def from_agui(
    messages: Iterable[Any], *, diagnostics: list[Diagnostic] | None = None
) -> list[Message]:
    """Model messages from an AG-UI history: ``ag_ui.core`` models or wire dicts."""
    dumped = [
        item.model_dump(by_alias=True, exclude_none=True, mode="json")
        if callable(getattr(item, "model_dump", None))
        else item
        for item in messages
    ]
    wire = normalize_run_input({"messages": dumped})["messages"]

    def report(code: str, message: str) -> None:
        if diagnostics is not None:
            diagnostics.append(Diagnostic(code, RULES[code].severity, message))

    return messages_from_dicts(wire, report=report)


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    return to_dicts(transcript, ordered=ordered or subagents != "inline", subagents=subagents)


def _each(transcript: Transcript, messages: Sequence[Message]) -> list[list[Any]]:
    return [[message.to_dict()] for message in messages]


TARGET = Rendering("agui", None, _as_json, each=_each)
