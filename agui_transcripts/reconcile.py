"""History reconciliation: which restated messages are ones the transcript already holds.

Producers restate the conversation in two places: a ``MESSAGES_SNAPSHOT`` and the
messages of a later run's input. Both often re-mint ids (a framework's own dump of its
history, a checkpoint's ids, a snapshot per step with fresh ids), so matching by id alone
either duplicates every turn or loses the place of what was streamed. A restated message
is the same as a held one when, in this order of strength:

1. their ids are equal;
2. both are tool messages answering the same call (the k-th restated answer to a call id
   is the k-th held one, so a reused call id keeps its turns apart);
3. both are assistant messages carrying the same call (by the restated message's first
   call id, occurrence by occurrence);
4. their role and content are equal at the aligned position: after the held message that
   the previous restated message matched, never before it.

One pass per rule over both lists, with dictionaries: linear in what both hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._codec import dumps
from .model import ActivityMessage, AssistantMessage, Message, ToolMessage, rebuilt_from_fields

__all__ = ["Match", "MatchKind", "reconcile", "restates_call"]

MatchKind = Literal["id", "call", "content"]


@dataclass(frozen=True, slots=True)
class Match:
    """The held message (by index) that a restated message restates, and how we know."""

    held: int
    kind: MatchKind

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


def _content_key(message: Message) -> tuple[str, str] | None:
    """What a message says, ids aside; None for messages matched only by id or call."""
    if isinstance(message, (ToolMessage, ActivityMessage)):
        return None
    if isinstance(message, AssistantMessage):
        if message.tool_calls:
            return None
        return ("assistant", message.content or "")
    content = getattr(message, "content", "")
    return (message.role, content if isinstance(content, str) else dumps(content))


def _first_call(message: Message) -> str | None:
    if isinstance(message, AssistantMessage) and message.tool_calls:
        return message.tool_calls[0].id
    return None


def restates_call(held: Message, restated: Message) -> bool:
    """Whether a call-matched pair says the same thing (a tool result's content)."""
    if isinstance(held, ToolMessage) and isinstance(restated, ToolMessage):
        return held.content == restated.content
    return True


def reconcile(held: Sequence[Message], restated: Sequence[Message]) -> list[Match | None]:
    """For each restated message, the held message it restates, or None when it is new."""
    matches: list[Match | None] = [None] * len(restated)
    taken = [False] * len(held)

    # 1. Ids (the first held message with an id, as the reducer's index keeps it).
    by_id: dict[str, int] = {}
    for position, message in enumerate(held):
        by_id.setdefault(message.id, position)
    for index, message in enumerate(restated):
        same = by_id.get(message.id)
        if same is not None and not taken[same]:
            matches[index] = Match(same, "id")
            taken[same] = True
    if None not in matches:
        return matches  # the common restatement: every id held

    # 2 and 3. Calls: held tool and assistant messages queued by call id, in order.
    results: dict[str, list[int]] = {}
    carriers: dict[str, list[int]] = {}
    for position, message in enumerate(held):
        if taken[position]:
            continue
        if isinstance(message, ToolMessage):
            results.setdefault(message.tool_call_id, []).append(position)
        elif isinstance(message, AssistantMessage) and message.tool_calls:
            for call in message.tool_calls:
                carriers.setdefault(call.id, []).append(position)
    cursors: dict[tuple[bool, str], int] = {}
    for index, message in enumerate(restated):
        if matches[index] is not None:
            continue
        if isinstance(message, ToolMessage):
            key, queue = (True, message.tool_call_id), results.get(message.tool_call_id)
        else:
            first = _first_call(message)
            if first is None:
                continue
            key, queue = (False, first), carriers.get(first)
        if not queue:
            continue
        cursor = cursors.get(key, 0)
        while cursor < len(queue) and taken[queue[cursor]]:
            cursor += 1
        if cursor < len(queue):
            matches[index] = Match(queue[cursor], "call")
            taken[queue[cursor]] = True
            cursor += 1
        cursors[key] = cursor

    # 4. Content, in order after the previous match.
    spoken: dict[tuple[str, str], list[int]] = {}
    for position, message in enumerate(held):
        if not taken[position]:
            key_ = _content_key(message)
            if key_ is not None:
                spoken.setdefault(key_, []).append(position)
    if not spoken:
        return matches
    said: dict[tuple[str, str], int] = {}
    floor = -1
    for index, message in enumerate(restated):
        match = matches[index]
        if match is not None:
            floor = match.held
            continue
        key_ = _content_key(message)
        candidates = spoken.get(key_) if key_ is not None else None
        if not candidates or key_ is None:
            continue
        cursor = said.get(key_, 0)
        while cursor < len(candidates) and (
            taken[candidates[cursor]] or candidates[cursor] <= floor
        ):
            cursor += 1
        said[key_] = cursor
        if cursor < len(candidates):
            floor = candidates[cursor]
            matches[index] = Match(floor, "content")
            taken[floor] = True
    return matches
