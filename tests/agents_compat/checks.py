"""What every harness test asks of a conversation: its recording folds back to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agui_transcripts import ConversationResult, Transcript, fold


def view(transcript: Transcript) -> dict[str, Any]:
    """What an evaluator reads of a transcript, and what ownership says of each call."""
    return {
        "messages": transcript.to_dicts(),
        "ordered": [m.to_dict() for m in transcript.ordered()],
        "calls": {
            call_id: (r.name, r.state, r.owner, r.evidence)
            for call_id, r in transcript.tool_calls.items()
        },
        "runs": [(r.run_id, r.outcome, r.new_turn) for r in transcript.runs],
        "continuation": transcript.continuation(),
        "diagnostics": [(d.code, d.event_index) for d in transcript.diagnostics],
        "state": transcript.state,
    }


def folds_back(result: ConversationResult, folder: Path) -> Path:
    """Save the conversation and check that folding the recording gives what it held."""
    log = result.conversation.save(folder / result.scenario.name)
    assert view(fold(log)) == view(result.transcript)
    return log


def roles(transcript: Transcript) -> list[str]:
    """The roles of the ordered messages (tool results as ``tool:CALL``)."""
    return [
        f"tool:{m.tool_call_id}" if m.role == "tool" else m.role  # type: ignore[attr-defined]
        for m in transcript.ordered()
    ]
