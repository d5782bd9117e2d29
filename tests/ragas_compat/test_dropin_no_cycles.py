"""The drop-in leaves no reference cycle behind (see ``tests/test_no_cycles.py``).

Its watch hands the collector a bound method of its own, so the two hold each other: a
convert that returned without breaking that loop left its collector, and every message
of the conversation, for a full collection of the garbage collector.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts.ragas import convert_to_ragas_messages
from tests.generate import random_stream

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "streams"


def _streams() -> list[list[Any]]:
    streams = [
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        for path in sorted(GOLDEN.glob("*.jsonl"))
    ]
    return streams + [random_stream(seed)[0] for seed in range(30)]


@pytest.mark.parametrize("metadata", [False, True])
def test_dropped_converts_leave_no_cycle(metadata: bool) -> None:
    streams = _streams()
    assert len(streams) > 100

    def each() -> None:
        for events in streams:
            convert_to_ragas_messages(events, metadata=metadata)

    each()  # first: ragas's own imports leave their garbage once
    gc.collect()
    each()
    assert gc.collect() == 0
