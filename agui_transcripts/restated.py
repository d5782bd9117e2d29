"""Restated history: what lets a thread whose every input re-sends it fold in linear time.

AG-UI clients send the whole conversation with every run, so a thread of n runs carries
n² messages in its inputs. Two tables keep the work per run in proportion to what the
run adds:

- :class:`SharedMessages` (the intake's): an input message equal to the one last read
  under its id becomes that message's normalized dict, the same object every time. The
  inputs of a long thread then share their messages instead of holding n² copies, and
  the layers after the intake know a restated message by identity, at the cost of one
  dictionary lookup.
- :class:`StatedMessages` (the reducer's): for each input message it read, the held
  message it found there (itself, or the one it restates under a new id). An input that
  begins with messages already read, each still finding its held message, has that
  beginning skipped; only the rest is reconciled, against the held messages no input
  has stated yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

__all__ = ["SharedMessages", "StatedMessages", "same"]

Normalize = Callable[[Any, frozenset[str], int], Any]
"""How the intake normalizes a structure: ``(value, keep_null, depth) -> value``."""

# The depth of a message inside a run input: input (0) > messages (1) > message (2).
_MESSAGE_DEPTH: Final = 2


class SharedMessages:
    """One normalized dict per input message id and content, shared by every input."""

    __slots__ = ("_normalize", "_seen")

    def __init__(self, normalize: Normalize) -> None:
        self._normalize = normalize
        # Per message id: the message as last read (raw) and as normalized.
        self._seen: dict[str, tuple[Any, Any]] = {}

    def normalize_input(self, value: Any, keep_null: frozenset[str]) -> Any:
        """A run input normalized, its messages shared with earlier inputs where equal."""
        messages = value.get("messages") if type(value) is dict else None
        if type(messages) is not list or len(messages) < 2:
            # Nothing restated (a new turn alone): no table to keep. A later input that
            # restates it keeps its own copy, which the inputs after it share.
            return self._normalize(value, keep_null, 0)
        normalized = self._normalize({**value, "messages": []}, keep_null, 0)
        if "messages" in normalized:  # not dropped by a rename to another spelling
            normalized["messages"] = [self._message(item, keep_null) for item in messages]
        return normalized

    def _message(self, item: Any, keep_null: frozenset[str]) -> Any:
        message_id = item.get("id") if type(item) is dict else None
        if type(message_id) is not str:
            return self._normalize(item, keep_null, _MESSAGE_DEPTH)
        seen = self._seen.get(message_id)
        if seen is not None and (seen[0] is item or same(seen[0], item)):
            return seen[1]
        normalized = self._normalize(item, keep_null, _MESSAGE_DEPTH)
        self._seen[message_id] = (item, normalized)
        return normalized


def same(a: Any, b: Any) -> bool:
    """Whether two messages read from JSON are equal (False past the recursion limit)."""
    try:
        return bool(a == b)
    except RecursionError:  # nested past the interpreter's limit: read it anew
        return False


class StatedMessages:
    """The held message each input message was found to be, by the input message's id."""

    __slots__ = ("_found",)

    def __init__(self) -> None:
        # Per input message id: the message dict read (the shared one) and the id of
        # the held message it is (its own id, or the one it restates).
        self._found: dict[str, tuple[Any, str]] = {}

    def note(self, item: Any, held_id: str) -> None:
        """An input message was read and found to be the held message ``held_id``."""
        message_id = item.get("id") if type(item) is dict else None
        if type(message_id) is str:
            self._found[message_id] = (item, held_id)

    def known_prefix(self, items: list[Any], held: Callable[[str], bool]) -> tuple[int, set[str]]:
        """How many leading input messages were read before, and the held ids they are.

        A message counts when it is the message read before under its id (the very object
        :class:`SharedMessages` gives an unchanged one, else an equal one) and its held
        message is still there (``held(id)``).
        """
        found = self._found
        targets: set[str] = set()
        if not found:
            return 0, targets
        count = 0
        for item in items:
            message_id = item.get("id") if type(item) is dict else None
            entry = found.get(message_id) if type(message_id) is str else None
            if (
                entry is None
                or not (entry[0] is item or same(entry[0], item))
                or not held(entry[1])
            ):
                break
            targets.add(entry[1])
            count += 1
        return count, targets
