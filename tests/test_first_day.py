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


# -- show marks runs, outcomes, interrupts and subagent turns ------------------------------

TWO_RUNS = [
    {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Asking a helper."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"},
    {"type": "TEXT_MESSAGE_START", "messageId": "s-m", "subagentRunId": "s1"},
    {
        "type": "TEXT_MESSAGE_CONTENT",
        "messageId": "s-m",
        "delta": "Helper here.",
        "subagentRunId": "s1",
    },
    {"type": "TEXT_MESSAGE_END", "messageId": "s-m", "subagentRunId": "s1"},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
    {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2"},
    {
        "type": "TOOL_CALL_START",
        "toolCallId": "c-del",
        "toolCallName": "delete",
        "parentMessageId": "m2",
    },
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c-del", "delta": "{}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c-del"},
    {
        "type": "RUN_FINISHED",
        "threadId": "t1",
        "runId": "r2",
        "outcome": {
            "type": "interrupt",
            "interrupts": [{"id": "int-1", "reason": "tool_approval", "toolCallId": "c-del"}],
        },
    },
]


@pytest.fixture
def two_runs(tmp_path: Path) -> Path:
    path = tmp_path / "two-runs.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in TWO_RUNS))
    return path


def _lines(*args: str) -> list[str]:
    shown = script("show", "--color", "never", *args)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.splitlines()


def test_show_marks_each_run_its_outcome_its_interrupts_and_subagent_turns(
    two_runs: Path,
) -> None:
    lines = _lines(str(two_runs))
    marks = [line for line in lines if line.startswith(("──", "  ┌", "  └"))]
    assert marks == [
        "── run r1 ──",
        "  ┌ subagent s1",
        "  └",
        "── end of run r1: success ──",
        "── run r2 ──",
        "── end of run r2: interrupt; waiting on 1 interrupt: int-1: tool_approval ──",
    ]
    helper = lines.index("  ┌ subagent s1") + 1
    assert lines[helper].startswith("  │ ")
    assert lines[helper].endswith("Helper here.")
    # The interrupted call has no result: its state says why, and nothing is invented.
    assert any(line.strip() == "← (pending_interrupt)" for line in lines)
    assert not any("synthetic" in line for line in lines)


def test_show_subagents_exclude_leaves_their_turns_out_and_apart_moves_them_last(
    two_runs: Path,
) -> None:
    excluded = _lines("--subagents", "exclude", str(two_runs))
    assert not any("Helper here." in line or "subagent" in line for line in excluded)
    apart = _lines("--subagents", "apart", str(two_runs))
    texts = [line for line in apart if "Helper here." in line or "Asking a helper." in line]
    assert [("Helper" in line) for line in texts] == [False, True]
    # Moved after run r2's messages, the helper's turn reopens its run r1.
    assert apart.index("── run r1 (continued) ──") < apart.index("  ┌ subagent s1")


def test_show_ordered_shows_what_an_evaluator_scores(two_runs: Path) -> None:
    lines = _lines("--ordered", str(two_runs))
    result = next(line for line in lines if line.strip().startswith("←"))
    assert "(synthetic: no result was streamed)" in result


def test_the_html_view_marks_the_same(two_runs: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    made = script("show", "--html", str(page), "--subagents", "inline", str(two_runs))
    assert made.returncode == 0, made.stderr
    html = page.read_text()
    assert '<div class="subagent"><div class="role">subagent s1</div>' in html
    assert "end of run r2: <b>interrupt</b>; waiting on int-1: tool_approval" in html
    assert html.index("Helper here.") < html.index("end of run r1")
    page_excluded = tmp_path / "excluded.html"
    script("show", "--html", str(page_excluded), "--subagents", "exclude", str(two_runs))
    assert "Helper here." not in page_excluded.read_text()
    page_ordered = tmp_path / "ordered.html"
    script("show", "--html", str(page_ordered), "--ordered", str(two_runs))
    assert "(synthetic: no result was streamed)" in page_ordered.read_text()


# -- the next run keeps declaring the client's tools --------------------------------------

RUNS = Path(__file__).resolve().parent.parent / "examples" / "runs"
WEATHER = RUNS / "pydantic-ai-weather.sse"


def test_the_next_run_declares_the_tools_the_latest_declaring_run_did() -> None:
    inputs = json.loads((RUNS / "pydantic-ai-weather.input.json").read_text())
    declared = inputs[0]["tools"]
    assert declared, "the recording's first run declares its client tools"
    # Only the first run's input is known: the second run declares nothing itself.
    transcript = fold(WEATHER, run_input=inputs[:1])
    assert transcript.runs[-1].tools is None
    assert transcript.next_run_input()["tools"] == declared


def test_tool_names_alone_are_said_not_to_be_re_sent() -> None:
    transcript = fold(WEATHER, inputs_beside=False, client_tools=["show_map"])
    record = transcript.tool_call("call_map_1")
    assert record is not None
    assert record.owner == "client"
    with pytest.warns(UserWarning, match="show_map cannot be re-sent from names alone"):
        run_input = transcript.next_run_input()
    assert run_input["tools"] == []
    tool = {"name": "show_map", "description": "Show a city", "parameters": {"type": "object"}}
    assert transcript.next_run_input(tools=[tool])["tools"] == [tool]


# -- the response is the text an evaluator sees last ---------------------------------------

SAYS_TWICE = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Checking."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {
        "type": "TOOL_CALL_START",
        "toolCallId": "c1",
        "toolCallName": "weather",
        "parentMessageId": "m1",
    },
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "rain"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "It "},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "rains."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def test_the_response_is_the_text_after_the_last_call_in_the_api_and_the_rows(
    tmp_path: Path,
) -> None:
    transcript = fold(SAYS_TWICE)
    assert transcript.messages[0].text == "Checking.It rains."  # the reference client's
    assert transcript.response == "It rains."
    log = tmp_path / "says-twice.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in SAYS_TWICE))
    from agui_transcripts.rows import rows_of_logs

    [row] = list(rows_of_logs([log]))
    assert row["response"] == "It rains."
    # Text before a call it never followed up is still the answer.
    assert fold(SAYS_TWICE[:6]).response == "Checking."


# -- flat views for pandas users ------------------------------------------------------------


def test_to_pandas_views_give_one_row_per_message_and_per_call() -> None:
    pytest.importorskip("pandas")
    from agui_transcripts.arrow import to_pandas
    from agui_transcripts.rows import rows_of_logs

    rows = list(rows_of_logs(RUNS, target="openai", per="run"))
    frame = to_pandas(rows)
    assert type(frame["messages"][0]) is list
    assert type(frame["messages"][0][0]) is dict
    assert str(frame["run_index"].dtype) == "Int64"

    messages = to_pandas(rows, view="messages")
    assert len(messages) == sum(len(row["messages"]) for row in rows)
    first = rows[0]
    mine = messages[(messages.source == first["source"]) & (messages.run_index == 0)]
    assert list(mine.role) == [m["role"] for m in first["messages"]]
    assert list(mine.position) == list(range(len(first["messages"])))
    with_calls = messages[messages.tool_calls.map(len) > 0]
    assert type(with_calls.tool_calls.iloc[0]) is list

    calls = to_pandas(rows, view="tool_calls")
    assert len(calls) == sum(len(row["tool_calls"]) for row in rows)
    weather = calls[(calls.name == "get_weather") & (calls.run_index == 1)]
    [state] = weather.state
    assert (state, *weather.owner, *weather.run_id) == ("resolved_server", "server", "run-1")
    with pytest.raises(ValueError, match="view must be one of rows, messages, tool_calls"):
        to_pandas(rows, view="calls")  # type: ignore[arg-type]


def test_the_run_commands_progress_line_is_throttled_and_fits_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import os
    from types import SimpleNamespace
    from typing import Any, cast

    from agui_transcripts import scenario_runs

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((40, 20)))
    screen = Terminal()
    meter = scenario_runs._Progress(500, screen)
    for number in range(500):
        record = SimpleNamespace(name=f"scenario-{number}", passed=True, status="passed")
        meter.step(cast(Any, record))
    draws = screen.getvalue().split("\r\x1b[K")[1:]
    assert 1 < len(draws) < 50  # 500 steps in well under five seconds
    assert draws[-1].startswith("[500/500] 500 passed, 0 failed, 0 err")  # the last step
    assert all(len(draw) <= 39 for draw in draws)
