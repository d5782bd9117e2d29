"""Rows per run hold what each run changed, and restore to the conversation at each run's end.

The oracle is independent of the delta code: the row of run k must equal the row of
the log cut after run k (folded on its own, written whole). Streams are generated:
several random conversations one after the other in one log (up to nine runs), with
a snapshot now and then that rewrites the first message, so a middle run's row must
go back to the beginning.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import fold
from agui_transcripts.adapters.agui import to_dicts
from agui_transcripts.arrow import read_rows, to_pandas, write_parquet
from agui_transcripts.projection import Subagents
from agui_transcripts.row_deltas import DELTA_COLUMNS, RowChain
from agui_transcripts.rows import log_row, log_rows, whole_rows

from .bounded import run_bounded
from .generate import one_message_runs, random_thread, with_inserts

Event = dict[str, Any]
LISTS = [column for columns in DELTA_COLUMNS.values() for column in columns]


def _write(folder: Path, name: str, events: list[Event], inputs: list[Any]) -> str:
    log = folder / f"{name}.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events))
    if inputs:
        (folder / f"{name}.input.json").write_text(json.dumps(inputs))
    return str(log)


def _ends(events: list[Event]) -> list[int]:
    return [i for i, e in enumerate(events) if e["type"] in ("RUN_FINISHED", "RUN_ERROR")]


def _starts(events: list[Event]) -> list[int]:
    return [i for i, e in enumerate(events) if e["type"] == "RUN_STARTED"]


def _thread(seeds: list[int], rewrite_after: set[int]) -> tuple[list[Event], list[Any]]:
    """The streams of ``seeds`` one after another (one run input per run); the run after
    each run counted in ``rewrite_after`` opens with a snapshot of the conversation whose
    first message is edited."""

    def rewrite(events: list[Event], given: list[Any], ended: int) -> list[Event]:
        if ended not in rewrite_after:
            return []
        held = to_dicts(fold(events, run_input=given))
        if not held or not isinstance(held[0].get("content"), str):
            return []
        held[0] = {**held[0], "content": held[0]["content"] + " (edited)"}
        return [{"type": "MESSAGES_SNAPSHOT", "messages": held}]

    events, inputs = random_thread(seeds)
    return with_inserts(events, inputs, rewrite), inputs


def _cut(source: str, runs: int, folder: Path) -> str:
    """The log stopped at the end of its ``runs``-th run, with its inputs."""
    lines = Path(source).read_text().splitlines(keepends=True)
    events = [json.loads(line) for line in lines]
    end = _ends(events)[runs - 1]
    sidecar = Path(source).with_suffix(".input.json")
    inputs = json.loads(sidecar.read_text())[:runs] if sidecar.exists() else []
    return _write(folder, f"cut-{runs}", events[: end + 1], inputs)


def _same_but_source(a: Any, b: Any) -> bool:
    return {**a, "source": "", "run_index": None} == {**b, "source": "", "run_index": None}


@given(
    seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=3),
    rewrite_after=st.sets(st.integers(1, 8), max_size=2),
    target=st.sampled_from(["agui", "openai"]),
    subagents=st.sampled_from(["inline", "apart", "exclude"]),
)
def test_each_run_row_restores_to_the_log_cut_at_that_run(
    seeds: list[int], rewrite_after: set[int], target: str, subagents: Subagents
) -> None:
    events, inputs = _thread(seeds, rewrite_after)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        source = _write(folder, "thread", events, inputs)
        rows = log_rows(source, per="run", target=target, subagents=subagents)
        restored = list(whole_rows(rows))
        runs = len(_ends(events))
        assert [row["run_index"] for row in rows][:runs] == list(range(runs))
        for row in restored[:runs]:
            cut = _cut(source, row["run_index"] + 1, folder)
            expected = log_row(cut, target=target, subagents=subagents)
            assert _same_but_source(row, expected), row["run_index"]
        whole = log_row(source, target=target, subagents=subagents)
        assert _same_but_source(restored[-1], whole)
    # Each row holds exactly what follows the part it shares with the row before it.
    assert all(rows[i][count] == 0 for i in (0, -1) for count in DELTA_COLUMNS)
    for before, row, whole in zip(restored, rows[1:-1], restored[1:], strict=False):
        for count, columns in DELTA_COLUMNS.items():
            kept = row[count]
            for column in columns:
                assert before[column][:kept] == whole[column][:kept]
                assert row[column] == whole[column][kept:]
            # It could not keep more: some list ends or differs there.
            assert any(
                kept in (len(before[c]), len(whole[c])) or before[c][kept] != whole[c][kept]
                for c in columns
            )


def test_a_snapshot_rewriting_the_first_message_restates_the_row_from_there(
    tmp_path: Path,
) -> None:
    events = one_message_runs(4)
    third = _starts(events)[2]
    edited = {"id": "m0", "role": "assistant", "content": "answer 0, corrected"}
    events.insert(third + 1, {"type": "MESSAGES_SNAPSHOT", "messages": [edited]})
    rows = log_rows(_write(tmp_path, "log", events, []), per="run", target="agui")
    assert [(r["messages_from"], len(r["messages"])) for r in rows] == [
        (0, 1),
        (1, 1),
        (0, 2),
        (0, 3),
    ]
    assert [r["runs_from"] for r in rows] == [0, 1, 2, 0]
    assert rows[2]["messages"][0]["content"] == "answer 0, corrected"


def test_a_thousand_runs_make_rows_linear_in_the_log(tmp_path: Path) -> None:
    # Before: every run's row held the whole conversation, 500,500 message entries for
    # this 310 KB log (350 MB); now each middle row holds the one message its run added.
    source = _write(tmp_path, "long", one_message_runs(1000), [])
    done = run_bounded(
        f"""
        import json
        from agui_transcripts.rows import log_rows
        rows = log_rows({source!r}, per="run", target="agui")
        print(json.dumps([len(rows), sum(len(r["messages"]) + len(r["run_ids"]) for r in rows)]))
        """,
        memory_mb=400,
        seconds=90,
    )
    assert done.returncode == 0, done.stderr
    assert done.output == [1000, 2 * (999 + 1000)]  # one message and run per row, the last whole


def test_restoring_needs_a_logs_rows_together_and_in_order(tmp_path: Path) -> None:
    source = _write(tmp_path, "log", one_message_runs(3), [])
    first, middle, last = log_rows(source, per="run", target="agui")
    with pytest.raises(ValueError, match="the row of run 1 holds what that run changed"):
        list(whole_rows([middle]))
    with pytest.raises(ValueError, match="read a log's rows together and in order"):
        list(whole_rows([first, last, middle]))
    chain = RowChain()
    chain.whole(first)
    with pytest.raises(ValueError, match="keeps 5 of messages, and the row before it has 1"):
        chain.whole({**middle, "messages_from": 5})
    whole = list(whole_rows([first, middle, last]))
    assert [len(r["messages"]) for r in whole] == [1, 2, 3]
    assert whole[0] is first  # whole rows pass through as they are
    assert whole[2] is last


def test_rows_per_run_through_parquet_and_pandas(tmp_path: Path) -> None:
    events, inputs = _thread([7, 11, 19], {2})
    source = _write(tmp_path, "thread", events, inputs)
    rows = log_rows(source, per="run", target="openai")
    assert any(row["messages_from"] for row in rows)  # some rows are deltas
    write_parquet(rows, tmp_path / "rows.parquet")
    read = read_rows(tmp_path / "rows.parquet")
    assert read == rows
    assert list(whole_rows(read)) == list(whole_rows(rows))
    frame = to_pandas(rows, view="messages")
    for row in rows:  # each message at its place in its run's conversation
        placed = frame[frame["run_index"] == row["run_index"]]["position"].tolist()
        start = row["messages_from"]
        assert placed == list(range(start, start + len(row["messages"])))
