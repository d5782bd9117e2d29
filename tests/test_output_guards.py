"""Outputs never write over inputs or outside where they were asked, whatever the names.

``show --html`` wrote over its own log (exit 0, log gone); ``file://`` inputs escaped
the check ``-o`` and ``--resume`` make against the local paths; a link planted at the
Parquet writer's predictable temporary name sent the rows elsewhere.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from agui_transcripts.cli import main

EVENTS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]
LOG_TEXT = "".join(json.dumps(event) + "\n" for event in EVENTS)


def _quiet(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


def _logs(tmp_path: Path, count: int = 3) -> list[Path]:
    logs = []
    for n in range(count):
        log = tmp_path / f"log{n}.jsonl"
        log.write_text(LOG_TEXT, encoding="utf-8")
        logs.append(log)
    sidecar = tmp_path / "log0.input.json"
    sidecar.write_text(json.dumps({"threadId": "t", "runId": "r", "messages": []}))
    return logs


@pytest.mark.parametrize("page", ["log0.jsonl", "log0.input.json"])
def test_show_html_refuses_to_write_over_its_log_or_sidecar(tmp_path: Path, page: str) -> None:
    log = _logs(tmp_path)[0]
    before = (tmp_path / page).read_bytes()
    assert _quiet("show", str(log), "--html", str(tmp_path / page)) == 2
    assert (tmp_path / page).read_bytes() == before


@pytest.mark.parametrize("resume", [False, True], ids=["-o", "--resume"])
def test_file_uris_are_inputs_an_output_may_not_overwrite(tmp_path: Path, resume: bool) -> None:
    logs = _logs(tmp_path)
    uris = [log.as_uri() for log in logs]
    for output in (logs[1], tmp_path / "log0.input.json"):
        before = output.read_bytes()
        argv = ["convert", *uris, "-o", str(output)] + (["--resume"] if resume else [])
        assert _quiet(*argv) == 2
        assert output.read_bytes() == before
    assert _quiet("convert", str(logs[0]), "-o", uris[0]) == 2  # the other way round


def test_a_link_at_a_temporary_name_leads_no_parquet_write_astray(tmp_path: Path) -> None:
    log = _logs(tmp_path, 1)[0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".rows.parquet.partial").symlink_to(victim)  # the name the writer once used
    assert _quiet("convert", str(log), "--format", "parquet", "-o", str(out / "rows.parquet")) == 0
    assert victim.read_text() == "keep me"
    assert (out / "rows.parquet").stat().st_size > 0
    assert sorted(p.name for p in out.iterdir()) == [".rows.parquet.partial", "rows.parquet"]


def test_a_deeply_nested_json_file_in_a_folder_fails_alone(tmp_path: Path) -> None:
    """Telling a ``.json`` manifest from a log once parsed it with a recursive parser:
    one file nested 100,000 deep stopped the whole folder (exit 2, nothing written)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "good.jsonl").write_text(LOG_TEXT, encoding="utf-8")
    (folder / "deep.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    out = tmp_path / "out.jsonl"
    assert _quiet("convert", str(folder), "-o", str(out)) == 1  # deep.json fails, said
    written = [json.loads(line)["source"] for line in out.read_text().splitlines()]
    assert written == [str(folder / "good.jsonl")]
    assert _quiet("check", str(folder)) == 1
