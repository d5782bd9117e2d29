"""Switching off, and counting, the collector's delta lane.

Tests that compare the fast paths with the general path would pass just as well if the
lane never fired; the guards count what it takes. The lane has two entries (a plain
delta, a chunk that only continues its stream); the routes it keeps for an item are
made only by the first, so closing both leaves the general path alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from agui_transcripts import Collector
from agui_transcripts.text_budget import DeltaRoute

from .builds import requires_interpreted

_ENTRIES = ("_plain_delta", "_plain_chunk")
_NATIVE = "the lane's methods are called natively, so they cannot be patched out or counted"


def without_lane(patch: pytest.MonkeyPatch) -> None:
    """Send every event down the general path (within ``patch``'s context)."""
    requires_interpreted(_NATIVE)
    for name in _ENTRIES:
        patch.setattr(Collector, name, lambda self, *args: False)


def count_lane(monkeypatch: pytest.MonkeyPatch, *, routes: bool = True) -> list[int]:
    """Count the deltas the lane takes from now on: by its entries, and by its routes.

    The count is the returned list's one item; ``routes=False`` counts the entries only.
    """
    requires_interpreted(_NATIVE)
    taken = [0]
    places = [(Collector, entry) for entry in _ENTRIES]
    for owner, name in places + ([(DeltaRoute, "append")] if routes else []):
        original = getattr(owner, name)

        def counting(self: object, *args: Any, _original: Any = original) -> bool:
            done: bool = _original(self, *args)
            taken[0] += done
            return done

        monkeypatch.setattr(owner, name, counting)
    return taken
