"""Side-by-side benchmark: agui-transcripts against ragas's AG-UI integration and a floor.

For each shape and size, in one process: the ``orjson.loads`` floor over the JSONL file
and a bare fold (decoding plus grouping deltas, nothing checked: see ``bare_fold``);
our JSONL file → transcript (``fold(path)``, lenient, full verification); our fold on
prebuilt ``ag_ui.core`` events; and, when ragas is installed, ragas's
``convert_to_ragas_messages`` on the same prebuilt events and its whole path from the
file (``json.loads`` + ``TypeAdapter(Event)`` + convert). Each figure is the median of a
few repeats. ``--memory`` adds the peak RSS of converting each file in a fresh process.

Usage: python benchmarks/run.py [--sizes 10k,100k] [--shapes mixed,tool_loop] [--memory]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ag_ui.core import Event
from pydantic import TypeAdapter
from shapes import SHAPES, write_jsonl

from agui_transcripts import fold

try:
    import orjson

    loads: Callable[[bytes], Any] = orjson.loads
except ImportError:  # the floor is then the stdlib's
    loads = json.loads

SDK_EVENT: TypeAdapter[Any] = TypeAdapter(Event)

# ragas on a tool-only loop is quadratic (a backward scan per result): past this size one
# repeat takes minutes, so it is measured up to here and reported as skipped beyond.
RAGAS_TOOL_LOOP_LIMIT = 70_000

# VmHWM, not ru_maxrss: on Linux ru_maxrss survives exec, so a child would report the
# benchmark process's own peak.
MEMORY_SNIPPET = """
import sys
{body}
with open('/proc/self/status') as status:
    print(next(line.split()[1] for line in status if line.startswith('VmHWM')))
"""
OURS_MEMORY = "from agui_transcripts import fold\nfold(sys.argv[1])"
RAGAS_MEMORY = """
import json
from pydantic import TypeAdapter
from ag_ui.core import Event
from ragas.integrations.ag_ui import convert_to_ragas_messages
adapter = TypeAdapter(Event)
with open(sys.argv[1], 'rb') as lines:
    events = [adapter.validate_python(json.loads(line)) for line in lines]
convert_to_ragas_messages(events)
"""


def parse_size(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * scale)


def median_seconds(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def floor(path: str) -> None:
    with open(path, "rb") as lines:
        for line in lines:
            loads(line)


def bare_fold(path: str) -> int:
    """The least a fold of the file written in Python pays: a second floor.

    Decode each line, group text and argument deltas by their item, keep every other
    event. No checks, no diagnostics, no order, no messages, no records: what is left
    of a fold when everything this library is for is taken out. The cyclic garbage
    collector is held, as ``fold`` holds it.
    """
    pieces: dict[Any, list[str]] = {}
    others: list[Any] = []
    gc.disable()
    try:
        with open(path, "rb") as lines:
            for line in lines:
                event = loads(line)
                delta = event.get("delta")
                if delta is None:
                    others.append(event)
                    continue
                item = event.get("messageId") or event.get("toolCallId")
                held = pieces.get(item)
                if held is None:
                    pieces[item] = [delta]
                else:
                    held.append(delta)
    finally:
        gc.enable()
    return len(pieces) + len(others)


def ragas_convert() -> Callable[[list[Any]], Any] | None:
    try:
        from ragas.integrations.ag_ui import convert_to_ragas_messages
    except Exception:  # not installed, or installed but unimportable
        return None
    convert: Callable[[list[Any]], Any] = convert_to_ragas_messages
    return convert


def peak_rss_mb(body: str, path: str) -> float | None:
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_SNIPPET.format(body=body), path],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return None
    return int(done.stdout.split()[-1]) / 1024  # VmHWM is in KiB


def measure(shape: str, size: int, memory: bool, workdir: str) -> dict[str, Any]:
    path = os.path.join(workdir, f"{shape}-{size}.jsonl")
    events = write_jsonl(SHAPES[shape], size, path)
    repeats = 3 if events <= 200_000 else 1
    row: dict[str, Any] = {"shape": shape, "events": events}
    row["floor"] = median_seconds(lambda: floor(path), repeats)
    row["bare"] = median_seconds(lambda: bare_fold(path), repeats)
    row["ours_file"] = median_seconds(lambda: fold(path), repeats)

    with open(path, "rb") as lines:
        prebuilt = [SDK_EVENT.validate_python(loads(line)) for line in lines]
    row["ours_sdk"] = median_seconds(lambda: fold(prebuilt), repeats)
    convert = ragas_convert()
    if convert is not None and not (shape == "tool_loop" and events > RAGAS_TOOL_LOOP_LIMIT):
        row["ragas_sdk"] = median_seconds(lambda: convert(prebuilt), repeats)

        def ragas_file() -> None:
            with open(path, "rb") as lines:
                convert([SDK_EVENT.validate_python(json.loads(line)) for line in lines])

        row["ragas_file"] = median_seconds(ragas_file, repeats)
    prebuilt.clear()  # free the models before the memory runs
    if memory:
        row["ours_rss"] = peak_rss_mb(OURS_MEMORY, path)
        if "ragas_file" in row:
            row["ragas_rss"] = peak_rss_mb(RAGAS_MEMORY, path)
    os.unlink(path)
    return row


def micro(row: dict[str, Any], key: str) -> str:
    if key not in row:
        return "—"
    return f"{row[key] / row['events'] * 1e6:.2f}"


def ratio(row: dict[str, Any], numerator: str, denominator: str) -> str:
    if numerator not in row or denominator not in row:
        return "—"
    return f"{row[numerator] / row[denominator]:.1f}x"


def table(rows: list[dict[str, Any]], memory: bool) -> str:
    head = [
        "shape",
        "events",
        "floor µs/ev",
        "bare fold µs/ev",
        "ours file µs/ev",
        "ours events/s",
        "ours sdk µs/ev",
        "ragas sdk µs/ev",
        "ragas file µs/ev",
        "ragas file / ours",
        "ragas sdk / ours sdk",
        "ours / floor",
        "bare / floor",
    ]
    if memory:
        head += ["ours peak MB", "ragas peak MB"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        cells = [
            row["shape"],
            f"{row['events']:,}",
            micro(row, "floor"),
            micro(row, "bare"),
            micro(row, "ours_file"),
            f"{row['events'] / row['ours_file']:,.0f}",
            micro(row, "ours_sdk"),
            micro(row, "ragas_sdk"),
            micro(row, "ragas_file"),
            ratio(row, "ragas_file", "ours_file"),
            ratio(row, "ragas_sdk", "ours_sdk"),
            ratio(row, "ours_file", "floor"),
            ratio(row, "bare", "floor"),
        ]
        if memory:
            cells += [
                f"{row['ours_rss']:.0f}" if row.get("ours_rss") else "—",
                f"{row['ragas_rss']:.0f}" if row.get("ragas_rss") else "—",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def describe_machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--memory", action="store_true", help="peak RSS in a fresh process")
    parser.add_argument("--json", help="also write the raw figures to this file")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for shape in args.shapes.split(","):
            for size in map(parse_size, args.sizes.split(",")):
                rows.append(measure(shape, size, args.memory, workdir))
                print(f"measured {shape} at {rows[-1]['events']:,} events", file=sys.stderr)
    print(describe_machine())
    print()
    print(table(rows, args.memory))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
