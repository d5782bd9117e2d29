"""Real producers' recordings: one conversation, however the client held the history.

llama-index's AGUIChatWorkflow speaks in chunks, has no result events and sends a
snapshot after every step with fresh ids for everything it made (Q29-Q32); it is also
the client's order it receives back (the reference client's, system prompt second), and
it inserts its system prompt again. We fold it exactly as the reference client does.

ag-ui-langgraph restates the conversation in a MESSAGES_SNAPSHOT at the end of each run,
with its checkpoint's id for every tool message (not the streamed one, Q10). Run 2's
input is what the client held: the checkpoint's ids when it reads snapshots, the
streamed ids when it does not (the checkpoint then holds the first result twice). With
or without the run inputs, every variant must read as the same conversation, and our
list must be the reference client's but for where the re-id'd results stand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold
from agui_transcripts.transcript import Transcript

from .checkers import openai_strict
from .test_history_properties import view
from .test_projection import shape

RECORDINGS = Path(__file__).parent / "golden" / "recordings"
NAMES = ["langgraph-weather-snapshot-client", "langgraph-weather-stream-client"]
CONVERSATION = [
    'U"Weather in Paris?"',
    'A"Let me check."(call_weather_1)',
    "t(call_weather_1)",
    'A"Here it is: today: 18°C and sunny in Paris."',
    'U"And tomorrow?"',
    'A"Let me check."(call_weather_2)',
    "t(call_weather_2)",
    'A"Here it is: tomorrow: rain in Paris."',
]


def _fold(name: str, *, with_input: bool) -> Transcript:
    inputs = json.loads((RECORDINGS / f"{name}.input.json").read_text(encoding="utf-8"))
    return fold(
        RECORDINGS / f"{name}.jsonl",
        run_input=inputs if with_input else None,
        inputs_beside=False,
        strict=True,
    )


def _reference(name: str, *, with_input: bool) -> list[dict[str, Any]]:
    suffix = ".expected.json" if with_input else ".no-input.expected.json"
    expected = json.loads((RECORDINGS / f"{name}{suffix}").read_text(encoding="utf-8"))
    assert expected["error"] is None
    messages: list[dict[str, Any]] = expected["messages"]
    return messages


@pytest.mark.parametrize("with_input", [True, False], ids=["input", "no-input"])
@pytest.mark.parametrize("name", NAMES)
def test_every_variant_reads_as_one_conversation(name: str, with_input: bool) -> None:
    transcript = _fold(name, with_input=with_input)
    ordered = transcript.ordered()
    assert shape(ordered) == CONVERSATION
    assert openai_strict([m.to_dict() for m in ordered]) == []
    assert transcript.tool_calls["call_weather_1"].parsed_arguments == {"city": "Paris"}
    assert transcript.continuation().status == "done"
    # Each result re-id'd by the checkpoint is reported, naming the checkpoint's id.
    remapped = [d for d in transcript.diagnostics if d.code == "snapshot-id-remapped"]
    assert [d.tool_call_id for d in remapped] == ["call_weather_1", "call_weather_2"]


def test_the_variants_agree_with_each_other() -> None:
    views = {
        (name, with_input): view(_fold(name, with_input=with_input))
        for name in NAMES
        for with_input in (True, False)
    }
    assert len(set(map(repr, views.values()))) == 1


@pytest.mark.parametrize("with_input", [True, False], ids=["input", "no-input"])
@pytest.mark.parametrize("name", NAMES)
def test_our_list_is_the_references_but_for_the_results_places(name: str, with_input: bool) -> None:
    ours = _fold(name, with_input=with_input).to_dicts()
    reference = _reference(name, with_input=with_input)
    key = lambda message: json.dumps(message, sort_keys=True)  # noqa: E731
    assert sorted(map(key, ours)) == sorted(map(key, reference))
    assert [m for m in ours if m["role"] != "tool"] == [m for m in reference if m["role"] != "tool"]
    # The reference leaves each re-id'd result behind the answer that follows it; ours
    # stands right after its call.
    for index, message in enumerate(ours[:-1]):
        if message["role"] == "assistant" and message.get("toolCalls"):
            following = ours[index + 1]
            assert following["role"] == "tool"
            assert following["toolCallId"] == message["toolCalls"][0]["id"]


def test_a_client_that_ignores_snapshots_echoes_the_streamed_result() -> None:
    transcript = _fold("langgraph-weather-stream-client", with_input=True)
    echoes = [
        (d.message_id, d.tool_call_id) for d in transcript.diagnostics if d.code == "input-echo"
    ]
    assert echoes == [("call_weather_1", "call_weather_1")]
    # The checkpoint then restates that result twice; the projection keeps one.
    projection = transcript.project()
    assert [d.code for d in projection.diagnostics] == ["duplicate-result"]


LLAMA = "llama-index-weather-map"


def _fold_sse(name: str, *, with_input: bool) -> Transcript:
    inputs = json.loads((RECORDINGS / f"{name}.input.json").read_text(encoding="utf-8"))
    return fold(
        RECORDINGS / f"{name}.sse",
        run_input=inputs if with_input else None,
        inputs_beside=False,
        strict=True,
    )


@pytest.mark.parametrize("with_input", [True, False], ids=["input", "no-input"])
def test_llama_index_folds_as_the_reference_does(with_input: bool) -> None:
    transcript = _fold_sse(LLAMA, with_input=with_input)
    assert transcript.to_dicts() == _reference(LLAMA, with_input=with_input)


@pytest.mark.parametrize("with_input", [True, False], ids=["input", "no-input"])
def test_llama_index_reads_as_one_conversation(with_input: bool) -> None:
    transcript = _fold_sse(LLAMA, with_input=with_input)
    ordered = transcript.ordered()
    assert ordered[0].role == "system"  # the prompt only the snapshots carry leads
    assert [m for m in shape(ordered) if not m.startswith("S")] == [
        'U"Weather in Paris, on the map?"',
        'A"Let me check."(call_weather_1)',
        "t(call_weather_1)",
        "A(call_map_1)",
        "t(call_map_1)",
        'A"It is 18°C in Paris; the map is on your screen."',
    ]
    assert openai_strict([m.to_dict() for m in ordered]) == []
    assert transcript.continuation().status == "done"
    # The map's answer is the client's when the inputs say so; without them, it is
    # known only from the producer's snapshot.
    expected = "resolved_client" if with_input else "resolved_server_late"
    assert transcript.tool_calls["call_map_1"].state == expected
