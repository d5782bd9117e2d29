"""Every corpus stream exported to a real Phoenix over OTLP/HTTP and read back through
Phoenix's own client: span count per stream, names, parent links, the tool spans' types
against each call's owner, the conversation id, and the content when opted in."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from phoenix.client import Client

from agui_transcripts import Transcript
from agui_transcripts.adapters.otel import export_otlp, to_otel_spans
from agui_transcripts.cli import main
from tests.test_otel import SPEC, STREAM_FILES, _transcript

ROOT = Path(__file__).parent.parent.parent
TOOL_TYPES = {"server": "extension", "client": "function"}


def _read_back(url: str, project: str, expected: int) -> list[dict[str, Any]]:
    """The project's spans, once Phoenix has ingested as many as were sent."""
    client = Client(base_url=url)
    deadline = time.monotonic() + 60
    while True:
        try:
            spans: list[dict[str, Any]] = list(
                client.spans.get_spans(project_identifier=project, limit=100_000)
            )
        except Exception:  # the project appears with its first span
            spans = []
        if len(spans) >= expected or time.monotonic() > deadline:
            return spans
        time.sleep(0.5)


def _exported(transcript: Transcript, url: str, project: str, **options: Any) -> list[Any]:
    spans = to_otel_spans(transcript, resource={"openinference.project.name": project}, **options)
    export_otlp(spans, url)
    return spans


def test_every_corpus_stream_reads_back_span_for_span(phoenix: str) -> None:
    project = f"corpus-{uuid.uuid4().hex[:8]}"
    sent: dict[str, list[Any]] = {}
    transcripts: dict[str, Transcript] = {}
    for path in [*STREAM_FILES, *SPEC]:
        name = f"{path.parent.name}/{path.name}"
        transcripts[name] = _transcript(path)
        sent[name] = _exported(transcripts[name], phoenix, project)
    total = sum(len(spans) for spans in sent.values())
    assert total > 300
    back = _read_back(phoenix, project, total)
    by_span_id = {span["context"]["span_id"]: span for span in back}
    assert len(back) == total
    per_trace = Counter(span["context"]["trace_id"] for span in back)
    for name, spans in sent.items():
        traces = {format(span.context.trace_id, "032x") for span in spans}
        assert sum(per_trace[t] for t in traces) == len(spans), name
        transcript = transcripts[name]
        for span in spans:
            got = by_span_id[format(span.context.span_id, "016x")]
            assert got["name"] == span.name
            parent = format(span.parent.span_id, "016x") if span.parent else None
            assert got["parent_id"] == parent, name
            attributes = got["attributes"]
            if attributes.get("gen_ai.operation.name") == "execute_tool":
                assert got["span_kind"] == "TOOL"
                record = transcript.tool_calls[attributes["gen_ai.tool.call.id"]]
                assert attributes.get("gen_ai.tool.type") == TOOL_TYPES.get(record.owner), name
            else:
                assert got["span_kind"] == "AGENT"
                thread = transcript.thread_id
                if thread is not None and "ag_ui.subagent.run_id" not in attributes:
                    assert attributes["gen_ai.conversation.id"] == thread
                    assert attributes["session.id"] == thread
            assert "gen_ai.input.messages" not in attributes  # content is opt-in


def test_content_when_opted_in_and_scores_read_back(phoenix: str) -> None:
    project = f"content-{uuid.uuid4().hex[:8]}"
    path = ROOT / "examples" / "runs" / "pydantic-ai-weather.sse"
    transcript = _transcript(path)
    spans = _exported(
        transcript, phoenix, project, content=True, scores={"accuracy": 0.5}, agent_name="weather"
    )
    back = _read_back(phoenix, project, len(spans))
    runs = [s for s in back if s["span_kind"] == "AGENT"]
    assert {s["name"] for s in runs} == {"invoke_agent weather"}
    last = max(runs, key=lambda s: s["attributes"]["ag_ui.run.index"])
    assert "18°C and sunny in Paris" in last["attributes"]["output.value"]
    assert "gen_ai.input.messages" in last["attributes"]
    (event,) = last["events"]
    assert event["name"] == "gen_ai.evaluation.result"
    assert event["attributes"]["gen_ai.evaluation.score.value"] == 0.5
    tools = {s["attributes"]["gen_ai.tool.name"]: s for s in back if s["span_kind"] == "TOOL"}
    assert (
        tools["get_weather"]["attributes"]["gen_ai.tool.call.result"] == "18°C and sunny in Paris"
    )


def test_the_export_command_reaches_phoenix(
    phoenix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = f"cli-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", f"openinference.project.name={project}")
    runs = ROOT / "examples" / "runs"
    assert main(["export", str(runs), "--otlp", phoenix]) == 0
    sent = int(capsys.readouterr().err.split("sent ")[1].split(" span")[0])
    back = _read_back(phoenix, project, sent)
    assert len(back) == sent
    assert {s["name"].split()[0] for s in back} == {"invoke_agent", "execute_tool"}
