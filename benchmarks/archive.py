"""Archive to Parquet: one process, the command line's process pool, and Ray Data.

    python benchmarks/archive.py --logs 10000,40000 --workers 1,2 [--modes embedded,pool,ray]
        [--big 1000000]

Generates an archive of JSONL logs (the benchmark shapes in turn, at sizes from 20 to
2,500 events: mixed, a few thousand at most) and converts it to Parquet rows
(``target='openai'``) each way, each in a fresh process:

- **embedded**: ``write_parquet(rows_of_logs(...), jobs=1)`` in one process;
- **pool N**: ``agui-transcripts convert ARCHIVE --format parquet -j N``, in-process;
- **ray N**: ``convert_with_ray`` on a local instance started with ``num_cpus=N``.

It prints logs/s, events/s, the driver's peak RSS and the largest worker's peak RSS
(VmHWM, sampled from ``/proc`` while the workers live), so memory
per worker can be compared as the archive grows. ``--big N`` also converts one N-event
log through the dataset path and reports its peak. No test asserts a timing; the
runner itself is tested at a tiny size in ``tests/test_benchmarks.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from shapes import SHAPES, write_jsonl

SIZES = (20, 50, 100, 200, 400, 800, 2500)


def make_archive(folder: Path, logs: int) -> int:
    """``logs`` files cycling through shapes and sizes; returns the events written."""
    folder.mkdir(parents=True, exist_ok=True)
    templates: dict[tuple[str, int], tuple[Path, int]] = {}
    cache = folder.parent / "templates"
    cache.mkdir(exist_ok=True)
    shapes = sorted(SHAPES)
    total = 0
    for number in range(logs):
        shape = shapes[number % len(shapes)]
        size = SIZES[(number // len(shapes)) % len(SIZES)]
        key = (shape, size)
        if key not in templates:
            path = cache / f"{shape}-{size}.jsonl"
            templates[key] = (path, write_jsonl(SHAPES[shape], size, str(path)))
        template, events = templates[key]
        shutil.copyfile(template, folder / f"run-{number:06d}.jsonl")
        total += events
    return total


def _peak_kib(pid: str = "self") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class PeakSampler:
    """The largest peak RSS (VmHWM) among this process's descendants, sampled as they run.

    Pool workers fork from a fork server and Ray's from its raylet, so neither is a
    child this process waits for; their peaks are read from ``/proc`` while they live.
    """

    def __init__(self, keep: Callable[[str], bool] = lambda pid: True) -> None:
        self.keep = keep
        self.peaks: dict[str, int] = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(0.2):
            self.sample()

    def sample(self) -> None:
        for pid in _descendants(os.getpid()):
            if self.keep(pid):
                self.peaks[pid] = max(self.peaks.get(pid, 0), _peak_kib(pid))

    def stop(self) -> int:
        self.sample()
        self.stopped.set()
        self.thread.join()
        return max(self.peaks.values(), default=0)


def _descendants(root: int) -> list[str]:
    parents: dict[str, str] = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            parents[pid] = stat.rsplit(")", 1)[1].split()[1]
    found, frontier = [], [str(root)]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def measure(mode: str, workers: int, archive: str, output: str) -> dict[str, Any]:
    """Run one conversion in this (fresh) process; what it took."""
    start = time.perf_counter()
    worker_kib = 0
    if mode == "embedded":
        from agui_transcripts.arrow import write_parquet
        from agui_transcripts.rows import rows_of_logs

        write_parquet(rows_of_logs([archive], jobs=1), output)
        worker_kib = _peak_kib()  # the one process is its own worker
    elif mode == "pool":
        from agui_transcripts.cli import main

        sampler = PeakSampler()
        code = main(["convert", archive, "--to", "openai", "--format", "parquet",
                     "-j", str(workers), "-o", output])  # fmt: skip
        if code not in (0, 1):
            raise SystemExit(f"convert exited {code}")
        # -j 1 converts in this process: its one worker is the driver.
        worker_kib = sampler.stop() if workers > 1 else _peak_kib()
    else:
        import ray

        from agui_transcripts.distributed import convert_with_ray

        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        sampler = PeakSampler(keep=_is_ray_worker)
        start = time.perf_counter()  # the instance's start-up is not the conversion
        convert_with_ray([archive], output, logs_per_task=64)
        elapsed = time.perf_counter() - start
        worker_kib = sampler.stop()
        ray.shutdown()
        return {"seconds": elapsed, "driver_kib": _peak_kib(), "worker_kib": worker_kib}
    return {
        "seconds": time.perf_counter() - start,
        "driver_kib": _peak_kib(),
        "worker_kib": worker_kib,
    }


def _is_ray_worker(pid: str) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"default_worker.py" in command or command.startswith(b"ray::")


def run_fresh(mode: str, workers: int, archive: Path, output: Path) -> dict[str, Any]:
    if output.exists():
        shutil.rmtree(output) if output.is_dir() else output.unlink()
    done = subprocess.run(
        [sys.executable, __file__, "--measure", mode, str(workers), str(archive), str(output)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", default="10000", help="archive sizes, comma-separated")
    parser.add_argument("--workers", default="1,2", help="worker counts for pool and Ray")
    parser.add_argument(
        "--modes", default="embedded,pool", help="of embedded, pool, ray (comma-separated)"
    )
    parser.add_argument("--big", type=int, default=0, help="events of one large log")
    parser.add_argument("--measure", nargs=4, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.measure:
        mode, workers, archive, output = options.measure
        print(json.dumps(measure(mode, int(workers), archive, output)))
        return 0
    workers = [int(n) for n in options.workers.split(",")]
    chosen = options.modes.split(",")
    modes = [("embedded", 1)] if "embedded" in chosen else []
    modes += [(mode, n) for mode in ("pool", "ray") if mode in chosen for n in workers]
    print("| logs | events | mode | s | logs/s | events/s | driver peak MB | worker peak MB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for logs in (int(n) for n in options.logs.split(",")):
            archive = root / f"archive-{logs}"
            events = make_archive(archive, logs)
            for mode, count in modes:
                if mode == "embedded" and logs > min(int(n) for n in options.logs.split(",")):
                    continue  # one process is measured on the smallest archive only
                folder = root / f"out-{mode}-{count}"  # Ray writes a folder of files
                folder.mkdir(exist_ok=True)
                output = folder if mode == "ray" else folder / "rows.parquet"
                got = run_fresh(mode, count, archive, output)
                label = mode if mode == "embedded" else f"{mode} {count}"
                print(
                    f"| {logs:,} | {events:,} | {label} | {got['seconds']:.1f} | "
                    f"{logs / got['seconds']:,.0f} | {events / got['seconds']:,.0f} | "
                    f"{got['driver_kib'] / 1024:.0f} | "
                    f"{got['worker_kib'] / 1024:.0f} |",
                    flush=True,
                )
            shutil.rmtree(archive)
        if options.big:
            big = root / "big.jsonl"
            events = write_jsonl(SHAPES["mixed"], options.big, str(big))
            got = run_fresh("pool", 1, big, root / "big.parquet")
            print(f"\none {events:,}-event log through the dataset path: "
                  f"{got['seconds']:.1f} s, peak {got['driver_kib'] / 1024:.0f} MB")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
