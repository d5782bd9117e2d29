"""Score a recorded AG-UI run with ragas, through the drop-in for ragas.integrations.ag_ui.

The only change from a script written for ragas's own integration is the import line:

    # from ragas.integrations.ag_ui import build_sample, convert_to_ragas_messages
    from agui_transcripts.ragas import build_sample, convert_to_ragas_messages

Needs, from the clone's root: pip install ".[ragas]"
ToolCallF1 needs no LLM, so this runs offline.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from ragas.messages import ToolCall
from ragas.metrics.collections import ToolCallF1

from agui_transcripts import read_events
from agui_transcripts.ragas import build_sample, convert_to_ragas_messages

RUN = Path(__file__).parent / "runs" / "pydantic-ai-weather.sse"


async def main() -> float:
    messages = convert_to_ragas_messages(read_events(RUN))
    sample = build_sample(
        user_input="What's the weather in Paris? Show me the city too.",
        messages=messages,
        reference_tool_calls=[
            ToolCall(name="get_weather", args={"city": "Paris"}),
            ToolCall(name="show_map", args={"city": "Paris", "zoom": 11}),
        ],
    )
    for message in sample.user_input:
        print(message.pretty_repr())
    result = await ToolCallF1().ascore(
        user_input=sample.user_input, reference_tool_calls=sample.reference_tool_calls
    )
    print(f"ToolCallF1: {result.value}")
    return float(result.value)


if __name__ == "__main__":
    sys.exit(0 if asyncio.run(main()) == 1.0 else 1)
