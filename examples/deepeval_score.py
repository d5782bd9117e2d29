"""Score a recorded AG-UI run with DeepEval, with a metric that needs no LLM.

The pydantic-ai recording has one user turn, so ``to_deepeval`` makes an ``LLMTestCase``:
the question, the final answer, both tool calls with their results, and the weather
tool's result as retrieval context. ``PatternMatchMetric`` checks the answer states the
forecast the tool returned. (LLM-judged metrics take the same test case once a model is
configured.)

Needs, from the clone's root: pip install ".[deepeval]"
Usage: python examples/deepeval_score.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")

from deepeval.metrics import PatternMatchMetric

from agui_transcripts import fold
from agui_transcripts.adapters.deepeval import to_deepeval

RUNS = Path(__file__).parent / "runs"
LOG = RUNS / "pydantic-ai-weather.sse"
INPUTS = json.loads((RUNS / "pydantic-ai-weather.input.json").read_text(encoding="utf-8"))


def main() -> None:
    transcript = fold(LOG, run_input=INPUTS)
    case = to_deepeval(transcript, retrieval_tools=["get_weather"])
    print(f"{type(case).__name__}: {case.input}")
    for call in case.tools_called or ():
        print(f"  tool {call.name}({call.input_parameters}) -> {call.output}")
    print(f"  retrieval context: {case.retrieval_context}")
    print(f"  answer: {case.actual_output}")
    metric = PatternMatchMetric(pattern=r".*18°C and sunny.*")
    score = metric.measure(case)
    print(f"PatternMatchMetric: {score} ({'pass' if metric.success else 'fail'})")


if __name__ == "__main__":
    main()
