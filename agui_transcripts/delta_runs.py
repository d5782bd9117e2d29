"""Plain deltas, and runs of them read as one: the delta lane's definitions.

Half of a stream recorded from a real model is consecutive deltas of one message, one
token each. A *plain* delta changes nothing but its item's text: a
``TEXT_MESSAGE_CONTENT`` or ``TOOL_CALL_ARGS`` with its item's id, a non-empty text delta,
perhaps a ``timestamp``, and keys no AG-UI event defines (a recorder's own), which nobody
reads. A reader that sees consecutive plain deltas of one item with the same keys hands
them to the collector as one :class:`DeltaRun`, which appends their joined text at once
where the text limit allows, and otherwise folds them one by one, exactly as if they had
come apart (see :meth:`~agui_transcripts.collector.Collector.feed_run`).
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from .schema import CANONICAL_KEYS

__all__ = ["DELTA_ID_KEYS", "DeltaRun", "RunOpener", "plain_keys"]

DELTA_ID_KEYS: Final = {"TEXT_MESSAGE_CONTENT": "messageId", "TOOL_CALL_ARGS": "toolCallId"}
"""The delta events the lane takes, with the key naming the item each extends."""


def plain_keys(event: dict[str, Any], id_key: str, timed: bool) -> bool:
    """Whether a delta's keys are those of a plain delta (its values are checked apart).

    ``timed``: whether a ``timestamp`` may be among them.
    """
    defined = 0
    for key in event:
        if key in CANONICAL_KEYS:
            if key == "timestamp":
                if not timed:
                    return False
            elif key != "type" and key != "delta" and key != id_key:
                return False
            defined += 1
    return defined >= 3


class DeltaRun:
    """Consecutive plain deltas of one item with the same keys, as a reader read them.

    ``events`` are the canonical events (as the reader would have yielded them one by
    one), the first at index ``index`` and each next one at the next index.
    """

    __slots__ = ("_others", "_size", "events", "id_key", "index", "item_id", "keys", "kind")

    def __init__(
        self,
        event: dict[str, Any],
        index: int,
        kind: str,
        id_key: str,
        item_id: str,
        keys: frozenset[str],
    ) -> None:
        self.kind = kind
        self.id_key = id_key
        self.item_id = item_id
        self.keys = keys
        self.index = index
        self.events = [event]
        # The keys besides the three every delta has: with as many keys in all, a delta
        # holding the three and these holds exactly the run's keys.
        self._size = len(keys)
        self._others = tuple(key for key in keys if key not in ("type", "delta", id_key))

    def takes(self, value: dict[str, Any]) -> bool:
        """Whether a decoded object continues the run (the caller checks its bytes)."""
        delta = value.get("delta")
        if (
            len(value) != self._size
            or type(delta) is not str
            or delta == ""
            or value.get(self.id_key) != self.item_id
            or value.get("type") != self.kind
        ):
            return False
        for key in self._others:  # noqa: SIM110  (all() builds a generator per delta)
            if key not in value:
                return False
        return True


class KeyKeeper(Protocol):
    """What says which keys are kept as read (the event intake)."""

    def keeps_keys(self, event: dict[str, Any]) -> bool:
        """Whether a flat event's keys are kept as they are."""
        ...


class RunOpener:
    """Opens a run at a plain delta; remembers the last set of keys it found plain.

    ``timed_kinds``: the delta types whose timed deltas may form runs. A run's keys must
    be ones ``intake`` keeps as they are (AG-UI's, and those it has said it does not
    read): then each line that continues the run is an event as it was read. Most deltas
    of a stream share one set of keys, so the set is checked once, not at every run.
    """

    __slots__ = ("_intake", "_keys", "_kind", "_timed_kinds")

    def __init__(self, timed_kinds: frozenset[str], intake: KeyKeeper) -> None:
        self._timed_kinds = timed_kinds
        self._intake = intake
        self._kind = ""
        self._keys: frozenset[str] = frozenset()

    def open(self, event: dict[str, Any], index: int) -> DeltaRun | None:
        """A run starting with ``event`` (a canonical event at ``index``), if it is plain."""
        kind = event["type"]
        id_key = DELTA_ID_KEYS.get(kind)
        if id_key is None:
            return None
        item_id = event.get(id_key)
        delta = event.get("delta")
        if type(item_id) is not str or type(delta) is not str or delta == "":
            return None
        keys = self._keys
        if kind != self._kind or event.keys() != keys:
            if not (
                plain_keys(event, id_key, kind in self._timed_kinds)
                and self._intake.keeps_keys(event)
            ):
                return None
            keys = self._keys = frozenset(event)
            self._kind = kind
        return DeltaRun(event, index, kind, id_key, item_id, keys)
