"""OpenTelemetry spans: a transcript as a trace that tracing and evaluation tools read.

``to_otel_spans`` builds, with the OpenTelemetry SDK (the ``otel`` extra), one trace per
top-level run, following the GenAI semantic conventions of :data:`SEMCONV_VERSION`
(their agent and tool spans are at development status) and writing the OpenInference
attributes beside them (Phoenix prefers those):

=================================  ==================================================
AG-UI                              span
=================================  ==================================================
a run                              ``invoke_agent`` (CLIENT), OpenInference ``AGENT``,
                                   one trace each
a run with ``parentRunId``         ``invoke_agent`` nested in its parent run's span
a subagent's messages and calls    ``invoke_agent {subagentRunId}`` nested in its run
a tool call                        ``execute_tool`` (INTERNAL), OpenInference ``TOOL``
the call's owner (ownership)       ``gen_ai.tool.type``: server ``extension``, client
                                   ``function``, unknown left out
``RUN_FINISHED.usage``             ``gen_ai.usage.*`` summed over its entries
a run error, a truncated run       span status ERROR and ``error.type``
outcome, interrupts, pending ids   ``ag_ui.run.*``
the thread                         ``gen_ai.conversation.id`` and ``session.id``
event timestamps                   span start and end times
=================================  ==================================================

No model-call (``chat``) span is made: AG-UI carries no model-call boundaries. Span
times are the events' timestamps; an untimed stream gets monotonic times from the event
order, one microsecond per event from the moment of the call, flagged
``ag_ui.time.synthetic``. Message content (what a run was sent and added, tool
arguments and results, tool definitions) is left out unless ``content=True``, as the
conventions ask; each value is then cut at ``Limits.max_text_chars`` and passed through
``redact`` if given.
"""

from __future__ import annotations

import base64
import importlib.metadata
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..limits import DEFAULT_LIMITS, Limits
from ..model import (
    AssistantMessage,
    Message,
    RunRecord,
    ToolCallRecord,
    ToolMessage,
    is_synthetic,
)
from ..projection import Subagents
from ..transcript import Transcript
from ..usage import token_totals, usage_labels
from .target import Rendering

__all__ = [
    "SEMCONV_SCHEMA_URL",
    "SEMCONV_VERSION",
    "ExportError",
    "Redact",
    "Score",
    "export_otlp",
    "otlp_json",
    "to_otel_spans",
]

#: The OpenTelemetry semantic conventions version the spans follow.
SEMCONV_VERSION: Final = "1.44.0"
SEMCONV_SCHEMA_URL: Final = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"

Redact = Callable[[str, str], "str | None"]
"""``redact(attribute name, value)``: the value to write instead, or None to leave it out."""

Score = float | int | str | Mapping[str, Any]
"""A score: a number, a label, or ``{"score": ..., "label": ..., "explanation": ...}``."""

_TOOL_TYPES: Final = {"server": "extension", "client": "function"}
# An untimed stream's synthetic clock: nanoseconds per event.
_NS_PER_EVENT: Final = 1_000
_BATCH: Final = 512  # the SDK's BatchSpanProcessor default export batch


class ExportError(RuntimeError):
    """The OTLP endpoint did not take the spans (after the exporter's own retries)."""


def _version() -> str | None:
    """The installed distribution's version, for the instrumentation scope."""
    try:
        return importlib.metadata.version("agui-transcripts")
    except importlib.metadata.PackageNotFoundError:
        return None


def _sdk() -> Any:
    try:
        from opentelemetry.sdk import trace as sdk_trace
    except ImportError as exc:
        raise ImportError(
            "the OpenTelemetry adapter needs the SDK: pip install 'agui-transcripts[otel]'"
        ) from exc
    return sdk_trace


# -- content -------------------------------------------------------------------------


def _parts_of_content(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}] if content else []
    if content is not None and not isinstance(content, list):
        # Neither text nor parts (AG-UI keeps what a client sent): its JSON text.
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
        return [{"type": "text", "content": text}]
    parts: list[dict[str, Any]] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append({"type": "text", "content": part.get("text", "")})
            elif isinstance(part, dict):
                parts.append({"type": str(part.get("type", "unknown"))})
    return parts


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def genai_message(wire: Mapping[str, Any]) -> dict[str, Any] | None:
    """An AG-UI wire message in the conventions' message shape (None: activity)."""
    role = wire.get("role")
    if role == "activity":
        return None
    if role == "tool":
        return {
            "role": "tool",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": wire.get("toolCallId"),
                    "response": wire.get("error") or wire.get("content"),
                }
            ],
        }
    if role == "reasoning":
        return {
            "role": "assistant",
            "parts": [{"type": "reasoning", "content": wire.get("content")}],
        }
    parts = _parts_of_content(wire.get("content"))
    for call in wire.get("toolCalls") or ():
        if isinstance(call, dict):
            function = call.get("function") or {}
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": _arguments(function.get("arguments")),
                }
            )
    return {"role": "system" if role == "developer" else str(role), "parts": parts}


@dataclass(slots=True)
class _Content:
    """What content may be written, cut and redacted as asked."""

    enabled: bool
    max_chars: int | None
    redact: Redact | None
    cut: bool = False

    def value(self, name: str, value: Any) -> str | None:
        if not self.enabled:
            return None
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if self.max_chars is not None and len(text) > self.max_chars:
            text = text[: self.max_chars]
            self.cut = True
        if self.redact is not None:
            return self.redact(name, text)
        return text

    def put(self, attributes: dict[str, Any], names: Iterable[str], value: Any) -> None:
        for name in names:
            written = self.value(name, value)
            if written is not None:
                attributes[name] = written


# -- times ---------------------------------------------------------------------------


def _ns(at_ms: float) -> int:
    """A time in milliseconds since the epoch as a span's nanoseconds."""
    return int(at_ms * 1_000_000)


@dataclass(slots=True)
class _Clock:
    """Span times: the events' timestamps, or synthetic ones from the event order."""

    base_ns: int
    synthetic: bool = False

    def of(self, at_ms: float | None, index: int | None, fallback_ns: int) -> int:
        if at_ms is not None:
            return _ns(at_ms)
        self.synthetic = True
        if index is None:
            return fallback_ns
        return self.base_ns + index * _NS_PER_EVENT


# -- spans ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Run:
    run: RunRecord
    span: Any
    start_ns: int
    end_ns: int
    #: Each subagent's span in the run, with its end time.
    subagents: dict[str, tuple[Any, int]] = field(default_factory=dict)


def _outcome_status(run: RunRecord) -> tuple[Any, str | None, str | None]:
    """(status code name, description, error.type) for a run's span."""
    if run.outcome == "error":
        return "ERROR", run.error_message, run.error_code or "RunError"
    if run.outcome == "truncated":
        return "ERROR", "the stream ended inside the run", "truncated"
    if run.outcome == "success":
        return "OK", None, None
    return "UNSET", None, None


def _usage_attributes(usage: Any) -> dict[str, Any]:
    totals = token_totals(usage)
    out: dict[str, Any] = {}
    if "input_tokens" in totals:
        out["gen_ai.usage.input_tokens"] = totals["input_tokens"]
        out["llm.token_count.prompt"] = totals["input_tokens"]
    if "output_tokens" in totals:
        out["gen_ai.usage.output_tokens"] = totals["output_tokens"]
        out["llm.token_count.completion"] = totals["output_tokens"]
    if "total_tokens" in totals:
        out["llm.token_count.total"] = totals["total_tokens"]
    if "reasoning_tokens" in totals:
        out["gen_ai.usage.reasoning.output_tokens"] = totals["reasoning_tokens"]
    if "cached_input_tokens" in totals:
        out["gen_ai.usage.cache_read.input_tokens"] = totals["cached_input_tokens"]
    if "cache_write_input_tokens" in totals:
        out["gen_ai.usage.cache_creation.input_tokens"] = totals["cache_write_input_tokens"]
    provider, model = usage_labels(usage)
    if provider is not None:
        out["gen_ai.provider.name"] = provider
    if model is not None:
        out["gen_ai.response.model"] = model
    return out


def _score_event(name: str, score: Score) -> dict[str, Any]:
    attributes: dict[str, Any] = {"gen_ai.evaluation.name": name}
    if isinstance(score, Mapping):
        value, label, why = score.get("score"), score.get("label"), score.get("explanation")
    else:
        value, label, why = (
            (score, None, None) if not isinstance(score, str) else (None, score, None)
        )
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        attributes["gen_ai.evaluation.score.value"] = float(value)
    if isinstance(label, str):
        attributes["gen_ai.evaluation.score.label"] = label
    if isinstance(why, str):
        attributes["gen_ai.evaluation.explanation"] = why
    return attributes


class _Builder:
    def __init__(
        self,
        transcript: Transcript,
        tracer: Any,
        *,
        content: _Content,
        agent_name: str | None,
    ) -> None:
        from opentelemetry import trace

        self.trace = trace
        self.transcript = transcript
        self.tracer = tracer
        self.content = content
        self.agent_name = agent_name
        self.clock = _Clock(time.time_ns())
        self.by_message_id = {m.id: m for m in transcript.messages}
        # Each run's own messages in the order an evaluator reads them (each result after
        # its call, text that came while calls were open after their results; no
        # synthetic result), and each subagent's in a run: grouped once, so a long
        # thread costs one pass, not one per run.
        self.added: dict[int, list[Message]] = {}
        self.subagent_messages: dict[tuple[int, str], list[Message]] = {}
        for message in transcript.messages:
            if message.subagent_run_id is not None:
                run = transcript.run_of(message)
                if run is not None:
                    key = (run.index, message.subagent_run_id)
                    self.subagent_messages.setdefault(key, []).append(message)
        if content.enabled:
            for message in transcript.ordered(policy="keep"):
                if message.subagent_run_id is None and not is_synthetic(message):
                    run = transcript.run_of(message)
                    if run is not None:
                        self.added.setdefault(run.index, []).append(message)
        self.by_run_id: dict[str, _Run] = {}

    def _start(
        self, name: str, parent: Any, kind: Any, attributes: dict[str, Any], start_ns: int
    ) -> Any:
        from opentelemetry.context import Context

        context = self.trace.set_span_in_context(parent) if parent is not None else Context()
        return self.tracer.start_span(
            name, context=context, kind=kind, attributes=attributes, start_time=start_ns
        )

    def _conversation(self, run: RunRecord, attributes: dict[str, Any]) -> None:
        """The thread, as the conventions and OpenInference name it."""
        thread = run.thread_id or self.transcript.thread_id
        if thread is not None:
            attributes["gen_ai.conversation.id"] = thread
            attributes["session.id"] = thread

    def run_span(self, run: RunRecord) -> _Run:
        now = self.clock.base_ns
        start = self.clock.of(run.started_at, run.first_event_index, now)
        end = max(start, self.clock.of(run.ended_at, run.last_event_index, start))
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "openinference.span.kind": "AGENT",
            "ag_ui.run.index": run.index,
            "ag_ui.run.outcome": run.outcome or "running",
        }
        self._conversation(run, attributes)
        if self.agent_name:
            attributes["gen_ai.agent.name"] = self.agent_name
            attributes["agent.name"] = self.agent_name
        if run.run_id is not None:
            attributes["ag_ui.run.id"] = run.run_id
        if run.parent_run_id is not None:
            attributes["ag_ui.run.parent_run_id"] = run.parent_run_id
        if run.interrupts:
            attributes["ag_ui.run.interrupt_ids"] = [
                str(i.get("id")) for i in run.interrupts if isinstance(i, dict)
            ]
            attributes["ag_ui.run.interrupts"] = json.dumps(run.interrupts, ensure_ascii=False)
        if run.pending_tool_call_ids:
            attributes["ag_ui.run.pending_tool_call_ids"] = list(run.pending_tool_call_ids)
        attributes.update(_usage_attributes(run.usage))
        status, description, error_type = _outcome_status(run)
        if error_type is not None:
            attributes["error.type"] = error_type
        self._run_content(run, attributes)
        parent = self.by_run_id.get(run.parent_run_id) if run.parent_run_id else None
        span = self._start(
            f"invoke_agent {self.agent_name}" if self.agent_name else "invoke_agent",
            parent.span if parent is not None else None,
            self.trace.SpanKind.CLIENT,
            attributes,
            start,
        )
        if status != "UNSET":
            span.set_status(self.trace.Status(self.trace.StatusCode[status], description))
        made = _Run(run, span, start, end)
        if run.run_id is not None:
            self.by_run_id.setdefault(run.run_id, made)
        return made

    def _run_content(self, run: RunRecord, attributes: dict[str, Any]) -> None:
        if not self.content.enabled:
            return
        sent = (run.input or {}).get("messages")
        if isinstance(sent, list):
            inputs = [m for m in (genai_message(w) for w in sent if isinstance(w, dict)) if m]
            self.content.put(attributes, ("gen_ai.input.messages",), inputs)
            self.content.put(attributes, ("input.value",), inputs)
            attributes.setdefault("input.mime_type", "application/json")
        carried = (
            {w.get("id") for w in sent if isinstance(w, dict)} if isinstance(sent, list) else ()
        )
        added = [m for m in self.added.get(run.index, ()) if m.id not in carried]
        outputs = [g for g in (genai_message(m.to_dict()) for m in added) if g]
        if outputs:
            self.content.put(attributes, ("gen_ai.output.messages",), outputs)
            text = "".join(m.text for m in added if type(m) is AssistantMessage)
            self.content.put(attributes, ("output.value",), text)
            attributes.setdefault("output.mime_type", "text/plain")
        if run.tools:
            self.content.put(attributes, ("gen_ai.tool.definitions",), run.tools)

    def subagent_span(self, owner: _Run, subagent_run_id: str) -> tuple[Any, int]:
        found = owner.subagents.get(subagent_run_id)
        if found is not None:
            return found
        messages = self.subagent_messages.get((owner.run.index, subagent_run_id), [])
        times = [self.transcript.times.messages.get(m.id) for m in messages]
        timed = [t for t in times if t is not None]
        # Untimed, it spans its run (whose own times are synthetic if the run's are).
        start = _ns(min(t[0] for t in timed)) if timed else owner.start_ns
        end = _ns(max(t[1] for t in timed)) if timed else owner.end_ns
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "openinference.span.kind": "AGENT",
            "ag_ui.subagent.run_id": subagent_run_id,
            "ag_ui.run.index": owner.run.index,
        }
        self._conversation(owner.run, attributes)
        if self.content.enabled:
            outputs = [g for g in (genai_message(m.to_dict()) for m in messages) if g]
            if outputs:
                self.content.put(attributes, ("gen_ai.output.messages",), outputs)
        span = self._start(
            f"invoke_agent {subagent_run_id}",
            owner.span,
            self.trace.SpanKind.INTERNAL,
            attributes,
            start,
        )
        owner.subagents[subagent_run_id] = (span, max(start, end))
        return owner.subagents[subagent_run_id]

    def tool_span(self, record: ToolCallRecord, owner: _Run) -> None:
        call_times = self.transcript.times.calls.get(record.id)
        results = [self.by_message_id.get(r.message_id) for r in record.results]
        answers = [m for m in results if isinstance(m, ToolMessage)]
        answer_times = [self.transcript.times.messages.get(m.id) for m in answers]
        if call_times is not None:
            start = _ns(call_times[1])  # its arguments complete: the tool can run
        elif owner.run.started_at is not None:
            start = owner.start_ns  # a timed run, an untimed call: the run's own start
            self.clock.synthetic = True
        else:
            start = self.clock.of(None, record.event_index, owner.start_ns)
        ends = [_ns(t[0]) for t in answer_times if t is not None]
        end = max([start, *ends]) if ends else (owner.end_ns if call_times is None else start)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "openinference.span.kind": "TOOL",
            "gen_ai.tool.name": record.name,
            "gen_ai.tool.call.id": record.id,
            "tool.name": record.name,
            "tool_call.id": record.id,
            "tool_call.function.name": record.name,
            "ag_ui.tool_call.state": record.state,
            "ag_ui.tool_call.owner": record.owner,
            "ag_ui.tool_call.evidence": record.evidence,
        }
        tool_type = _TOOL_TYPES.get(record.owner)
        if tool_type is not None:
            attributes["gen_ai.tool.type"] = tool_type
        if record.subagent_run_id is not None:
            attributes["ag_ui.subagent.run_id"] = record.subagent_run_id
        errors = [m.error for m in answers if m.error]
        if errors:
            attributes["error.type"] = "ToolError"
        content = self.content
        content.put(
            attributes,
            ("gen_ai.tool.call.arguments", "input.value", "tool_call.function.arguments"),
            record.arguments,
        )
        if answers:
            result = answers[-1].error or answers[-1].content
            content.put(attributes, ("gen_ai.tool.call.result", "output.value"), result)
        parent = owner.span
        if record.subagent_run_id is not None:
            parent = self.subagent_span(owner, record.subagent_run_id)[0]
        span = self._start(
            f"execute_tool {record.name}",
            parent,
            self.trace.SpanKind.INTERNAL,
            attributes,
            start,
        )
        if errors:
            span.set_status(self.trace.Status(self.trace.StatusCode.ERROR, errors[-1]))
        span.end(end_time=end)


def to_otel_spans(
    transcript: Transcript,
    *,
    content: bool = False,
    agent_name: str | None = None,
    scores: Mapping[str, Score] | None = None,
    redact: Redact | None = None,
    limits: Limits | None = None,
    resource: Mapping[str, Any] | None = None,
) -> list[Any]:
    """The transcript's runs and tool calls as finished OpenTelemetry SDK spans.

    One trace per top-level run (the conversation ties them: ``gen_ai.conversation.id``,
    ``session.id``); ``scores`` (name → score) become ``gen_ai.evaluation.result``
    events on the last top-level run's span. ``resource`` adds resource attributes
    (``service.name`` defaults to ``agui-transcripts``; ``OTEL_RESOURCE_ATTRIBUTES`` is
    read as the SDK reads it). Hand the spans to any span exporter, or to
    :func:`export_otlp` / :func:`otlp_json`.
    """
    sdk_trace = _sdk()
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    kept = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider(
        resource=Resource.create({"service.name": "agui-transcripts", **(resource or {})})
    )
    provider.add_span_processor(SimpleSpanProcessor(kept))
    tracer = provider.get_tracer("agui_transcripts", _version(), schema_url=SEMCONV_SCHEMA_URL)
    chosen = limits if limits is not None else DEFAULT_LIMITS
    text = _Content(content, chosen.max_text_chars, redact)
    builder = _Builder(transcript, tracer, content=text, agent_name=agent_name)
    made = [builder.run_span(run) for run in transcript.runs]
    by_index = {m.run.index: m for m in made}
    for record in transcript.tool_calls.values():
        owner = by_index.get(record.run_index) if record.run_index is not None else None
        if owner is not None:
            builder.tool_span(record, owner)
    tops = [m for m in made if m.span.parent is None]
    if scores and tops:
        for name, score in scores.items():
            tops[-1].span.add_event(
                "gen_ai.evaluation.result", _score_event(name, score), timestamp=tops[-1].end_ns
            )
    for run in reversed(made):
        for span, end in run.subagents.values():
            span.end(end_time=end)
        flags: dict[str, Any] = {}
        if builder.clock.synthetic:
            flags["ag_ui.time.synthetic"] = True
        if text.cut:
            flags["ag_ui.content.truncated"] = True
        run.span.set_attributes(flags)
        run.span.end(end_time=run.end_ns)
    provider.shutdown()
    return list(kept.get_finished_spans())


def _hex_ids(node: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON writes base64."""
    if isinstance(node, dict):
        return {
            key: (
                base64.b64decode(value).hex()
                if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str)
                else _hex_ids(value)
            )
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_hex_ids(item) for item in node]
    return node


def otlp_json(spans: Sequence[Any]) -> dict[str, Any]:
    """An OTLP/JSON ``ExportTraceServiceRequest`` holding the spans (what collectors read)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = encode_spans(spans)
    return dict(_hex_ids(MessageToDict(request, use_integers_for_enums=True)))


def traces_endpoint(url: str) -> str:
    """An OTLP/HTTP base URL with the traces path, as ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    stripped = url.rstrip("/")
    return stripped if stripped.endswith("/v1/traces") else f"{stripped}/v1/traces"


def export_otlp(
    spans: Sequence[Any],
    endpoint: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> None:
    """Send the spans over OTLP/HTTP (protobuf) with the SDK's exporter, in batches.

    ``endpoint`` is the collector's base URL (``/v1/traces`` is added unless present).
    The exporter retries what its endpoint asks it to; spans it still could not send
    raise :class:`ExportError`.
    """
    _sdk()
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import SpanExportResult
    except ImportError as exc:
        raise ImportError(
            "exporting needs the OTLP exporter: pip install 'agui-transcripts[otel]'"
        ) from exc
    exporter = OTLPSpanExporter(
        endpoint=traces_endpoint(endpoint), headers=dict(headers or {}), timeout=timeout
    )
    try:
        for start in range(0, len(spans), _BATCH):
            batch = spans[start : start + _BATCH]
            if exporter.export(batch) is not SpanExportResult.SUCCESS:
                raise ExportError(f"{traces_endpoint(endpoint)} did not take {len(batch)} spans")
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    document = otlp_json(to_otel_spans(transcript))
    return [
        span
        for resource in document.get("resourceSpans", ())
        for scope in resource.get("scopeSpans", ())
        for span in scope.get("spans", ())
    ]


def _requires() -> None:
    _sdk()
    try:
        import opentelemetry.exporter.otlp.proto.common.trace_encoder  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "the OpenTelemetry adapter needs the OTLP encoder: pip install 'agui-transcripts[otel]'"
        ) from exc


TARGET = Rendering("otel", "otel", _as_json, _requires)
