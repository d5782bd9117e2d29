"""Producer dialects over generated streams: the conversation an evaluator scores survives.

Each example draws a random stream (:mod:`tests.generate`), folds it with and without its
run inputs, and rewrites it in one producer dialect (:mod:`tests.dialects`). Whatever the
dialect, with and without run input:

- every tool result the stream carries is a real result in ``ordered()``, right after
  its call (a final snapshot that leaves one out names it instead);
- every streamed text is in the transcript, or named by a diagnostic and kept in
  ``superseded``;
- no synthetic result stands where the stream answered;
- ``to_dicts()`` is the original's wherever the reference client ends with it (a
  recorder's keys, an echo of the input sent), and the conversation, call states and
  next step are the original's wherever the dialect only restates or respells it.

CI runs a bounded number of examples; ``HYPOTHESIS_PROFILE=long`` runs many.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import Transcript, fold
from agui_transcripts.model import ActivityMessage, AssistantMessage, ToolMessage
from agui_transcripts.projection import is_synthetic

from .dialects import DIALECTS, Sloppy
from .generate import random_stream
from .test_history_properties import view

#: Dialects that only respell or restate: the user reads the same conversation.
RESTATING = frozenset(
    {"field-aliases", "recorder-keys", "reminting-snapshot", "echo-without-resume"}
)


def _results_after_their_calls(transcript: Transcript) -> dict[str, list[str]]:
    """Each call's real results in ``ordered()``, where each follows its call's batch."""
    found: dict[str, list[str]] = {}
    batch: set[str] = set()
    for message in transcript.ordered():
        if isinstance(message, ToolMessage):
            if not is_synthetic(message) and message.tool_call_id in batch:
                found.setdefault(message.tool_call_id, []).append(message.text)
            continue
        batch = (
            {call.id for call in message.tool_calls or ()}
            if isinstance(message, AssistantMessage)
            else set()
        )
    return found


def _carried(clean: Transcript, dropped: set[str]) -> dict[str, list[str]]:
    """The real results the original stream carries, by call (but those left out)."""
    carried: dict[str, list[str]] = {}
    for message in clean.ordered():
        if isinstance(message, ToolMessage) and not is_synthetic(message):
            if message.id in dropped:
                continue
            carried.setdefault(message.tool_call_id, []).append(message.text)
    return carried


def _check(name: str, clean: Transcript, sloppy: Sloppy, folded: Transcript) -> list[str]:
    """What the dialect's fold gets wrong against the original's, as readable problems."""
    problems: list[str] = []
    carried = _carried(clean, sloppy.dropped)
    kept = _results_after_their_calls(folded)
    for call_id, texts in carried.items():
        if kept.get(call_id) != texts:
            problems.append(f"{call_id}: results {kept.get(call_id)} after the call, want {texts}")
    synthetic = [
        m.tool_call_id
        for m in folded.ordered()
        if isinstance(m, ToolMessage) and is_synthetic(m) and m.tool_call_id in carried
    ]
    problems += [f"{call_id}: synthetic where the stream answered" for call_id in synthetic]
    # Every streamed text is in the transcript, or in superseded (a snapshot left it out).
    said = {(m.role, m.text) for m in [*folded.messages, *folded.superseded]}
    problems += [
        f"{m.id}: {m.text!r} lost without a word"
        for m in clean.messages
        if m.text and not isinstance(m, ActivityMessage) and (m.role, m.text) not in said
    ]
    warned = any(d.code == "snapshot-dropped-messages" for d in folded.diagnostics)
    if folded.superseded and not warned:
        problems.append("messages superseded without a snapshot-dropped-messages warning")
    if sloppy.same_messages and folded.to_dicts() != clean.to_dicts():
        problems.append("to_dicts() differs from the original's")
    if name in RESTATING and view(folded) != view(clean):
        problems.append("the conversation, call states or next step differ")
    return problems


@given(
    seed=st.integers(0, 2**32),
    name=st.sampled_from(sorted(DIALECTS)),
    with_input=st.booleans(),
)
def test_every_result_and_word_survives_each_dialect(
    seed: int, name: str, with_input: bool
) -> None:
    events, inputs = random_stream(seed)
    run_input: Any = inputs if with_input else None
    clean = fold(events, run_input=run_input)
    sloppy = DIALECTS[name](events, run_input, random.Random(seed))
    folded = fold(sloppy.events, run_input=run_input)
    assert _check(name, clean, sloppy, folded) == []


@given(seed=st.integers(0, 2**32))
def test_history_before_run_started_pairs_each_input_with_its_run(seed: int) -> None:
    events, inputs = random_stream(seed)
    clean = fold(events, run_input=inputs)
    sloppy = DIALECTS["history-before-run-started"](events, inputs, random.Random(seed))
    folded = fold(sloppy.events, run_input=inputs)
    assert [r.input for r in folded.runs] == [r.input for r in clean.runs]
    assert [(r.run_id, r.outcome) for r in folded.runs] == [
        (r.run_id, r.outcome) for r in clean.runs
    ]
    assert view(folded) == view(clean)


@given(seed=st.integers(0, 2**32))
def test_an_echo_without_resume_is_never_a_missing_resume(seed: int) -> None:
    events, inputs = random_stream(seed)
    sloppy = DIALECTS["echo-without-resume"](events, inputs, random.Random(seed))

    def missing(transcript: Transcript) -> list[Any]:
        return [d.event_index for d in transcript.diagnostics if d.code == "resume-missing"]

    # Against the inputs sent: missing exactly where the client left one out.
    sent = fold(events, run_input=inputs)
    assert missing(fold(sloppy.events, run_input=inputs)) == missing(sent)
    # The log alone: an echo never says a resume is missing.
    assert missing(fold(sloppy.events)) == []
