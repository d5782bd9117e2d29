"""History reconciliation: which restated messages and calls are ones the transcript holds.

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
4. they say the same at the aligned position (after the held message that the previous
   restated message matched, never before it): the same role and text, or, for assistant
   messages with calls, the same calls (names and arguments, ids aside).

Calls are restated under new ids too (llama-index re-mints them in every snapshot while
its results keep answering the streamed id). A restated call is a held one when its
message restates the held message and it has the held call's name (and arguments), or
when a restated tool message right after it answers a held call no restated message
carries. :func:`reconcile` returns those new ids with the held call id each stands for;
tool messages answering a new id are then matched as in rule 2.

One pass per rule over both lists, with dictionaries: linear in what both hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._codec import dumps
from .model import (
    ActivityMessage,
    AssistantMessage,
    Message,
    ToolCall,
    ToolMessage,
    parse_arguments,
    rebuilt_from_fields,
)

__all__ = ["Match", "MatchKind", "Reconciled", "reconcile", "restates_call"]

MatchKind = Literal["id", "call", "content"]


@dataclass(frozen=True, slots=True)
class Match:
    """The held message (by index) that a restated message restates, and how we know."""

    held: int
    kind: MatchKind

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


@dataclass(frozen=True, slots=True)
class Reconciled:
    """What :func:`reconcile` found, matches and call aliases.

    ``matches``: a match (or None) per restated message, in order. ``aliases``: the
    restated call ids that stand for held calls (new id -> the held call's id).
    """

    matches: list[Match | None]
    aliases: dict[str, str]

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


def _arguments_key(arguments: str) -> str:
    """Arguments compared as JSON when they are JSON (spacing and key order aside)."""
    parsed, error = parse_arguments(arguments)
    if error is not None:
        return arguments
    return json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _content_key(message: Message) -> tuple[str, str] | None:
    """What a message says, ids aside; None for messages matched only by id or call."""
    if isinstance(message, (ToolMessage, ActivityMessage)):
        return None
    if isinstance(message, AssistantMessage):
        if message.tool_calls:
            calls = [(call.name, _arguments_key(call.arguments)) for call in message.tool_calls]
            return ("assistant calls", dumps(calls))
        return ("assistant", message.content or "")
    content = getattr(message, "content", "")
    return (message.role, content if isinstance(content, str) else dumps(content))


def _first_call(message: Message, canonical: Callable[[str], str]) -> str | None:
    if isinstance(message, AssistantMessage) and message.tool_calls:
        return canonical(message.tool_calls[0].id)
    return None


def restates_call(held: Message, restated: Message) -> bool:
    """Whether a call-matched pair says the same thing (a tool result's content)."""
    if isinstance(held, ToolMessage) and isinstance(restated, ToolMessage):
        return held.content == restated.content
    return True


def _no_name(call_id: str) -> str | None:
    return None


def reconcile(
    held: Sequence[Message],
    restated: Sequence[Message],
    *,
    aliases: Mapping[str, str] | None = None,
    call_name: Callable[[str], str | None] = _no_name,
) -> Reconciled:
    """Which restated messages and calls are held ones (see the module docstring).

    ``aliases`` maps ids already known to stand for a held call (earlier restatements)
    to it; ``call_name`` gives the name of a call the transcript knows by id (None for an
    unknown id), so a call whose message is no longer held can still be recognised.
    """
    known = aliases or {}

    def canonical(call_id: str) -> str:
        return known.get(call_id, call_id)

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
    if None not in matches and not any(
        isinstance(m, AssistantMessage) and m.tool_calls for m in restated
    ):
        return Reconciled(matches, {})  # the common restatement: every id held, no calls

    # 2 and 3. Calls: held tool and assistant messages queued by call id, in order.
    results: dict[str, list[int]] = {}
    carriers: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for position, message in enumerate(held):
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or ():
                names.setdefault(canonical(call.id), call.name)
        if taken[position]:
            continue
        if isinstance(message, ToolMessage):
            results.setdefault(canonical(message.tool_call_id), []).append(position)
        elif isinstance(message, AssistantMessage) and message.tool_calls:
            for call in message.tool_calls:
                carriers.setdefault(canonical(call.id), []).append(position)
    cursors: dict[tuple[bool, str], int] = {}

    def by_call(index: int, message: Message, canonical: Callable[[str], str]) -> None:
        if isinstance(message, ToolMessage):
            key, queue = (True, canonical(message.tool_call_id)), results
        else:
            first = _first_call(message, canonical)
            if first is None:
                return
            key, queue = (False, first), carriers
        positions = queue.get(key[1])
        if not positions:
            return
        cursor = cursors.get(key, 0)
        while cursor < len(positions) and taken[positions[cursor]]:
            cursor += 1
        if cursor < len(positions):
            matches[index] = Match(positions[cursor], "call")
            taken[positions[cursor]] = True
            cursor += 1
        cursors[key] = cursor

    for index, message in enumerate(restated):
        if matches[index] is None:
            by_call(index, message, canonical)

    # 4. What they say, in order after the previous match.
    spoken: dict[tuple[str, str], list[int]] = {}
    for position, message in enumerate(held):
        if not taken[position]:
            key_ = _content_key(message)
            if key_ is not None:
                spoken.setdefault(key_, []).append(position)
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

    # Calls restated under new ids: in the held message their message restates, by name
    # (and arguments); else named by a restated tool message that follows them.
    new: dict[str, str] = {}

    def is_new(call_id: str) -> bool:
        return call_id not in known and call_id not in names and call_name(call_id) is None

    for index, message in enumerate(restated):
        match = matches[index]
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        original = held[match.held] if match is not None else None
        if isinstance(original, AssistantMessage):
            _pair_calls(original, message, canonical, is_new, new)
    carried = {
        new.get(call.id, canonical(call.id))
        for message in restated
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or ()
    }
    waiting: list[ToolCall] = []  # unknown calls of the latest restated assistant message
    for message in restated:
        if isinstance(message, AssistantMessage):
            waiting = [c for c in message.tool_calls or () if is_new(c.id) and c.id not in new]
        elif isinstance(message, ToolMessage) and waiting:
            answered = canonical(message.tool_call_id)
            name = names.get(answered) or call_name(answered)
            if answered in carried or name is None:
                continue
            for call in waiting:
                if call.name == name:
                    new[call.id] = answered
                    carried.add(answered)
                    waiting.remove(call)
                    break
        else:
            waiting = []

    if new:
        # Tool messages answering a new id answer the held call: rule 2 again.
        def restated_canonical(call_id: str) -> str:
            return new.get(call_id, canonical(call_id))

        for index, message in enumerate(restated):
            if matches[index] is None and isinstance(message, ToolMessage):
                by_call(index, message, restated_canonical)
    return Reconciled(matches, new)


def _pair_calls(
    held: AssistantMessage,
    restated: AssistantMessage,
    canonical: Callable[[str], str],
    is_new: Callable[[str], bool],
    new: dict[str, str],
) -> None:
    """The calls of a restated message under new ids: the held message's, in order.

    Each pairs with the first held call of the same name and arguments not restated
    under its own id, else of the same name.
    """
    restated_ids = {canonical(call.id) for call in restated.tool_calls or ()}
    free = [call for call in held.tool_calls or () if canonical(call.id) not in restated_ids]
    for call in restated.tool_calls or ():
        if not free or not is_new(call.id) or call.id in new:
            continue
        wanted = _arguments_key(call.arguments)
        found = next(
            (c for c in free if c.name == call.name and _arguments_key(c.arguments) == wanted),
            None,
        ) or next((c for c in free if c.name == call.name), None)
        if found is not None:
            new[call.id] = canonical(found.id)
            free.remove(found)
