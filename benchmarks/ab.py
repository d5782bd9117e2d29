"""A/B: the same benchmark on two source trees, interleaved, to tell a change from noise.

Usage::

    git worktree add /somewhere/base <commit>
    python benchmarks/ab.py --base /somewhere/base --head . [--size 100k] [--rounds 7]

Each round folds every shape's file (written once, from this tree's shapes) in a fresh
process per tree, base and head alternating which goes first; each process reports its
best of three. The table gives min and median µs per event over the rounds, per tree, and
head/base. A noisy machine moves both trees alike; only a ratio that holds in min and
median alike is a change.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from shapes import SHAPES, parse_size, write_jsonl  # noqa: E402

TIMER = """
import gc, json, sys, time
import agui_transcripts
from agui_transcripts import fold
best = {"package": agui_transcripts.__file__}
for path in sys.argv[1:]:
    times = []
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        fold(path, inputs_beside=False)
        times.append(time.perf_counter() - start)
    best[path] = min(times)
print(json.dumps(best))
"""


def _run(tree: Path, paths: list[str], workdir: str) -> dict[str, float]:
    # ``python -c`` puts its working directory first on sys.path: run it in the scratch
    # folder, or a checkout there would be measured instead of ``tree``.
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", TIMER, *paths],
        env=env,
        cwd=workdir,
        capture_output=True,
        text=True,
        check=True,
    )
    timings = json.loads(out.stdout)
    package = Path(timings.pop("package")).resolve()
    if not package.is_relative_to(tree):
        raise SystemExit(f"measured {package}, not the tree {tree}")
    return {path: float(seconds) for path, seconds in timings.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--head", type=Path, default=HERE.parent)
    parser.add_argument("--size", default="100k")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    args = parser.parse_args(argv)
    size = parse_size(args.size)
    trees = {"base": args.base.resolve(), "head": args.head.resolve()}
    with tempfile.TemporaryDirectory() as workdir:
        counts: dict[str, int] = {}
        paths: dict[str, str] = {}
        for shape in args.shapes.split(","):
            path = str(Path(workdir) / f"{shape}.jsonl")
            counts[shape] = write_jsonl(SHAPES[shape], size, path)
            paths[shape] = path
        samples: dict[str, dict[str, list[float]]] = {
            name: {shape: [] for shape in paths} for name in trees
        }
        for round_index in range(args.rounds):
            order = ["base", "head"] if round_index % 2 == 0 else ["head", "base"]
            for name in order:
                timings = _run(trees[name], list(paths.values()), workdir)
                for shape, path in paths.items():
                    samples[name][shape].append(timings[path] / counts[shape] * 1e6)
    print(f"µs per event, {args.rounds} rounds, {size:,} events per shape")
    print("| shape | base min | head min | head/base (min) | base median | head median | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for shape in paths:
        base, head = samples["base"][shape], samples["head"][shape]
        low = min(head) / min(base)
        middle = statistics.median(head) / statistics.median(base)
        print(
            f"| {shape} | {min(base):.2f} | {min(head):.2f} | {low:.3f} | "
            f"{statistics.median(base):.2f} | {statistics.median(head):.2f} | {middle:.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
