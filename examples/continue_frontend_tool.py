"""Continue a run that stopped on a frontend (client) tool, as an eval harness does.

The agent asked the app to run ``confirm_booking``, a tool the client declared in its run
input, and finished its run. This script replays that first run, asks the transcript what
must happen next, answers the call as the app would, builds the next ``RunAgentInput``,
and checks it against the request the recording's second run was given. Then it folds
both runs and shows the conversation is done.

Usage: python examples/continue_frontend_tool.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agui_transcripts import Collector, fold, read_events

RUNS = Path(__file__).parent / "runs"
LOG = RUNS / "booking-frontend-tool.jsonl"
INPUTS = json.loads((RUNS / "booking-frontend-tool.input.json").read_text(encoding="utf-8"))


def main() -> int:
    events = list(read_events(LOG))
    second_run = next(
        i for i, event in enumerate(events) if event["type"] == "RUN_STARTED" and i > 0
    )
    collector = Collector(run_input=INPUTS[0])
    for event in events[:second_run]:
        collector.feed(event)

    after_first = collector.transcript.continuation()
    print(f"after run-1: {after_first.status}, client calls {after_first.client_calls}")
    for call_id in after_first.client_calls:
        call = collector.transcript.tool_calls[call_id]
        print(f"  the app runs {call.name}({call.parsed_arguments}) [{call.owner}]")
        collector.add_client_result(
            call_id, json.dumps({"confirmed": True}), message_id="tool-result-confirm-1"
        )
    print(f"undelivered results: {collector.transcript.continuation().undelivered}")

    next_input = collector.transcript.next_run_input(run_id="run-2")
    print("next run input:", [message["role"] for message in next_input["messages"]])
    print("same as the recorded request:", next_input == INPUTS[1])

    transcript = fold(events, run_input=[INPUTS[0], next_input])
    print(f"after run-2: {transcript.continuation().status}")
    print(f"response: {transcript.response}")
    return 0 if next_input == INPUTS[1] and not transcript.diagnostics else 1


if __name__ == "__main__":
    sys.exit(main())
