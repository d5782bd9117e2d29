"""How a fold of ours is compared with the reference client's (goldens and differential)."""

from __future__ import annotations

from typing import Any

from agui_transcripts import ProtocolError, RunRecord, fold


def our_outcome(run: RunRecord) -> Any:
    """Our run outcome in the reference tool's spelling."""
    if run.outcome == "success":
        return {"type": "success", "pendingToolCallIds": run.pending_tool_call_ids}
    if run.outcome == "interrupt":
        return {"type": "interrupt", "interrupts": run.interrupts}
    if run.outcome == "cancelled":
        return {"type": "cancelled"}
    if run.outcome == "error":
        return {"type": "run_error", "message": run.error_message}
    return None


def reference_outcome(outcome: Any) -> Any:
    """The parts of the reference tool's outcome that we compare."""
    if not isinstance(outcome, dict):
        return outcome
    return {
        k: v
        for k, v in outcome.items()
        if k in ("type", "pendingToolCallIds", "interrupts", "message")
    }


def differences(events: Any, run_inputs: Any, expected: dict[str, Any]) -> list[str]:
    """What differs between our strict fold of ``events`` and the reference's result."""
    if expected["error"] is not None:
        try:
            fold(events, run_input=run_inputs, strict=True)
        except ProtocolError:
            return []
        return [f"the reference rejects the stream ({expected['error']}); we accept it"]
    try:
        transcript = fold(events, run_input=run_inputs, strict=True)
    except ProtocolError as exc:
        return [f"we reject a stream the reference accepts: {exc}"]
    found = []
    messages = transcript.to_dicts()
    if messages != expected["messages"]:
        for i, (mine, theirs) in enumerate(zip(messages, expected["messages"], strict=False)):
            if mine != theirs:
                found.append(f"message {i}: ours {mine!r} != reference {theirs!r}")
                break
        else:
            found.append(f"{len(messages)} messages, the reference has {len(expected['messages'])}")
    if transcript.state != expected["state"]:
        found.append(f"state: ours {transcript.state!r} != reference {expected['state']!r}")
    ours = [our_outcome(run) for run in transcript.runs if run.announced]
    reference = [reference_outcome(run["outcome"]) for run in expected["runs"]]
    if len(expected["runs"]) != len(ours):  # a stream opening with RUN_ERROR: no run there
        ours = [our_outcome(run) for run in transcript.runs]
        reference = [reference_outcome(expected["outcome"])]
    if ours != reference:
        found.append(f"run outcomes: ours {ours!r} != reference {reference!r}")
    return found
