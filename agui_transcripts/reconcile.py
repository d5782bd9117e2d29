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


# init=False with the constructor written out: the compiled build then makes these
# native classes, several times cheaper to build than through the dataclass's own
# generated (interpreted) __init__; frozen, it sets its fields via object.__setattr__.


@dataclass(frozen=True, slots=True, init=False)
class Match:
    """The held message (by index) that a restated message restates, and how we know."""

    held: int
    kind: MatchKind

    def __init__(self, held: int, kind: MatchKind) -> None:
        object.__setattr__(self, "held", held)
        object.__setattr__(self, "kind", kind)

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_from_fields(self)


@dataclass(frozen=True, slots=True, init=False)
class Reconciled:
    """What :func:`reconcile` found, matches and call aliases.

    ``matches``: a match (or None) per restated message, in order. ``aliases``: the
    restated call ids that stand for held calls (new id -> the held call's id).
    """

    matches: list[Match | None]
    aliases: dict[str, str]

    def __init__(self, matches: list[Match | None], aliases: dict[str, str]) -> None:
        object.__setattr__(self, "matches", matches)
        object.__setattr__(self, "aliases", aliases)

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
    # 1. Ids (the first held message with an id, as the reducer's index keeps it).
    matches: list[Match | None] = [None] * len(restated)
    taken = [False] * len(held)
    by_id: dict[str, int] = {}
    for position, message in enumerate(held):
        by_id.setdefault(message.id, position)
    calls = False
    for index, message in enumerate(restated):
        same = by_id.get(message.id)
        if same is not None and not taken[same]:
            matches[index] = Match(same, "id")
            taken[same] = True
        if not calls and isinstance(message, AssistantMessage) and message.tool_calls:
            calls = True
    if None not in matches and not calls:
        return Reconciled(matches, {})  # the common restatement: every id held, no calls
    return _Reconciler(held, restated, aliases or {}, call_name, matches, taken).run()


class _Reconciler:
    """One reconciliation's state, the rules as methods.

    A class rather than nested functions: compiled, a closure is an environment object
    that refers back to its functions, a reference cycle per call.
    """

    def __init__(
        self,
        held: Sequence[Message],
        restated: Sequence[Message],
        known: Mapping[str, str],
        call_name: Callable[[str], str | None],
        matches: list[Match | None],
        taken: list[bool],
    ) -> None:
        self.held = held
        self.restated = restated
        self.known = known
        self.call_name = call_name
        #: What rule 1 (ids) matched, and the held messages it took.
        self.matches = matches
        self.taken = taken
        # Held results and call carriers not yet taken, by the id of the call (queued in
        # order), and every held call's name.
        self.results: dict[str, list[int]] = {}
        self.carriers: dict[str, list[int]] = {}
        self.names: dict[str, str] = {}
        self.cursors: dict[tuple[bool, str], int] = {}
        #: Restated call ids found to stand for held calls.
        self.new: dict[str, str] = {}

    def canonical(self, call_id: str) -> str:
        """The held call an id stands for (by the aliases known before)."""
        return self.known.get(call_id, call_id)

    def restated_call(self, call_id: str) -> str:
        """The held call a restated id stands for (by the aliases found here too)."""
        found = self.new.get(call_id)
        return found if found is not None else self.known.get(call_id, call_id)

    def is_new(self, call_id: str) -> bool:
        """Whether a restated call id is none that the transcript knows."""
        return (
            call_id not in self.known
            and call_id not in self.names
            and self.call_name(call_id) is None
        )

    def run(self) -> Reconciled:
        """Rules 2 to 4 after rule 1 (ids), and the calls restated under new ids."""
        held, restated, matches, taken = self.held, self.restated, self.matches, self.taken
        # 2 and 3. Calls: held tool and assistant messages queued by call id, in order.
        for position, message in enumerate(held):
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls or ():
                    self.names.setdefault(self.canonical(call.id), call.name)
            if taken[position]:
                continue
            if isinstance(message, ToolMessage):
                key = self.canonical(message.tool_call_id)
                self.results.setdefault(key, []).append(position)
            elif isinstance(message, AssistantMessage) and message.tool_calls:
                for call in message.tool_calls:
                    self.carriers.setdefault(self.canonical(call.id), []).append(position)
        for index, message in enumerate(restated):
            if matches[index] is None:
                self.by_call(index, message, restated_ids=False)

        self.by_content()

        # Calls restated under new ids: in the held message their message restates, by
        # name (and arguments); else named by a restated tool message that follows them.
        for index, message in enumerate(restated):
            match = matches[index]
            if match is None or not isinstance(message, AssistantMessage):
                continue
            original = held[match.held]
            if message.tool_calls and isinstance(original, AssistantMessage):
                self.pair_calls(original, message)
        self.name_by_results()
        if self.new:
            # Tool messages answering a new id answer the held call: rule 2 again.
            for index, message in enumerate(restated):
                if matches[index] is None and isinstance(message, ToolMessage):
                    self.by_call(index, message, restated_ids=True)
        return Reconciled(matches, self.new)

    def by_call(self, index: int, message: Message, *, restated_ids: bool) -> None:
        """Rules 2 and 3 for one restated message."""
        if isinstance(message, ToolMessage):
            call_id = message.tool_call_id
            key = (True, self.restated_call(call_id) if restated_ids else self.canonical(call_id))
            queue = self.results
        elif isinstance(message, AssistantMessage) and message.tool_calls:
            key, queue = (False, self.canonical(message.tool_calls[0].id)), self.carriers
        else:
            return
        positions = queue.get(key[1])
        if not positions:
            return
        taken = self.taken
        cursor = self.cursors.get(key, 0)
        while cursor < len(positions) and taken[positions[cursor]]:
            cursor += 1
        if cursor < len(positions):
            self.matches[index] = Match(positions[cursor], "call")
            taken[positions[cursor]] = True
            cursor += 1
        self.cursors[key] = cursor

    def by_content(self) -> None:
        """Rule 4: what they say, in order after the previous match."""
        held, matches, taken = self.held, self.matches, self.taken
        spoken: dict[tuple[str, str], list[int]] = {}
        for position, message in enumerate(held):
            if not taken[position]:
                key = _content_key(message)
                if key is not None:
                    spoken.setdefault(key, []).append(position)
        said: dict[tuple[str, str], int] = {}
        floor = -1
        for index, message in enumerate(self.restated):
            match = matches[index]
            if match is not None:
                floor = match.held
                continue
            key = _content_key(message)
            candidates = spoken.get(key) if key is not None else None
            if not candidates or key is None:
                continue
            cursor = said.get(key, 0)
            while cursor < len(candidates) and (
                taken[candidates[cursor]] or candidates[cursor] <= floor
            ):
                cursor += 1
            said[key] = cursor
            if cursor < len(candidates):
                floor = candidates[cursor]
                matches[index] = Match(floor, "content")
                taken[floor] = True

    def pair_calls(self, held: AssistantMessage, restated: AssistantMessage) -> None:
        """The calls of a restated message under new ids: the held message's, in order.

        Each pairs with the first held call of the same name and arguments not restated
        under its own id, else of the same name.
        """
        restated_ids = {self.canonical(call.id) for call in restated.tool_calls or ()}
        free = [c for c in held.tool_calls or () if self.canonical(c.id) not in restated_ids]
        for call in restated.tool_calls or ():
            if not free or not self.is_new(call.id) or call.id in self.new:
                continue
            found = _same_call(free, call)
            if found is not None:
                self.new[call.id] = self.canonical(found.id)
                free.remove(found)

    def name_by_results(self) -> None:
        """Unknown calls named by the results restated after them.

        A result that answers a held call no restated message carries names the first
        unknown call of that name in the restated assistant message before it.
        """
        carried: set[str] = set()
        for message in self.restated:
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls or ():
                    carried.add(self.restated_call(call.id))
        waiting: list[ToolCall] = []  # unknown calls of the latest restated assistant message
        for message in self.restated:
            if isinstance(message, AssistantMessage):
                waiting = [
                    c
                    for c in message.tool_calls or ()
                    if self.is_new(c.id) and c.id not in self.new
                ]
            elif isinstance(message, ToolMessage) and waiting:
                answered = self.canonical(message.tool_call_id)
                name = self.names.get(answered) or self.call_name(answered)
                if answered in carried or name is None:
                    continue
                for call in waiting:
                    if call.name == name:
                        self.new[call.id] = answered
                        carried.add(answered)
                        waiting.remove(call)
                        break
            else:
                waiting = []


def _same_call(free: list[ToolCall], call: ToolCall) -> ToolCall | None:
    """The first of ``free`` with the call's name and arguments, else with its name."""
    wanted = _arguments_key(call.arguments)
    by_name: ToolCall | None = None
    for candidate in free:
        if candidate.name != call.name:
            continue
        if _arguments_key(candidate.arguments) == wanted:
            return candidate
        if by_name is None:
            by_name = candidate
    return by_name
