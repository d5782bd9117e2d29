"""The drop-in's collector takes the delta lane too: it must change nothing it renders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts.ragas import (
    AGUIEventCollector,
    convert_to_ragas_messages,
    watched_collector,
)
from agui_transcripts.ragas_render import RagasWatch
from tests.generate import random_stream
from tests.lane import count_lane, without_lane
from tests.streams import RF, RS, TCA, TCE, TCS, TMC, TME, TMS

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "streams"


def _golden(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _rendered(events: list[Any], *, metadata: bool = True) -> list[Any]:
    messages = convert_to_ragas_messages([dict(e) for e in events], metadata=metadata)
    return [m.model_dump() for m in messages]


def _with_timestamps(seed: int) -> list[Any]:
    """A random stream whose deltas carry timestamps, some before their message shows one."""
    events, _ = random_stream(seed)
    return [
        {**e, "timestamp": 1_000 + i} if e["type"].endswith(("_CONTENT", "_ARGS")) and i % 2 else e
        for i, e in enumerate(events)
    ]


STREAMS = [(p.stem, _golden(p)) for p in sorted(GOLDEN.glob("*.jsonl"))] + [
    (f"stamped-{seed}", _with_timestamps(seed)) for seed in range(60)
]
CORPUS = [pytest.param(events, id=name) for name, events in STREAMS]


@pytest.mark.parametrize("metadata", [True, False], ids=["metadata", "lean"])
@pytest.mark.parametrize("events", CORPUS)
def test_the_drop_in_renders_the_same_with_and_without_the_lane(
    events: list[Any], metadata: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _rendered(events, metadata=metadata)
    with monkeypatch.context() as patch:
        without_lane(patch)
        general = _rendered(events, metadata=metadata)
    assert fast == general


def test_the_drop_in_collector_takes_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard for the test above: the lane fires under the drop-in."""
    taken = count_lane(monkeypatch)
    collector = AGUIEventCollector(metadata=True)
    events = [
        RS(),
        TMS("m1", "assistant"),
        TMC("m1", "Hel"),
        TMC("m1", "lo", timestamp=5),  # a timestamp: the general path, for the drop-in
        TMC("m1", "!"),
        TCS("c1", "f", "m1"),
        TCA("c1", '{"a": '),
        TCA("c1", "1}"),
        TCE("c1"),
        TME("m1"),
        RF(),
    ]
    for event in events:
        collector.process_event(event)
    assert taken[0] == 4  # every delta but the timestamped one (the first argument's route)
    [message] = collector.get_messages()
    assert message.content == "Hello!"
    assert message.tool_calls[0].args == {"a": 1}


def test_without_metadata_timestamped_deltas_take_the_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lean watch reads no timestamps, so a timed delta need not be shown to it."""
    taken = count_lane(monkeypatch)
    events = [
        RS(),
        TMS("m1", "assistant", timestamp=1),
        *(TMC("m1", word, timestamp=2 + i) for i, word in enumerate(["Hel", "lo", "!"])),
        TCS("c1", "f", "m1", timestamp=5),
        TCA("c1", '{"a": ', timestamp=6),
        TCA("c1", "1}", timestamp=7),
        TCE("c1", timestamp=8),
        TME("m1", timestamp=9),
        RF(),
    ]
    [message] = convert_to_ragas_messages(events)
    assert taken[0] == 5  # every delta: timed, and no watcher reads their timestamps
    assert message.content == "Hello!"
    assert message.tool_calls[0].args == {"a": 1}
    assert convert_to_ragas_messages(events, metadata=True)[0].metadata["timestamp"] == 1


def _watched(events: list[Any], *, metadata: bool) -> RagasWatch:
    watch, collector = watched_collector(metadata)
    for event in events:
        collector.feed(dict(event))
    collector.close()
    return watch


@pytest.mark.parametrize("events", CORPUS)
def test_the_lean_watch_sees_what_the_full_watch_sees(events: list[Any]) -> None:
    """Without metadata the drop-in's watch skips steps and timestamps, nothing else."""
    full, lean = _watched(events, metadata=True), _watched(events, metadata=False)
    assert (lean.started, lean.ended, lean.parentless) == (
        full.started,
        full.ended,
        full.parentless,
    )
    assert (lean.steps, lean.step_of, lean.timestamp_of) == ([], {}, {})


def test_the_watched_corpus_holds_what_the_lean_watch_keeps() -> None:
    """Guard for the test above: the corpus has parentless calls and unended messages."""
    seen = [_watched(events, metadata=False) for _, events in STREAMS]
    assert any(watch.parentless for watch in seen)
    assert any(watch.started - watch.ended for watch in seen)
