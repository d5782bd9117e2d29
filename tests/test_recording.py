"""A recorded run is its log plus the run inputs saved beside it; fold(path) reads both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agui_transcripts import RunInputError, fold, read_run_input, run_input_path

RUNS = Path(__file__).resolve().parent.parent / "examples" / "runs"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    for name in ("booking-frontend-tool.jsonl", "booking-frontend-tool.input.json"):
        shutil.copy(RUNS / name, tmp_path)
    return tmp_path / "booking-frontend-tool.jsonl"


def test_the_inputs_beside_a_path_are_read(run: Path) -> None:
    inputs = json.loads(run_input_path(run).read_text())
    assert run_input_path(run).name == "booking-frontend-tool.input.json"
    assert read_run_input(run) == inputs
    beside = fold(run)
    assert beside.to_dicts() == fold(run, run_input=inputs, inputs_beside=False).to_dicts()
    alone = fold(run, inputs_beside=False)
    assert [m.role for m in beside.messages if m.role == "user"]
    assert not [m for m in alone.messages if m.role == "user"]
    assert fold(str(run)).to_dicts() == beside.to_dicts()  # a str path too


def test_explicit_run_input_wins(run: Path) -> None:
    given = {
        "threadId": "t",
        "runId": "r",
        "messages": [{"id": "u-given", "role": "user", "content": "Given here."}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }
    users = [m for m in fold(run, run_input=given).messages if m.role == "user"]
    assert [m.text for m in users] == ["Given here."]


def test_no_inputs_beside_is_no_inputs(tmp_path: Path) -> None:
    log = tmp_path / "alone.jsonl"
    shutil.copy(RUNS / "booking-frontend-tool.jsonl", log)
    assert read_run_input(log) is None
    assert fold(log).to_dicts() == fold(log, inputs_beside=False).to_dicts()


def test_text_and_events_are_not_paths(run: Path) -> None:
    """Only a path has a place beside it: log text folds as it is."""
    text = run.read_text()
    assert fold(text).to_dicts() == fold(run, inputs_beside=False).to_dicts()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "cannot be read"),
        ('"a string"', "not str"),
        ("[{}, 3]", "a list holding other values"),
        (b"\xff\xfe\x00", "cannot be read"),
    ],
)
def test_unusable_inputs_raise_naming_the_file(run: Path, content: str | bytes, why: str) -> None:
    sidecar = run_input_path(run)
    if isinstance(content, bytes):
        sidecar.write_bytes(content)
    else:
        sidecar.write_text(content)
    with pytest.raises(RunInputError, match=why) as raised:
        fold(run)
    assert str(sidecar) in str(raised.value)
    assert isinstance(raised.value, ValueError)
    assert fold(run, inputs_beside=False).messages  # the log alone still folds
