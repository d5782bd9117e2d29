"""Record which reference client produced each golden, checking that it still does.

Usage::

    python -m tests.golden.provenance --reference DIR

``DIR`` is a writable copy of the reference fold tool with its dependencies installed
(see ``tests/golden/build.py``). Every expected file and every record of the
differential corpus is folded again by the tool, with the inputs it was made with; where
the tool's messages, state, error, outcome and runs are the golden's own, the golden
gets the tool's ``client`` field. A golden the tool no longer reproduces is listed and
left as it is. ``tests/test_golden_provenance.py`` requires the field everywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agui_transcripts import read_events
from tests.golden.build import KEPT, reference_fold

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
COMPARED = tuple(key for key in KEPT if key != "client")


def expected_files() -> Iterator[tuple[Path, Path, Path | None]]:
    """(expected file, its stream, the run inputs it was made with) for every golden file."""
    for expected in sorted(HERE.rglob("*.expected.json")):
        folder = expected.parent
        no_input = expected.name.endswith(".no-input.expected.json")
        name = expected.name.removesuffix(".no-input.expected.json").removesuffix(".expected.json")
        if folder.name == "examples":  # the shipped examples' goldens
            folder = ROOT / "examples" / "runs"
        stream = next(p for p in (folder / f"{name}.jsonl", folder / f"{name}.sse") if p.exists())
        inputs = folder / f"{name}.input.json"
        yield expected, stream, None if no_input or not inputs.exists() else inputs


def _as_jsonl(stream: Path, workdir: Path) -> Path:
    if stream.suffix == ".jsonl":
        return stream
    events = [event for _, event in read_events(stream).indexed()]
    converted = workdir / f"{stream.stem}.jsonl"
    converted.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return converted


def _stamp(golden: dict[str, Any], folded: dict[str, Any]) -> dict[str, Any] | None:
    if any(golden.get(key) != folded[key] for key in COMPARED):
        return None
    return {**golden, "client": folded["client"]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reference", type=Path, required=True)
    args = parser.parse_args(argv)
    stale: list[str] = []
    stamped = 0
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        empty = workdir / "no.input.json"  # a path that does not exist: no inputs
        for expected, stream, inputs in expected_files():
            text = expected.read_text(encoding="utf-8")
            golden = json.loads(text)
            folded = reference_fold(args.reference, _as_jsonl(stream, workdir), inputs or empty)
            updated = _stamp(golden, folded)
            if updated is None:
                stale.append(str(expected.relative_to(ROOT)))
                continue
            second_line = text.split("\n")[1]
            indent = len(second_line) - len(second_line.lstrip(" "))
            expected.write_text(  # in the file's own layout
                json.dumps(updated, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            stamped += 1
        corpus = HERE / "differential" / "corpus.jsonl"
        records = []
        for line in corpus.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            stream = workdir / f"random-{record['seed']}.jsonl"
            stream.write_text("".join(json.dumps(e) + "\n" for e in record["events"]))
            inputs = workdir / f"random-{record['seed']}.input.json"
            if record["inputs"]:
                inputs.write_text(json.dumps(record["inputs"]), encoding="utf-8")
            updated = _stamp(record["expected"], reference_fold(args.reference, stream, inputs))
            if updated is None:
                stale.append(f"{corpus.relative_to(ROOT)} seed {record['seed']}")
            else:
                record["expected"] = updated
                stamped += 1
            records.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
        corpus.write_text("\n".join(records) + "\n", encoding="utf-8")
    print(f"{stamped} goldens stamped; {len(stale)} not reproduced")
    for name in stale:
        print(f"  not reproduced: {name}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
