"""Golden streams, folded by the reference client (see build.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STREAMS_DIR = Path(__file__).parent / "streams"
#: Every golden stream (scenarios, quirks and random streams).
GOLDEN_STREAMS = sorted(STREAMS_DIR.glob("*.jsonl"))


def run_inputs_of(stream: Path) -> Any:
    """The run inputs recorded beside a stream, or None."""
    path = stream.parent / (stream.name.removesuffix(".jsonl") + ".input.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def fold_golden(stream: Path) -> Any:
    """The transcript of a golden stream, with its run inputs."""
    from agui_transcripts import fold

    return fold(stream, run_input=run_inputs_of(stream))
