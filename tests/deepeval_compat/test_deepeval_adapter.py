"""The DeepEval adapter against the real deepeval package (its own CI leg).

On every golden stream, DeepEval constructs and validates each emitted test case; tool
results land in their call's ``output`` on the turn that made the call; arguments that
are not an object are kept raw and reported; what DeepEval cannot hold is reported.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
import deepeval.test_case as test_case

from agui_transcripts import AssistantMessage, ToolMessage, fold
from agui_transcripts.adapters.deepeval import (
    to_conversational_test_case,
    to_deepeval,
    to_llm_test_case,
)
from tests.golden.corpus import STREAMS, fold_golden
from tests.streams import RF, RS
from tests.test_examples import run_example


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.stem)
def test_every_golden_stream_makes_valid_test_cases(stream: Path) -> None:
    transcript = fold_golden(stream)
    ordered = transcript.ordered()
    results = {m.tool_call_id: m for m in ordered if isinstance(m, ToolMessage)}
    speakers = [m for m in ordered if m.role in ("user", "assistant")]
    if not speakers:
        with pytest.raises(ValueError, match="no user or assistant turn"):
            to_conversational_test_case(transcript)
        return
    case = to_conversational_test_case(transcript)
    assert isinstance(case, test_case.ConversationalTestCase)
    roles = [t.role for t in case.turns]
    assert all(a != b for a, b in itertools.pairwise(roles))
    called = [call for turn in case.turns for call in turn.tools_called or ()]
    expected_calls = [
        c for m in ordered if isinstance(m, AssistantMessage) for c in m.tool_calls or ()
    ]
    assert [c.name for c in called] == [c.name for c in expected_calls]
    for call, source in zip(called, expected_calls, strict=True):
        assert isinstance(call.input_parameters, dict)
        result = results.get(source.id)
        if result is not None and result.error is None:
            assert call.output == result.text
    single = to_llm_test_case(transcript)
    assert isinstance(single, test_case.LLMTestCase)
    assert len(single.tools_called or ()) == len(called)


def test_results_errors_arguments_and_drops() -> None:
    history = [
        {"id": "s", "role": "system", "content": "Be brief"},
        {"id": "u1", "role": "user", "content": "Find docs"},
        {"id": "r1", "role": "reasoning", "content": "think"},
        {
            "id": "m1",
            "role": "assistant",
            "content": "Searching",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"q": "x"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "fetch", "arguments": "[1, 2]"},
                },
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "doc A"},
        {"id": "t2", "role": "tool", "toolCallId": "c2", "content": "", "error": "404"},
        {"id": "m2", "role": "assistant", "content": "Found doc A"},
        {"id": "u2", "role": "user", "content": "Thanks"},
        {"id": "m3", "role": "assistant", "content": "You are welcome"},
    ]
    transcript = fold(
        [RS("r", input={"threadId": "t", "runId": "r", "messages": history}), RF("r")]
    )
    found: list[Any] = []
    case = to_deepeval(transcript, retrieval_tools=["search"], diagnostics=found, scenario="docs")
    assert isinstance(case, test_case.ConversationalTestCase)  # two user turns
    assert case.scenario == "docs"
    assert [(t.role, t.content) for t in case.turns] == [
        ("user", "Find docs"),
        ("assistant", "Searching\nFound doc A"),
        ("user", "Thanks"),
        ("assistant", "You are welcome"),
    ]
    search, fetch = case.turns[1].tools_called
    assert (search.name, search.input_parameters, search.output) == ("search", {"q": "x"}, "doc A")
    assert (fetch.input_parameters, fetch.output) == ({"_raw_arguments": "[1, 2]"}, "Error: 404")
    assert case.turns[1].retrieval_context == ["doc A"]
    assert sorted(d.code for d in found) == [
        "deepeval-arguments-wrapped",
        "deepeval-dropped",
        "deepeval-dropped",
    ]
    single = to_llm_test_case(transcript, expected_output="You are welcome")
    assert single.actual_output == "You are welcome"
    assert single.input == "Find docs\nThanks"


def test_the_deepeval_example_scores_the_recording(examples_dir: Path) -> None:
    lines = run_example(sys.executable, str(examples_dir / "deepeval_score.py"))
    assert lines[0] == "LLMTestCase: What's the weather in Paris? Show me the city too."
    assert "  retrieval context: ['18°C and sunny in Paris']" in lines
    assert lines[-1] == "PatternMatchMetric: 1.0 (pass)"


def test_convert_to_deepeval_writes_the_test_case() -> None:
    import subprocess

    root = Path(__file__).resolve().parent.parent.parent
    log = root / "examples" / "runs" / "pydantic-ai-weather.sse"
    done = subprocess.run(
        [sys.executable, "-m", "agui_transcripts", "convert", "--to", "deepeval", str(log)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    [case] = json.loads(done.stdout)["messages"]
    assert case["input"] == "What's the weather in Paris? Show me the city too."
    assert [call["name"] for call in case["tools_called"]] == ["get_weather", "show_map"]
