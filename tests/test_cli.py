"""The command line, through a subprocess, on real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import agui_transcripts
from agui_transcripts.adapters.ragas import RAGAS_HINT

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "examples" / "runs" / "pydantic-ai-weather.sse"
STREAMS = ROOT / "tests" / "golden" / "streams"
CONFORMANCE = ROOT / "tests" / "conformance" / "ag-ui-spec" / "streams"


def cli(
    *args: str, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agui_transcripts", *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    for path in RUN.parent.glob("pydantic-ai-weather.*"):
        shutil.copy(path, folder)
    shutil.copy(STREAMS / "scenario-S19.jsonl", folder)
    (folder / "nested").mkdir()
    shutil.copy(STREAMS / "scenario-S32.jsonl", folder / "nested")
    (folder / "corrupt.jsonl").write_bytes(b"\x00\x01 not json\n{also not json\n")
    return folder


def test_convert_one_file_to_json() -> None:
    result = cli("convert", str(RUN), "--to", "agui")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert [m["role"] for m in document["messages"]] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert document["continuation"] == "done"
    assert [run["outcome"] for run in document["runs"]] == ["success", "success"]


def test_convert_a_batch_with_a_corrupt_file(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = cli("convert", str(logs), "--to", "openai", "-o", str(out))
    assert result.returncode == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(Path(line["source"]).name for line in lines) == [
        "pydantic-ai-weather.sse",
        "scenario-S19.jsonl",
        "scenario-S32.jsonl",
    ]
    assert "corrupt.jsonl: no AG-UI event could be read (line 1)" in result.stderr
    assert "4 files" in result.stderr
    assert "1 failed" in result.stderr


@pytest.mark.slow
def test_parallel_mode_gives_the_same_lines(logs: Path, tmp_path: Path) -> None:
    serial, parallel = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    cli("convert", str(logs), "--to", "langchain", "-o", str(serial))
    result = cli("convert", str(logs), "--to", "langchain", "--jobs", "2", "-o", str(parallel))
    assert result.returncode == 1  # the corrupt file still fails
    assert serial.read_text() == parallel.read_text()


def test_convert_from_stdin() -> None:
    result = cli("convert", "-", "--to", "openai", stdin=RUN.read_bytes())
    assert result.returncode == 0, result.stderr
    messages = json.loads(result.stdout)["messages"]
    # No run input on stdin: the client's show_map answer is unknown, so it is synthesized.
    assert [m["role"] for m in messages] == ["assistant", "tool", "tool", "assistant"]
    assert [m["tool_call_id"] for m in messages[1:3]] == ["call_weather_1", "call_map_1"]
    assert messages[2]["content"].startswith("Error: ")


@pytest.mark.slow
def test_convert_ordered_and_strict() -> None:
    q19 = STREAMS / "quirk-Q19-text-open-across-tools.jsonl"
    plain = json.loads(cli("convert", str(q19)).stdout)["messages"]
    ordered = json.loads(cli("convert", str(q19), "--ordered").stdout)["messages"]
    assert len(plain) == 2
    assert len(ordered) == 3
    rejected = cli("convert", str(STREAMS / "scenario-S05.jsonl"), "--strict")
    assert rejected.returncode == 1
    assert "First TEXT_MESSAGE_CHUNK must have a messageId" in rejected.stderr


@pytest.mark.slow
def test_convert_chooses_where_subagent_turns_go(tmp_path: Path) -> None:
    recording = ROOT / "tests" / "golden" / "deviations"
    source = str(recording / "deviation-langgraph-subagent-no-input.jsonl")
    roles = {}
    for choice in ("inline", "exclude", "apart"):
        out = cli("convert", source, "--to", "openai", "--subagents", choice)
        roles[choice] = [m["role"] for m in json.loads(out.stdout)["messages"]]
    assert roles["exclude"] == ["user", "assistant", "tool", "assistant"]
    assert len(roles["inline"]) == len(roles["apart"]) == 7
    # Two files in worker processes take the choice too.
    many = cli("convert", source, source, "--subagents", "exclude", "-j", "2")
    lines = [json.loads(line) for line in many.stdout.splitlines()]
    assert [len(line["messages"]) for line in lines] == [4, 4]


@pytest.mark.slow
def test_check_exit_codes(tmp_path: Path) -> None:
    ok = cli("check", str(CONFORMANCE / "triad-assembles-message.json"))
    assert (ok.returncode, ok.stdout.split()[0]) == (0, "ok")
    bad = cli("check", str(CONFORMANCE / "content-without-start-fatal.json"))
    assert bad.returncode == 1
    assert "No active text message found with ID 'orphan-content-m1'" in bad.stdout
    missing = cli("check", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("nonsense\n")
    unreadable = cli("check", str(garbage))
    assert (unreadable.returncode, unreadable.stdout.split()[0]) == (1, "UNREADABLE")
    shown = cli("show", str(garbage))
    assert shown.returncode == 1
    assert shown.stderr.startswith("error: ")
    assert shown.stdout == ""


def test_check_json_format() -> None:
    result = cli("check", "--format", "json", str(CONFORMANCE / "unknown-event-dropped.json"))
    [report] = json.loads(result.stdout)
    assert [d["code"] for d in report["diagnostics"]] == ["unknown-event-type"]
    assert result.returncode == 0


def test_show_renders_results_under_their_calls() -> None:
    result = cli("show", str(RUN), "--color", "never")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    call = next(i for i, line in enumerate(lines) if "get_weather(" in line)
    assert "18°C and sunny in Paris" in lines[call + 1]
    assert lines[-1] == "next: done"
    colored = cli("show", str(STREAMS / "scenario-S05.jsonl"), "--color", "always")
    assert "\x1b[1;31m! " in colored.stdout  # error diagnostics highlighted


def test_show_html(tmp_path: Path) -> None:
    page = tmp_path / "run.html"
    assert cli("show", str(RUN), "--html", str(page)).returncode == 0
    text = page.read_text()
    assert "<script" not in text
    assert "get_weather" in text
    assert "It is 18°C and sunny in Paris" in text


def test_errors_are_one_line_without_debug(tmp_path: Path) -> None:
    result = cli("show", str(tmp_path / "missing.sse"))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "missing.sse: no such file" in result.stderr


def test_console_script_is_declared() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'agui-transcripts = "agui_transcripts.cli:main"' in text


@pytest.mark.slow
def test_limits_are_options_of_every_command(tmp_path: Path) -> None:
    result = cli("check", "--format", "json", "--max-events", "10", str(RUN))
    [report] = json.loads(result.stdout)
    assert "event-limit" in [d["code"] for d in report["diagnostics"]]
    assert result.returncode == 1
    lifted = cli("check", "--format", "json", "--no-limits", str(RUN))
    assert "event-limit" not in lifted.stdout
    out = tmp_path / "out.jsonl"
    converted = cli(
        "convert", "-j", "2", "--max-event-bytes", "64", str(RUN), str(RUN), "-o", str(out)
    )
    assert "event-too-large" in converted.stderr
    refused = cli("show", "--max-events", "0", str(RUN))
    assert refused.returncode == 2
    assert "must be a positive number" in refused.stderr


def _installed_script(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The console script a user's install puts on PATH (not ``python -m``)."""
    script = shutil.which("agui-transcripts") or "agui-transcripts"
    return subprocess.run([script, *args], capture_output=True, text=True, check=False, env=env)


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    """A folder laid out as recorded runs are: logs, their sidecars, and a manifest."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for path in RUN.parent.glob("*"):
        shutil.copy(path, folder)  # pydantic-ai-weather.sse + .input.json, booking .jsonl
    weather = folder / "pydantic-ai-weather"
    (folder / "pydantic-ai-weather.jsonl").write_text(
        "".join(
            line.removeprefix("data: ") + "\n"
            for line in weather.with_suffix(".sse").read_text().splitlines()
            if line.startswith("data: ")
        )
    )  # the same run recorded twice: read once, from the JSONL
    (folder / "pydantic-ai-weather.meta.json").write_text('{"model": "test", "type": "meta"}')
    (folder / "booking-frontend-tool.history.json").write_text('[{"role": "user"}]')
    (folder / "manifest.json").write_text('{"runs": [{"type": "recorded", "name": "x"}]}')
    return folder


@pytest.mark.slow
def test_a_recording_folder_converts_each_run_once_and_no_sidecar(recording: Path) -> None:
    """Logs, their sidecars and a manifest, laid out as recorded runs are (issue 18)."""
    done = _installed_script("convert", str(recording))
    assert done.returncode == 0, done.stderr
    sources = sorted(Path(json.loads(line)["source"]).name for line in done.stdout.splitlines())
    assert sources == ["booking-frontend-tool.jsonl", "pydantic-ai-weather.jsonl"]
    assert "note: skipped 1 duplicate format, 1 non-log; -v lists them" in done.stderr
    assert "2 files" in done.stderr
    listed = _installed_script("convert", "-v", str(recording))
    assert "manifest.json: skipped, not a log" in listed.stderr
    assert "pydantic-ai-weather.sse: skipped, the same run as" in listed.stderr
    assert "0 failed, 0 truncated" in done.stderr
    checked = _installed_script("check", str(recording))
    assert checked.returncode == 0, checked.stdout
    verdicts = [line.split()[0] for line in checked.stdout.splitlines() if not line[0].isspace()]
    assert verdicts == ["ok", "ok"]


def _add_empty_and_truncated(folder: Path) -> None:
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "blank.jsonl").write_bytes(b"\n  \n")
    lines = (folder / "booking-frontend-tool.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["type"] == "RUN_FINISHED"
    (folder / "cut.jsonl").write_text("\n".join(lines[:-1]) + "\n")


@pytest.mark.slow
def test_an_empty_log_fails_and_a_truncated_one_is_flagged(recording: Path) -> None:
    _add_empty_and_truncated(recording)
    done = _installed_script("convert", str(recording))
    assert done.returncode == 1, done.stderr
    converted = {Path(json.loads(line)["source"]).name for line in done.stdout.splitlines()}
    assert converted == {"booking-frontend-tool.jsonl", "cut.jsonl", "pydantic-ai-weather.jsonl"}
    assert f"error: {recording / 'empty.jsonl'}: empty log (no events in it)" in done.stderr
    assert f"error: {recording / 'blank.jsonl'}: empty log" in done.stderr
    assert f"warning: {recording / 'cut.jsonl'}: truncated" in done.stderr
    summary = done.stderr.strip().splitlines()[-1]
    assert summary.startswith("5 files,")
    assert "2 failed, 1 truncated" in summary

    checked = _installed_script("check", str(recording))
    assert checked.returncode == 1, checked.stdout
    verdicts = {
        Path(line.split()[1].rstrip(":")).name: line.split()[0]
        for line in checked.stdout.splitlines()
        if not line[0].isspace()
    }
    assert verdicts == {
        "blank.jsonl": "EMPTY",
        "booking-frontend-tool.jsonl": "ok",
        "cut.jsonl": "TRUNCATED",
        "empty.jsonl": "EMPTY",
        "pydantic-ai-weather.jsonl": "ok",
    }
    as_json = _installed_script("check", "--format", "json", str(recording))
    statuses = {Path(r["source"]).name: r["status"] for r in json.loads(as_json.stdout)}
    assert statuses["cut.jsonl"] == "truncated"
    assert statuses["empty.jsonl"] == "empty"

    one = _installed_script("convert", str(recording / "cut.jsonl"))
    assert one.returncode == 0
    assert "truncated" in one.stderr
    assert json.loads(one.stdout)["runs"][-1]["outcome"] == "truncated"


@pytest.mark.slow
def test_one_output_format_whatever_the_number_of_files(recording: Path, tmp_path: Path) -> None:
    log = recording / "booking-frontend-tool.jsonl"
    one = _installed_script("convert", str(log))
    assert len(one.stdout.splitlines()) == 1  # JSONL by default, even for one file
    batch = _installed_script("convert", str(recording))
    assert json.loads(one.stdout) == json.loads(batch.stdout.splitlines()[0])

    array = _installed_script("convert", "--format", "json", str(log))
    assert json.loads(array.stdout) == [json.loads(one.stdout)]
    assert array.stdout.count("\n") > 10  # indented for a person
    out = tmp_path / "all.json"
    written = _installed_script("convert", "--format", "json", str(recording), "-o", str(out))
    assert written.returncode == 0, written.stderr
    assert [json.loads(line) for line in batch.stdout.splitlines()] == json.loads(out.read_text())
    (recording / "empty.jsonl").write_bytes(b"")
    nothing = _installed_script("convert", "--format", "json", str(recording / "empty.jsonl"))
    assert nothing.returncode == 1
    assert json.loads(nothing.stdout) == []


def test_help_lists_the_targets_and_the_version_prints() -> None:
    text = " ".join(_installed_script("convert", "--help").stdout.split())
    assert "agui, openai, responses, chat-turns, inspect, deepeval, langchain, ragas" in text
    assert "(default: agui)" in text
    assert "(default: jsonl)" in text
    version = _installed_script("--version")
    assert version.returncode == 0
    assert version.stdout.split() == ["agui-transcripts", agui_transcripts.__version__]


def test_a_missing_extra_is_reported_once_for_the_batch(recording: Path, tmp_path: Path) -> None:
    """Whether or not ragas is installed here, a ragas that cannot import is simulated."""
    broken = tmp_path / "site"
    (broken / "ragas").mkdir(parents=True)
    (broken / "ragas" / "__init__.py").write_text("raise ImportError('simulated: no ragas')\n")
    env = {**os.environ, "PYTHONPATH": str(broken)}
    done = _installed_script("convert", "--to", "ragas", str(recording), env=env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert [line for line in lines if not line.startswith("note:")] == [
        f"error: --to ragas: {RAGAS_HINT}"
    ]
    assert done.stdout == ""


def test_a_missing_extra_does_not_stop_other_targets(recording: Path, tmp_path: Path) -> None:
    broken = tmp_path / "site"
    (broken / "ragas").mkdir(parents=True)
    (broken / "ragas" / "__init__.py").write_text("raise ImportError('simulated: no ragas')\n")
    env = {**os.environ, "PYTHONPATH": str(broken)}
    done = _installed_script("convert", "--to", "openai", str(recording), env=env)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 2


def test_convert_and_check_document_their_exit_codes() -> None:
    for command in ("convert", "check"):
        done = cli(command, "--help")
        assert "Exit status: 0" in " ".join(done.stdout.split())
