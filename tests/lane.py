"""Counting the deltas the collector's delta lane takes.

Tests that compare the fast paths with the general path would pass just as well if the
lane never fired; the guards count what it takes.
"""

from __future__ import annotations

from typing import Any

import pytest

from agui_transcripts import Collector


def count_lane(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the deltas the lane takes from now on: the returned list's one item."""
    taken = [0]
    original = Collector._fast_delta

    def counting(self: Collector, event: dict[str, Any], index: int | None) -> bool:
        done = original(self, event, index)
        taken[0] += done
        return done

    monkeypatch.setattr(Collector, "_fast_delta", counting)
    return taken
