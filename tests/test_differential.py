"""The differential corpora: random streams with what the reference client made of them.

``tests/golden/differential/corpus.jsonl`` holds 300 well-formed random streams (seeds
1000-1299 of :mod:`tests.generate`) with the messages, state and run outcomes the
official TypeScript client ends with, written by ``python -m tests.golden.differential``
(which compares 1,000 streams when run by hand). Each must fold, in strict mode, to
exactly the reference's result. The streams are stored, not regenerated, so a change to
the generator cannot silently change what is compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold

from .golden.compare import differences

CORPUS = Path(__file__).parent / "golden" / "differential" / "corpus.jsonl"
RECORDS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
# The same kind of streams rewritten in the producer dialects the reference client folds
# (tests/dialects.py: a recorder's keys, re-minted snapshots, an echo without the resume,
# a final snapshot leaving messages out), 40 per dialect, seeds 2000-2039, with its result.
DIALECT_CORPUS = CORPUS.with_name("dialects.jsonl")
DIALECT_RECORDS = [
    json.loads(line) for line in DIALECT_CORPUS.read_text(encoding="utf-8").splitlines()
]


def test_the_corpus_is_large_and_varied() -> None:
    assert len(RECORDS) >= 300
    kinds = {event["type"] for record in RECORDS for event in record["events"]}
    assert {"TEXT_MESSAGE_CHUNK", "TOOL_CALL_RESULT", "SUBAGENT_STARTED"} <= kinds
    assert any(record["expected"]["error"] for record in RECORDS)  # rejections included


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"seed-{r['seed']}")
def test_we_fold_as_the_reference_does(record: dict[str, Any]) -> None:
    assert differences(record["events"], record["inputs"] or None, record["expected"]) == []


def test_the_dialect_corpus_holds_every_replayed_dialect() -> None:
    dialects = {record["dialect"] for record in DIALECT_RECORDS}
    assert dialects == {
        "recorder-keys",
        "reminting-snapshot",
        "echo-without-resume",
        "dropping-snapshot",
    }
    assert len(DIALECT_RECORDS) >= 160


@pytest.mark.parametrize(
    "record", DIALECT_RECORDS, ids=lambda r: f"{r['dialect']}-seed-{r['seed']}"
)
def test_we_fold_producer_dialects_as_the_reference_does(record: dict[str, Any]) -> None:
    assert differences(record["events"], record["inputs"] or None, record["expected"]) == []


def test_a_resume_that_errored_leaves_the_interrupt_pending() -> None:
    """Found by the differential run: only a finished run settles the interrupts."""
    interrupt = {"id": "i1", "reason": "approval"}
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r1",
            "outcome": {"type": "interrupt", "interrupts": [interrupt]},
        },
        {
            "type": "RUN_STARTED",
            "threadId": "t",
            "runId": "r2",
            "input": {
                "threadId": "t",
                "runId": "r2",
                "messages": [],
                "resume": [{"interruptId": "i1", "status": "resolved"}],
            },
        },
        {"type": "RUN_ERROR", "message": "model failed"},
    ]
    transcript = fold(events)
    assert transcript.continuation().interrupts == ["i1"]
    with pytest.raises(ValueError, match="not addressed by resume: i1"):
        transcript.next_run_input()
    third = {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r3",
        "input": {"threadId": "t", "runId": "r3", "messages": []},
    }
    codes = [d.code for d in fold([*events, third]).diagnostics]
    # Only the producer's echo says what run 3 sent: a missing resume there is noted, not
    # an error (echoes leave it out); the client's own input is what is checked.
    assert "resume-unconfirmed" in codes
    assert "resume-missing" not in codes
    sent: list[dict[str, Any]] = [
        {"threadId": "t", "runId": r, "messages": []} for r in ("r1", "r2", "r3")
    ]
    sent[1]["resume"] = [{"interruptId": "i1", "status": "resolved"}]
    codes = [d.code for d in fold([*events, third], run_input=sent).diagnostics]
    assert "resume-missing" in codes
