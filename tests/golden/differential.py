"""Differential testing: random well-formed streams folded by the reference client and by us.

Usage::

    python -m tests.golden.differential --reference DIR [--count 1000] [--first 1000]
                                        [--keep 300] [--jobs 2] [--dialect NAME]

``DIR`` is a writable copy of the reference fold tool with its dependencies installed.
Streams come from :func:`tests.generate.random_stream` with seeds ``first`` to
``first + count - 1`` (the golden suite uses seeds 1-40). Each is folded by the reference
client and by ``fold(strict=True)``, and the messages, state and run outcomes compared.
Prints the figures and every difference; with ``--keep N`` writes the first N streams
with the reference's result to ``tests/golden/differential/corpus.jsonl``, which the
test suite replays without Node. Exit status 1 when a difference is found.

``--dialect NAME`` rewrites each stream in a producer dialect first (:mod:`tests.
dialects`; those the reference client folds per request: ``recorder-keys``,
``reminting-snapshot``, ``echo-without-resume``, ``dropping-snapshot``), and ``--keep``
writes ``tests/golden/differential/dialects.jsonl`` instead, adding to what it holds of
other dialects.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.dialects import DIALECTS
from tests.generate import random_stream, to_jsonl
from tests.golden.build import reference_fold
from tests.golden.compare import differences

CORPUS = Path(__file__).parent / "differential" / "corpus.jsonl"
DIALECT_CORPUS = CORPUS.with_name("dialects.jsonl")
#: The dialects the reference client replays request by request (the others it rejects).
REPLAYED = ("recorder-keys", "reminting-snapshot", "echo-without-resume", "dropping-snapshot")


def compare_seed(
    tool: Path, seed: int, workdir: Path, dialect: str | None = None
) -> dict[str, Any]:
    events, inputs = random_stream(seed)
    if dialect is not None:
        events = DIALECTS[dialect](events, inputs or None, random.Random(seed)).events
    stream = workdir / f"random-{seed}.jsonl"
    stream.write_text(to_jsonl(events), encoding="utf-8")
    if inputs:
        (workdir / f"random-{seed}.input.json").write_text(json.dumps(inputs), encoding="utf-8")
    expected = reference_fold(tool, stream)
    return {
        "seed": seed,
        "dialect": dialect,
        "events": events,
        "inputs": inputs,
        "expected": expected,
        "differences": differences(events, inputs or None, expected),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reference", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--first", type=int, default=1000)
    parser.add_argument("--keep", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dialect", choices=REPLAYED)
    args = parser.parse_args(argv)
    seeds = range(args.first, args.first + args.count)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        results = list(
            pool.map(lambda s: compare_seed(args.reference, s, Path(tmp), args.dialect), seeds)
        )
    differing = [r for r in results if r["differences"]]
    rejected = sum(1 for r in results if r["expected"]["error"] is not None)
    events = sum(len(r["events"]) for r in results)
    print(
        f"{len(results)} streams ({events} events; the reference rejects {rejected}), "
        f"{len(differing)} with differences"
    )
    for result in differing:
        print(f"seed {result['seed']}: " + "; ".join(result["differences"]))
    if args.keep:
        target = CORPUS if args.dialect is None else DIALECT_CORPUS
        target.parent.mkdir(parents=True, exist_ok=True)
        kept = [r for r in results if not r["differences"]][: args.keep]
        fields: tuple[str, ...] = ("seed", "events", "inputs", "expected")
        lines = []
        if args.dialect is not None:
            fields = ("dialect", *fields)
            if target.exists():  # the other dialects' records stay
                lines = [
                    line
                    for line in target.read_text(encoding="utf-8").splitlines()
                    if json.loads(line)["dialect"] != args.dialect
                ]
        lines += [
            json.dumps({k: r[k] for k in fields}, ensure_ascii=False, separators=(",", ":"))
            for r in kept
        ]
        target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        print(f"{len(kept)} streams kept in {target}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
