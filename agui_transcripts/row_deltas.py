"""Rows per run hold what each run changed, so a log's rows grow with it, not its square.

A log of N runs read ``per="run"`` gives N rows, each the conversation as it stood when
its run ended. Written whole, those rows repeat every earlier message N times over (a
310 KB log of 1,000 runs made 500,500 message entries). Instead a run's row keeps,
for each list that grows with the conversation, only what follows the part it shares
with the previous run's row, and says how long that shared part is:

- ``messages_from``: the row's conversation is the previous row's first
  ``messages_from`` messages followed by this row's ``messages``;
- ``tool_calls_from``: the same for ``tool_calls``;
- ``runs_from``: the same for ``run_ids``, ``run_outcomes`` and ``run_times``.

A row whose three counts are 0 is whole: every row per log, the first run's row, and
the last row of each log (which is the log's own row). Every other column (diagnostics
counted so far, the response, the continuation...) is the row's own, as before.
:func:`whole_rows` restores whole rows from a log's rows read in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

__all__ = [
    "DELTA_COLUMNS",
    "GrowingList",
    "RowChain",
    "cut_row",
    "is_whole",
    "shared_prefix",
    "whole_rows",
]

T = TypeVar("T")

#: Each count column and the list columns it cuts.
DELTA_COLUMNS: dict[str, tuple[str, ...]] = {
    "messages_from": ("messages",),
    "tool_calls_from": ("tool_calls",),
    "runs_from": ("run_ids", "run_outcomes", "run_times"),
}


def shared_prefix(before: Sequence[Any], after: Sequence[Any], start: int = 0) -> int:
    """How many leading items ``before`` and ``after`` have equal.

    ``start``: how many the caller knows they share (they are not compared again).
    """
    size = min(len(before), len(after))
    if start >= size or before[start:size] == after[start:size]:  # the usual case, at once
        return size
    return next(i for i in range(start, size) if before[i] != after[i])


class GrowingList(Generic[T]):
    """A list column of a log's rows per run, kept from one run's end to the next.

    Each run's end gives what follows the items it knows unchanged (:meth:`go_on`); the
    list is changed in place and remembers how many leading items it shares with the
    list it was at the run's end before (:attr:`shared`): what the run's row cuts off
    (:func:`cut_row`). So a run's end costs what it changed, not the whole list.
    """

    __slots__ = ("items", "shared")

    def __init__(self) -> None:
        #: The whole list as the last run's end left it (the builder's own: not to keep).
        self.items: list[T] = []
        self.shared = 0

    def go_on(self, keep: int, tail: Iterable[T]) -> None:
        """The list is its first ``keep`` items, unchanged, followed by ``tail``."""
        items = self.items
        tail = list(tail)
        self.shared = keep + shared_prefix(items[keep:], tail)
        del items[keep:]
        items += tail


def cut_row(row: dict[str, Any], shared: Mapping[str, int] | None) -> dict[str, Any]:
    """Cut a run's row to what changed since the row before it.

    The row's list columns are the builders' own whole lists; each is replaced by a new
    list, of the items after the ``shared[count]`` its count column says it keeps
    (``shared`` None: the log's first row, which keeps nothing and holds them whole).
    Returns the whole lists, which the log's last row holds again.
    """
    lists = {column: row[column] for columns in DELTA_COLUMNS.values() for column in columns}
    for count, columns in DELTA_COLUMNS.items():
        kept = 0 if shared is None else shared[count]
        row[count] = kept
        for column in columns:
            row[column] = lists[column][kept:]
    return lists


def is_whole(row: Mapping[str, Any]) -> bool:
    """True for a row that holds its lists whole (every count 0 or absent)."""
    return not any(row.get(count) for count in DELTA_COLUMNS)


class RowChain:
    """Restores rows one at a time, holding the last whole row of the log being read."""

    def __init__(self) -> None:
        self._last: dict[str, Any] | None = None

    def whole(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """``row`` with its lists whole (itself, a dict, when it already is)."""
        if is_whole(row):
            self._last = row if isinstance(row, dict) else dict(row)
            return self._last
        last = self._last
        index = row.get("run_index")
        if (
            last is None
            or last.get("source") != row.get("source")
            or index is None
            or last.get("run_index") != index - 1
        ):
            raise ValueError(
                f"{row.get('source')}: the row of run {index} holds what that run changed and "
                "continues the row of the run before it, which was not read just before it; "
                "read a log's rows together and in order (as they are written)"
            )
        restored = dict(row)
        for count, columns in DELTA_COLUMNS.items():
            kept = row[count]
            for column in columns:
                if not 0 <= kept <= len(last[column]):
                    raise ValueError(
                        f"{row.get('source')}: the row of run {index} keeps {kept} of "
                        f"{column}, and the row before it has {len(last[column])}"
                    )
                restored[column] = [*last[column][:kept], *row[column]]
            restored[count] = 0
        self._last = restored
        return restored


def whole_rows(rows: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """The rows with their lists whole: each run's row restored from the rows before it.

    Rows per log and whole rows pass through as they are. A log's rows must come
    together and in order, as :func:`~agui_transcripts.rows.log_rows`, Parquet files
    and :func:`~agui_transcripts.arrow.read_rows` give them; otherwise ``ValueError``.
    """
    chain = RowChain()
    for row in rows:
        yield chain.whole(row)
