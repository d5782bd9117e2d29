"""The benchmark's streams are valid AG-UI, and its runner works at a tiny size.

No timing is asserted here: the figures are the benchmark's job (benchmarks/README.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ag_ui.core import Event
from pydantic import TypeAdapter

from agui_transcripts import fold

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from shapes import SHAPES  # noqa: E402


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_is_a_valid_stream_of_about_the_asked_size(name: str) -> None:
    events = list(SHAPES[name](600))
    assert 560 <= len(events) <= 680  # whole runs: per_token's are 339 events, reasoning's 308

    adapter = TypeAdapter(Event)
    for event in events:
        adapter.validate_python(event)
    transcript = fold(events, strict=True)
    if name == "snapshots":  # each run's snapshot is a window: older turns leave, said
        assert {d.code for d in transcript.diagnostics} == {"snapshot-dropped-messages"}
        assert len(transcript.diagnostics) == len(transcript.runs) - 2
    elif name == "long_thread":  # each input restates the last call under a new message id
        assert {d.code for d in transcript.diagnostics} == {"input-echo"}
        assert len(transcript.diagnostics) == len(transcript.runs) - 1
    elif name in ("per_token", "reasoning"):  # recorders' keys: once per stream each
        assert {d.code for d in transcript.diagnostics} == {"unknown-field"}
    else:
        assert transcript.diagnostics == []
    assert transcript.messages


@pytest.mark.slow
def test_the_runner_prints_a_row_per_shape() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "run.py"),
            "--sizes",
            "300",
            "--shapes",
            "mixed,tool_loop",
            "--rounds",
            "1",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [
        line for line in done.stdout.splitlines() if line.startswith("| ") and "---" not in line
    ]
    # The timings, then the ratios against ragas's fastest figures.
    assert [row.split(" | ")[0] for row in rows] == ["| shape", "| mixed", "| tool_loop"] * 2
    assert "ragas file (validate_json)" in rows[0]
    assert "drop-in / ragas sdk" in rows[3]


@pytest.mark.slow
def test_the_archive_runner_converts_a_tiny_archive_each_way(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    from archive import make_archive

    from agui_transcripts.logs import find_logs

    events = make_archive(tmp_path / "archive", 14)
    logs = find_logs([str(tmp_path / "archive")])
    assert len(logs) == 14
    assert events == sum(len(Path(log).read_text().splitlines()) for log in logs)
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "archive.py"), "--logs", "14", "--workers", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| 14 ")]
    assert [row[2] for row in rows] == ["embedded", "pool 2"]
    assert all(float(row[5].replace(",", "")) > 0 for row in rows)  # events per second


def test_the_layer_timers_see_every_layer_and_change_nothing(tmp_path: Path) -> None:
    import layers
    from shapes import write_jsonl

    from .builds import requires_interpreted

    requires_interpreted("the layer timers wrap the layers' classes")
    path = str(tmp_path / "mixed.jsonl")
    write_jsonl(SHAPES["mixed"], 600, path)
    originals = {
        (owner, name): owner.__dict__[name]
        for methods in layers.LAYERS.values()
        for owner, name in methods
    }
    clock = layers.Clock()
    with layers.wrapped(clock):
        timed = fold(path, inputs_beside=False)
    assert all(clock.calls[layer] > 0 for layer in layers.LAYERS), clock.calls
    assert all(owner.__dict__[name] is method for (owner, name), method in originals.items())
    plain = fold(path, inputs_beside=False)
    assert timed.to_dicts() == plain.to_dicts()
    assert timed.diagnostics == plain.diagnostics == []


@pytest.mark.slow
def test_the_layer_runner_prints_a_row_per_shape_or_refuses_a_compiled_fold() -> None:
    from .builds import is_compiled

    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "layers.py"),
            *("--shapes", "mixed,chunks", "--size", "600", "--rounds", "1"),
        ],
        capture_output=True,
        text=True,
    )
    if is_compiled("collector"):
        assert done.returncode == 2
        assert "run this with a pure-Python install" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| ")]
    assert rows[0][1:] == ["reading", "chunk layer", "verifier", "reducer", "the rest", "total |"]
    assert [row[0] for row in rows[2:]] == ["| mixed", "| chunks"]
    for row in rows[2:]:
        parts = [float(cell.split(" ")[0]) for cell in row[1:-1]]
        total = float(row[-1].rstrip(" |"))
        assert all(part >= 0 for part in parts[:-1])  # the rest may read below zero (the docstring)
        assert abs(sum(parts) - total) < 0.01 * len(parts)


@pytest.mark.slow
def test_the_instruction_counter_gives_a_count_per_event_per_shape() -> None:
    """Under callgrind (CI installs valgrind): a positive count per event, per shape."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "instructions.py"), "--shapes", "mixed", "--size", "300"],
        capture_output=True,
        text=True,
        check=True,
    )
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("| mixed |")]
    per_event = int(row.split("|")[2].strip().replace(",", ""))
    # A fold of a mixed stream is thousands of instructions per event, not a few (an
    # empty file counted twice) nor millions (the start left in).
    assert 2_000 < per_event < 200_000
