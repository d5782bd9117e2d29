"""A recorded run as OpenAI Responses history and as chat turns for an LLM judge.

The Responses items are what ``client.responses.create(input=...)`` and the openai-agents
SDK take as history; they are the one OpenAI shape that keeps reasoning. The chat turns
are what conversation judges (Opik, MLflow, Langfuse, a prompt of your own) read. This
script folds the hand-written booking recording (reasoning, a frontend tool answered in
the second run), prints both, and checks the Responses items with the ``openai``
package's own types when it is installed.

Usage: python examples/judge_views.py
"""

from __future__ import annotations

import json
from pathlib import Path

from agui_transcripts import fold
from agui_transcripts.adapters.chat_turns import to_chat_turns
from agui_transcripts.adapters.responses import to_responses

RUNS = Path(__file__).parent / "runs"
LOG = RUNS / "booking-frontend-tool.jsonl"
INPUTS = json.loads((RUNS / "booking-frontend-tool.input.json").read_text(encoding="utf-8"))


def main() -> None:
    transcript = fold(LOG, run_input=INPUTS)
    items = to_responses(transcript)
    print("Responses items:")
    for item in items:
        detail = item.get("role") or item.get("name") or item.get("call_id") or item.get("id")
        print(f"  {item['type']}: {detail}")
    try:
        from openai.types.responses import ResponseInputParam
        from pydantic import TypeAdapter
    except ImportError:
        print("  (install openai to validate them)")
    else:
        TypeAdapter(ResponseInputParam).validate_python(items)
        print("  valid as openai ResponseInputParam")
    print("Chat turns:")
    for turn in to_chat_turns(transcript):
        print(f"  {turn['role']}: {turn['content']}")


if __name__ == "__main__":
    main()
