"""Golden streams: our fold against what the reference client ended with.

``tests/golden/streams`` holds the scenarios of the protocol rules, accepted producer
quirks and random streams, each with the reference client's result (see
``tests/golden/build.py``); ``tests/golden/reference-cases`` holds the reference tool's
own hand-written cases. For a stream the reference accepts, strict mode accepts it and
``to_dicts()`` equals the reference messages exactly, with the same state and run
outcomes; for a stream it rejects, strict mode rejects it too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import ProtocolError, fold

from .golden.compare import our_outcome, reference_outcome

HERE = Path(__file__).parent / "golden"
STREAMS = sorted((HERE / "streams").glob("*.jsonl")) + sorted(
    (HERE / "reference-cases").glob("*.jsonl")
)


def _companion(stream: Path, suffix: str) -> Path:
    return stream.parent / (stream.name.removesuffix(".jsonl") + suffix)


def _run_inputs(stream: Path) -> Any:
    path = _companion(stream, ".input.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def test_the_golden_suite_is_large_enough() -> None:
    names = [p.name for p in STREAMS]
    assert len(names) >= 60
    for number in range(1, 41):
        assert f"scenario-S{number:02d}.jsonl" in names


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.name.removesuffix(".jsonl"))
def test_golden(stream: Path) -> None:
    expected = json.loads(_companion(stream, ".expected.json").read_text(encoding="utf-8"))
    run_inputs = _run_inputs(stream)
    if expected["error"] is not None:
        with pytest.raises(ProtocolError):
            fold(stream, run_input=run_inputs, strict=True)
        return
    transcript = fold(stream, run_input=run_inputs, strict=True)
    assert transcript.to_dicts() == expected["messages"]
    assert transcript.state == expected["state"]
    ours = [our_outcome(run) for run in transcript.runs if run.announced]
    reference = [reference_outcome(run["outcome"]) for run in expected["runs"]]
    if len(expected["runs"]) == len(ours):
        assert ours == reference
    else:  # a stream opening with RUN_ERROR: the reference records no run for it
        assert [our_outcome(run) for run in transcript.runs] == [
            reference_outcome(expected["outcome"])
        ]
