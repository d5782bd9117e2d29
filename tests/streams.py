"""Builders for AG-UI events in the scenario notation of the protocol rules, and a summary.

``short(events)`` renders explicit events compactly ("TMS m1", "TMC m1 'x'", "TCS c1 f
p=m1", "@s1" for attribution) so tests can assert whole sequences at a glance.
"""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]


def _event(kind: str, **fields: Any) -> Event:
    event: Event = {"type": kind}
    for key, value in fields.items():
        if value is not ...:
            event[key] = value
    return event


def at(event: Event, subagent: str | None) -> Event:
    """The event attributed to a subagent (``@s1``)."""
    return {**event, "subagentRunId": subagent}


def RS(run: str = "r1", **kw: Any) -> Event:
    return _event("RUN_STARTED", threadId="t", runId=run, **kw)


def RF(run: str = "r1", **kw: Any) -> Event:
    return _event("RUN_FINISHED", threadId="t", runId=run, **kw)


def RE(message: str = "boom", **kw: Any) -> Event:
    return _event("RUN_ERROR", message=message, **kw)


def TMS(m: str, role: Any = ..., **kw: Any) -> Event:
    return _event("TEXT_MESSAGE_START", messageId=m, role=role, **kw)


def TMC(m: str, delta: Any, **kw: Any) -> Event:
    return _event("TEXT_MESSAGE_CONTENT", messageId=m, delta=delta, **kw)


def TME(m: str, **kw: Any) -> Event:
    return _event("TEXT_MESSAGE_END", messageId=m, **kw)


def TMK(m: Any = ..., delta: Any = ..., **kw: Any) -> Event:
    return _event("TEXT_MESSAGE_CHUNK", messageId=m, delta=delta, **kw)


def TCS(c: str, name: str, parent: Any = ..., **kw: Any) -> Event:
    return _event("TOOL_CALL_START", toolCallId=c, toolCallName=name, parentMessageId=parent, **kw)


def TCA(c: str, delta: Any, **kw: Any) -> Event:
    return _event("TOOL_CALL_ARGS", toolCallId=c, delta=delta, **kw)


def TCE(c: str, **kw: Any) -> Event:
    return _event("TOOL_CALL_END", toolCallId=c, **kw)


def TCK(c: Any = ..., name: Any = ..., delta: Any = ..., parent: Any = ..., **kw: Any) -> Event:
    return _event(
        "TOOL_CALL_CHUNK",
        toolCallId=c,
        toolCallName=name,
        parentMessageId=parent,
        delta=delta,
        **kw,
    )


def TCR(t: str, c: str, content: Any = "ok", **kw: Any) -> Event:
    return _event("TOOL_CALL_RESULT", messageId=t, toolCallId=c, content=content, **kw)


def RZS(r: str, **kw: Any) -> Event:
    return _event("REASONING_START", messageId=r, **kw)


def RZE(r: str, **kw: Any) -> Event:
    return _event("REASONING_END", messageId=r, **kw)


def RMS(r: str, **kw: Any) -> Event:
    return _event("REASONING_MESSAGE_START", messageId=r, role="reasoning", **kw)


def RMC(r: str, delta: str, **kw: Any) -> Event:
    return _event("REASONING_MESSAGE_CONTENT", messageId=r, delta=delta, **kw)


def RME(r: str, **kw: Any) -> Event:
    return _event("REASONING_MESSAGE_END", messageId=r, **kw)


def RMK(r: Any = ..., delta: Any = ..., **kw: Any) -> Event:
    return _event("REASONING_MESSAGE_CHUNK", messageId=r, delta=delta, **kw)


def REV(subtype: str, entity: str, value: str, **kw: Any) -> Event:
    return _event(
        "REASONING_ENCRYPTED_VALUE", subtype=subtype, entityId=entity, encryptedValue=value, **kw
    )


def AS(a: str, kind: str, content: dict[str, Any], **kw: Any) -> Event:
    return _event("ACTIVITY_SNAPSHOT", messageId=a, activityType=kind, content=content, **kw)


def AD(a: str, kind: str, patch: list[Any], **kw: Any) -> Event:
    return _event("ACTIVITY_DELTA", messageId=a, activityType=kind, patch=patch, **kw)


def MS(*messages: dict[str, Any]) -> Event:
    return _event("MESSAGES_SNAPSHOT", messages=list(messages))


def SS(snapshot: Any = None) -> Event:
    return _event("STATE_SNAPSHOT", snapshot={} if snapshot is None else snapshot)


def SD(*ops: dict[str, Any]) -> Event:
    return _event("STATE_DELTA", delta=list(ops))


def CU(name: str = "ping", value: Any = None) -> Event:
    return _event("CUSTOM", name=name, value=value)


def RAW(payload: Any = None) -> Event:
    return _event("RAW", event={} if payload is None else payload)


def STS(name: str, **kw: Any) -> Event:
    return _event("STEP_STARTED", stepName=name, **kw)


def STF(name: str, **kw: Any) -> Event:
    return _event("STEP_FINISHED", stepName=name, **kw)


def SUS(s: str, name: Any = "worker", **kw: Any) -> Event:
    return _event("SUBAGENT_STARTED", subagentRunId=s, name=name, **kw)


def SUF(s: str, **kw: Any) -> Event:
    return _event("SUBAGENT_FINISHED", subagentRunId=s, **kw)


def SUE(s: str, message: Any = "failed", **kw: Any) -> Event:
    return _event("SUBAGENT_ERROR", subagentRunId=s, message=message, **kw)


_SHORT = {
    "TEXT_MESSAGE_START": "TMS",
    "TEXT_MESSAGE_CONTENT": "TMC",
    "TEXT_MESSAGE_END": "TME",
    "TEXT_MESSAGE_CHUNK": "TMK",
    "TOOL_CALL_START": "TCS",
    "TOOL_CALL_ARGS": "TCA",
    "TOOL_CALL_END": "TCE",
    "TOOL_CALL_CHUNK": "TCK",
    "TOOL_CALL_RESULT": "TCR",
    "REASONING_START": "RZS",
    "REASONING_END": "RZE",
    "REASONING_MESSAGE_START": "RMS",
    "REASONING_MESSAGE_CONTENT": "RMC",
    "REASONING_MESSAGE_END": "RME",
    "REASONING_ENCRYPTED_VALUE": "REV",
    "RUN_STARTED": "RS",
    "RUN_FINISHED": "RF",
    "RUN_ERROR": "RE",
    "STATE_SNAPSHOT": "SS",
    "STATE_DELTA": "SD",
    "MESSAGES_SNAPSHOT": "MS",
    "ACTIVITY_SNAPSHOT": "AS",
    "ACTIVITY_DELTA": "AD",
    "CUSTOM": "CU",
    "RAW": "RAW",
    "STEP_STARTED": "STS",
    "STEP_FINISHED": "STF",
    "SUBAGENT_STARTED": "SUS",
    "SUBAGENT_FINISHED": "SUF",
    "SUBAGENT_ERROR": "SUE",
}


def user(message_id: str, text: str) -> dict[str, Any]:
    """A user message in its wire form (for run inputs and snapshots)."""
    return {"id": message_id, "role": "user", "content": text}


def codes(transcript: Any, *wanted: str) -> list[str]:
    """The codes of a transcript's diagnostics, in order (only the ``wanted`` ones if given)."""
    return [d.code for d in transcript.diagnostics if not wanted or d.code in wanted]


def short(events: list[Event]) -> list[str]:
    """Render events compactly: ids, names, roles other than the defaults, deltas."""
    out = []
    for event in events:
        parts = [_SHORT[event["type"]]]
        for key in ("messageId", "toolCallId"):
            if key in event and not (event["type"] == "TOOL_CALL_RESULT" and key == "messageId"):
                parts.append(str(event[key]))
        if event["type"] == "TOOL_CALL_RESULT":
            parts.insert(1, str(event["messageId"]) + "->")
        if "toolCallName" in event and event["type"] == "TOOL_CALL_START":
            parts.append(str(event["toolCallName"]))
        if "parentMessageId" in event and event["type"] == "TOOL_CALL_START":
            parts.append(f"p={event['parentMessageId']}")
        role = event.get("role")
        if event["type"] == "TEXT_MESSAGE_START" and role not in (None, "assistant"):
            parts.append(f"role={role}")
        if "name" in event and event["type"] == "TEXT_MESSAGE_START":
            parts.append(f"name={event['name']}")
        if "delta" in event and event["type"].endswith(("CONTENT", "ARGS")):
            parts.append(repr(event["delta"]))
        if "subagentRunId" in event:
            parts.append(f"@{event['subagentRunId']}")
        out.append(" ".join(parts))
    return out


def text_open_across_a_result() -> list[Event]:
    """Q19: a text message held open across a call and its result (Agent Framework)."""
    return [
        RS(),
        TMS("m1"),
        TMC("m1", "Let me check. "),
        TCS("c1", "w", "m1"),
        TCE("c1"),
        TCR("t1", "c1", "rain"),
        TMC("m1", "It rains."),
        TME("m1"),
        RF(),
    ]
