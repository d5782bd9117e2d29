"""Instructions per event by event type and by layer, in the compiled build.

Usage::

    python benchmarks/per_type.py --compiled PYTHON [--size 20k] [--only STATE]

Each row is a stream that repeats one group of events (a run, a text message, a tool
call and its result, a state delta, ...) until it holds ``--size`` events. Its JSONL
file is folded by ``fold(path)`` under ``valgrind --tool=callgrind`` with the compiled
build (``PYTHON`` names an interpreter whose environment has it installed), and the
inclusive instructions of each layer's entry point are divided by the events:

- **read**: the reader's loop: splitting lines, ``orjson.loads`` (**of which orjson**),
  and the intake's checks and canonical form;
- **chunks**, **verifier**, **reducer**: ``ChunkNormalizer.feed``, ``Verifier.feed``,
  ``Reducer.apply``;
- **rest**: the collector between them (the delta lane included: a plain delta never
  reaches the layers), the end of input and the transcript built from the records.

The figures are where a structural event's cost goes: the input to deciding which
layers a native fold would have to take over.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from shapes import parse_size  # noqa: E402

Event = dict[str, Any]
FOLD = "import sys\nfrom agui_transcripts import fold\nfold(sys.argv[1])\n"

# Each layer's entry point in the compiled build, as callgrind names it.
LAYERS: dict[str, str] = {
    "total": r"CPyDef_collector___fold ",
    "read": r"CPyDef_readers____read_blocks_EventReader_gen_____mypyc_generator_helper__ ",
    "of which orjson": r"\?\?\?:loads \[\S*orjson",
    "chunks": r"CPyDef_chunks___ChunkNormalizer___feed ",
    "verifier": r"CPyDef_verify___Verifier___feed ",
    "reducer": r"CPyDef_reduce___Reducer___apply ",
}
ROW = re.compile(r"^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$")


def _started(run: str, messages: list[Event] | None = None) -> Event:
    return {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": run,
        "input": {
            "threadId": "t",
            "runId": run,
            "state": {},
            "messages": messages or [{"id": f"u-{run}", "role": "user", "content": "Hi?"}],
            "tools": [],
            "context": [],
            "forwardedProps": {},
        },
    }


def _finished(run: str) -> Event:
    return {"type": "RUN_FINISHED", "threadId": "t", "runId": run}


def _text(i: int) -> list[Event]:
    m = f"m{i}"
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": m, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": m, "delta": "The weather is mild."},
        {"type": "TEXT_MESSAGE_END", "messageId": m},
    ]


def _call(i: int) -> list[Event]:
    c = f"c{i}"
    return [
        {"type": "TOOL_CALL_START", "toolCallId": c, "toolCallName": "f", "parentMessageId": "m"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": c, "delta": '{"city": "Paris"}'},
        {"type": "TOOL_CALL_END", "toolCallId": c},
        {"type": "TOOL_CALL_RESULT", "messageId": f"r{i}", "toolCallId": c, "content": "18C"},
    ]


def _reasoning(i: int) -> list[Event]:
    m = f"th{i}"
    return [
        {"type": "REASONING_START", "messageId": m},
        {"type": "REASONING_MESSAGE_START", "messageId": m, "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": m, "delta": "Let me think."},
        {"type": "REASONING_MESSAGE_END", "messageId": m},
        {"type": "REASONING_END", "messageId": m},
    ]


def _chunks(i: int) -> list[Event]:
    return [
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": f"k{i}", "delta": "The weather "},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "is mild."},
    ]


def _snapshot(i: int) -> list[Event]:
    return [
        *_text(i),
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": f"u-r{i}", "role": "user", "content": "Hi?"},
                {"id": f"m{i}", "role": "assistant", "content": "The weather is mild."},
            ],
        },
    ]


# name -> (the group's events given its number, whether each group is a run of its own)
GROUPS: dict[str, tuple[Callable[[int], list[Event]], bool]] = {
    "RUN_STARTED (input) + RUN_FINISHED": (lambda i: [], True),
    "TEXT_MESSAGE_START/CONTENT/END": (_text, False),
    "TOOL_CALL_START/ARGS/END + RESULT": (_call, False),
    "REASONING_START/MESSAGE_*/END": (_reasoning, False),
    "TEXT_MESSAGE_CHUNK (open + continue)": (_chunks, False),
    "STEP_STARTED/FINISHED": (
        lambda i: [
            {"type": "STEP_STARTED", "stepName": f"s{i}"},
            {"type": "STEP_FINISHED", "stepName": f"s{i}"},
        ],
        False,
    ),
    "STATE_SNAPSHOT": (
        lambda i: [{"type": "STATE_SNAPSHOT", "snapshot": {"step": i, "city": "Paris"}}],
        False,
    ),
    "STATE_DELTA": (
        lambda i: [
            {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/step", "value": i}]}
        ],
        False,
    ),
    "MESSAGES_SNAPSHOT (+ its text triad)": (_snapshot, True),
    "ACTIVITY_SNAPSHOT": (
        lambda i: [
            {
                "type": "ACTIVITY_SNAPSHOT",
                "messageId": f"act{i}",
                "activityType": "plan",
                "content": {"steps": ["look", "answer"]},
            }
        ],
        False,
    ),
    "CUSTOM": (lambda i: [{"type": "CUSTOM", "name": "ping", "value": {"n": i}}], False),
}


def write_group(name: str, size: int, path: Path) -> int:
    """Write a stream repeating the group up to ``size`` events; the events written."""
    build, own_run = GROUPS[name]
    lines: list[str] = []
    if not own_run:  # one run: its state, and "m", the calls' parent message
        lines += [
            json.dumps(event)
            for event in [
                _started("r"),
                {"type": "STATE_SNAPSHOT", "snapshot": {"step": 0}},
                {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
                {"type": "TEXT_MESSAGE_END", "messageId": "m"},
            ]
        ]
    i = 0
    while len(lines) < size:
        if own_run:
            run = f"r{i}"
            lines += [json.dumps(e) for e in [_started(run), *build(i), _finished(run)]]
        else:
            lines += [json.dumps(e) for e in build(i)]
        i += 1
    if not own_run:
        lines.append(json.dumps(_finished("r")))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def layer_costs(python: str, log: Path, work: Path) -> dict[str, int]:
    """Inclusive instructions of each layer's entry point in one fold of ``log``."""
    out = work / "callgrind.out"
    script = work / "fold.py"
    script.write_text(FOLD, encoding="utf-8")
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONPATH", None)
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    subprocess.run(
        [*command, python, str(script), str(log)],
        capture_output=True,
        check=True,
        cwd=work,
        env=env,
    )
    annotated = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    costs = dict.fromkeys(LAYERS, 0)
    for line in annotated.splitlines():
        found = ROW.match(line)
        if found is None:
            continue
        for layer, pattern in LAYERS.items():
            if costs[layer] == 0 and re.search(pattern, found[2] + " "):
                costs[layer] = int(found[1].replace(",", ""))
    return costs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--compiled", required=True, help="interpreter with the compiled build")
    parser.add_argument("--size", default="20k")
    parser.add_argument("--only", default="", help="rows whose name holds this text")
    options = parser.parse_args(argv)
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    size = parse_size(options.size)
    columns = ["total", "read", "of which orjson", "chunks", "verifier", "reducer", "rest"]
    print(f"instructions per event, compiled build, {size:,} events per row")
    print("| events repeated | " + " | ".join(columns) + " |")
    print("| --- |" + " ---: |" * len(columns))
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for name in [name for name in GROUPS if options.only in name]:
            log = work / "group.jsonl"
            events = write_group(name, size, log)
            costs = layer_costs(options.compiled, log, work)
            layers = ("read", "chunks", "verifier", "reducer")
            costs["rest"] = costs["total"] - sum(costs[layer] for layer in layers)
            cells = [f"{costs[column] / events:,.0f}" for column in columns]
            print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
