"""The call records of a fold's passing views, kept from one view to the next.

A view read at each run's end (rows per run) settles the calls the reader has not kept
(:meth:`~agui_transcripts.Collector.passing_view`): their records are copied, since
settling writes to them, and every other record is the fold's own. Copying the whole
dict at each run's end, to replace only its tail, costs the calls times the runs.
:class:`SettledCalls` keeps one dict for every view of a fold and changes only the
positions a view settles, or that the view before it settled: the cost of a view is
what it settles and what the fold added or settled for good since.
"""

from __future__ import annotations

from itertools import islice
from typing import TypeVar

from .model import ToolCallRecord

__all__ = ["SettledCalls", "tail"]

K = TypeVar("K")
V = TypeVar("V")


def tail(mapping: dict[K, V], start: int) -> list[tuple[K, V]]:
    """The items of ``mapping`` from position ``start`` on, in order, reading only those.

    A dict keeps its insertion order and can be read backwards, so the last items cost
    what they are, not their position.
    """
    count = len(mapping) - start
    if count <= 0:
        return []
    items = list(islice(reversed(mapping.items()), count))
    items.reverse()
    return items


class SettledCalls:
    """The ``tool_calls`` of every passing view of one fold: one dict, changed in place.

    The fold's dict only gains keys (an id declared again keeps its place); a record
    that takes an existing id's place is counted by the fold (``replaced``), and then
    the dict is read again whole.
    """

    __slots__ = ("_calls", "_own", "_replaced")

    def __init__(self) -> None:
        self._calls: dict[str, ToolCallRecord] = {}
        self._own = 0  # how many leading records are the fold's own (the rest copies)
        self._replaced = 0

    def view(
        self, records: dict[str, ToolCallRecord], settled_from: int, replaced: int
    ) -> tuple[dict[str, ToolCallRecord], list[ToolCallRecord]]:
        """The view's calls, and the copies from position ``settled_from`` on, to settle.

        The records before ``settled_from`` are the fold's own; the dict is this
        object's, changed at the next view.
        """
        calls = self._calls
        if replaced != self._replaced or len(calls) > len(records):
            calls.clear()
            self._own, self._replaced = 0, replaced
        start = min(self._own, settled_from)
        copies: list[ToolCallRecord] = []
        for position, (call_id, record) in enumerate(tail(records, start), start):
            if position < settled_from:
                calls[call_id] = record
            else:
                copy = calls[call_id] = record.copy()
                copies.append(copy)
        self._own = settled_from
        return calls, copies
