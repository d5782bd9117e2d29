"""The text limit: one count per message or call, on every path that adds text.

:class:`TextBudget` counts the characters each message, call and replayed call took from
deltas; :class:`DeltaRoute` is the collector's shortcut for the next plain deltas of one
item, counting against the same table, so the limit is checked in one module only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

from .limits import bound
from .model import RunRecord

__all__ = ["DeltaRoute", "TextBudget", "TextKind"]

TextKind = Literal["message", "call", "replay"]
"""What a delta extends: a message's text, a call's arguments, or a replay of a call."""


class Report(Protocol):
    """Reports a diagnostic: its code, its message and the ids it concerns."""

    def __call__(self, code: str, message: str, **ids: str | None) -> None: ...


def _unreported(code: str, message: str, **ids: str | None) -> None:
    """The report of a released budget: nothing reads it any more."""


class TextBudget:
    """How many characters each item took from deltas, against ``max_chars``."""

    def __init__(self, max_chars: int | None, report: Report) -> None:
        self.limit = bound(max_chars)
        self._report = report
        # Characters taken so far, per kind and item id.
        self._used: dict[TextKind, dict[str, int]] = {"message": {}, "call": {}, "replay": {}}
        # The items that reached the limit, reported once each.
        self._full: set[tuple[TextKind, str]] = set()

    def release(self) -> None:
        """Drop the report function (its owner's bound method: a reference cycle)."""
        self._report = _unreported

    def admit(self, kind: TextKind, item_id: str, delta: str) -> bool:
        """Whether a delta fits its item's share (counted if so; reported once if not)."""
        used = self._used[kind]
        size = used.get(item_id, 0) + len(delta)
        if size <= self.limit:
            used[item_id] = size
            return True
        # Full: a later, shorter delta must not fit either (it would splice text around
        # the dropped one). Every path compares against this count.
        used[item_id] = self.limit + 1
        if (kind, item_id) not in self._full:
            self._full.add((kind, item_id))
            self._report(
                "text-limit",
                f"{kind} {item_id!r} would pass {self.limit} characters (the text limit): "
                "this delta and every later one for it are dropped; the text before is kept",
                **({"message_id": item_id} if kind == "message" else {"tool_call_id": item_id}),
            )
        return False

    def forget(self, kind: TextKind, item_id: str) -> None:
        """Start an item's count again (a call streamed anew)."""
        self._used[kind].pop(item_id, None)
        self._full.discard((kind, item_id))

    def route(
        self, kind: TextKind, item_id: str, append: Callable[[str], None], run: RunRecord
    ) -> DeltaRoute:
        """A route for the item's next plain deltas; its first delta was just admitted."""
        return DeltaRoute(self._used[kind], item_id, self.limit, append, run)


class DeltaRoute:
    """Where the next plain delta of one item goes, as long as no other event comes.

    The reducer makes it for the collector's delta lane: appending there, counting the
    characters and marking the run's last event is all such a delta does.
    """

    __slots__ = ("_append", "_item_id", "_limit", "_run", "_used")

    def __init__(
        self,
        used: dict[str, int],
        item_id: str,
        limit: int,
        append: Callable[[str], None],
        run: RunRecord,
    ) -> None:
        self._used = used
        self._item_id = item_id
        self._limit = limit
        self._append = append
        self._run = run

    def append(self, delta: str, index: int | None) -> bool:
        """Append the delta; False (nothing changed) when it would pass the text limit."""
        used = self._used
        size = used[self._item_id] + len(delta)
        if size > self._limit:
            return False
        used[self._item_id] = size
        self._append(delta)
        self._run.last_event_index = index
        return True
