"""The OpenTelemetry target: spans per run and per call, over every corpus stream.

The spans are checked against the transcript they came from (one ``invoke_agent`` per
run, one ``execute_tool`` per call under its run, the tool type from the call's owner),
against the OTLP protobuf schema, and against the attribute names of the semantic
conventions version the adapter names, OpenInference's, and ``ag_ui.*``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import ParseDict
from openinference.semconv import trace as oi
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.semconv import schemas
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
from opentelemetry.semconv.attributes import error_attributes

from agui_transcripts import Limits, Transcript, fold
from agui_transcripts.adapters.otel import (
    SEMCONV_SCHEMA_URL,
    SEMCONV_VERSION,
    otlp_json,
    to_otel_spans,
)
from agui_transcripts.logs import fold_log

from .streams import RF, RS, TCA, TCE, TCR, TCS, TMC, TME, TMS

HERE = Path(__file__).parent
ROOT = HERE.parent
STREAM_FILES = sorted(
    [
        *(HERE / "golden" / "streams").glob("*.jsonl"),
        *(HERE / "golden" / "reference-cases").glob("*.jsonl"),
        *(HERE / "golden" / "recordings").glob("*.jsonl"),
        *(HERE / "golden" / "recordings").glob("*.sse"),
        *(ROOT / "examples" / "runs").glob("*.jsonl"),
        *(ROOT / "examples" / "runs").glob("*.sse"),
    ]
)
SPEC = sorted((HERE / "conformance" / "ag-ui-spec" / "streams").glob("*.json"))

CONTENT_NAMES = {
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.definitions",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "input.value",
    "output.value",
    "tool_call.function.arguments",
}


def _constants(*modules: Any) -> set[str]:
    return {
        value
        for module in modules
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str)
    }


ALLOWED = (
    _constants(gen_ai_attributes, error_attributes)
    | _constants(oi.SpanAttributes, oi.ToolAttributes, oi.ToolCallAttributes)
    | {"openinference.span.kind"}
)


def parse_otlp_json(text: str) -> ExportTraceServiceRequest:
    """OTLP/JSON text parsed by the OTLP protobuf schema (failing on anything unknown).

    OTLP/JSON writes ids in hex; protobuf's JSON mapping reads bytes as base64.
    """
    as_protobuf = json.loads(
        text,
        object_hook=lambda node: {
            key: base64.b64encode(bytes.fromhex(value)).decode()
            if key in ("traceId", "spanId", "parentSpanId")
            else value
            for key, value in node.items()
        },
    )
    return ParseDict(as_protobuf, ExportTraceServiceRequest())


def corpus() -> Iterator[Any]:
    for path in STREAM_FILES:
        yield pytest.param(path, id=f"{path.parent.name}/{path.name}")
    for path in SPEC:
        yield pytest.param(path, id=f"spec/{path.name}")


def _transcript(path: Path) -> Transcript:
    if path.suffix == ".json":
        return fold(json.loads(path.read_text(encoding="utf-8"))["stream"])
    transcript, _ = fold_log(str(path))
    return transcript


def _by_id(spans: list[Any]) -> dict[int, Any]:
    return {span.context.span_id: span for span in spans}


def _ancestor_run(span: Any, spans: dict[int, Any]) -> Any:
    """The nearest enclosing span that is a run's (not a subagent's)."""
    node = spans.get(span.parent.span_id) if span.parent else None
    while node is not None and "ag_ui.subagent.run_id" in node.attributes:
        node = spans.get(node.parent.span_id) if node.parent else None
    return node


@pytest.mark.parametrize("path", list(corpus()))
def test_every_run_and_call_becomes_its_span_under_the_right_parent(path: Path) -> None:
    transcript = _transcript(path)
    spans = to_otel_spans(transcript)
    by_id = _by_id(spans)
    runs = [
        s
        for s in spans
        if s.name.startswith("invoke_agent") and "ag_ui.subagent.run_id" not in s.attributes
    ]
    assert sorted(s.attributes["ag_ui.run.index"] for s in runs) == [
        r.index for r in transcript.runs
    ]
    tools = [s for s in spans if s.attributes["gen_ai.operation.name"] == "execute_tool"]
    expected = {r.id: r for r in transcript.tool_calls.values() if r.run_index is not None}
    assert sorted(s.attributes["gen_ai.tool.call.id"] for s in tools) == sorted(expected)
    for span in tools:
        record = expected[str(span.attributes["gen_ai.tool.call.id"])]
        run_span = _ancestor_run(span, by_id)
        assert run_span is not None
        assert run_span.attributes["ag_ui.run.index"] == record.run_index
        assert span.context.trace_id == run_span.context.trace_id
        assert span.attributes.get("gen_ai.tool.type") == {
            "server": "extension",
            "client": "function",
        }.get(record.owner)
        assert span.attributes["ag_ui.tool_call.owner"] == record.owner
        if record.subagent_run_id is not None:
            parent = by_id[span.parent.span_id]
            assert parent.attributes["ag_ui.subagent.run_id"] == record.subagent_run_id
    for span in spans:
        assert span.end_time >= span.start_time, span.name
        assert not (set(span.attributes) & CONTENT_NAMES), "content is opt-in"
        if span.parent is not None:
            assert span.parent.span_id in by_id, "no dangling parent"
    thread = transcript.thread_id
    if thread is not None:
        assert all(s.attributes["gen_ai.conversation.id"] == thread for s in runs)


@pytest.mark.parametrize("path", list(corpus()))
def test_the_otlp_json_is_a_valid_export_request_with_names_of_the_conventions(
    path: Path,
) -> None:
    spans = to_otel_spans(_transcript(path), content=True, scores={"accuracy": 1.0})
    request = parse_otlp_json(json.dumps(otlp_json(spans)))
    written = [s for r in request.resource_spans for g in r.scope_spans for s in g.spans]
    assert len(written) == len(spans)
    assert {g.schema_url for r in request.resource_spans for g in r.scope_spans} == {
        SEMCONV_SCHEMA_URL
    }
    for span in spans:
        unknown = {
            name
            for name in span.attributes
            if name not in ALLOWED and not name.startswith("ag_ui.")
        }
        assert not unknown, f"{span.name}: {sorted(unknown)}"
        for event in span.events:
            assert event.name == "gen_ai.evaluation.result"
            assert set(event.attributes) <= ALLOWED


def test_the_named_convention_version_is_one_the_installed_conventions_know() -> None:
    assert SEMCONV_SCHEMA_URL in {member.value for member in schemas.Schemas}
    assert SEMCONV_VERSION in SEMCONV_SCHEMA_URL


def _timed_run() -> list[dict[str, Any]]:
    t0 = 1_700_000_000_000
    events = [
        RS("r1"),
        TMS("m1"),
        TMC("m1", "Let me check."),
        TME("m1"),
        TCS("c1", "weather", "m1"),
        TCA("c1", '{"city": "Paris"}'),
        TCE("c1"),
        TCR("t1", "c1", "sunny"),
        TCS("c2", "show_map", "m1"),
        TCA("c2", "{}"),
        TCE("c2"),
        RF(
            "r1",
            usage=[{"inputTokens": 10, "outputTokens": 4, "provider": "p", "model": "m"}],
        ),
    ]
    return [{**event, "timestamp": t0 + 100 * i} for i, event in enumerate(events)]


def test_span_times_come_from_the_event_timestamps() -> None:
    t0 = 1_700_000_000_000
    transcript = fold(
        _timed_run(),
        run_input={"threadId": "t", "runId": "r1", "tools": [{"name": "show_map"}]},
    )
    spans = {s.name: s for s in to_otel_spans(transcript)}
    run = spans["invoke_agent"]
    assert (run.start_time, run.end_time) == (t0 * 10**6, (t0 + 1100) * 10**6)
    assert "ag_ui.time.synthetic" not in run.attributes
    weather = spans["execute_tool weather"]
    # From the end of its arguments to its result.
    assert (weather.start_time, weather.end_time) == ((t0 + 600) * 10**6, (t0 + 700) * 10**6)
    assert weather.attributes["gen_ai.tool.type"] == "extension"
    assert spans["execute_tool show_map"].attributes["gen_ai.tool.type"] == "function"
    assert run.attributes["gen_ai.usage.input_tokens"] == 10
    assert run.attributes["gen_ai.usage.output_tokens"] == 4
    assert run.attributes["gen_ai.provider.name"] == "p"
    assert run.attributes["ag_ui.run.pending_tool_call_ids"] == ("c2",)


def test_an_untimed_stream_gets_monotonic_times_flagged_synthetic() -> None:
    events = [{k: v for k, v in e.items() if k != "timestamp"} for e in _timed_run()]
    spans = to_otel_spans(fold(events))
    run = next(s for s in spans if s.name == "invoke_agent")
    assert run.attributes["ag_ui.time.synthetic"] is True
    assert run.start_time < run.end_time
    for tool in (s for s in spans if s.parent is not None):
        assert run.start_time <= tool.start_time <= tool.end_time <= run.end_time


def test_content_is_opt_in_cut_at_the_text_limit_and_redacted() -> None:
    transcript = fold(_timed_run(), run_input={"threadId": "t", "messages": []})
    seen: list[str] = []

    def redact(name: str, value: str) -> str | None:
        seen.append(name)
        return None if name == "gen_ai.tool.call.result" else value.replace("Paris", "[city]")

    spans = to_otel_spans(transcript, content=True, redact=redact, limits=Limits(max_text_chars=40))
    by_name = {s.name: s for s in spans}
    weather = by_name["execute_tool weather"]
    assert weather.attributes["gen_ai.tool.call.arguments"] == '{"city": "[city]"}'
    assert "gen_ai.tool.call.result" not in weather.attributes
    run = by_name["invoke_agent"]
    output = str(run.attributes["gen_ai.output.messages"])
    assert len(output) == 40
    assert run.attributes["ag_ui.content.truncated"] is True
    assert "gen_ai.tool.call.result" in seen


def test_an_error_run_and_an_interrupt_show_in_status_and_ag_ui_attributes() -> None:
    failed = fold(
        [
            RS("r1"),
            TMS("m1"),
            TMC("m1", "x"),
            {"type": "RUN_ERROR", "message": "boom", "code": "E1"},
        ]
    )
    (span,) = to_otel_spans(failed)
    assert span.status.status_code.name == "ERROR"
    assert span.status.description == "boom"
    assert span.attributes["error.type"] == "E1"
    assert span.attributes["ag_ui.run.outcome"] == "error"
    cut = fold([RS("r1"), TMS("m1"), TMC("m1", "x")])
    (span,) = to_otel_spans(cut)
    assert span.attributes["ag_ui.run.outcome"] == "truncated"
    assert span.status.status_code.name == "ERROR"
    interrupted = fold(
        [
            RS("r1"),
            RF(
                "r1",
                outcome={"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approve"}]},
            ),
        ]
    )
    (span,) = to_otel_spans(interrupted)
    assert span.attributes["ag_ui.run.outcome"] == "interrupt"
    assert span.attributes["ag_ui.run.interrupt_ids"] == ("i1",)
    assert span.status.status_code.name == "UNSET"


def test_scores_become_evaluation_events_on_the_last_run() -> None:
    transcript = fold([*_timed_run(), RS("r2"), RF("r2")])
    spans = to_otel_spans(
        transcript,
        scores={"accuracy": 0.75, "verdict": "pass", "faith": {"score": 1, "explanation": "ok"}},
    )
    runs = sorted(
        (s for s in spans if s.parent is None), key=lambda s: s.attributes["ag_ui.run.index"]
    )
    assert [len(s.events) for s in runs] == [0, 3]
    events = {e.attributes["gen_ai.evaluation.name"]: dict(e.attributes) for e in runs[1].events}
    assert events["accuracy"]["gen_ai.evaluation.score.value"] == 0.75
    assert events["verdict"]["gen_ai.evaluation.score.label"] == "pass"
    assert events["faith"]["gen_ai.evaluation.explanation"] == "ok"


def test_a_subagent_is_a_nested_agent_span_holding_its_calls() -> None:
    def sub(event: dict[str, Any]) -> dict[str, Any]:
        return {**event, "subagentRunId": "s1"}

    events = [
        RS("r1"),
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "worker"},
        sub(TMS("m2")),
        sub(TMC("m2", "working")),
        sub(TME("m2")),
        sub(TCS("c9", "lookup", "m2")),
        sub(TCA("c9", "{}")),
        sub(TCE("c9")),
        sub(TCR("t9", "c9", "found")),
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "outcome": {"type": "success"}},
        RF("r1"),
    ]
    spans = to_otel_spans(fold(events))
    by_id = _by_id(spans)
    tool = next(s for s in spans if s.name == "execute_tool lookup")
    subagent = by_id[tool.parent.span_id]
    assert subagent.name == "invoke_agent s1"
    assert subagent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert by_id[subagent.parent.span_id].parent is None
