"""A fold leaves no reference cycle behind: what it made is freed when it is dropped.

``fold`` holds the cyclic garbage collector and then moves what it built to the oldest
generation. Anything left in a cycle there waits for a full collection, which a loop of
folds (an eval harness replaying thousands of logs) may not trigger for a long time: the
collector's machinery (handlers that are bound methods, a ring of message nodes) used to
keep every transcript of such a loop alive. ``gc.collect()`` returns how many unreachable
objects it found, so each test asks it for zero after dropping what a call returned.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import Collector, ProtocolError, afold, fold
from agui_transcripts.message_list import MessageList
from agui_transcripts.model import AssistantMessage, UserMessage
from agui_transcripts.rows import log_rows

from .generate import random_stream
from .streams import RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS
from .test_properties import corrupt

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden" / "streams").glob("*.jsonl")) + sorted(
    (HERE / "golden" / "reference-cases").glob("*.jsonl")
)
SPEC = sorted((HERE / "conformance" / "ag-ui-spec" / "streams").glob("*.json"))
CORRUPTIONS = ("drop", "repeat", "swap", "wrong-type", "unknown-field", "cut")


def _events(path: Path) -> list[Any]:
    if path.suffix == ".json":
        stream: list[Any] = json.loads(path.read_text(encoding="utf-8"))["stream"]
        return stream
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _corpus() -> Iterator[tuple[str, list[Any]]]:
    for path in GOLDEN + SPEC:
        yield path.name, _events(path)
    for seed in range(40):
        events, _ = random_stream(seed)
        yield f"random-{seed}", events
        actions = [(name, seed * 7 + k) for k, name in enumerate(CORRUPTIONS)]
        yield f"random-{seed}-corrupted", corrupt(events, actions)


def _left_in_cycles(work: Callable[[], object]) -> int:
    """Unreachable objects a collection finds once ``work``'s result is dropped."""
    work()  # first: lazy imports and caches leave their own garbage once
    gc.collect()
    result = work()
    del result
    return gc.collect()


def test_dropped_folds_of_the_whole_corpus_leave_no_cycle() -> None:
    corpus = list(_corpus())
    assert len(corpus) > 150

    def each() -> None:
        for _, events in corpus:
            fold(events).ordered()

    found = _left_in_cycles(each)
    if found:  # name the first stream that leaves some, for the report
        offenders = [name for name, events in corpus if _left_in_cycles(partial(fold, events))]
        pytest.fail(f"{found} objects left in cycles; first by stream: {offenders[:5]}")


def _log(tmp_path: Path, events: list[Any]) -> Path:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return log


def _turns(count: int) -> list[Any]:
    events: list[Any] = []
    for turn in range(count):
        run, answer = f"r{turn}", f"a{turn}"
        events += [RS(run), TMS(answer, "assistant"), TMC(answer, "Let me look.")]
        events += [TME(answer), TCS(f"c{turn}", "lookup", answer), TCA(f"c{turn}", "{}")]
        events += [TCE(f"c{turn}"), TCR(f"t{turn}", f"c{turn}", "found"), RF(run)]
    return events


def test_folding_a_log_and_its_rows_per_run_leave_no_cycle(tmp_path: Path) -> None:
    log = _log(tmp_path, _turns(30))
    assert _left_in_cycles(lambda: fold(log)) == 0
    assert _left_in_cycles(lambda: log_rows(str(log), per="run")) == 0


def test_an_async_fold_leaves_no_cycle() -> None:
    events = _turns(10)

    async def source() -> AsyncIterator[Any]:
        for event in events:
            yield event

    assert _left_in_cycles(lambda: asyncio.run(afold(source()))) == 0


def test_a_fold_that_raises_leaves_no_cycle() -> None:
    events = [*_turns(3), {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}]

    def rejected() -> None:
        with pytest.raises(ProtocolError):
            fold(events, strict=True)

    assert _left_in_cycles(rejected) == 0


def test_snapshots_that_rebuild_the_list_leave_no_cycle() -> None:
    events: list[Any] = []
    history: list[dict[str, Any]] = []
    for turn in range(20):
        history.append({"id": f"u{turn}", "role": "user", "content": "again?"})
        events += [RS(f"r{turn}"), {"type": "MESSAGES_SNAPSHOT", "messages": list(history)}]
        events.append(RF(f"r{turn}"))
    assert _left_in_cycles(lambda: fold(events)) == 0


def test_memory_stays_flat_over_a_loop_of_folds(tmp_path: Path) -> None:
    log = _log(tmp_path, _turns(200))
    fold(log)
    gc.collect()
    for _ in range(20):
        transcript = fold(log)
        assert len(transcript.messages) == 400
        del transcript
    assert gc.collect() == 0  # nothing of the twenty folds was waiting for a collection


def test_a_released_list_reads_as_empty_and_can_start_over() -> None:
    messages = MessageList()
    for index in range(3):
        messages.append(UserMessage(f"u{index}", "hi"))
    messages.release()
    assert messages.messages == []
    assert list(messages.nodes()) == []
    assert messages.node("u0") is None
    messages.release()  # twice is harmless
    messages.clear()
    messages.append(AssistantMessage("a", "back"))
    assert [m.id for m in messages.messages] == ["a"]


def test_a_released_collector_keeps_the_transcript_it_returned() -> None:
    collector = Collector()
    for event in _turns(2):
        collector.feed(event)
    transcript = collector.finish()
    expected = [message.to_dict() for message in transcript.messages]
    collector.release()
    assert [message.to_dict() for message in transcript.messages] == expected
    assert [run.outcome for run in transcript.runs] == ["success", "success"]
    collector.clear()  # starts over with fresh machinery
    collector.feed(RS("again"))
    assert len(collector.transcript.runs) == 1
