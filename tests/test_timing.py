"""Times and usage: from the events' timestamps and RUN_FINISHED.usage, never invented."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold
from agui_transcripts.cli import main
from agui_transcripts.html import render_html
from agui_transcripts.model import epoch_ms
from agui_transcripts.rows import row_of
from agui_transcripts.timing import run_times
from agui_transcripts.usage import token_totals

from .streams import RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS

T0 = 1_700_000_000_000


def _stamped(events: list[dict[str, Any]], step: int = 100) -> list[dict[str, Any]]:
    return [{**event, "timestamp": T0 + step * i} for i, event in enumerate(events)]


def _conversation() -> list[dict[str, Any]]:
    return _stamped(
        [
            RS("r1"),  # 0
            TMS("m1"),  # 100
            TMC("m1", "Let me"),  # 200
            TMC("m1", " check."),  # 300
            TME("m1"),  # 400
            TCS("c1", "weather", "m1"),  # 500
            TCA("c1", "{}"),  # 600
            TCE("c1"),  # 700
            TCR("t1", "c1", "sunny"),  # 800
            RF("r1", usage=[{"inputTokens": 10, "outputTokens": 4}, {"inputTokens": 1}]),  # 900
            RS("r2"),  # 1000
            TMS("m2"),  # 1100
            TMC("m2", "Sunny."),  # 1200
            TME("m2"),  # 1300
            RF("r2"),  # 1400
        ]
    )


def test_runs_messages_and_calls_carry_their_first_and_last_event_times() -> None:
    transcript = fold(_conversation())
    first, second = transcript.runs
    assert (first.started_at, first.ended_at, first.duration_ms) == (T0, T0 + 900, 900)
    assert (second.started_at, second.ended_at) == (T0 + 1000, T0 + 1400)
    assert transcript.times.messages["m1"] == [T0 + 100, T0 + 400]
    assert transcript.times.messages["t1"] == [T0 + 800, T0 + 800]
    assert transcript.times.calls["c1"] == [T0 + 500, T0 + 700]
    assert first.to_dict()["durationMs"] == 900


def test_the_timed_view_gives_time_to_first_token_and_usage_per_run() -> None:
    timed = run_times(fold(_conversation()))
    assert [t.time_to_first_token_ms for t in timed] == [100, 100]
    assert [t.duration_ms for t in timed] == [900, 400]
    assert (timed[0].input_tokens, timed[0].output_tokens, timed[0].total_tokens) == (11, 4, 15)
    assert timed[1].input_tokens is None


def test_an_untimed_stream_has_no_times_at_all() -> None:
    events = [{k: v for k, v in e.items() if k != "timestamp"} for e in _conversation()]
    transcript = fold(events)
    assert not transcript.times
    assert all(r.started_at is None and r.duration_ms is None for r in transcript.runs)
    assert "startedAt" not in transcript.runs[0].to_dict()
    assert all(t.time_to_first_token_ms is None for t in run_times(transcript))
    row = row_of(transcript, source="x", events=len(events))
    assert row["started_at_ms"] is None
    assert row["run_times"][0]["duration_ms"] is None


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        (T0, float(T0)),
        (1_700_000_000, float(T0)),  # seconds, as some producers write
        (1_700_000_000.25, T0 + 250.0),
        (True, None),
        (-5, None),
        (math.nan, None),
        (math.inf, None),
        (10**400, None),  # past float's range
        ("2024-01-01", None),
        (None, None),
    ],
)
def test_a_timestamp_is_milliseconds_or_scaled_seconds_or_nothing(
    stamp: object, expected: float | None
) -> None:
    assert epoch_ms(stamp) == expected
    transcript = fold([{**RS("r1"), "timestamp": stamp}, RF("r1")])
    assert transcript.runs[0].started_at == expected


def test_usage_is_read_in_both_eras_and_only_whole_counts_count() -> None:
    assert token_totals({"input_tokens": 3, "output_tokens": 2}) == {
        "input_tokens": 3,
        "output_tokens": 2,
        "total_tokens": 5,
    }
    assert token_totals([{"inputTokens": 2.0, "outputTokens": "7"}, {"inputTokens": -1}]) == {
        "input_tokens": 2
    }
    assert token_totals("lots") == {}


def test_rows_show_the_times_and_token_sums() -> None:
    transcript = fold(_conversation())
    row = row_of(transcript, source="x", events=15)
    assert (row["started_at_ms"], row["ended_at_ms"]) == (T0, T0 + 1400)
    assert row["input_tokens"] == 11
    assert row["total_tokens"] == 15
    assert row["run_times"][0]["time_to_first_token_ms"] == 100
    (call,) = row["tool_calls"]
    assert (call["started_at_ms"], call["answered_at_ms"]) == (T0 + 500, T0 + 800)


def test_show_and_the_html_view_date_each_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "run.jsonl"

    log.write_text("".join(json.dumps(e) + "\n" for e in _conversation()), encoding="utf-8")
    assert main(["show", str(log)]) == 0
    out = capsys.readouterr().out
    assert "── run r1 at 2023-11-14 22:13:20.000 UTC ──" in out
    assert "── end of run r1: success in 900 ms ──" in out
    page = render_html(fold(_conversation()))
    assert re.search(r"run r2 <time>at 2023-11-14 22:13:21\.000 UTC</time>", page)
    assert "<time>in 400 ms</time>" in page


def test_to_dicts_puts_each_timed_message_s_times_in_its_metadata_when_asked() -> None:
    transcript = fold(_conversation())
    assert all("metadata" not in wire for wire in transcript.to_dicts())
    wires = {wire["id"]: wire for wire in transcript.to_dicts(times=True)}
    assert wires["m1"]["metadata"]["agui_transcripts"] == {
        "firstEventAt": T0 + 100,
        "lastEventAt": T0 + 400,
    }
    import ag_ui.core as sdk
    from pydantic import TypeAdapter

    if hasattr(sdk, "SubagentStartedEvent"):  # AG-UI 1.0, whose messages hold metadata
        assert TypeAdapter(sdk.Message).validate_python(wires["m1"]).metadata
