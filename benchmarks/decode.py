"""orjson against msgspec on AG-UI event lines: the decode alone, and the whole file path.

Usage::

    pip install ".[fast]" msgspec
    python benchmarks/decode.py [--shapes per_token,mixed] [--size 100k] [--rounds 5]

The reader decodes each JSONL line with ``orjson.loads`` into a dict, which the fold
reads. msgspec offers more: ``decode_lines`` (a whole file at once), a reusable
``Decoder``, and typed decoding into ``Struct`` classes chosen by a tagged union on
``type``. The first table times each way of decoding the lines alone (µs per event,
median of the rounds, minimum in parentheses; every candidate once per round, the order
rotating). The second folds each shape's file with ``fold(path)`` in a fresh process per
round, with orjson, and with msgspec's ``Decoder.decode`` put where the reader calls
``orjson.loads`` (nothing else changes), so it shows what adopting msgspec for lines
would give the whole path.

Typed structs are timed for the decode only: the fold reads dicts (unknown keys kept and
reported, values checked one by one with diagnostics), so structs would be converted
back, or the fold rewritten around them. Why msgspec is not adopted for lines although
it decodes them faster: benchmarks/README.md, eleventh round.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from shapes import SHAPES, parse_size, write_jsonl  # noqa: E402

# The child that folds one file, with orjson or with msgspec in its place.
CHILD = """
import sys, time
if sys.argv[2] == "msgspec":
    import types, msgspec, orjson
    shim = types.ModuleType("orjson")
    shim.__dict__.update(orjson.__dict__)
    shim.loads = msgspec.json.Decoder().decode
    sys.modules["orjson"] = shim
from agui_transcripts import fold
start = time.perf_counter()
transcript = fold(sys.argv[1])
print(time.perf_counter() - start, len(transcript.messages))
"""


def _structs() -> Any:
    """A tagged union of one Struct per AG-UI event type, every field optional and untyped.

    Untyped fields keep the comparison to what orjson does (build the values), with the
    dispatch on ``type`` and the field names msgspec's own.
    """
    import msgspec
    from ag_ui.core import events

    classes = []
    for name in events.__all__:
        model = getattr(events, name)
        fields = getattr(model, "model_fields", None)
        if not fields or "type" not in fields:
            continue
        tag = getattr(fields["type"].default, "value", None)
        if not isinstance(tag, str):
            continue  # the base class: no type of its own
        members = [
            (field.alias or key, Any, None) for key, field in fields.items() if key != "type"
        ]
        classes.append(
            msgspec.defstruct(name, members, tag=tag, tag_field="type", omit_defaults=True)
        )
    union: Any = classes[0]
    for cls in classes[1:]:
        union = union | cls
    return union


def _candidates(lines: list[bytes], data: bytes) -> dict[str, Callable[[], object]]:
    import msgspec
    import orjson

    untyped = msgspec.json.Decoder()
    typed = msgspec.json.Decoder(_structs())
    orjson_loads = orjson.loads
    decode = untyped.decode
    typed_decode = typed.decode
    return {
        "orjson.loads": lambda: [orjson_loads(line) for line in lines],
        "msgspec Decoder": lambda: [decode(line) for line in lines],
        "msgspec decode_lines": lambda: untyped.decode_lines(data),
        "msgspec typed structs": lambda: [typed_decode(line) for line in lines],
    }


def _fold_time(path: Path, decoder: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), decoder],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return float(done.stdout.split()[0])


def _cell(times: list[float], events: int) -> str:
    per = [t / events * 1e6 for t in times]
    return f"{statistics.median(per):.3f} ({min(per):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="per_token,mixed,reasoning,chunks")
    parser.add_argument("--size", default="100k")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    size = parse_size(args.size)
    shapes = args.shapes.split(",")
    with tempfile.TemporaryDirectory() as work:
        decode_rows = []
        fold_rows = []
        for shape in shapes:
            path = Path(work) / f"{shape}.jsonl"
            events = write_jsonl(SHAPES[shape], size, str(path))
            data = path.read_bytes()
            lines = data.splitlines()
            candidates = _candidates(lines, data)
            names = list(candidates)
            times: dict[str, list[float]] = {name: [] for name in names}
            folds: dict[str, list[float]] = {"orjson": [], "msgspec": []}
            for round_ in range(args.rounds):
                order = names[round_ % len(names) :] + names[: round_ % len(names)]
                for name in order:
                    start = time.perf_counter()
                    candidates[name]()
                    times[name].append(time.perf_counter() - start)
                for decoder in ("orjson", "msgspec")[:: 1 if round_ % 2 == 0 else -1]:
                    folds[decoder].append(_fold_time(path, decoder))
            base = statistics.median(times["orjson.loads"])
            decode_rows.append(
                f"| {shape} | "
                + " | ".join(_cell(times[name], events) for name in names)
                + " | "
                + " | ".join(f"{statistics.median(times[n]) / base:.2f}x" for n in names[1:])
                + " |"
            )
            ratio = statistics.median(folds["msgspec"]) / statistics.median(folds["orjson"])
            fold_rows.append(
                f"| {shape} | {_cell(folds['orjson'], events)} | "
                f"{_cell(folds['msgspec'], events)} | {ratio:.3f}x |"
            )
    print(f"Decoding the lines alone, µs per event, {size:,} events, {args.rounds} rounds")
    print("| shape | " + " | ".join(names) + " | " + " | ".join(names[1:]) + " (vs orjson) |")
    print("| --- |" + " ---: |" * (2 * len(names) - 1))
    print("\n".join(decode_rows))
    print()
    print("The whole file path, fold(path), µs per event")
    print("| shape | orjson | msgspec Decoder | msgspec / orjson |")
    print("| --- | ---: | ---: | ---: |")
    print("\n".join(fold_rows))


if __name__ == "__main__":
    main()
