"""A recorded AG-UI run as Inspect AI messages, ready for an Inspect scorer or log.

Inspect keeps what other targets lose: message and call ids, the visible reasoning (as a
``ContentReasoning`` part), invalid arguments (``parse_error``) and tool errors. This
script folds the hand-written booking recording and prints the messages Inspect holds.

Needs, from the clone's root: pip install ".[inspect]"
Usage: python examples/inspect_messages.py
"""

from __future__ import annotations

import json
from pathlib import Path

from agui_transcripts import fold
from agui_transcripts.adapters.inspect import to_inspect

RUNS = Path(__file__).parent / "runs"
LOG = RUNS / "booking-frontend-tool.jsonl"
INPUTS = json.loads((RUNS / "booking-frontend-tool.input.json").read_text(encoding="utf-8"))


def main() -> None:
    for message in to_inspect(fold(LOG, run_input=INPUTS)):
        parts = message.content if isinstance(message.content, list) else []
        kinds = [part.type for part in parts]
        print(f"{type(message).__name__} {message.id}: {message.text!r} {kinds or ''}".rstrip())
        for call in getattr(message, "tool_calls", None) or ():
            print(f"  call {call.id} {call.function}({call.arguments})")
        if message.role == "tool":
            print(f"  answers {message.tool_call_id} ({message.function})")


if __name__ == "__main__":
    main()
