"""Dataset rows, and their Arrow, Parquet, pandas and Hugging Face forms, against the
transcripts they came from.

The corpus is every golden stream, reference case and recording the suite ships (each
with the run inputs recorded beside it), the two examples, an empty log and a missing
one: over a hundred logs of every shape the fold knows.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from agui_transcripts import Transcript, fold
from agui_transcripts.adapters.agui import to_dicts
from agui_transcripts.arrow import (
    parquet_sources,
    read_rows,
    row_schema,
    to_hf_dataset,
    to_pandas,
    to_table,
    write_parquet,
)
from agui_transcripts.logs import SkippedFile, find_logs, fold_log
from agui_transcripts.model import AssistantMessage, ToolCallRecord, ToolMessage
from agui_transcripts.rows import (
    ROW_TARGETS,
    SCHEMA_VERSION,
    failed_row,
    log_row,
    log_rows,
    row_of,
    whole_rows,
)

from .test_properties import ACTIONS, SEEDS

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
# The differential corpus is one file of many streams, not a log.
CORPUS = [
    source
    for source in find_logs([str(GOLDEN), str(ROOT / "examples" / "runs")])
    if Path(source).parent.name != "differential"
]


def _installed_script(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    script = shutil.which("agui-transcripts") or "agui-transcripts"
    return subprocess.run([script, *args], capture_output=True, text=True, check=False, cwd=cwd)


@pytest.fixture(scope="module")
def corpus_rows() -> list[dict[str, Any]]:
    return [log_row(source, target="agui") for source in CORPUS]


def test_the_corpus_is_large_and_every_log_folds(corpus_rows: list[dict[str, Any]]) -> None:
    assert len(CORPUS) > 100
    assert all(row["ok"] for row in corpus_rows)


def _occurrences(transcript: Transcript) -> list[ToolCallRecord]:
    """Every call occurrence: an id's earlier ones (a reused id) before its latest."""
    return [
        record
        for latest in transcript.tool_calls.values()
        for record in [r for r in transcript.earlier_calls if r.id == latest.id] + [latest]
    ]


def _expected_tool_results(transcript: Transcript) -> list[tuple[str, str | None]]:
    texts = {m.id: m.text for m in transcript.messages if isinstance(m, ToolMessage)}
    return [
        (record.id, next((texts[i] for i in record.result_message_ids if i in texts), None))
        for record in _occurrences(transcript)
    ]


@pytest.mark.parametrize("source", CORPUS[::7], ids=lambda s: Path(s).name)
def test_a_row_says_what_its_transcript_says(source: str) -> None:
    transcript, events = fold_log(source)
    row = log_row(source, target="agui")
    assert row["ok"] is True
    assert row["schema_version"] == SCHEMA_VERSION
    assert row["source"] == source
    assert row["events"] == events
    assert row["thread_id"] == transcript.thread_id
    assert row["run_ids"] == [run.run_id for run in transcript.runs]
    assert row["run_outcomes"] == [run.outcome for run in transcript.runs]
    assert row["truncated"] == ("truncated" in row["run_outcomes"])
    assert row["response"] == transcript.response
    assert row["continuation"] == transcript.continuation().status
    # The conversation is the ordered projection, message for message.
    ordered = transcript.ordered()
    assert [(m["id"], m["role"]) for m in row["messages"]] == [(m.id, m.role) for m in ordered]
    wire = to_dicts(transcript, ordered=True)
    for got, message, sent in zip(row["messages"], ordered, wire, strict=True):
        content = getattr(message, "content", None)
        if isinstance(content, str):
            assert got["content"] == content
            assert got["content_json"] is None
        elif content is not None:  # parts, an activity's object: their JSON text
            assert json.loads(got["content_json"]) == sent["content"]
        if isinstance(message, AssistantMessage):
            calls = [(c.id, c.name, c.arguments) for c in message.tool_calls or ()]
            assert [(c["id"], c["name"], c["arguments"]) for c in got["tool_calls"]] == calls
        if isinstance(message, ToolMessage):
            assert got["tool_call_id"] == message.tool_call_id
    # Each call with its result, state and owner.
    results = _expected_tool_results(transcript)
    assert [(c["id"], c["result"]) for c in row["tool_calls"]] == results
    for call, record in zip(row["tool_calls"], _occurrences(transcript), strict=True):
        assert (call["name"], call["arguments"]) == (record.name, record.arguments)
        assert (call["state"], call["owner"]) == (record.state, record.owner)
    # Diagnostics counted by code and severity.
    counted = Counter((d.code, d.severity) for d in transcript.diagnostics)
    assert {(d["code"], d["severity"]): d["count"] for d in row["diagnostics"]} == counted
    assert row["errors"] == len(transcript.errors)


def test_every_call_comes_before_its_result_in_every_row(
    corpus_rows: list[dict[str, Any]],
) -> None:
    for row in corpus_rows:
        declared: set[str] = set()
        for message in row["messages"]:
            declared.update(call["id"] for call in message["tool_calls"])
            if message["role"] == "tool":
                assert message["tool_call_id"] in declared, row["source"]


def test_openai_rows_carry_the_openai_conversation() -> None:
    from agui_transcripts.adapters.openai import to_openai

    source = str(ROOT / "examples" / "runs" / "pydantic-ai-weather.sse")
    row = log_row(source, target="openai")
    expected = to_openai(fold(source))
    assert [(m["role"], m.get("content")) for m in row["messages"]] == [
        (m["role"], m.get("content")) for m in expected
    ]
    assert row["messages"][0]["role"] == "user"  # from the run input beside the log
    assert [c["id"] for c in row["messages"][1]["tool_calls"]] == ["call_weather_1", "call_map_1"]


def test_a_log_that_gives_no_transcript_gives_a_failed_row(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n")
    rows = [log_row(str(p)) for p in (empty, garbage, tmp_path / "missing.jsonl")]
    assert [row["ok"] for row in rows] == [False, False, False]
    assert "empty log" in rows[0]["error"]
    assert "no AG-UI event could be read" in rows[1]["error"]
    assert "no such file" in rows[2]["error"]
    assert all(row["messages"] == [] and row["source"] for row in rows)
    # A failed row fits the same table as the others.
    assert to_table(rows).num_rows == 3


def test_rows_are_written_for_three_targets_only() -> None:
    assert ROW_TARGETS == ("agui", "openai", "ragas")
    with pytest.raises(ValueError, match="not 'inspect'"):
        log_row("x.jsonl", target="inspect")


def test_row_of_a_transcript_in_hand_equals_the_logs_row() -> None:
    source = str(ROOT / "examples" / "runs" / "booking-frontend-tool.jsonl")
    transcript, events = fold_log(source)
    assert row_of(transcript, source=source, events=events) == log_row(source)


def test_table_parquet_pandas_and_hf_give_back_every_row(
    corpus_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    rows = [*corpus_rows, log_row(str(tmp_path / "missing.jsonl"))]
    table = to_table(rows)
    assert table.schema == row_schema()
    assert table.to_pylist() == rows
    write_parquet(rows, tmp_path / "all.parquet", batch_rows=17)
    assert read_rows(tmp_path / "all.parquet") == rows
    frame = to_pandas(rows)
    assert list(frame["source"]) == [row["source"] for row in rows]
    assert [len(m) for m in frame["messages"]] == [len(row["messages"]) for row in rows]
    dataset = to_hf_dataset(rows)
    assert dataset.num_rows == len(rows)
    assert dataset.to_list() == rows


def test_nested_columns_are_structs_not_json_text() -> None:
    import pyarrow as pa

    schema = row_schema()
    messages = schema.field("messages").type
    assert pa.types.is_list(messages)
    assert pa.types.is_struct(messages.value_type)
    assert messages.value_type.field("tool_calls").type.value_type.names == [
        "id",
        "name",
        "arguments",
    ]
    assert schema.metadata == {b"agui_transcripts.schema_version": SCHEMA_VERSION.encode()}
    features = to_hf_dataset([log_row(CORPUS[0])]).features
    assert "List" in type(features["messages"]).__name__


def test_parts_hold_at_most_rows_per_file_and_resume_sees_them(
    corpus_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    rows = corpus_rows[:25]
    folder = tmp_path / "parts"
    assert write_parquet(rows, folder, rows_per_file=10) == 25
    parts = sorted(folder.glob("part-*.parquet"))
    assert [p.name for p in parts] == [f"part-0000{n}.parquet" for n in range(3)]
    assert read_rows(folder) == rows
    assert parquet_sources(folder) == {row["source"] for row in rows}
    # A second write adds parts after the existing ones.
    write_parquet(corpus_rows[25:30], folder, rows_per_file=10)
    assert len(list(folder.glob("part-*.parquet"))) == 4
    assert read_rows(folder) == corpus_rows[:30]


def test_a_stopped_write_leaves_only_whole_parts(
    corpus_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    def stops_after(count: int) -> Any:
        yield from corpus_rows[:count]
        raise KeyboardInterrupt

    folder = tmp_path / "parts"
    with pytest.raises(KeyboardInterrupt):
        write_parquet(stops_after(15), folder, rows_per_file=10)
    assert [p.name for p in folder.iterdir()] == ["part-00000.parquet"]
    assert parquet_sources(folder) == {row["source"] for row in corpus_rows[:10]}
    single = tmp_path / "one.parquet"
    with pytest.raises(KeyboardInterrupt):
        write_parquet(stops_after(5), single)
    assert list(tmp_path.glob("*one.parquet*")) == []


@pytest.mark.parametrize("stop_after", [4, 7, 11])
def test_a_resumed_write_of_rows_per_run_loses_no_run(tmp_path: Path, stop_after: int) -> None:
    """A log's runs split across two parts: the first part named the log as written, and a
    resumed run skipped it, so the runs in the part a stop lost were never written."""
    logs = [s for s in CORPUS if len(fold(s).runs) > 1][:6]
    rows = [row for source in logs for row in log_rows(source, per="run", target="agui")]
    assert len(rows) > len(logs)  # some log has several rows

    def stops(after: int) -> Any:
        yield from rows[:after]
        raise KeyboardInterrupt

    folder = tmp_path / "parts"
    with pytest.raises(KeyboardInterrupt):
        write_parquet(stops(stop_after), folder, rows_per_file=3)
    done = parquet_sources(folder)
    write_parquet([r for r in rows if r["source"] not in done], folder, rows_per_file=3)

    def key(row: dict[str, Any]) -> tuple[str, int]:
        return row["source"], row["run_index"]

    assert sorted(map(key, read_rows(folder))) == sorted(map(key, rows))
    for part in folder.glob("part-*.parquet"):
        # A part holds all of a log's rows or none, and more than 3 only for one log.
        sources = Counter(row["source"] for row in read_rows(part))
        assert all(count == sum(r["source"] == s for r in rows) for s, count in sources.items())
        assert sum(sources.values()) <= 3 or len(sources) == 1


# -- the command line, through the installed script -------------------------------------------


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A folder of recorded runs: some golden streams with their inputs, and one empty log."""
    folder = tmp_path / "archive"
    folder.mkdir()
    for source in CORPUS[:40]:
        path = Path(source)
        shutil.copy(path, folder / path.name)
        sidecar = path.with_name(path.name.rsplit(".", 1)[0] + ".input.json")
        if sidecar.exists():
            shutil.copy(sidecar, folder / sidecar.name)
    (folder / "zz-empty.jsonl").write_bytes(b"")
    return folder


@pytest.mark.slow
def test_convert_writes_parquet_rows_equal_to_the_library_rows(
    archive: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out.parquet"
    done = _installed_script("convert", str(archive), "--format", "parquet", "-o", str(output))
    assert done.returncode == 1  # the empty log failed, and is a row saying so
    assert "zz-empty.jsonl: empty log" in done.stderr
    assert "41 files" in done.stderr.splitlines()[-1]
    assert "\r" not in done.stderr  # no progress line when stderr is not a terminal
    rows = read_rows(output)
    expected = [log_row(source, target="agui") for source in find_logs([str(archive)])]
    assert rows == expected


@pytest.mark.slow
def test_convert_resumes_a_parquet_folder(archive: Path, tmp_path: Path) -> None:
    output = tmp_path / "parts"
    logs = sorted(archive.glob("*.jsonl"))[:10]
    first = _installed_script(
        "convert", *map(str, logs), "--format", "parquet", "--rows-per-file", "4",
        "-o", f"{output}/",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert len(list(output.glob("part-*.parquet"))) == 3
    again = _installed_script(
        "convert", str(archive), "--format", "parquet", "--resume", "-o", str(output)
    )
    assert "10 of 41 logs already written" in again.stderr
    rows = read_rows(output)
    assert sorted(row["source"] for row in rows) == find_logs([str(archive)])
    assert len(rows) == 41  # nothing twice


@pytest.mark.slow
def test_convert_resumes_jsonl_and_cuts_a_half_written_line(archive: Path, tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    logs = sorted(map(str, archive.glob("*.jsonl")))
    first = _installed_script("convert", *logs[:5], "-o", str(output))
    assert first.returncode == 0, first.stderr
    with output.open("a") as file:
        file.write('{"source": "' + logs[5] + '", "messages": [')  # a stopped run's last line
    again = _installed_script("convert", *logs, "--resume", "-o", str(output))
    assert "5 of" in again.stderr
    written = [json.loads(line) for line in output.read_text().splitlines()]
    assert again.returncode == 1  # the empty log failed again; everything else is there
    converted = [log for log in logs if not log.endswith("zz-empty.jsonl")]
    assert [w["source"] for w in written] == converted  # the first five kept, the rest added


def test_parquet_needs_an_output_and_a_row_target(archive: Path) -> None:
    no_output = _installed_script("convert", str(archive), "--format", "parquet")
    assert no_output.returncode == 2
    assert "name one with -o" in no_output.stderr
    wrong = _installed_script("convert", str(archive), "--format", "parquet", "--to", "inspect")
    assert wrong.returncode == 2
    assert "agui, openai, ragas" in wrong.stderr


def test_uris_are_found_and_read_through_pyarrow_fs(archive: Path) -> None:
    (archive / "manifest.json").write_text('{"runs": 40}')
    local_notes: list[SkippedFile] = []
    uri_notes: list[SkippedFile] = []
    local = find_logs([str(archive)], local_notes)
    remote = find_logs([archive.as_uri()], uri_notes)
    assert remote == [Path(source).as_uri() for source in local]
    assert [str(n).replace(archive.as_uri(), str(archive)) for n in uri_notes] == [
        str(n) for n in local_notes
    ]
    assert any(n.reason == "not-a-log" and n.path.endswith("manifest.json") for n in uri_notes)
    for path, uri in zip(local, remote, strict=True):
        by_path, by_uri = log_row(path), log_row(uri)
        assert by_uri["source"] == uri
        assert {**by_uri, "source": "", "error": ""} == {**by_path, "source": "", "error": ""}
    missing = log_row(archive.as_uri() + "/missing.jsonl")
    assert missing["ok"] is False
    assert "no such file" in missing["error"]


def test_the_progress_line_shows_counts_rate_and_time_left() -> None:
    import io

    from agui_transcripts._progress import Progress

    progress = Progress(400, io.StringIO())
    progress.done = 100
    line = progress.line("runs/a.jsonl", elapsed=20.0, width=100)
    assert "100/400" in line
    assert "5.0 logs/s" in line
    assert "ETA 1:00" in line  # 300 logs left at 5 a second
    assert line.startswith("█" * 6 + "·" * 18)


@pytest.mark.slow
def test_resume_needs_an_output_it_can_append_to(archive: Path, tmp_path: Path) -> None:
    no_output = _installed_script("convert", str(archive), "--resume")
    assert no_output.returncode == 2
    assert "--resume needs -o" in no_output.stderr
    array = _installed_script(
        "convert", str(archive), "--resume", "--format", "json", "-o", str(tmp_path / "a.json")
    )
    assert array.returncode == 2
    assert "--resume needs -o with --format jsonl or parquet" in array.stderr
    single = tmp_path / "one.parquet"
    first = _installed_script("convert", str(archive), "--format", "parquet", "-o", str(single))
    assert first.returncode == 1  # the empty log
    again = _installed_script(
        "convert", str(archive), "--format", "parquet", "--resume", "-o", str(single)
    )
    assert again.returncode == 2
    assert "into a folder" in again.stderr


@pytest.mark.slow
def test_folders_use_every_core_by_default_and_give_the_same_output(
    archive: Path, tmp_path: Path
) -> None:
    from agui_transcripts.logs import available_cores

    help_text = _installed_script("convert", "--help").stdout
    assert f"every core, {available_cores()} here" in " ".join(help_text.split())
    default = _installed_script("convert", str(archive), "-o", str(tmp_path / "all.jsonl"))
    one = _installed_script("convert", str(archive), "-j", "1", "-o", str(tmp_path / "one.jsonl"))
    assert default.returncode == one.returncode == 1
    assert (tmp_path / "all.jsonl").read_text() == (tmp_path / "one.jsonl").read_text()


# -- rows per run -------------------------------------------------------------------------------


def _cut_after_run(source: str, runs: int, tmp_path: Path) -> Path:
    """A copy of the log that stops at the end of its ``runs``-th run, with its inputs."""
    from agui_transcripts import read_events, read_run_input

    kept, ended = [], 0
    for event in read_events(source):
        kept.append(event)
        if event["type"] in ("RUN_FINISHED", "RUN_ERROR"):
            ended += 1
            if ended == runs:
                break
    cut = tmp_path / f"cut-{runs}.jsonl"
    cut.write_text("".join(json.dumps(event) + "\n" for event in kept))
    inputs = read_run_input(source)
    if inputs is not None:
        listed = inputs if isinstance(inputs, list) else [inputs]
        cut.with_name(f"cut-{runs}.input.json").write_text(json.dumps(listed[:runs]))
    return cut


def _same_but_source(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {**a, "source": "", "run_index": None} == {**b, "source": "", "run_index": None}


@pytest.mark.parametrize(
    "source",
    [
        str(ROOT / "examples" / "runs" / "pydantic-ai-weather.sse"),
        str(ROOT / "examples" / "runs" / "booking-frontend-tool.jsonl"),
        *[s for s in CORPUS if "history" in s or "recordings" in s][:12],
    ],
    ids=lambda s: Path(s).name,
)
def test_a_run_row_is_the_row_of_the_log_cut_at_that_run(source: str, tmp_path: Path) -> None:
    rows = list(whole_rows(log_rows(source, per="run", target="agui")))
    transcript, _ = fold_log(source)
    assert [row["run_index"] for row in rows] == list(range(len(transcript.runs)))
    for row in rows:
        if row["run_outcomes"][-1] == "truncated":
            continue  # the cut-off run: the whole log's row (checked below)
        cut = _cut_after_run(source, row["run_index"] + 1, tmp_path)
        assert _same_but_source(row, log_row(str(cut), target="agui")), row["run_index"]
    assert _same_but_source(rows[-1], log_row(source, target="agui"))


def test_a_client_call_is_pending_in_its_runs_row_and_answered_in_the_next() -> None:
    rows = log_rows(str(ROOT / "examples" / "runs" / "pydantic-ai-weather.sse"), per="run")
    first, second = rows
    assert first["continuation"] == "awaiting_client"
    assert {c["id"]: c["state"] for c in first["tool_calls"]}["call_map_1"] == "pending_client"
    assert second["continuation"] == "done"
    assert {c["id"]: c["result"] for c in second["tool_calls"]}["call_map_1"] == (
        "Map shown: Paris, zoom 11"
    )
    assert [first["events"], second["events"]] == [15, 22]


@pytest.mark.slow
def test_per_run_rows_of_a_failed_log_and_through_the_cli(archive: Path, tmp_path: Path) -> None:
    (failed,) = log_rows(str(archive / "zz-empty.jsonl"), per="run")
    assert failed["ok"] is False
    assert failed["run_index"] is None
    output = tmp_path / "runs.parquet"
    done = _installed_script(
        "convert", str(archive), "--format", "parquet", "--per", "run", "-o", str(output)
    )
    assert done.returncode == 1, done.stderr
    expected = [
        row
        for source in find_logs([str(archive)])
        for row in log_rows(source, per="run", target="agui")
    ]
    assert read_rows(output) == expected
    assert len(expected) > 41  # more rows than logs: several have two runs or more
    refused = _installed_script("convert", str(archive), "--per", "run")
    assert refused.returncode == 2
    assert "use it with --format parquet" in refused.stderr


# -- hostile streams ----------------------------------------------------------------------------


def _hostile_rows(seed: int, actions: Any) -> list[dict[str, Any]]:
    from .generate import random_stream
    from .test_properties import corrupt  # the property suite's corruptions

    events, inputs = random_stream(seed)
    transcript = fold(corrupt(events, actions), run_input=inputs)
    rows = []
    for target in ("agui", "openai"):
        try:
            rows.append(row_of(transcript, source=f"seed-{seed}", events=0, target=target))
        except (ValueError, RecursionError) as error:
            # What log_row does too: content nested deeper than JSON encoders go has no
            # JSON text for content_json, so the log fails (as convert fails it).
            rows.append(failed_row(f"seed-{seed}", f"cannot be converted: {error}"))
    return rows


@pytest.mark.slow
@given(seed=SEEDS, actions=ACTIONS)
def test_any_stream_the_fold_accepts_makes_rows_arrow_holds(seed: int, actions: Any) -> None:
    """Broken, reordered, deep or mistyped events: every row fits the schema, losslessly."""
    from agui_transcripts._codec import has_surrogate

    def strings(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        items = value.values() if isinstance(value, dict) else value
        return (
            [s for item in items for s in strings(item)] if isinstance(value, (dict, list)) else []
        )

    rows = _hostile_rows(seed, actions)
    for row, back in zip(rows, to_table(rows).to_pylist(), strict=True):
        if not any(map(has_surrogate, strings(row))):
            assert back == row
            continue
        # A lone surrogate has no UTF-8 form: U+FFFD stands in, and the row says so.
        assert not any(map(has_surrogate, strings(back)))
        assert any("\ufffd" in text for text in strings(back))
        counted = {d["code"]: d["count"] for d in back["diagnostics"]}
        assert counted["text-not-utf8"] >= 1
        assert back["warnings"] == row["warnings"] + counted["text-not-utf8"]


def test_a_lone_surrogate_is_replaced_and_counted_in_parquet(tmp_path: Path) -> None:
    log = tmp_path / "cut-emoji.jsonl"
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "sunny \ud83d"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in events))  # "\\ud83d": JSON's escape
    row = log_row(str(log))
    assert row["response"] == "sunny \ud83d"  # the row keeps what the stream said
    write_parquet([row], tmp_path / "rows.parquet")
    (back,) = read_rows(tmp_path / "rows.parquet")
    assert back["response"] == "sunny \ufffd"
    assert back["messages"][0]["content"] == "sunny \ufffd"
    assert {"code": "text-not-utf8", "severity": "warning", "count": 2} in back["diagnostics"]
    assert back["warnings"] == row["warnings"] + 2
