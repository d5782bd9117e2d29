"""``convert --format otlp-json`` and ``export --otlp``, the latter to an OTLP/HTTP receiver
on loopback that decodes what it is sent with the OTLP protobuf schema."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from agui_transcripts.cli import main
from agui_transcripts.logs import fold_log

from .test_otel import parse_otlp_json

ROOT = Path(__file__).parent.parent
RUNS = ROOT / "examples" / "runs"
LOGS = sorted([*RUNS.glob("*.jsonl"), *RUNS.glob("*.sse")])


class Receiver:
    """An OTLP/HTTP traces endpoint: keeps each request's headers and decoded spans."""

    def __init__(self, status: int = 200) -> None:
        self.requests: list[tuple[dict[str, str], ExportTraceServiceRequest]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.requests.append((dict(self.headers), request))
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self.thread.start()

    def spans(self) -> list[Any]:
        return [
            span
            for _, request in self.requests
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def _expected_spans(path: Path) -> int:
    transcript, _ = fold_log(str(path))
    calls = sum(r.run_index is not None for r in transcript.tool_calls.values())
    return len(transcript.runs) + calls


def test_convert_writes_one_valid_otlp_json_request_per_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "spans.jsonl"
    assert main(["convert", str(RUNS), "--format", "otlp-json", "-o", str(out), "-q"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(LOGS)
    for line, log in zip(lines, LOGS, strict=True):
        document = json.loads(line)
        request = parse_otlp_json(line)
        spans = [s for r in request.resource_spans for g in r.scope_spans for s in g.spans]
        assert len(spans) == _expected_spans(log)
        assert document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]


def test_otlp_json_refuses_another_target_and_content_needs_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["convert", str(LOGS[0]), "--format", "otlp-json", "--to", "ragas"]) == 2
    assert (
        "--format otlp-json writes OpenTelemetry spans, not --to ragas" in capsys.readouterr().err
    )
    assert main(["convert", str(LOGS[0]), "--content"]) == 2
    assert "--content is for OpenTelemetry spans" in capsys.readouterr().err


def test_export_sends_every_log_with_its_headers_and_content(
    receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "export",
            str(RUNS),
            "--otlp",
            receiver.url,
            "--header",
            "authorization=Bearer k1",
            "--content",
            "--agent-name",
            "weather",
        ]
    )
    assert code == 0
    expected = sum(_expected_spans(log) for log in LOGS)
    assert len(receiver.spans()) == expected
    assert f"sent {expected} spans of 2 logs to {receiver.url}/v1/traces" in capsys.readouterr().err
    assert all(h.get("authorization") == "Bearer k1" for h, _ in receiver.requests)
    names = {span.name for span in receiver.spans()}
    assert "invoke_agent weather" in names
    attributes = {kv.key for span in receiver.spans() for kv in span.attributes}
    assert {"gen_ai.input.messages", "gen_ai.tool.call.arguments"} <= attributes


def test_an_endpoint_that_refuses_stops_the_export_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    refusing = Receiver(status=400)
    try:
        assert main(["export", str(LOGS[0]), "--otlp", refusing.url]) == 2
    finally:
        refusing.close()
    assert f"{refusing.url}/v1/traces did not take" in capsys.readouterr().err


def test_a_header_without_a_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["export", str(LOGS[0]), "--otlp", "http://127.0.0.1:9", "--header", "token"])
    assert stopped.value.code == 2
    assert "a header is written NAME=VALUE" in capsys.readouterr().err
