"""Instructions per event: a figure that does not move with the machine's load.

Usage::

    python benchmarks/instructions.py [--shapes mixed,timed] [--size 20k]
        [--pure PYTHON] [--compiled PYTHON]

Wall-clock ratios on a shared machine move by a third from hour to hour; instruction
counts do not. Each shape's JSONL file is folded once under ``valgrind
--tool=callgrind`` (Debian's ``valgrind`` package) in a fresh interpreter, and so is a
two-event file; the difference, divided by the events, is the instructions per event
(the interpreter's start and the imports subtracted). ``PYTHONHASHSEED=0`` keeps dict
layouts, so a repeated run gives the same count to a few parts in ten thousand.

``--pure`` (default: this interpreter) folds with the sources of this tree on its path,
so pure Python whatever is installed; ``--compiled`` names an interpreter whose
environment has the compiled build installed (``AGUI_TRANSCRIPTS_BUILD=compiled pip
install ".[fast]"``), run from outside the tree.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from shapes import SHAPES, parse_size, write_jsonl  # noqa: E402

FOLD = "import sys\nfrom agui_transcripts import fold\nfold(sys.argv[1])\n"
EMPTY = (
    '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
    '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n'
)
COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(python: str, log: Path, work: Path, *, pure: bool) -> int:
    """The instructions one fold of ``log`` takes under callgrind, start included."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONPATH", None)
    if pure:
        env["PYTHONPATH"] = str(HERE.parent)
    script = work / "fold.py"
    script.write_text(FOLD, encoding="utf-8")
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={work / 'callgrind.out'}",
            python,
            str(script),
            str(log),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=work,
        env=env,
    )
    found = COLLECTED.search(done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found[1])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--size", default="20k")
    parser.add_argument("--pure", default=sys.executable, help="interpreter for pure Python")
    parser.add_argument("--compiled", help="interpreter with the compiled build installed")
    options = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    builds = [("pure", options.pure, True)]
    if options.compiled:
        builds.append(("compiled", options.compiled, False))
    size = parse_size(options.size)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        empty = work / "empty.jsonl"
        empty.write_text(EMPTY, encoding="utf-8")
        floor = {name: instructions(py, empty, work, pure=pure) for name, py, pure in builds}
        print(f"instructions per event, {size:,} events per shape, start and imports subtracted")
        print("| shape | " + " | ".join(name for name, _, _ in builds) + " |")
        print("| --- |" + " ---: |" * len(builds))
        for shape in options.shapes.split(","):
            log = work / f"{shape}.jsonl"
            events = write_jsonl(SHAPES[shape], size, str(log))
            cells = [
                f"{(instructions(py, log, work, pure=pure) - floor[name]) / events:,.0f}"
                for name, py, pure in builds
            ]
            print(f"| {shape} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
