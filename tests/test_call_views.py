"""The calls of a fold's passing views: one dict kept from view to view, as if copied anew.

A view read at a run's end settles copies of the calls from a position on and leaves
the earlier records the fold's own (:mod:`agui_transcripts.call_views`). The oracle is
what every view used to be: a new dict of the fold's records, the ones from that
position on copied and settled. It is held against the kept dict at every run's end of
generated threads whose later runs redeclare, answer, restate or snapshot earlier
calls, with the position moving back and forth as a reader's would.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts.call_views import tail
from agui_transcripts.logs import fold_log
from agui_transcripts.model import ToolCallRecord
from agui_transcripts.ownership import settle
from agui_transcripts.transcript import Transcript

from .test_row_messages import EDITS, _sloppy_thread, _write


def _settled(record: ToolCallRecord) -> tuple[Any, ...]:
    return (
        record.id,
        record.state,
        record.owner,
        record.evidence,
        record.resolving_run_index,
        record.delivered,
        record.abandoned_reason,
        record.result_message_ids,
    )


@given(
    size=st.integers(0, 12),
    start=st.integers(-3, 15),
)
def test_tail_reads_the_items_from_a_position_on(size: int, start: int) -> None:
    mapping = {f"k{i}": i for i in range(size)}
    assert tail(mapping, start) == list(mapping.items())[max(start, 0) :]


@given(
    seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=4),
    edits=st.dictionaries(st.integers(1, 8), EDITS, max_size=3),
    order=st.integers(0, 2**32),
)
def test_each_view_holds_what_a_new_copy_would(
    tmp_path_factory: pytest.TempPathFactory, seeds: list[int], edits: dict[int, str], order: int
) -> None:
    events, inputs = _sloppy_thread(seeds, edits)
    source = _write(tmp_path_factory.mktemp("calls"), events, inputs)
    positions = random.Random(order)

    def at_end(view: Callable[[int], Transcript], events: int) -> None:
        collector: Any = view.__self__  # type: ignore[attr-defined]
        own = collector._reducer.tool_calls
        for _ in range(3):  # a reader's position moves on, or back after a rewrite
            start = positions.randint(0, len(own))
            expected = {call_id: record.copy() for call_id, record in own.items()}
            settle(
                list(expected.values())[start:],
                collector._reducer.runs,
                client_tools=collector._client_tools,
                delivered_ids=collector._reducer.delivered_ids,
            )
            calls = view(start).tool_calls
            assert list(calls) == list(own)
            for position, (call_id, record) in enumerate(calls.items()):
                if position < start:
                    assert record is own[call_id]
                else:
                    assert record is not own[call_id]
                    assert _settled(record) == _settled(expected[call_id])

    fold_log(source, at_run_end=at_end)


def test_a_record_taking_an_ids_place_is_read_again(tmp_path: Path) -> None:
    # An answered id declared again in a later run: a new record in its place, which
    # the view left as the fold's own at the run's end before.
    def run(index: int, call_id: str, name: str) -> list[dict[str, Any]]:
        return [
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{index}"},
            {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name},
            {"type": "TOOL_CALL_END", "toolCallId": call_id},
            {"type": "TOOL_CALL_RESULT", "toolCallId": call_id, "messageId": f"x{index}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{index}"},
        ]

    seen: list[tuple[str, bool]] = []

    def at_end(view: Callable[[int], Transcript], events: int) -> None:
        collector: Any = view.__self__  # type: ignore[attr-defined]
        calls = view(len(seen)).tool_calls
        seen.append((calls["c"].name, calls["c"] is collector._reducer.tool_calls["c"]))

    events = [*run(0, "c", "f"), *run(1, "d", "f"), *run(2, "c", "g")]
    fold_log(_write(tmp_path, events), at_run_end=at_end)
    assert seen == [("f", False), ("f", True), ("g", True)]
