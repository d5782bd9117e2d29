"""A new user's first day, through the installed ``agui-transcripts`` script and the API.

Each test is one point of what a first hour runs into: a status that says finished for an
unfinished run, a folder that is not all logs, docs that do not run as written.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agui_transcripts import Collector, fold

TRUNCATED = [
    {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Looking it up."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"q": "rain"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
]


def script(*args: str) -> subprocess.CompletedProcess[str]:
    """The console script a user's install puts on PATH."""
    command = shutil.which("agui-transcripts")
    assert command is not None, "the agui-transcripts script is not installed"
    return subprocess.run([command, *args], capture_output=True, text=True, check=False)


@pytest.fixture
def cut(tmp_path: Path) -> Path:
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in TRUNCATED))
    return path


def test_a_truncated_stream_is_truncated_in_json_parquet_show_and_html(
    cut: Path, tmp_path: Path
) -> None:
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet")
    as_json = script("convert", str(cut), "--to", "agui")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["continuation"] == "truncated"

    table = tmp_path / "rows.parquet"
    as_parquet = script("convert", str(cut), "--format", "parquet", "-o", str(table))
    assert as_parquet.returncode == 0, as_parquet.stderr
    assert pyarrow_parquet.read_table(table).column("continuation").to_pylist() == ["truncated"]

    shown = script("show", "--color", "never", str(cut))
    assert "next: truncated" in shown.stdout
    assert "next: done" not in shown.stdout

    page = tmp_path / "cut.html"
    assert script("show", "--html", str(page), str(cut)).returncode == 0
    assert "next: <b>truncated</b>" in page.read_text()


def test_an_open_run_is_running_until_its_end_and_never_done() -> None:
    collector = Collector()
    for event in TRUNCATED:
        collector.feed(event)
    assert collector.transcript.continuation().status == "running"
    assert fold(TRUNCATED).continuation().status == "truncated"
    finished = fold([*TRUNCATED, {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}])
    assert finished.continuation().status != "truncated"
