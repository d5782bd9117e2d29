"""The golden streams and their run inputs, for tests that fold every one of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agui_transcripts import Transcript, fold

HERE = Path(__file__).resolve().parent
STREAMS = sorted((HERE / "streams").glob("*.jsonl")) + sorted(
    (HERE / "reference-cases").glob("*.jsonl")
)


def run_inputs(stream: Path) -> Any:
    """The run inputs recorded beside a stream (``NAME.input.json``), or None."""
    path = stream.parent / (stream.name.removesuffix(".jsonl") + ".input.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def fold_golden(stream: Path) -> Transcript:
    """A golden stream folded leniently with its run inputs."""
    return fold(stream, run_input=run_inputs(stream))
