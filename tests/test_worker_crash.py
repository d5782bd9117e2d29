"""A worker that dies fails the log it was reading, not the batch."""

from __future__ import annotations

import pytest

from agui_transcripts.logs import WorkerError, map_logs

from .crashing import echo_or_die


def _failed(source: str, reason: str) -> str:
    assert "the worker reading it died" in reason
    return f"failed:{source}"


@pytest.mark.slow
def test_a_dead_worker_fails_its_log_and_the_others_go_on() -> None:
    sources = [f"log{n}" for n in range(40)]
    sources[5] = "die5"
    sources[6] = "die6"  # two in a row, after others came back
    sources[31] = "die31"
    got = list(map_logs(echo_or_die, sources, jobs=2, crashed=_failed))
    assert got == [f"failed:{s}" if s.startswith("die") else s for s in sources]


@pytest.mark.slow
def test_without_a_crash_result_a_dead_worker_stops_the_batch() -> None:
    with pytest.raises(WorkerError, match="worker processes died"):
        list(map_logs(echo_or_die, ["log0", "die1", "log2"], jobs=2))


@pytest.mark.slow
def test_workers_that_die_on_every_log_are_a_setup_that_cannot_work() -> None:
    sources = [f"die{n}" for n in range(6)]
    with pytest.raises(WorkerError, match="could not start"):
        list(map_logs(echo_or_die, sources, jobs=2, crashed=_failed))
