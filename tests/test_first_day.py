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


def _folder_of_logs_and_other_files(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    finished = [*TRUNCATED, {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
    (folder / "a.jsonl").write_text("".join(json.dumps(e) + "\n" for e in finished))
    (folder / "b.log").write_text("".join(f"data: {json.dumps(e)}\n\n" for e in finished))
    (folder / "README.txt").write_text("Runs recorded on Tuesday.\n")
    (folder / "uv.lock").write_text("version = 1\n")
    (folder / "pip.log").write_text("Collecting httpx\n")
    (folder / "drafts").mkdir()
    (folder / "drafts" / "c.jsonl").write_text((folder / "a.jsonl").read_text())
    return folder


def test_files_that_are_not_logs_are_skipped_and_counted_in_one_line(tmp_path: Path) -> None:
    folder = _folder_of_logs_and_other_files(tmp_path)
    checked = script("check", str(folder))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    verdicts = sorted(
        Path(line.split()[1].rstrip(":")).name
        for line in checked.stdout.splitlines()
        if not line[:1].isspace()
    )
    assert verdicts == ["a.jsonl", "b.log", "c.jsonl"]
    assert checked.stderr.strip() == "note: skipped 2 non-logs; -v lists them"

    excluded = script("check", "--exclude", "drafts/*", "-v", str(folder))
    assert excluded.returncode == 0
    assert "c.jsonl" not in excluded.stdout
    assert "c.jsonl: skipped, excluded by drafts/*" in excluded.stderr
    assert "README.txt: skipped, not a log" in excluded.stderr

    quiet = script("check", "-q", str(folder))
    assert quiet.stderr == ""


def test_no_logs_and_missing_paths_fail_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for command in ("check", "convert"):
        none = script(command, str(tmp_path / "empty"))
        assert none.returncode == 2
        assert "no log files found" in none.stderr
        missing = script(command, str(tmp_path / "missing.jsonl"))
        assert missing.returncode == 2
        assert "missing.jsonl: no such file or directory" in missing.stderr


def test_a_document_without_events_fails_as_a_log_with_no_events(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"type": "report", "name": "nightly"}')
    assert script("convert", str(manifest)).returncode == 1
    empty = tmp_path / "empty.json"
    empty.write_text('{"events": []}')
    result = script("convert", str(empty))
    assert result.returncode == 1
    assert "empty log" in result.stderr
    one_line = tmp_path / "one.json"
    finished = [*TRUNCATED, {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
    one_line.write_text(json.dumps({"events": finished}))
    assert json.loads(script("convert", str(one_line)).stdout)["continuation"] != "truncated"


def test_show_into_a_missing_folder_is_one_line_and_exit_2(cut: Path, tmp_path: Path) -> None:
    shown = script("show", "--html", str(tmp_path / "missing" / "page.html"), str(cut))
    assert shown.returncode == 2
    assert shown.stderr.startswith("error: cannot write ")
    assert "does not exist" in shown.stderr
    assert "Traceback" not in shown.stderr
    assert "FileNotFoundError" not in shown.stderr
