"""``from_otel``: GenAI agent traces back into transcripts, ours and another agent's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, set_span_in_context

from agui_transcripts import Transcript
from agui_transcripts.adapters.otel import otlp_json, to_otel_spans
from agui_transcripts.adapters.otel_read import from_otel
from agui_transcripts.model import ToolMessage

from .test_otel import SPEC, STREAM_FILES, _transcript

ROOT = Path(__file__).parent.parent
REAL = [
    *sorted((Path(__file__).parent / "golden" / "recordings").glob("*.jsonl")),
    *sorted((Path(__file__).parent / "golden" / "recordings").glob("*.sse")),
    *sorted((ROOT / "examples" / "runs").glob("*.jsonl")),
    *sorted((ROOT / "examples" / "runs").glob("*.sse")),
]


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _calls(transcript: Transcript) -> list[tuple[str, str, str]]:
    return sorted(
        (r.id, r.name, json.dumps(_arguments(r.arguments), sort_keys=True))
        for r in transcript.tool_calls.values()
        if r.run_index is not None
    )


def _scored(transcript: Transcript) -> tuple[Any, ...]:
    """What an evaluator scores: each call with its result and owner, the response."""
    results = {m.tool_call_id: m.text for m in transcript.messages if isinstance(m, ToolMessage)}
    calls = [
        (*call, results.get(call[0]), transcript.tool_calls[call[0]].owner)
        for call in _calls(transcript)
    ]
    return calls, transcript.response, [r.outcome for r in transcript.runs]


@pytest.mark.parametrize("content", [True, False], ids=["content", "no-content"])
@pytest.mark.parametrize(
    "path",
    [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in [*STREAM_FILES, *SPEC]],
)
def test_every_call_and_run_outcome_comes_back(path: Path, content: bool) -> None:
    transcript = _transcript(path)
    back = from_otel(to_otel_spans(transcript, content=content))
    if content:
        assert _calls(back) == _calls(transcript)
    else:  # no arguments without content
        assert [c[:2] for c in _calls(back)] == [c[:2] for c in _calls(transcript)]
    assert [r.outcome for r in back.runs] == [r.outcome for r in transcript.runs]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_a_recorded_run_comes_back_as_an_evaluator_scores_it(path: Path) -> None:
    transcript = _transcript(path)
    spans = to_otel_spans(transcript, content=True)
    assert _scored(from_otel(spans)) == _scored(transcript)
    assert _scored(from_otel(otlp_json(spans))) == _scored(transcript)  # OTLP/JSON too


def _foreign_trace() -> list[Any]:
    """What another agent's GenAI instrumentation writes: no ag_ui.* at all."""
    kept = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(kept))
    tracer = provider.get_tracer("some-agent")
    t0 = 1_700_000_000_000_000_000
    agent = tracer.start_span(
        "invoke_agent planner",
        context=Context(),
        kind=SpanKind.CLIENT,
        start_time=t0,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": "conv-7",
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "Plan my day"}]}]
            ),
        },
    )
    for n, (name, kind, result) in enumerate(
        [("calendar", "extension", "free after 2pm"), ("notify_user", "function", None)]
    ):
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": f"call-{n}",
            "gen_ai.tool.type": kind,
            "gen_ai.tool.call.arguments": json.dumps({"n": n}),
        }
        if result is not None:
            attributes["gen_ai.tool.call.result"] = result
        tool = tracer.start_span(
            f"execute_tool {name}",
            context=set_span_in_context(agent),
            start_time=t0 + (n + 1) * 10**6,
            attributes=attributes,
        )
        tool.end(end_time=t0 + (n + 2) * 10**6)
    agent.end(end_time=t0 + 5 * 10**6)
    return list(kept.get_finished_spans())


def test_another_agents_trace_reaches_the_adapters() -> None:
    transcript = from_otel(_foreign_trace())
    assert transcript.thread_id == "conv-7"
    assert next(m.role for m in transcript.messages) == "user"
    calendar, notify = (transcript.tool_calls[f"call-{n}"] for n in range(2))
    assert (calendar.name, calendar.owner, calendar.state) == (
        "calendar",
        "server",
        "resolved_server",
    )
    assert (notify.name, notify.owner) == ("notify_user", "client")
    assert transcript.continuation().status == "awaiting_client"
    assert transcript.runs[0].started_at == 1_700_000_000_000
    assert json.loads(calendar.arguments) == {"n": 0}
