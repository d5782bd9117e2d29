"""Where a pure-Python fold of a file spends its time, by layer.

Usage::

    python benchmarks/layers.py [--shapes mixed,subagents] [--size 100k] [--rounds 5]

For each shape it writes the benchmark's file, then times, best of ``--rounds``:

- ``fold(path)`` as it is (the total), and reading alone (``read_events`` drained);
- one more fold with a timer around every entry into the chunk layer, the verifier and
  the reducer (the delta lane's questions and appends included), less what a timer
  around an empty call costs, measured in the same process.

What is left of the total is the collector's own dispatch, the delta lane's checks,
``finish`` and what the layers cost each other (caches, allocation). The timers slow
the instrumented fold, so its shares are close, not exact; the total and the reading
are measured without them. The figures say what removing a layer could save at most:
a fold that still checks the rules keeps part of it. On small files the rest can read
below zero: the timers' cost is estimated, not known.

Pure Python only: the compiled build's classes cannot be wrapped.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from shapes import SHAPES, parse_size, write_jsonl  # noqa: E402

from agui_transcripts import fold, read_events  # noqa: E402
from agui_transcripts.chunks import ChunkNormalizer  # noqa: E402
from agui_transcripts.reduce import Reducer  # noqa: E402
from agui_transcripts.text_budget import DeltaRoute  # noqa: E402
from agui_transcripts.verify import Verifier  # noqa: E402

# Every entry into a layer the collector makes, by layer: the general path's and the
# delta lane's. A method missing here is timed as "the rest".
LAYERS: dict[str, tuple[tuple[type, str], ...]] = {
    "chunk layer": (
        (ChunkNormalizer, "feed"),
        (ChunkNormalizer, "is_idle"),
        (ChunkNormalizer, "resolve_continuation"),
    ),
    "verifier": ((Verifier, "feed"), (Verifier, "accepts_delta")),
    "reducer": (
        (Reducer, "apply"),
        (Reducer, "append_delta"),
        (Reducer, "delta_route"),
        (DeltaRoute, "append"),
    ),
}


def is_pure_python() -> bool:
    """Whether the fold's modules are interpreted (their classes can be wrapped)."""
    import agui_transcripts.collector as collector

    return (collector.__file__ or "").endswith(".py")


class Clock:
    """Seconds and calls per layer, from timers wrapped around the layers' methods."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(LAYERS, 0.0)
        self.calls: dict[str, int] = dict.fromkeys(LAYERS, 0)

    def timed(self, layer: str, method: Callable[..., Any]) -> Callable[..., Any]:
        seconds, calls, now = self.seconds, self.calls, time.perf_counter

        def run(*args: Any, **kwargs: Any) -> Any:
            started = now()
            result = method(*args, **kwargs)
            seconds[layer] += now() - started
            calls[layer] += 1
            return result

        return run


@contextlib.contextmanager
def wrapped(clock: Clock) -> Iterator[None]:
    """The layers' methods timed by ``clock`` for the block, restored after it."""
    saved: list[tuple[type, str, Any]] = []
    try:
        for layer, methods in LAYERS.items():
            for owner, name in methods:
                original = owner.__dict__[name]
                saved.append((owner, name, original))
                setattr(owner, name, clock.timed(layer, original))
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def timer_cost(calls: int = 200_000) -> float:
    """Seconds a timer adds inside its own reading, per call (around an empty call)."""
    clock = Clock()
    layer = next(iter(LAYERS))
    empty = clock.timed(layer, lambda *args: None)
    for _ in range(calls):
        empty(None)
    return clock.seconds[layer] / calls


def best(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        gc.collect()
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def drain(path: str) -> None:
    for _ in read_events(path):
        pass


def measure(path: str, events: int, rounds: int) -> dict[str, float]:
    """µs per event: total, reading, each layer, and the rest."""
    total = best(lambda: fold(path, inputs_beside=False), rounds)
    reading = best(lambda: drain(path), rounds)
    per_call = timer_cost()
    layers: dict[str, float] = dict.fromkeys(LAYERS, float("inf"))
    for _ in range(rounds):
        clock = Clock()
        gc.collect()
        with wrapped(clock):
            fold(path, inputs_beside=False)
        for layer in LAYERS:
            spent = clock.seconds[layer] - per_call * clock.calls[layer]
            layers[layer] = min(layers[layer], max(spent, 0.0))
    row = {"total": total, "reading": reading, **layers}
    row["the rest"] = total - reading - sum(layers.values())
    return {part: seconds * 1e6 / events for part, seconds in row.items()}


def table(rows: dict[str, dict[str, float]]) -> str:
    parts = ["reading", *LAYERS, "the rest", "total"]
    lines = [
        "| shape | " + " | ".join(parts) + " |",
        "| --- | " + " | ".join("---:" for _ in parts) + " |",
    ]
    for shape, row in rows.items():
        total = row["total"]
        cells = [f"{row[part]:.2f} ({100 * row[part] / total:.0f}%)" for part in parts[:-1]]
        lines.append(f"| {shape} | " + " | ".join([*cells, f"{total:.2f}"]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="mixed,chunks,snapshots,subagents")
    parser.add_argument("--size", default="100k")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    if not is_pure_python():
        parser.error("the fold is compiled here: run this with a pure-Python install")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    names = [name.strip() for name in args.shapes.split(",") if name.strip()]
    unknown = [name for name in names if name not in SHAPES]
    if unknown:
        parser.error(f"unknown shape(s): {', '.join(unknown)}; known: {', '.join(SHAPES)}")
    size = parse_size(args.size)
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            path = str(Path(workdir) / f"{name}.jsonl")
            events = write_jsonl(SHAPES[name], size, path)
            rows[name] = measure(path, events, args.rounds)
            print(f"measured {name} at {events:,} events", file=sys.stderr)
    print("µs per event, best of", args.rounds, "(share of the total)")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
