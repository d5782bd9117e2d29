"""Hostile input, second round: no crash, no bomb, no silent loss.

Each test feeds what an attacker (or a badly broken producer) would, in a child process
under a memory cap and a time bound (:mod:`tests.bounded`), and checks the promise
docs/behaviour.md makes: lenient mode never raises, memory stays bounded, every
violation is reported, a log is never destroyed.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts.model import parse_arguments

from .bounded import run_bounded

# Every test here runs under a memory cap and a time bound: those that feed the input in
# this process under the fixture below, the others in a bounded child (run_bounded).
_HEADROOM = 1 << 30  # bytes of address space a test may add to what the process holds
_SECONDS = 120


def _address_space() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _timed_out(signum: int, frame: object) -> None:
    raise TimeoutError(f"the test ran past its {_SECONDS} s bound")


@pytest.fixture(autouse=True)
def _bounded_here() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _address_space() + _HEADROOM
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    previous = signal.signal(signal.SIGALRM, _timed_out)
    signal.alarm(_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# -- recursion in argument parsing ------------------------------------------------------------


@pytest.mark.parametrize("text", ["[" * 3000, "[" * 3000 + "]" * 3000, '{"a":' * 3000])
def test_arguments_nested_past_any_parser_are_an_invalid_call(text: str) -> None:
    value, error = parse_arguments(text)
    assert value is None
    assert error is not None


@pytest.mark.parametrize("strict", [False, True])
def test_a_call_with_deeply_nested_arguments_folds_in_both_modes(strict: bool) -> None:
    done = run_bounded(
        f"""
        import json
        from agui_transcripts import fold
        events = [
            {{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}},
            {{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}},
            {{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "[" * 3000}},
            {{"type": "TOOL_CALL_END", "toolCallId": "c1"}},
            {{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}},
        ]
        transcript = fold(events, strict={strict})
        print(json.dumps([d.code for d in transcript.diagnostics]))
        """,
        memory_mb=512,
        seconds=60,
    )
    assert done.returncode == 0, done.stderr
    assert "tool-arguments-invalid" in done.output


def test_the_stdlib_decoder_turns_deep_nesting_into_a_decode_error() -> None:
    from agui_transcripts._codec import stdlib_loads

    with pytest.raises(ValueError, match="nested deeper"):
        stdlib_loads("[" * 100_000)


# -- convert LOG -o LOG ---------------------------------------------------------------------

RUN = Path(__file__).resolve().parent.parent / "examples" / "runs"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agui_transcripts", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.fixture
def log(tmp_path: Path) -> Path:
    for path in RUN.glob("booking-frontend-tool.*"):
        shutil.copy(path, tmp_path)
    return tmp_path / "booking-frontend-tool.jsonl"


def _output_names(log: Path) -> dict[str, Path]:
    link = log.with_name("link.json")
    link.symlink_to(log)
    return {"the log": log, "a link to it": link, "its run inputs": log.with_suffix(".input.json")}


@pytest.mark.parametrize("which", ["the log", "a link to it", "its run inputs"])
def test_convert_refuses_to_write_over_an_input(log: Path, which: str) -> None:
    target = _output_names(log)[which]
    before = {p.name: p.read_bytes() for p in log.parent.iterdir() if p.is_file()}
    done = _cli("convert", str(log), "-o", str(target))
    assert done.returncode == 2
    assert "refusing to write over an input" in done.stderr
    assert {p.name: p.read_bytes() for p in log.parent.iterdir() if p.is_file()} == before


def test_a_failed_convert_leaves_the_output_as_it_was(
    log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agui_transcripts import cli

    output = log.with_name("out.jsonl")
    output.write_text("the previous conversion\n")
    calls = []

    def crash_on_second(*args: Any, **options: Any) -> Any:
        calls.append(args)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(*args, **options)

    real = cli.convert_one
    monkeypatch.setattr(cli, "convert_one", crash_on_second)
    code = cli.main(["convert", "-j", "1", str(log), str(log), "-o", str(output)])
    assert code == 2
    assert "disk on fire" in capsys.readouterr().err
    assert output.read_text() == "the previous conversion\n"
    assert sorted(p.name for p in log.parent.iterdir()) == [
        "booking-frontend-tool.input.json",
        "booking-frontend-tool.jsonl",
        "out.jsonl",
    ]


def test_convert_writes_through_a_link_with_ordinary_permissions(log: Path) -> None:
    real = log.with_name("real.json")
    link = log.with_name("out.json")
    link.symlink_to(real)
    assert _cli("convert", str(log), "-o", str(link)).returncode == 0
    assert link.is_symlink()
    assert json.loads(real.read_text())["source"] == str(log)
    assert real.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- a bad first line costs that line only --------------------------------------------------


def _lines() -> list[bytes]:
    return (RUN / "booking-frontend-tool.jsonl").read_bytes().split(b"\n")


BAD_FIRST_LINES = {
    "truncated": lambda first: first[:20],
    "text after the object": lambda first: first + b" trailing words",
    "over the event limit": lambda first: first[:-1] + b',"pad":"' + b"x" * 3000 + b'"}',
}


@pytest.mark.parametrize("damage", list(BAD_FIRST_LINES))
def test_a_bad_first_line_costs_that_line_only(damage: str) -> None:
    from agui_transcripts import Limits, fold, read_events

    lines = _lines()
    log = b"\n".join([BAD_FIRST_LINES[damage](lines[0]), *lines[1:]])
    limits = Limits(max_event_bytes=1500)
    transcript = fold(log, limits=limits)
    assert transcript.to_dicts() == fold(b"\n".join(lines)).to_dicts()
    lost = [d for d in transcript.diagnostics if d.line == 1]
    assert [d.code for d in lost] in (["invalid-json"], ["event-too-large"])
    # Every other line was read: the only event missing is the first line's.
    events = [line for line in lines if line.strip()]
    assert len(list(read_events(log, limits=limits))) == len(events) - 1


def test_a_pretty_printed_document_is_still_read_whole(tmp_path: Path) -> None:
    from agui_transcripts import fold

    events = [json.loads(line) for line in _lines() if line.strip()]
    document = tmp_path / "fixture.json"
    document.write_text(json.dumps({"stream": events}, indent=2))
    assert (
        fold(document).to_dicts()
        == fold(RUN / "booking-frontend-tool.jsonl", inputs_beside=False).to_dicts()
    )


def test_a_log_of_one_broken_line_is_reported() -> None:
    from agui_transcripts import check

    assert [(d.code, d.line) for d in check(b'{"type": "RUN_STA')][:1] == [("invalid-json", 1)]


# -- a bad run-inputs sidecar fails its own log only ----------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", ["{not json", "42", '[{"messages": []}, 7]', "\udcff"])
def test_a_bad_sidecar_fails_its_log_and_the_batch_goes_on(tmp_path: Path, sidecar: str) -> None:
    for name in ("bad", "good"):
        shutil.copy(RUN / "booking-frontend-tool.jsonl", tmp_path / f"{name}.jsonl")
    (tmp_path / "bad.input.json").write_bytes(sidecar.encode("utf-8", "surrogateescape"))
    converted = _cli("convert", str(tmp_path))
    assert converted.returncode == 1
    [line] = converted.stdout.splitlines()
    assert json.loads(line)["source"].endswith("good.jsonl")
    assert "bad.input.json" in converted.stderr
    assert "2 files" in converted.stderr
    assert "1 failed" in converted.stderr
    checked = _cli("check", str(tmp_path))
    assert checked.returncode == 1  # an unreadable input is a failed log
    assert checked.stdout.startswith("UNREADABLE ")
    assert "ok " in checked.stdout


def test_a_sidecar_past_the_document_limit_is_refused_without_reading_it() -> None:
    """It was read whole, past every limit (100 MB with 1 MB limits: 226 MB, no word)."""
    done = run_bounded(
        """
        import json, os, shutil, tempfile
        from pathlib import Path
        from agui_transcripts import Limits, RunInputError, fold
        folder = Path(tempfile.mkdtemp())
        log = folder / "run.jsonl"
        shutil.copy("examples/runs/booking-frontend-tool.jsonl", log)
        with open(folder / "run.input.json", "wb") as sidecar:
            sidecar.truncate(100 * 1024 * 1024)
        mib = 1024 * 1024
        tight = Limits(max_event_bytes=mib, max_document_bytes=mib, max_text_chars=mib)
        try:
            fold(log, limits=tight)
            print(json.dumps("folded"))
        except RunInputError as error:
            print(json.dumps(str(error)))
        finally:
            shutil.rmtree(folder)
        """,
        memory_mb=160,
        seconds=30,
    )
    assert done.returncode == 0, done.stderr
    assert "run.input.json" in done.output
    assert "larger than the document limit of 1048576 bytes" in done.output


@pytest.mark.parametrize("uri", [False, True])
def test_a_sidecar_past_the_document_limit_fails_its_log_only(tmp_path: Path, uri: bool) -> None:
    for name in ("big", "small"):
        shutil.copy(RUN / "booking-frontend-tool.jsonl", tmp_path / f"{name}.jsonl")
    run_input = {"threadId": "t", "runId": "r", "messages": []}
    (tmp_path / "small.input.json").write_text(json.dumps(run_input))
    (tmp_path / "big.input.json").write_text(json.dumps({**run_input, "state": "x" * 5000}))
    logs = [tmp_path / "big.jsonl", tmp_path / "small.jsonl"]
    named = [log.as_uri() if uri else str(log) for log in logs]
    checked = _cli("check", *named, "--max-document-bytes", "1000")
    assert checked.returncode == 1
    assert "big.input.json" in checked.stdout + checked.stderr
    assert "document limit of 1000 bytes" in checked.stdout + checked.stderr
    assert "ok " in checked.stdout
    assert _cli("check", *named).returncode == 0


# -- devices and pipes named on the command line ----------------------------------------------


def test_a_pipe_named_like_a_sidecar_fails_its_log_instead_of_waiting(tmp_path: Path) -> None:
    shutil.copy(RUN / "booking-frontend-tool.jsonl", tmp_path / "run.jsonl")
    os.mkfifo(tmp_path / "run.input.json")
    checked = _cli("check", str(tmp_path / "run.jsonl"))
    assert checked.returncode == 1
    assert "run.input.json: the run inputs are not a regular file" in checked.stdout


def test_check_refuses_a_device_or_a_pipe_instead_of_waiting_forever(tmp_path: Path) -> None:
    fifo = tmp_path / "events.fifo"
    os.mkfifo(fifo)
    for source in ("/dev/zero", str(fifo)):
        done = _cli("check", source)  # the helper's 60 s timeout fails a hang
        assert done.returncode == 1
        assert "not a regular file" in done.stdout


# -- a finished message started again with another role ---------------------------------------


def test_a_message_started_again_with_another_role_is_reported() -> None:
    from agui_transcripts import fold

    from .streams import RF, RS, TMC, TME, TMS

    events = [RS(), TMS("m1", "user"), TMC("m1", "hi"), TME("m1")]
    events += [TMS("m1", "assistant"), TMC("m1", " there"), TME("m1"), RF()]
    transcript = fold(events)
    assert transcript.to_dicts() == [{"id": "m1", "role": "user", "content": "hi there"}]
    conflicts = [d for d in transcript.diagnostics if d.code == "message-role-conflict"]
    assert [(d.message_id, d.severity) for d in conflicts] == [("m1", "warning")]


# -- JSON Patch: amplification, atomicity, cost ---------------------------------------------

RS_ = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF_ = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def _doubling(ops: int) -> list[dict[str, Any]]:
    return [{"op": "copy", "from": "", "path": f"/k{n}"} for n in range(ops)]


@pytest.mark.slow
@pytest.mark.parametrize("spread", ["one delta", "one op per delta"])
def test_a_patch_that_doubles_the_state_is_refused_at_the_limit(spread: str) -> None:
    done = run_bounded(
        f"""
        import json
        from agui_transcripts import fold
        ops = {_doubling(40)!r}
        deltas = [ops] if {spread!r} == "one delta" else [[op] for op in ops]
        events = [{RS_!r}, {{"type": "STATE_SNAPSHOT", "snapshot": {{"seed": "x" * 1000}}}}]
        events += [{{"type": "STATE_DELTA", "delta": delta}} for delta in deltas]
        transcript = fold(events + [{RF_!r}])
        print(json.dumps([len(json.dumps(transcript.state)), [d.code for d in transcript.errors]]))
        """,
        memory_mb=1024,
        seconds=60,
    )
    assert done.returncode == 0, done.stderr
    size, errors = done.output
    assert size <= 64 * 2**20  # the default state limit
    assert "state-limit" in errors


def test_an_activity_patch_is_bounded_the_same_way() -> None:
    from agui_transcripts import Limits, fold

    snapshot = {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan"}
    delta = {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan"}
    events = [RS_, {**snapshot, "content": {"seed": "x" * 100}}]
    events.append({**delta, "patch": _doubling(20)})
    transcript = fold([*events, RF_], limits=Limits(max_state_bytes=10_000))
    assert [d.code for d in transcript.errors] == ["state-limit"]
    assert transcript.to_dicts()[0]["content"] == {"seed": "x" * 100}  # as it was


def test_the_state_limit_raises_in_strict_mode() -> None:
    from agui_transcripts import LimitExceeded, Limits, fold

    events = [RS_, {"type": "STATE_SNAPSHOT", "snapshot": {"seed": "x" * 100}}]
    events.append({"type": "STATE_DELTA", "delta": _doubling(10)})
    with pytest.raises(LimitExceeded, match="state limit"):
        fold([*events, RF_], strict=True, limits=Limits(max_state_bytes=5_000))


def test_a_failing_patch_changes_nothing_and_earlier_states_are_never_changed() -> None:
    from agui_transcripts import Collector

    snapshot = {"items": [{"n": 1}], "meta": {"v": 1}}
    collector = Collector()
    for event in (RS_, {"type": "STATE_SNAPSHOT", "snapshot": snapshot}):
        collector.feed(event)
    before = collector.transcript.state
    good = [{"op": "replace", "path": "/items/0/n", "value": 2}]
    collector.feed({"type": "STATE_DELTA", "delta": good})
    after_good = collector.transcript.state
    bad = [{"op": "replace", "path": "/meta/v", "value": 9}, {"op": "remove", "path": "/nope"}]
    collector.feed({"type": "STATE_DELTA", "delta": bad})
    assert collector.transcript.state == {"items": [{"n": 2}], "meta": {"v": 1}}
    assert before == snapshot == {"items": [{"n": 1}], "meta": {"v": 1}}  # shared, unchanged
    assert after_good == {"items": [{"n": 2}], "meta": {"v": 1}}
    assert [d.code for d in collector.diagnostics] == ["patch-failed"]


@pytest.mark.parametrize("segment", ["\u00b2", "\u0663", "01", "-1", "1e0"])
def test_a_pointer_segment_that_names_no_index_fails_the_patch_not_the_fold(segment: str) -> None:
    """``"²"`` passes ``str.isdigit`` and ``int`` refused it: a ValueError out of lenient mode."""
    from agui_transcripts import fold

    op = {"op": "replace", "path": f"/a/{segment}", "value": 9}
    move = {"op": "move", "from": f"/a/{segment}", "path": "/b"}
    events = [RS_, {"type": "STATE_SNAPSHOT", "snapshot": {"a": [1, 2]}}]
    events += [{"type": "STATE_DELTA", "delta": [op]}, {"type": "STATE_DELTA", "delta": [move]}]
    events.append(
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "p", "content": {"a": [1]}}
    )
    events.append({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "p", "patch": [op]})
    transcript = fold([*events, RF_])
    assert [d.code for d in transcript.diagnostics] == ["patch-failed"] * 3
    assert transcript.state == {"a": [1, 2]}
    assert transcript.to_dicts()[0]["content"] == {"a": [1]}


@pytest.mark.parametrize("path", ["/doc", ""])
def test_an_add_that_replaces_a_member_is_no_growth(path: str) -> None:
    """RFC 6902: ``add`` on an existing member (or the root) replaces it, so the size it
    counts is the difference; counting the value whole froze a 1 KB state at the limit."""
    from agui_transcripts import Limits, fold

    value: Any = "x" * 1_000 if path else {"doc": "x" * 1_000}
    events = [RS_, {"type": "STATE_SNAPSHOT", "snapshot": {"doc": "x" * 1_000}}]
    for n in range(101):
        new = value if n < 100 else ("y" * 1_000 if path else {"doc": "y" * 1_000})
        events.append({"type": "STATE_DELTA", "delta": [{"op": "add", "path": path, "value": new}]})
    transcript = fold([*events, RF_], limits=Limits(max_state_bytes=5_000))
    assert transcript.diagnostics == []
    assert transcript.state == {"doc": "y" * 1_000}
    # An add into an array inserts: that is growth, and it still meets the limit.
    grow = [{"op": "add", "path": "/items/-", "value": "z" * 1_000} for _ in range(10)]
    events = [RS_, {"type": "STATE_SNAPSHOT", "snapshot": {"items": []}}]
    events += [{"type": "STATE_DELTA", "delta": [op]} for op in grow]
    transcript = fold([*events, RF_], limits=Limits(max_state_bytes=5_000))
    assert [d.code for d in transcript.errors] == ["state-limit"] * 6
    assert len(transcript.state["items"]) == 4


def test_one_op_deltas_on_a_large_state_cost_what_they_touch() -> None:
    """1,000 one-op deltas on a 0.8 MB state took 94 s when each copied the state."""
    done = run_bounded(
        """
        import json, time
        from agui_transcripts import fold
        state = {f"k{i}": {"name": f"item {i}", "tags": ["a", "b"], "n": i} for i in range(12000)}
        events = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]
        events.append({"type": "STATE_SNAPSHOT", "snapshot": state})
        for i in range(1000):
            op = {"op": "replace", "path": f"/k{i}/n", "value": -i}
            events.append({"type": "STATE_DELTA", "delta": [op]})
        transcript = fold(events)
        print(json.dumps([transcript.state["k999"]["n"], state["k999"]["n"]]))
        """,
        memory_mb=1024,
        seconds=30,  # a hang guard, far above the cost (about 0.2 s here)
    )
    assert done.returncode == 0, done.stderr
    assert done.output == [-999, 999]  # applied, and the snapshot event left untouched


# -- calls answered last-first: no recursion on what the stream makes deep ---------------------


def _answered_last_first(calls: int, parents: bool) -> list[dict[str, Any]]:
    """Calls each in a message of its own (or with no parent named), then their results."""
    events: list[dict[str, Any]] = [RS_]
    for n in range(calls):
        start = {"type": "TOOL_CALL_START", "toolCallId": f"c{n}", "toolCallName": "f"}
        if parents:
            events += [
                {"type": "TEXT_MESSAGE_START", "messageId": f"m{n}", "role": "assistant"},
                {"type": "TEXT_MESSAGE_END", "messageId": f"m{n}"},
            ]
            start["parentMessageId"] = f"m{n}"
        events += [start, {"type": "TOOL_CALL_END", "toolCallId": f"c{n}"}]
    for n in reversed(range(calls)):
        events.append(
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": f"r{n}",
                "toolCallId": f"c{n}",
                "content": "ok",
            }
        )
    return [*events, RF_]


def _check_each_result_follows_its_call(calls: int, parents: bool) -> None:
    from agui_transcripts import fold

    transcript = fold(_answered_last_first(calls, parents))
    ordered = [m.to_dict() for m in transcript.ordered()]
    results = [n for n, m in enumerate(ordered) if m["role"] == "tool"]
    assert [ordered[n]["id"] for n in results] == [f"r{n}" for n in range(calls)]
    for n in results:  # right after the message that declares its call
        assert ordered[n - 1]["toolCalls"][0]["id"] == ordered[n]["toolCallId"]
    assert transcript.diagnostics == []


@pytest.mark.parametrize("parents", [True, False], ids=["named-parents", "no-parents"])
def test_calls_answered_last_first_are_ordered_without_recursion(parents: bool) -> None:
    """Each release of deferred calls nested one more: RecursionError from 170-2,000 calls."""
    _check_each_result_follows_its_call(3_000, parents)


@pytest.mark.slow
def test_twenty_thousand_calls_answered_last_first() -> None:
    """The compiled build crashed the interpreter (a segmentation fault) from about 14k."""
    _check_each_result_follows_its_call(20_000, parents=True)


# -- content nested past the JSON encoders, through the command line --------------------------


@pytest.fixture
def deep_log(tmp_path: Path) -> Path:
    deep = '{"d":' * 1000 + '"x"' + "}" * 1000
    lines = [
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
        '{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"plan","content":{"c":'
        + deep
        + "}}",
        '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
        '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Planned."}',
        '{"type":"TEXT_MESSAGE_END","messageId":"m1"}',
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}',
    ]
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_convert_fails_a_file_it_cannot_write_as_json(deep_log: Path) -> None:
    from agui_transcripts._codec import HAVE_ORJSON

    alone = _cli("convert", str(deep_log))
    both = _cli("convert", str(deep_log), str(RUN / "booking-frontend-tool.jsonl"))
    assert "unserialisable" not in alone.stdout + both.stdout  # never a placeholder
    if not HAVE_ORJSON:
        # The stdlib parser stops first: the deep line is reported, the rest converted.
        assert alone.returncode == 0, alone.stderr
        [lost] = [d for d in json.loads(alone.stdout)["diagnostics"] if d["line"] == 2]
        assert lost["code"] == "invalid-json"
        return
    assert alone.returncode == 1
    assert alone.stdout == ""
    assert "deep.jsonl: cannot be written as JSON: a value is nested deeper" in alone.stderr
    assert both.returncode == 1
    [line] = both.stdout.splitlines()  # the other log, whole
    assert json.loads(line)["source"].endswith("booking-frontend-tool.jsonl")
    assert "1 failed" in both.stderr


def test_show_names_content_too_deep_to_display(deep_log: Path, tmp_path: Path) -> None:
    from agui_transcripts._codec import HAVE_ORJSON

    note = "[not shown: nested deeper than JSON encoders go]" if HAVE_ORJSON else "invalid-json"
    text = _cli("show", str(deep_log))
    assert text.returncode == 0, text.stderr
    assert note in text.stdout
    assert "Planned." in text.stdout
    page = tmp_path / "page.html"
    html = _cli("show", str(deep_log), "--html", str(page))
    assert html.returncode == 0, html.stderr
    assert note in page.read_text()


# -- one call id declared and answered again and again ----------------------------------------


@pytest.mark.slow
def test_a_call_id_declared_and_answered_forty_thousand_times_stays_linear() -> None:
    """It took 57 s when every declaration scanned every earlier answer (about 2 s now)."""
    done = run_bounded(
        """
        import json
        from agui_transcripts import fold
        events = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]
        for i in range(40_000):
            events.append({"type": "TOOL_CALL_START", "toolCallId": "x", "toolCallName": "f"})
            events.append({"type": "TOOL_CALL_END", "toolCallId": "x"})
            result = {"type": "TOOL_CALL_RESULT", "messageId": f"r{i}", "toolCallId": "x"}
            events.append({**result, "content": "ok"})
        transcript = fold(events)
        print(json.dumps(len(transcript.tool_calls["x"].results)))
        """,
        memory_mb=1024,
        seconds=30,  # a hang guard
    )
    assert done.returncode == 0, done.stderr
    assert done.output == 40_000


# -- an emoji cut into UTF-16 halves across two deltas ----------------------------------------

_HALVES = [
    b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
    b'{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"smile \\ud83d"}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ude00!"}',
    b'{"type":"TEXT_MESSAGE_END","messageId":"m"}',
    b'{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"say","parentMessageId":"m"}',
    b'{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\\"e\\": \\"\\ud83d"}',
    b'{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"\\ude00\\"}"}',
    b'{"type":"TOOL_CALL_END","toolCallId":"c"}',
    b'{"type":"RUN_FINISHED","threadId":"t","runId":"r"}',
]


@pytest.mark.parametrize("form", ["jsonl", "sse", "dicts"])
def test_surrogate_halves_split_across_deltas_join_into_the_character(form: str) -> None:
    from agui_transcripts import fold

    if form == "jsonl":
        source: Any = b"\n".join(_HALVES)
    elif form == "sse":
        source = b"".join(b"data: " + line + b"\n\n" for line in _HALVES)
    else:
        source = [json.loads(line) for line in _HALVES]  # the stdlib keeps lone halves
    transcript = fold(source)
    assert transcript.messages[0].text == "smile \U0001f600!"
    assert transcript.tool_calls["c"].parsed_arguments == {"e": "\U0001f600"}
    assert transcript.errors == []


def test_a_lone_surrogate_left_over_is_written_as_its_json_escape(tmp_path: Path) -> None:
    log = tmp_path / "lone.jsonl"
    log.write_bytes(b"\n".join([*_HALVES[:3], *_HALVES[4:]]))  # the second half never came
    done = _cli("convert", str(log))
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout)["messages"][0]
    assert message["content"] == "smile \ud83d"


# -- SSE event names ----------------------------------------------------------------------------


def test_an_sse_error_frame_is_reported_as_the_servers_failure() -> None:
    from agui_transcripts import fold

    body = (
        b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
        b'event: error\ndata: {"message":"model overloaded","code":"E503"}\n\n'
    )
    transcript = fold(body)
    [frame] = [d for d in transcript.diagnostics if d.code == "sse-error-frame"]
    assert (frame.severity, frame.line) == ("error", 4)
    assert "model overloaded" in frame.message
    assert not [d for d in transcript.diagnostics if d.code == "event-missing-type"]


def test_an_sse_event_name_gives_the_type_its_data_lacks() -> None:
    from agui_transcripts import fold

    body = (
        b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
        b'event: TEXT_MESSAGE_START\ndata: {"messageId":"m","role":"assistant"}\n\n'
        b'event: TEXT_MESSAGE_CONTENT\ndata: {"messageId":"m","delta":"Hi"}\n\n'
        b'event: TEXT_MESSAGE_END\ndata: {"messageId":"m"}\n\n'
        b'event: message\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
    )
    transcript = fold(body)
    assert transcript.to_dicts() == [{"id": "m", "role": "assistant", "content": "Hi"}]
    codes = [d.code for d in transcript.diagnostics]
    assert codes == ["type-from-sse-event"] * 3


# -- the diagnostics list is bounded --------------------------------------------------------


def _orphan_deltas(count: int) -> list[dict[str, Any]]:
    return [RS_] + [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"nope-{n}", "delta": "x"}
        for n in range(count)
    ]


def test_the_diagnostics_kept_are_bounded_and_the_rest_counted() -> None:
    from agui_transcripts import Limits, check, fold

    transcript = fold(_orphan_deltas(50), limits=Limits(max_diagnostics=10))
    assert len(transcript.diagnostics) == 11
    summary = transcript.diagnostics[-1]
    assert (summary.code, summary.severity) == ("diagnostics-limit", "error")
    assert "91 more diagnostics were not kept" in summary.message
    assert "text-not-active 45" in summary.message
    listed = check(b"\n".join(json.dumps(e).encode() for e in _orphan_deltas(50)))
    assert len(listed) < 100_000  # the default keeps these all
    assert listed[-1].code != "diagnostics-limit"


@pytest.mark.slow
def test_a_flood_of_bad_events_holds_only_the_diagnostics_limit() -> None:
    done = run_bounded(
        """
        import json
        from agui_transcripts import Limits, fold
        def events():
            yield {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
            for n in range(100_000):
                yield {"type": "TOOL_CALL_ARGS", "toolCallId": f"nope-{n}", "delta": "x"}
        transcript = fold(events(), limits=Limits(max_diagnostics=1000))
        print(json.dumps([len(transcript.diagnostics), transcript.diagnostics[-1].code]))
        """,
        memory_mb=512,
        seconds=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.output == [1001, "diagnostics-limit"]


# -- memory bounds for every way a log comes in -----------------------------------------------


def _long_line_log(path: Path, megabytes: int) -> None:
    start = b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
    huge = b'{"type":"CUSTOM","name":"x","value":"' + b"x" * (megabytes << 20) + b'"}\n'
    path.write_bytes(start + huge + b'{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n')


@pytest.mark.slow
@pytest.mark.parametrize("how", ["text file", "binary file", "stdin"])
def test_a_line_past_the_event_limit_is_never_held_whole(tmp_path: Path, how: str) -> None:
    log = tmp_path / "long.jsonl"
    _long_line_log(log, 300)
    if how == "stdin":
        cli = "[sys.executable, '-m', 'agui_transcripts', 'check', '-', '--format', 'json', "
        cli += "'--max-event-bytes', str(1 << 20)]"
        code = f"""
        import json, subprocess, sys
        with open({str(log)!r}, 'rb') as log:
            done = subprocess.run({cli}, stdin=log, capture_output=True, text=True)
        codes = [d['code'] for d in json.loads(done.stdout)[0]['diagnostics']]
        print(json.dumps(codes))
        """
    else:
        mode = "r" if how == "text file" else "rb"
        code = f"""
        import json
        from agui_transcripts import Limits, fold
        with open({str(log)!r}, {mode!r}) as log:
            transcript = fold(log, limits=Limits(max_event_bytes=1 << 20))
        print(json.dumps([d.code for d in transcript.diagnostics]))
        """
    # 300 MiB in one line against a 1 MiB limit, in processes capped at 256 MiB (the
    # command line runs as a child of the bounded process, under the same cap).
    done = run_bounded(code, memory_mb=256, seconds=120)
    assert done.returncode == 0, done.stderr
    assert done.output == ["event-too-large"]


def test_a_one_line_json_array_is_bounded_by_the_document_limit() -> None:
    from agui_transcripts import Limits, fold

    events = [json.loads(line) for line in _lines() if line.strip()]
    one_line = json.dumps(events).encode()  # what json.dump writes
    assert len(one_line) > 500
    transcript = fold(one_line, limits=Limits(max_event_bytes=500, max_document_bytes=1 << 20))
    assert transcript.errors == []
    assert (
        transcript.to_dicts()
        == fold(RUN / "booking-frontend-tool.jsonl", inputs_beside=False).to_dicts()
    )
    too_small = fold(one_line, limits=Limits(max_event_bytes=500, max_document_bytes=1_000))
    assert [d.code for d in too_small.errors] == ["document-too-large"]


def test_a_result_whose_parts_are_not_objects_keeps_the_good_ones_and_says_so() -> None:
    """Found by the dataset property: a bare string among a result's parts crashed ``text``."""
    from agui_transcripts import ToolMessage, fold
    from agui_transcripts.adapters.openai import to_openai
    from agui_transcripts.adapters.responses import to_responses

    transcript = fold(
        [
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
            {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
            {"type": "TOOL_CALL_END", "toolCallId": "c"},
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": "m",
                "toolCallId": "c",
                "content": ["x", 3, {"type": "text", "text": "ok"}],
            },
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
        ]
    )
    (result,) = [m for m in transcript.messages if isinstance(m, ToolMessage)]
    assert result.content == [{"type": "text", "text": "ok"}]
    assert result.text == "ok"
    dropped = [d for d in transcript.diagnostics if d.code == "unknown-content-part"]
    assert [d.tool_call_id for d in dropped] == ["c", "c"]
    assert to_openai(transcript)[-1]["content"] == "ok"
    assert to_responses(transcript)


def test_a_client_result_whose_parts_are_not_objects_is_cleaned_the_same_way() -> None:
    from agui_transcripts import Collector, ToolMessage

    collector = Collector(client_tools=["f"])
    for event in [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]:
        collector.feed(event)
    parts: Any = ["x", {"type": "text", "text": "ok"}]  # a harness passing a bare string
    message = collector.add_client_result("c", parts)
    assert isinstance(message, ToolMessage)
    assert message.content == [{"type": "text", "text": "ok"}]
    transcript = collector.transcript
    assert [d.tool_call_id for d in transcript.diagnostics if d.code == "unknown-content-part"] == [
        "c"
    ]
    assert transcript.ordered()[-1].text == "ok"


# -- runs that error after an interrupt: each start finds the pending interrupts at once ------


def _run(n: int, end: dict[str, Any], resume: bool = False) -> list[dict[str, Any]]:
    given: dict[str, Any] = {"threadId": "t", "runId": f"r{n}", "messages": []}
    if resume:
        given["resume"] = [{"interruptId": "i1", "status": "resolved", "payload": {}}]
    start = {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{n}", "input": given}
    return [start, {**end, **({"runId": f"r{n}"} if end["type"] == "RUN_FINISHED" else {})}]


def test_pending_interrupts_outlive_errored_runs_and_end_at_a_finished_one() -> None:
    """Found from the runs that finished: each run start walked back over every errored
    one (20,000 errored runs, 3.3 MB: 9.6 s, now 0.4 s), with the same answer."""
    from agui_transcripts import fold

    interrupt = {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "ask"}]}
    finished = {"type": "RUN_FINISHED", "threadId": "t"}
    error = {"type": "RUN_ERROR", "message": "boom"}
    events = _run(0, {**finished, "outcome": interrupt})
    for n in range(1, 4):
        events += _run(n, error)  # each still owes the resume
    events += _run(4, {**finished, "outcome": {"type": "success"}}, resume=True)
    events += _run(5, error)  # nothing pending any more
    events += _run(6, {**finished, "outcome": interrupt})
    events += _run(7, {**finished, "outcome": {"type": "success"}}, resume=True)
    transcript = fold(events)
    owed = [d.event_index for d in transcript.diagnostics if d.code.startswith("resume")]
    assert owed == [2, 4, 6]  # the starts of runs 1-3


# -- a call id used again in a later turn: each turn's own answer is shown ------------------


def _reused_id_events() -> list[dict[str, Any]]:
    """Two turns that declare call c1; the second answers it twice."""
    events: list[dict[str, Any]] = []
    for turn, answers in ((1, ["first answer"]), (2, ["second answer", "an extra answer"])):
        events += [
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{turn}"},
            {"type": "TEXT_MESSAGE_START", "messageId": f"a{turn}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"a{turn}"},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}
            | {"parentMessageId": f"a{turn}"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        ]
        events += [
            {"type": "TOOL_CALL_RESULT", "messageId": f"t{turn}{n}", "toolCallId": "c1"}
            | {"content": text}
            for n, text in enumerate(answers)
        ]
        events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{turn}"})
    return events


def test_show_and_the_html_view_draw_each_turns_own_answer_under_a_reused_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both calls showed one answer and the other was never drawn."""
    from agui_transcripts.cli import main

    events = _reused_id_events()
    log = tmp_path / "reused.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert main(["show", str(log), "--color", "never"]) == 0
    shown = capsys.readouterr().out
    first, second = shown.index("first answer"), shown.index("second answer")
    assert first < shown.index("run r2") < second
    assert "an extra answer" in shown  # drawn where it is, not hidden
    page = tmp_path / "page.html"
    assert main(["show", str(log), "--html", str(page)]) == 0
    html = page.read_text()
    assert html.index("first answer") < html.index("second answer")
    assert html.count("first answer") == 1
    assert "an extra answer" in html


def test_rows_keep_each_occurrence_of_a_reused_call_id_with_its_own_answer(
    tmp_path: Path,
) -> None:
    """A row held one call for the id, the later one: the first turn's call was lost."""
    import pickle

    from agui_transcripts import fold
    from agui_transcripts.rows import log_row

    log = tmp_path / "reused.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in _reused_id_events()))
    transcript = fold(log)
    assert [(r.id, r.run_index, r.state) for r in transcript.earlier_calls] == [
        ("c1", 0, "resolved_server")
    ]
    assert pickle.loads(pickle.dumps(transcript)).earlier_calls[0].result_message_ids == ["t10"]
    calls = log_row(str(log), target="agui")["tool_calls"]
    assert [(c["id"], c["run_id"], c["result"]) for c in calls] == [
        ("c1", "r1", "first answer"),
        ("c1", "r2", "second answer"),
    ]


def test_results_restated_again_and_again_are_counted_once() -> None:
    """Whether a restated result is known was a walk of every result: k results in a
    snapshot cost k² (8,000: 0.9 s, now 0.05 s). The answers stay counted once each."""
    from agui_transcripts import fold

    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages: list[dict[str, Any]] = [{"id": "a1", "role": "assistant", "toolCalls": [call]}]
    messages += [
        {"id": f"t{n}", "role": "tool", "toolCallId": "c1", "content": "ok"} for n in range(3)
    ]
    snapshot = {"type": "MESSAGES_SNAPSHOT", "messages": messages}
    more = {"type": "MESSAGES_SNAPSHOT", "messages": [*messages, {**messages[1], "id": "t3"}]}
    transcript = fold([RS_, snapshot, snapshot, more, snapshot, RF_])
    assert transcript.tool_calls["c1"].result_message_ids == ["t0", "t1", "t2", "t3"]


def test_eight_thousand_client_round_trips_stay_linear() -> None:
    """A client answering one call per run, each answer in the next run's input (every
    other one with the user's next turn): every input was reconciled against the whole
    history (8,000 round trips: 160 s pure, 117 s compiled; now under a second). Each
    answer is kept once, after its call, and each turn after it."""
    done = run_bounded(
        """
        import json
        from agui_transcripts import fold
        events = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r0"}]
        for i in range(8_000):
            events.append({"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "ask"})
            events.append({"type": "TOOL_CALL_END", "toolCallId": f"c{i}"})
            events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}"})
            answer = {"id": f"t{i}", "role": "tool", "toolCallId": f"c{i}", "content": "ok"}
            turn = [{"id": f"u{i}", "role": "user", "content": "go on"}] if i % 2 else []
            run_input = {"threadId": "t", "runId": f"r{i + 1}", "messages": [answer, *turn]}
            events.append(
                {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i + 1}", "input": run_input}
            )
        events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r8000"})
        transcript = fold(events)
        roles = [m.role for m in transcript.ordered()]
        answered = all(r.state == "resolved_client" for r in transcript.tool_calls.values())
        pair = ["assistant", "tool", "assistant", "tool", "user"]
        print(json.dumps([roles == pair * 4_000, answered]))
        """,
        memory_mb=1024,
        seconds=30,  # a hang guard
    )
    assert done.returncode == 0, done.stderr
    assert done.output == [True, True]
