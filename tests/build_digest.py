"""Everything the package makes of every corpus, as one JSON value per case.

The compiled build must give exactly what the pure-Python build gives:
``test_compiled_build.py`` runs this in both and compares. A case is a stream of the
test corpora or the examples (lenient fold with its recorded inputs, strict fold,
``check``), a differential record, a random stream, a benchmark shape (as wire dicts and
as ``ag_ui.core`` models); its value holds the transcript, runs, tool-call records,
diagnostics, continuation, every projection and the OpenAI and AG-UI renderings.

Run as ``python -m tests.build_digest OUT.json`` to write the digest for the package
this interpreter imports.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, get_args

from agui_transcripts import ProtocolError, Transcript, check, fold
from agui_transcripts.adapters.agui import to_dicts
from agui_transcripts.adapters.openai import to_openai
from agui_transcripts.projection import Policy, ProjectionError, Subagents

from .generate import random_stream

ROOT = Path(__file__).resolve().parent.parent
STREAM_SUFFIXES = (".jsonl", ".sse")
RANDOM_SEEDS = range(300)
SHAPE_SIZE = 3_000


def _failure(exc: BaseException) -> dict[str, str]:
    return {"raised": type(exc).__name__, "message": str(exc)}


def _attempt(make: Callable[[], Any]) -> Any:
    try:
        return make()
    except (ProtocolError, ProjectionError) as exc:
        return _failure(exc)


def describe(transcript: Transcript) -> dict[str, Any]:
    """The transcript and everything read from it, as plain JSON values."""
    projections = {}
    for policy in get_args(Policy):
        for subagents in get_args(Subagents):

            def projected(policy: Any = policy, subagents: Any = subagents) -> Any:
                result = transcript.project(policy, subagents=subagents)
                return {
                    "messages": [message.to_dict() for message in result.messages],
                    "diagnostics": [dataclasses.asdict(d) for d in result.diagnostics],
                }

            projections[f"{policy}/{subagents}"] = _attempt(projected)
    return {
        "messages": transcript.to_dicts(),
        "runs": [run.to_dict() for run in transcript.runs],
        "tool_calls": {key: record.to_dict() for key, record in transcript.tool_calls.items()},
        "state": transcript.state,
        "diagnostics": [dataclasses.asdict(d) for d in transcript.diagnostics],
        "continuation": dataclasses.asdict(transcript.continuation()),
        "projections": projections,
        "openai": _attempt(lambda: to_openai(transcript)),
        "agui": _attempt(lambda: to_dicts(transcript)),
    }


def _streams() -> list[Path]:
    found = [
        path
        for folder in (ROOT / "tests", ROOT / "examples")
        for path in folder.rglob("*")
        if path.suffix in STREAM_SUFFIXES and path.is_file()
    ]
    return sorted(found)


def _lenient(path: Path) -> Any:
    return describe(fold(path))


def _strict(path: Path) -> Any:
    return _attempt(lambda: describe(fold(path, strict=True)))


def _checked(path: Path) -> Any:
    return [dataclasses.asdict(d) for d in check(path)]


def _folded(events: list[Any], inputs: Any = None) -> Any:
    return describe(fold(events, run_input=inputs))


def _random(seed: int) -> Any:
    events, inputs = random_stream(seed)
    return _folded(events, inputs)


def cases() -> Iterator[tuple[str, Callable[[], Any]]]:
    """Each case's name and the function that computes its value."""
    for path in _streams():
        name = path.relative_to(ROOT).as_posix()
        yield f"{name} lenient", partial(_lenient, path)
        yield f"{name} strict", partial(_strict, path)
        yield f"{name} check", partial(_checked, path)
    records = ROOT / "tests" / "golden" / "differential" / "corpus.jsonl"
    for line in records.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        yield f"differential {record['seed']}", partial(_folded, record["events"], record["inputs"])
    for seed in RANDOM_SEEDS:
        yield f"random {seed}", partial(_random, seed)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from shapes import SHAPES

    for shape, generate in SHAPES.items():
        events = list(generate(SHAPE_SIZE))
        yield f"shape {shape} dicts", partial(_folded, events)
        yield f"shape {shape} models", partial(_folded, _models(events))


def _models(events: list[dict[str, Any]]) -> list[Any]:
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    return [adapter.validate_python(event) for event in events]


def digest() -> dict[str, str]:
    """Every case's value as canonical JSON text, by case name."""
    return {
        name: json.dumps(make(), sort_keys=True, ensure_ascii=False, default=repr)
        for name, make in cases()
    }


def main(argv: list[str]) -> int:
    Path(argv[0]).write_text(json.dumps(digest()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
