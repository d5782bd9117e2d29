"""Extract an agent's trajectory from a recorded AG-UI run for trajectory evaluators.

LangChain-style evaluators (agentevals' trajectory match, LangSmith datasets) take the
run as LangChain messages or as OpenAI-style message dicts, every tool call before its
result. This script folds the recorded pydantic-ai run, prints the LangChain trajectory,
and scores its tool calls against a reference trajectory with a strict match (same
tools, same arguments, same order), the rule agentevals calls ``strict``.

Needs, from the clone's root: pip install ".[langchain]"
Usage: python examples/langchain_trajectory.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agui_transcripts import fold
from agui_transcripts.adapters.langchain import to_langchain
from agui_transcripts.adapters.openai import to_openai

RUNS = Path(__file__).parent / "runs"
LOG = RUNS / "pydantic-ai-weather.sse"
INPUTS = json.loads((RUNS / "pydantic-ai-weather.input.json").read_text(encoding="utf-8"))

REFERENCE = [("get_weather", {"city": "Paris"}), ("show_map", {"city": "Paris", "zoom": 11})]


def tool_trajectory(messages: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (tool, arguments) pairs an agent called, in order."""
    return [
        (call["name"], call["args"])
        for message in messages
        if message.type == "ai"
        for call in message.tool_calls
    ]


def main() -> int:
    transcript = fold(LOG, run_input=INPUTS)
    messages = to_langchain(transcript)
    for message in messages:
        calls = [f"{c['name']}({c['args']})" for c in getattr(message, "tool_calls", [])]
        answers = getattr(message, "tool_call_id", None)
        detail = f" -> {', '.join(calls)}" if calls else f" (answers {answers})" if answers else ""
        print(f"{message.type:<6} {message.content!r}{detail}")

    trajectory = tool_trajectory(messages)
    matched = trajectory == REFERENCE
    print(f"strict trajectory match: {matched}")
    # The same run as OpenAI-style dicts, the other input agentevals accepts.
    openai_messages = to_openai(transcript)
    print("openai roles:", [m["role"] for m in openai_messages])
    return 0 if matched else 1


if __name__ == "__main__":
    sys.exit(main())
