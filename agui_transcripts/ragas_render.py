"""What the ragas drop-in watches during a fold, and its rendering into ragas messages.

Apart from :mod:`agui_transcripts.ragas` (interpreted, the public drop-in) so that the
compiled build covers the part of a convert that runs per event and per message: the
watch is shown every event, and the render builds one ragas message per transcript
message. ragas itself is passed in (``rm``, the ``ragas.messages`` module), never
imported here.
"""

from __future__ import annotations

from typing import Any, Final

from .events import Event
from .model import AssistantMessage, ToolMessage, UserMessage, parse_arguments
from .projection import Subagents, is_synthetic, project
from .transcript import Transcript

__all__ = ["ENDS_TYPES", "RagasWatch", "ai_message", "ragas_args", "render"]

#: The only events :meth:`RagasWatch.observe_ends` reads.
ENDS_TYPES: Final = frozenset(
    {"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START"}
)


def ragas_args(raw: str) -> dict[str, Any]:
    """Arguments as ragas takes them: a dict, or ``{"raw_args": text}`` when not an object."""
    value, _ = parse_arguments(raw)
    return value if isinstance(value, dict) else {"raw_args": raw}


def ai_message(rm: Any, message: AssistantMessage, meta: dict[str, Any] | None) -> Any:
    """The ragas ``AIMessage`` for an assistant message; call ids go into ``meta``."""
    calls = message.tool_calls
    if not calls:
        return rm.AIMessage(content=message.content or "", tool_calls=None, metadata=meta)
    tool_call = rm.ToolCall
    if meta is not None:
        meta["tool_call_ids"] = [c.id for c in calls]
    return rm.AIMessage(
        content=message.content or "",
        tool_calls=[tool_call(name=c.name, args=ragas_args(c.arguments)) for c in calls],
        metadata=meta,
    )


class RagasWatch:
    """What the ragas rendering needs beyond the transcript: steps, ends, timestamps.

    Its :meth:`observe` is the fold's ``observe`` hook, shown every explicit event
    before it is applied. Without metadata (steps and timestamps), :meth:`observe_ends`
    is, shown only :data:`ENDS_TYPES`: which text messages started and ended, and which
    calls named no parent, all every rendering needs.
    """

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.step_of: dict[str, str] = {}
        self.started: set[str] = set()
        self.ended: set[str] = set()
        self.parentless: set[str] = set()
        self.timestamp_of: dict[str, Any] = {}

    def observe_ends(self, event: Event) -> None:
        """The starts, ends and parentless calls: all a rendering without metadata reads."""
        kind = event["type"]
        if kind == "TEXT_MESSAGE_CONTENT" or kind == "TEXT_MESSAGE_START":
            message_id = event.get("messageId")
            if isinstance(message_id, str):
                self.started.add(message_id)
        elif kind == "TEXT_MESSAGE_END":
            message_id = event.get("messageId")
            if isinstance(message_id, str):
                self.ended.add(message_id)
        elif (
            kind == "TOOL_CALL_START"
            and "parentMessageId" not in event
            and not isinstance(event.get("messageId"), str)
        ):
            self.parentless.add(str(event.get("toolCallId")))

    def observe(self, event: Event) -> None:
        """Note the step, start, end and first timestamp each event shows."""
        self.observe_ends(event)
        kind = event["type"]
        steps = self.steps
        if kind == "STEP_STARTED" and isinstance(event.get("stepName"), str):
            steps.append(event["stepName"])
        elif kind == "STEP_FINISHED" and steps and steps[-1] == event.get("stepName"):
            steps.pop()
        message_id = event.get("messageId")
        if not isinstance(message_id, str):
            return
        if (kind == "TEXT_MESSAGE_START" or kind == "TOOL_CALL_RESULT") and steps:
            self.step_of.setdefault(message_id, steps[-1])
        if "timestamp" in event:
            self.timestamp_of.setdefault(message_id, event["timestamp"])


def render(
    rm: Any, watch: RagasWatch, transcript: Transcript, metadata: bool, subagents: Subagents
) -> list[Any]:
    """The drop-in's ragas messages for a folded transcript and what its watch saw."""
    unfinished = watch.started - watch.ended
    rendered: list[tuple[Any, Any]] = []  # (ragas message, source message)
    # ragas pairs results with calls by position only and needs no result per call:
    # unanswered calls stay open rather than getting synthetic results.
    # Read only, so the in-order projection may hand over the transcript's own messages.
    for message in project(transcript, policy="keep", copy=False, subagents=subagents).messages:
        if is_synthetic(message):
            continue  # ragas keeps unanswered calls without results
        if (
            unfinished
            and message.id in unfinished
            and not isinstance(message, ToolMessage)
            and not (isinstance(message, AssistantMessage) and message.tool_calls)
        ):
            continue  # ragas leaves out a text message that never ended
        meta: dict[str, Any] | None = None
        if metadata:
            meta = {"message_id": message.id}
            run = transcript.run_of(message)
            if run is not None:
                meta["run_id"] = run.run_id
                meta["thread_id"] = run.thread_id
            if message.id in watch.step_of:
                meta["step_name"] = watch.step_of[message.id]
            if message.id in watch.timestamp_of:
                meta["timestamp"] = watch.timestamp_of[message.id]
        if isinstance(message, UserMessage):
            rendered.append((rm.HumanMessage(content=message.text, metadata=meta), message))
        elif isinstance(message, AssistantMessage):
            rendered.append((ai_message(rm, message, meta), message))
        elif isinstance(message, ToolMessage):
            if meta is not None:
                meta["tool_call_id"] = message.tool_call_id
            rendered.append(
                (
                    rm.ToolMessage(content=message.text or (message.error or ""), metadata=meta),
                    message,
                )
            )
    return _attach_parentless(rm, rendered, watch.parentless)


def _attach_parentless(rm: Any, rendered: list[tuple[Any, Any]], parentless: set[str]) -> list[Any]:
    """Ragas's own rule for calls without a parent: they join an adjacent assistant message.

    A call the stream gave no ``parentMessageId`` (so the fold gave it its own message)
    joins the assistant message right before it, or else the next one when nothing comes
    between. Only adjacent messages merge, so every result still follows its call.
    """
    if not parentless:
        return [ragas_message for ragas_message, _ in rendered]
    out: list[Any] = []
    carried: list[Any] = []
    for ragas_message, source in rendered:
        if _parentless_only(source, parentless):
            calls = list(ragas_message.tool_calls or [])
            if not carried and out and out[-1].type == "ai":
                out[-1].tool_calls = [*(out[-1].tool_calls or []), *calls]
            else:
                carried.extend(calls)
            continue
        if carried:
            if ragas_message.type == "ai":
                ragas_message.tool_calls = [*carried, *(ragas_message.tool_calls or [])]
            else:
                out.append(rm.AIMessage(content="", tool_calls=carried))
            carried = []
        out.append(ragas_message)
    if carried:
        out.append(rm.AIMessage(content="", tool_calls=carried))
    return out


def _parentless_only(source: Any, parentless: set[str]) -> bool:
    """A message the fold made for calls that named no parent (its id is the first call's)."""
    if not isinstance(source, AssistantMessage) or source.content or not source.tool_calls:
        return False
    calls = source.tool_calls
    return source.id == calls[0].id and all(call.id in parentless for call in calls)
