"""Plain deltas, and runs of them read as one: the delta lane's definitions.

Half of a stream recorded from a real model is consecutive deltas of one message, one
token each. A *plain* delta changes nothing but its item's text: a
``TEXT_MESSAGE_CONTENT``, ``REASONING_MESSAGE_CONTENT`` or ``TOOL_CALL_ARGS`` with its
item's id, a non-empty text delta,
perhaps a ``timestamp``, and keys no AG-UI event defines (a recorder's own), which nobody
reads. A reader that sees consecutive plain deltas of one item with the same keys hands
them to the collector as one :class:`DeltaRun`, which appends their joined text at once
where the text limit allows, and otherwise folds them one by one, exactly as if they had
come apart (see :meth:`~agui_transcripts.collector.Collector.feed_run`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol

from .schema import CANONICAL_KEYS, DELTA_ID_KEYS

# Compiled, a name imported from another module is a globals lookup at each read;
# these module constants are statics.
_CANONICAL_KEYS: Final = CANONICAL_KEYS
_DELTA_ID_KEYS: Final = DELTA_ID_KEYS

__all__ = ["DELTA_ID_KEYS", "DeltaRun", "ObjectRun", "RunOpener", "plain_keys"]


def plain_keys(event: dict[str, Any], id_key: str, timed: bool) -> bool:
    """Whether a delta's keys are those of a plain delta (its values are checked apart).

    ``timed``: whether a ``timestamp`` may be among them.
    """
    defined = 0
    for key in event:
        if key in _CANONICAL_KEYS:
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
        self._others: tuple[str, ...] = (
            tuple([key for key in keys if key != "type" and key != "delta" and key != id_key])
            if self._size > 3
            else ()
        )

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

    def length(self) -> int:
        """How many deltas the run holds."""
        return len(self.events)

    def joined(self) -> str:
        """The text of every delta after the first, joined."""
        return "".join([event["delta"] for event in self.events[1:]])

    def stamps(self) -> list[Any]:
        """The ``timestamp`` of every delta after the first (a timed run's)."""
        return [event["timestamp"] for event in self.events[1:]]

    def rest(self) -> list[dict[str, Any]]:
        """The canonical events after the first, to fold one by one."""
        return self.events[1:]


class ObjectRun(DeltaRun):
    """Consecutive plain deltas of one item read from SDK event objects of one class.

    ``events`` holds the first delta's event; the rest are kept as their objects, text
    and time, and become events only when they must be folded one by one. An object
    continues the run when the intake would take it as it is, as it took the first: the
    same class, the same fields set, the same extra keys with plain values, its item's
    id and a non-empty text delta. ``run``: the run the first opened; ``item``: the
    first; ``wire``: its class's wire names by attribute; ``event_of`` builds the event
    of an object the run took.
    """

    __slots__ = (
        "_absent",
        "_event_of",
        "_extras",
        "_id_attr",
        "_present",
        "_stamped",
        "_type",
        "deltas",
        "objects",
        "times",
    )

    def __init__(
        self,
        run: DeltaRun,
        item: object,
        wire: dict[str, str],
        event_of: Callable[[object], dict[str, Any]],
    ) -> None:
        super().__init__(run.events[0], run.index, run.kind, run.id_key, run.item_id, run.keys)
        fields: dict[str, Any] = item.__dict__
        self._type: type = type(item)
        # (Loops, not generator expressions: a run of two deltas pays this at its start.)
        present: list[str] = []
        absent: list[str] = []
        for name, value in fields.items():
            (absent if value is None else present).append(name)
        self._present = tuple(present)
        self._absent = tuple(absent)
        self._id_attr = ""
        for name, key in wire.items():
            if key == run.id_key:
                self._id_attr = name
        self._stamped = "timestamp" in run.keys
        extra = getattr(item, "__pydantic_extra__", None)
        self._extras: tuple[str, ...] = tuple(extra) if extra else ()
        self._event_of = event_of
        self.objects: list[object] = []
        self.deltas: list[str] = []
        self.times: list[Any] = []

    def takes_object(self, item: object) -> bool:
        """Take ``item`` into the run if it continues it (the caller counts it)."""
        if type(item) is not self._type:
            return False
        fields: dict[str, Any] = item.__dict__
        delta = fields.get("delta")
        if (
            type(delta) is not str
            or delta == ""
            or fields.get(self._id_attr) != self.item_id
            or len(fields) != len(self._present) + len(self._absent)
        ):
            return False
        for name in self._present:
            if fields.get(name) is None:
                return False
        for name in self._absent:
            if fields.get(name, False) is not None:
                return False
        extra = getattr(item, "__pydantic_extra__", None)
        if extra:
            if len(extra) != len(self._extras):
                return False
            for key in self._extras:
                value = extra.get(key)
                kind = type(value)
                if kind is not str and kind is not int and kind is not bool:
                    return False
        elif self._extras:
            return False
        self.objects.append(item)
        self.deltas.append(delta)
        if self._stamped:
            self.times.append(fields.get("timestamp"))
        return True

    def length(self) -> int:
        return 1 + len(self.objects)

    def joined(self) -> str:
        return "".join(self.deltas)

    def stamps(self) -> list[Any]:
        return self.times

    def rest(self) -> list[dict[str, Any]]:
        event_of = self._event_of
        return [event_of(item) for item in self.objects]


class KeyKeeper(Protocol):
    """What says which keys are kept as read (the event intake)."""

    def keeps_keys(self, event: dict[str, Any]) -> bool:
        """Whether a flat event's keys are kept as they are."""
        ...


class RunOpener:
    """Opens a run at a plain delta; remembers each type's last set of keys found plain.

    ``timed_kinds``: the delta types whose timed deltas may form runs. A run's keys must
    be ones ``intake`` keeps as they are (AG-UI's, and those it has said it does not
    read): then each line that continues the run is an event as it was read. Most deltas
    of a type share one set of keys, so the set is checked once, not at every run.
    """

    __slots__ = ("_intake", "_plain", "_timed_kinds")

    def __init__(self, timed_kinds: frozenset[str], intake: KeyKeeper) -> None:
        self._timed_kinds = timed_kinds
        self._intake = intake
        # Each delta type's last set of keys found plain.
        self._plain: dict[str, frozenset[str]] = {}

    def open(self, event: dict[str, Any], index: int) -> DeltaRun | None:
        """A run starting with ``event`` (a canonical event at ``index``), if it is plain."""
        kind = event["type"]
        id_key = _DELTA_ID_KEYS.get(kind)
        if id_key is None:
            return None
        item_id = event.get(id_key)
        delta = event.get("delta")
        if type(item_id) is not str or type(delta) is not str or delta == "":
            return None
        keys = self._plain.get(kind)
        if keys is None or event.keys() != keys:
            if not (
                plain_keys(event, id_key, kind in self._timed_kinds)
                and self._intake.keeps_keys(event)
            ):
                return None
            keys = self._plain[kind] = frozenset(event)
        return DeltaRun(event, index, kind, id_key, item_id, keys)
