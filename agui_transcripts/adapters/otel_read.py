"""The reverse of the OpenTelemetry target: GenAI agent traces back into a transcript.

``from_otel`` reads spans written to the GenAI semantic conventions (``invoke_agent``
and ``execute_tool``, with OpenInference's ``AGENT``/``TOOL`` kinds as synonyms) from
any agent, AG-UI or not, and folds the AG-UI events they describe, so its traces reach
every adapter. Each agent span with no agent span above it is a run, in start order,
its thread the span's ``gen_ai.conversation.id`` (or ``session.id``). What a run added
comes from ``gen_ai.output.messages`` when the trace recorded content; otherwise from
its ``execute_tool`` spans: each call with its arguments and result where recorded, a
``function`` tool (the client's) declared in the run's tools so the fold infers its
owner as it would from the stream. ``gen_ai.input.messages`` is the run's input.
Span times become event timestamps.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..collector import fold
from ..limits import Limits
from ..transcript import Transcript

__all__ = ["from_otel"]


@dataclass(slots=True)
class _Span:
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    error: str | None
    children: list[_Span] = field(default_factory=list)

    @property
    def operation(self) -> str | None:
        found = self.attributes.get("gen_ai.operation.name")
        if isinstance(found, str):
            return found
        kind = self.attributes.get("openinference.span.kind")
        return {"AGENT": "invoke_agent", "TOOL": "execute_tool"}.get(str(kind))


def _hex(value: int, width: int) -> str:
    return format(value, f"0{width}x")


def _from_sdk(span: Any) -> _Span:
    status = getattr(span, "status", None)
    failed = status is not None and getattr(status.status_code, "name", "") == "ERROR"
    error = (getattr(status, "description", None) or "error") if failed else None
    return _Span(
        span_id=_hex(span.context.span_id, 16),
        parent_id=_hex(span.parent.span_id, 16) if span.parent is not None else None,
        name=span.name,
        start_ns=int(span.start_time or 0),
        end_ns=int(span.end_time or span.start_time or 0),
        attributes=dict(span.attributes or {}),
        error=error,
    )


def _any_value(value: Mapping[str, Any]) -> Any:
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_any_value(v) for v in value["arrayValue"].get("values", ())]
    return None


def _from_otlp_json(span: Mapping[str, Any]) -> _Span:
    status = span.get("status") or {}
    return _Span(
        span_id=str(span.get("spanId", "")),
        parent_id=span.get("parentSpanId") or None,
        name=str(span.get("name", "")),
        start_ns=int(span.get("startTimeUnixNano", 0)),
        end_ns=int(span.get("endTimeUnixNano", span.get("startTimeUnixNano", 0))),
        attributes={a["key"]: _any_value(a.get("value") or {}) for a in span.get("attributes", ())},
        error=(status.get("message") or "error") if status.get("code") == 2 else None,
    )


def _spans(source: Any) -> list[_Span]:
    if isinstance(source, Mapping) and "resourceSpans" in source:
        return [
            _from_otlp_json(span)
            for resource in source.get("resourceSpans", ())
            for scope in resource.get("scopeSpans", ())
            for span in scope.get("spans", ())
        ]
    found: list[_Span] = []
    for item in source:
        if isinstance(item, Mapping) and "resourceSpans" in item:
            found += _spans(item)
        elif isinstance(item, Mapping):
            found.append(_from_otlp_json(item))
        else:
            found.append(_from_sdk(item))
    return found


def _json_list(value: Any) -> list[Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _is_parts(value: Any) -> bool:
    """AG-UI content parts (a tool result of text and media), kept as they are."""
    return isinstance(value, list) and all(
        isinstance(p, dict) and isinstance(p.get("type"), str) for p in value
    )


def _wire_messages(messages: list[Any], prefix: str) -> list[dict[str, Any]]:
    """GenAI input messages as AG-UI wire messages."""
    wires: list[dict[str, Any]] = []
    for n, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        parts = [p for p in message.get("parts") or () if isinstance(p, dict)]
        text = "".join(str(p.get("content", "")) for p in parts if p.get("type") == "text")
        if role == "tool":
            for k, part in enumerate(parts):
                if part.get("type") == "tool_call_response":
                    wires.append(
                        {
                            "id": f"{prefix}-in{n}-{k}",
                            "role": "tool",
                            "toolCallId": str(part.get("id")),
                            "content": _text(part.get("response")),
                        }
                    )
            continue
        wire: dict[str, Any] = {"id": f"{prefix}-in{n}", "role": str(role), "content": text}
        calls = [
            {
                "id": str(p.get("id")),
                "type": "function",
                "function": {"name": str(p.get("name")), "arguments": _text(p.get("arguments"))},
            }
            for p in parts
            if p.get("type") == "tool_call"
        ]
        if calls:
            wire["toolCalls"] = calls
        wires.append(wire)
    return wires


class _Run:
    """The events and input of one run, as its spans describe it."""

    def __init__(self, span: _Span, thread: str) -> None:
        self.span = span
        self.run_id = str(span.attributes.get("ag_ui.run.id") or span.span_id)
        self.thread = thread
        self.events: list[dict[str, Any]] = []
        self.client_tools: list[dict[str, Any]] = []
        self.count = 0
        self.clock = span.start_ns // 1_000_000
        #: Calls emitted so far, by id (a tool span adds those the messages lack).
        self.calls: set[str] = set()

    def emit(self, event: dict[str, Any], at_ns: int | None = None) -> None:
        if at_ns is not None:
            self.clock = max(self.clock, at_ns // 1_000_000)
        self.events.append({**event, "timestamp": self.clock})

    def new_id(self) -> str:
        self.count += 1
        return f"{self.run_id}-m{self.count}"

    def output(self, messages: list[Any]) -> None:
        for message in messages:
            if not isinstance(message, dict):
                continue
            parts = [p for p in message.get("parts") or () if isinstance(p, dict)]
            if message.get("role") == "tool":
                for part in parts:
                    if part.get("type") == "tool_call_response":
                        self.result(str(part.get("id")), part.get("response"))
            elif message.get("role") == "assistant":
                self.assistant(parts)

    def assistant(self, parts: list[dict[str, Any]]) -> None:
        message_id = self.new_id()
        text = "".join(str(p.get("content", "")) for p in parts if p.get("type") == "text")
        for part in parts:
            if part.get("type") == "reasoning" and part.get("content"):
                reasoning = self.new_id()
                self.emit(
                    {"type": "REASONING_MESSAGE_START", "messageId": reasoning, "role": "reasoning"}
                )
                self.emit(
                    {
                        "type": "REASONING_MESSAGE_CONTENT",
                        "messageId": reasoning,
                        "delta": str(part["content"]),
                    }
                )
                self.emit({"type": "REASONING_MESSAGE_END", "messageId": reasoning})
        if text:
            self.emit({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"})
            self.emit({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text})
            self.emit({"type": "TEXT_MESSAGE_END", "messageId": message_id})
        for part in parts:
            if part.get("type") == "tool_call":
                self.call(
                    str(part.get("id")), str(part.get("name")), part.get("arguments"), message_id
                )

    def call(
        self, call_id: str, name: str, arguments: Any, parent: str | None, at_ns: int | None = None
    ) -> None:
        self.calls.add(call_id)
        start: dict[str, Any] = {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": name,
        }
        if parent is not None:
            start["parentMessageId"] = parent
        self.emit(start, at_ns)
        if arguments is not None and arguments != "":
            self.emit({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": _text(arguments)})
        self.emit({"type": "TOOL_CALL_END", "toolCallId": call_id})

    def result(self, call_id: str, response: Any, at_ns: int | None = None) -> None:
        self.emit(
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": self.new_id(),
                "toolCallId": call_id,
                "content": response if _is_parts(response) else _text(response),
            },
            at_ns,
        )

    def tools_from_spans(self, spans: list[_Span]) -> None:
        for tool in sorted(spans, key=lambda s: s.start_ns):
            attributes = tool.attributes
            if str(attributes.get("gen_ai.tool.call.id")) in self.calls:
                continue
            name = str(attributes.get("gen_ai.tool.name", attributes.get("tool.name", "tool")))
            call_id = str(
                attributes.get("gen_ai.tool.call.id")
                or attributes.get("tool_call.id")
                or tool.span_id
            )
            arguments = attributes.get("gen_ai.tool.call.arguments", attributes.get("input.value"))
            self.call(call_id, name, arguments, None, tool.start_ns)
            answered = attributes.get("gen_ai.tool.call.result", attributes.get("output.value"))
            if tool.error is not None or answered is not None:
                self.result(call_id, answered if answered is not None else tool.error, tool.end_ns)


def _tool_spans(span: _Span) -> list[_Span]:
    """The run's tool spans, its subagents' included."""
    found: list[_Span] = []
    for child in span.children:
        if child.operation == "execute_tool":
            found.append(child)
        elif child.operation == "invoke_agent" and not _nested_run(child):
            found += _tool_spans(child)  # a subagent: no run of its own
    return found


def from_otel(spans: Any, *, strict: bool = False, limits: Limits | None = None) -> Transcript:
    """A transcript from GenAI/OpenInference agent spans.

    ``spans``: SDK spans (``ReadableSpan``, what an in-memory exporter keeps), OTLP/JSON
    span objects, or OTLP/JSON requests (one, or a list, as ``--format otlp-json``
    writes them one per line). Runs are folded as the stream they describe would be,
    with the same diagnostics.
    """
    read = _spans(spans)
    by_id = {span.span_id: span for span in read}
    for span in read:
        parent = by_id.get(span.parent_id) if span.parent_id else None
        if parent is not None:
            parent.children.append(span)
    agents = [s for s in read if s.operation == "invoke_agent"]
    roots = [s for s in agents if _is_run(s, by_id)]
    if all(isinstance(s.attributes.get("ag_ui.run.index"), int) for s in roots):
        roots.sort(key=lambda s: int(s.attributes["ag_ui.run.index"]))  # ours: in run order
    else:
        roots.sort(key=lambda s: s.start_ns)
    events: list[dict[str, Any]] = []
    inputs: list[dict[str, Any]] = []
    for span in roots:
        thread = str(
            span.attributes.get("gen_ai.conversation.id")
            or span.attributes.get("session.id")
            or "otel"
        )
        run = _Run(span, thread)
        started: dict[str, Any] = {"type": "RUN_STARTED", "threadId": thread, "runId": run.run_id}
        parent_run = span.attributes.get("ag_ui.run.parent_run_id")
        if isinstance(parent_run, str):
            started["parentRunId"] = parent_run
        run.emit(started, span.start_ns)
        recorded = _json_list(span.attributes.get("gen_ai.output.messages"))
        tools = _tool_spans(span)
        if recorded:  # the messages the run added, when the trace kept content
            run.output(recorded)
            for nested in span.children:  # a subagent's turns, after the run's own
                if nested.operation == "invoke_agent" and not _is_run(nested, by_id):
                    run.output(_json_list(nested.attributes.get("gen_ai.output.messages")))
        # Calls the messages do not show (a snapshot replaced theirs; no content kept).
        run.tools_from_spans(tools)
        declared = _json_list(span.attributes.get("gen_ai.tool.definitions"))
        client = sorted(
            {
                str(t.attributes.get("gen_ai.tool.name"))
                for t in tools
                if t.attributes.get("gen_ai.tool.type") == "function"
            }
        )
        names = {d.get("name") for d in declared if isinstance(d, dict)}
        declared += [{"name": name} for name in client if name not in names]
        run_input: dict[str, Any] = {"threadId": thread, "runId": run.run_id}
        sent = _json_list(span.attributes.get("gen_ai.input.messages"))
        if sent and inputs:
            # Later runs restate the history the fold already holds (under ids the spans
            # do not keep): only what follows the last assistant turn is new.
            last = max(
                (
                    i
                    for i, m in enumerate(sent)
                    if isinstance(m, dict) and m.get("role") == "assistant"
                ),
                default=-1,
            )
            sent = sent[last + 1 :]
        if sent:
            run_input["messages"] = _wire_messages(sent, run.run_id)
        if declared:
            run_input["tools"] = declared
        inputs.append(run_input)
        finish: dict[str, Any]
        if span.error is not None:
            finish = {"type": "RUN_ERROR", "message": span.error}
            code = span.attributes.get("error.type")
            if isinstance(code, str):
                finish["code"] = code
        else:
            finish = {"type": "RUN_FINISHED", "threadId": thread, "runId": run.run_id}
            interrupts = _json_list(span.attributes.get("ag_ui.run.interrupts"))
            outcome = span.attributes.get("ag_ui.run.outcome")
            if outcome == "interrupt" and interrupts:
                finish["outcome"] = {"type": "interrupt", "interrupts": interrupts}
            elif outcome == "cancelled":
                finish["outcome"] = {"type": "cancelled"}
        if span.attributes.get("ag_ui.run.outcome") not in ("truncated", "running"):
            run.emit(finish, span.end_ns)
        events += run.events
    return fold(events, run_input=inputs or None, strict=strict, limits=limits)


def _nested_run(span: _Span) -> bool:
    """One of ours: a run nested in another by ``parentRunId`` (not a subagent)."""
    attributes = span.attributes
    return "ag_ui.run.index" in attributes and "ag_ui.subagent.run_id" not in attributes


def _is_run(span: _Span, by_id: Mapping[str, _Span]) -> bool:
    """A top-level agent span, or a run nested by ``parentRunId``."""
    return _nested_run(span) or not _has_agent_above(span, by_id)


def _has_agent_above(span: _Span, by_id: Mapping[str, _Span]) -> bool:
    seen: set[str] = set()
    parent = by_id.get(span.parent_id) if span.parent_id else None
    while parent is not None and parent.span_id not in seen:
        if parent.operation == "invoke_agent":
            return True
        seen.add(parent.span_id)
        parent = by_id.get(parent.parent_id) if parent.parent_id else None
    return False
