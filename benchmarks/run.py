"""Side-by-side benchmark: agui-transcripts against ragas's AG-UI integration and a floor.

For each shape and size, in one process and interleaved (every candidate once per round,
the order rotating, at least five rounds): the ``orjson.loads`` floor over the JSONL file
and a bare fold (decoding plus grouping deltas, nothing checked: see ``bare_fold``); our
JSONL file -> transcript (``fold(path)``, lenient, full verification); our fold on
prebuilt ``ag_ui.core`` events; our adapters on the folded transcript (``to_ragas``,
``to_openai``, ``to_langchain``); and, when ragas is installed, ragas at its fairest:
``convert_to_ragas_messages`` on the same prebuilt events with its logger silenced and as
it comes (a warning per chunk event, written to a discarded stderr), its whole path from
the file both ways (``json.loads`` + ``TypeAdapter.validate_python``, and
``validate_json`` of each line, logger silenced), and our drop-in's
``convert_to_ragas_messages`` on the same events. Every ratio is taken against ragas's
fastest figure. Figures are µs per event: the median and the minimum over the rounds.
``--memory`` adds the peak RSS of converting each file in a fresh process.

Usage: python benchmarks/run.py [--sizes 10k,100k] [--shapes mixed,tool_loop] [--rounds 5]
       [--memory] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ag_ui.core import Event
from pydantic import TypeAdapter
from shapes import SHAPES, parse_size, write_jsonl

from agui_transcripts import fold
from agui_transcripts.adapters.langchain import to_langchain
from agui_transcripts.adapters.openai import to_openai
from agui_transcripts.adapters.ragas import to_ragas
from agui_transcripts.ragas import convert_to_ragas_messages as dropin_convert

try:
    import orjson

    loads: Callable[[bytes], Any] = orjson.loads
except ImportError:  # the floor is then the stdlib's
    loads = json.loads

SDK_EVENT: TypeAdapter[Any] = TypeAdapter(Event)

# ragas on a tool-only loop is quadratic (a backward scan per result): one convert takes
# 0.8 s at 16k events, 3.4 s at 32k and 12 s at 64k, and a run times it four ways per
# round, so it is measured up to here and reported as skipped beyond.
RAGAS_TOOL_LOOP_LIMIT = 20_000

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


def timed(work: Callable[[], object]) -> float:
    gc.collect()
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


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


@contextlib.contextmanager
def ragas_logger(silenced: bool) -> Iterator[None]:
    """Ragas's integration logger silenced, or as it comes with its output discarded."""
    logger = logging.getLogger("ragas.integrations.ag_ui")
    if silenced:
        was = logger.disabled
        logger.disabled = True
        try:
            yield
        finally:
            logger.disabled = was
        return
    with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
        yield


def candidates(path: str, prebuilt: list[Any], shape: str) -> dict[str, Callable[[], object]]:
    """What is timed for one file, by column name."""
    transcript = fold(path)
    work: dict[str, Callable[[], object]] = {
        "floor": lambda: floor(path),
        "bare": lambda: bare_fold(path),
        "ours_file": lambda: fold(path),
        "ours_sdk": lambda: fold(prebuilt),
        "to_openai": lambda: to_openai(transcript),
    }
    if importlib.util.find_spec("langchain_core") is not None:
        work["to_langchain"] = lambda: to_langchain(transcript)
    convert = ragas_convert()
    if convert is None:
        return work
    work["to_ragas"] = lambda: to_ragas(transcript)
    work["dropin_sdk"] = lambda: dropin_convert(prebuilt)
    if shape == "tool_loop" and len(prebuilt) > RAGAS_TOOL_LOOP_LIMIT:
        return work

    def ragas_sdk(silenced: bool) -> Callable[[], object]:
        def run() -> object:
            with ragas_logger(silenced):
                return convert(prebuilt)

        return run

    def ragas_file_python() -> object:
        with ragas_logger(True), open(path, "rb") as lines:
            return convert([SDK_EVENT.validate_python(json.loads(line)) for line in lines])

    def ragas_file_json() -> object:
        with ragas_logger(True), open(path, "rb") as lines:
            return convert([SDK_EVENT.validate_json(line) for line in lines])

    work["ragas_sdk"] = ragas_sdk(True)
    work["ragas_sdk_logged"] = ragas_sdk(False)
    work["ragas_file_python"] = ragas_file_python
    work["ragas_file_json"] = ragas_file_json
    return work


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


def measure(shape: str, size: int, rounds: int, memory: bool, workdir: str) -> dict[str, Any]:
    path = os.path.join(workdir, f"{shape}-{size}.jsonl")
    events = write_jsonl(SHAPES[shape], size, path)
    row: dict[str, Any] = {"shape": shape, "events": events}
    with open(path, "rb") as lines:
        prebuilt = [SDK_EVENT.validate_python(loads(line)) for line in lines]
    work = candidates(path, prebuilt, shape)
    samples: dict[str, list[float]] = {name: [] for name in work}
    names = list(work)
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(timed(work[name]))
    for name, times in samples.items():
        row[name] = statistics.median(times)
        row[f"{name}_min"] = min(times)
    ragas_file = [row[k] for k in ("ragas_file_python", "ragas_file_json") if k in row]
    if ragas_file:
        row["ragas_file"] = min(ragas_file)  # its fairest: the faster of its two paths
    work.clear()
    prebuilt.clear()  # free the models before the memory runs
    if memory:
        row["ours_rss"] = peak_rss_mb(OURS_MEMORY, path)
        if "ragas_file" in row:
            row["ragas_rss"] = peak_rss_mb(RAGAS_MEMORY, path)
    os.unlink(path)
    return row


def micro(row: dict[str, Any], key: str) -> str:
    """Median and minimum µs per event."""
    if key not in row:
        return "—"
    scale = 1e6 / row["events"]
    return f"{row[key] * scale:.2f} ({row[key + '_min'] * scale:.2f})"


def ratio(row: dict[str, Any], numerator: str, denominator: str) -> str:
    if numerator not in row or denominator not in row:
        return "—"
    return f"{row[numerator] / row[denominator]:.2f}x"


TIMED = [
    ("floor", "floor"),
    ("bare", "bare fold"),
    ("ours_file", "ours file"),
    ("ours_sdk", "ours sdk"),
    ("to_ragas", "to_ragas"),
    ("to_openai", "to_openai"),
    ("to_langchain", "to_langchain"),
    ("dropin_sdk", "drop-in sdk"),
    ("ragas_sdk", "ragas sdk (silenced)"),
    ("ragas_sdk_logged", "ragas sdk (logging)"),
    ("ragas_file_python", "ragas file (validate_python)"),
    ("ragas_file_json", "ragas file (validate_json)"),
]
RATIOS = [
    ("ragas_file", "ours_file", "ragas file / ours file"),
    ("ragas_sdk", "ours_sdk", "ragas sdk / ours sdk"),
    ("dropin_sdk", "ragas_sdk", "drop-in / ragas sdk"),
    ("ours_file", "floor", "ours / floor"),
    ("bare", "floor", "bare / floor"),
]


def table(rows: list[dict[str, Any]], memory: bool) -> str:
    """Two tables: µs per event, median (min), then the ratios of the medians."""
    head = ["shape", "events", *(title for _, title in TIMED)]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        cells = [row["shape"], f"{row['events']:,}", *(micro(row, key) for key, _ in TIMED)]
        lines.append("| " + " | ".join(cells) + " |")
    head = ["shape", "events", *(title for _, _, title in RATIOS)]
    if memory:
        head += ["ours peak MB", "ragas peak MB"]
    lines += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        cells = [row["shape"], f"{row['events']:,}"]
        cells += [ratio(row, top, bottom) for top, bottom, _ in RATIOS]
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
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (>= 1)")
    parser.add_argument("--memory", action="store_true", help="peak RSS in a fresh process")
    parser.add_argument("--json", help="also write the raw figures to this file")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for shape in args.shapes.split(","):
            for size in map(parse_size, args.sizes.split(",")):
                rows.append(measure(shape, size, max(1, args.rounds), args.memory, workdir))
                print(f"measured {shape} at {rows[-1]['events']:,} events", file=sys.stderr)
    print(describe_machine())
    print()
    print(table(rows, args.memory))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
