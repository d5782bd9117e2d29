"""Fold a recorded AG-UI run into its transcript and print it.

Usage: python examples/fold_recorded_run.py [LOG [RUN_INPUT.json]]

Without arguments it folds the shipped pydantic-ai recording (two runs: a server tool,
a client tool answered in the second run's input). ``fold`` reads the run inputs
recorded next to the log (``LOG.input.json``) unless a second argument names others.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agui_transcripts import AssistantMessage, ToolMessage, fold

DEFAULT = Path(__file__).parent / "runs" / "pydantic-ai-weather.sse"


def main(argv: list[str]) -> int:
    log = Path(argv[1]) if len(argv) > 1 else DEFAULT
    run_input = json.loads(Path(argv[2]).read_text(encoding="utf-8")) if len(argv) > 2 else None

    transcript = fold(log, run_input=run_input)  # None: the LOG.input.json beside it, if any

    print(f"{log.name}: {len(transcript.messages)} messages, {len(transcript.runs)} runs")
    for message in transcript.messages:
        print(f"  {message.role:<9} {message.text}")
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or ():
                print(f"  {'':<9} -> {call.name}({call.arguments})  [{call.id}]")
        elif isinstance(message, ToolMessage):
            print(f"  {'':<9}    answers {message.tool_call_id}")
    for run in transcript.runs:
        pending = f", pending {run.pending_tool_call_ids}" if run.pending_tool_call_ids else ""
        print(f"  run {run.run_id}: {run.outcome}{pending}")
    print(f"  response: {transcript.response}")
    for diagnostic in transcript.diagnostics:
        print(f"  ! {diagnostic}")
    return 1 if transcript.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
