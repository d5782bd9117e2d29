"""Property: spelling items as chunks instead of triads changes nothing after expansion.

Random well-formed streams hold text messages, tool calls and reasoning messages in the
parent lane and in two subagent lanes, interleaved across lanes but never within one.
Any subset of the items is re-spelled as chunk streams (continuations with or without
ids, with or without attribution where that stays unambiguous, repeating opener fields or
not). Expanding the stream must give the same items, with the same ids, fields, owners
and content, in the same order, and the verifier must find nothing wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agui_transcripts import check, normalize_all

Event = dict[str, Any]
Draw = Callable[..., Any]

KINDS = ("text", "tool", "reasoning")
ID_KEY = {"text": "messageId", "tool": "toolCallId", "reasoning": "messageId"}
TYPES = {
    "text": (
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
    ),
    "tool": ("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK"),
    "reasoning": (
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_MESSAGE_CHUNK",
    ),
}
START_KIND = {types[0]: kind for kind, types in TYPES.items()}


@dataclass
class Item:
    kind: str
    id: str
    owner: str | None
    fields: dict[str, str]
    deltas: list[str]


deltas_st = st.lists(st.text(min_size=0, max_size=4), max_size=4)


@st.composite
def items_st(draw: st.DrawFn) -> list[Item]:
    count = draw(st.integers(min_value=1, max_value=8))
    items = []
    for n in range(count):
        kind = draw(st.sampled_from(KINDS))
        owner = draw(st.sampled_from([None, None, "s1", "s2"]))
        fields: dict[str, str] = {}
        if kind == "text":
            fields["role"] = draw(st.sampled_from(["assistant", "user", "system", "developer"]))
            if draw(st.booleans()):
                fields["name"] = draw(st.sampled_from(["ann", "bob"]))
        elif kind == "tool":
            fields["toolCallName"] = draw(st.sampled_from(["search", "lookup"]))
            if draw(st.booleans()):
                fields["parentMessageId"] = f"p{n}"
        items.append(Item(kind, f"{kind[0]}{n}", owner, fields, draw(deltas_st)))
    return items


def tagged(event: Event, owner: str | None, tag: bool = True) -> Event:
    if owner is not None and tag:
        event["subagentRunId"] = owner
    return event


def triad(item: Item, draw: Draw) -> list[Event]:
    start, content, end, _ = TYPES[item.kind]
    key = ID_KEY[item.kind]
    head: Event = {"type": start, key: item.id, **item.fields}
    if item.kind == "reasoning":
        head["role"] = "reasoning"
    events = [tagged(head, item.owner)]
    for delta in item.deltas:
        events.append(tagged({"type": content, key: item.id, "delta": delta}, item.owner))
    events.append(tagged({"type": end, key: item.id}, item.owner))
    return events


def chunks(item: Item, draw: Draw) -> list[Event]:
    chunk_type = TYPES[item.kind][3]
    key = ID_KEY[item.kind]
    opener: Event = {"type": chunk_type, key: item.id}
    for field, value in item.fields.items():
        if field != "role" or value != "assistant" or draw(st.booleans()):
            opener[field] = value
    if item.deltas:
        opener["delta"] = item.deltas[0]
    events = [tagged(opener, item.owner)]
    for delta in item.deltas[1:]:
        event: Event = {"type": chunk_type, "delta": delta}
        with_id = draw(st.booleans())
        if with_id:
            event[key] = item.id
        for field, value in item.fields.items():
            if draw(st.integers(0, 3)) == 0:
                event[field] = value  # an identical repeat is allowed (C11)
        # Without an id, a subagent's continuation must name its lane (C23).
        events.append(tagged(event, item.owner, tag=not with_id or draw(st.booleans())))
    return events


def items_of(events: list[Event]) -> list[tuple[str, str, str | None, dict[str, Any], str]]:
    """(kind, id, owner, fields, content) per START, in order; content up to its END."""
    found: list[tuple[str, str, str | None, dict[str, Any], str]] = []
    open_at: dict[tuple[str, str], int] = {}
    for event in events:
        kind = START_KIND.get(event["type"])
        if kind is not None:
            item_id = event[ID_KEY[kind]]
            fields = {
                k: v
                for k, v in event.items()
                if k in ("role", "name", "toolCallName", "parentMessageId")
            }
            if kind == "reasoning":
                fields.pop("role")
            open_at[(kind, item_id)] = len(found)
            found.append((kind, item_id, event.get("subagentRunId"), fields, ""))
            continue
        for kind, (_, content, end, _) in TYPES.items():
            if event["type"] == content:
                index = open_at[(kind, event[ID_KEY[kind]])]
                k, i, o, f, text = found[index]
                found[index] = (k, i, o, f, text + event["delta"])
            elif event["type"] == end:
                del open_at[(kind, event[ID_KEY[kind]])]
    return found


@pytest.mark.slow  # 300 examples
@settings(max_examples=300, deadline=None)
@given(items=items_st(), data=st.data())
def test_chunk_spelling_is_transparent(items: list[Item], data: st.DataObject) -> None:
    draw = data.draw
    lanes: dict[str | None, list[list[Event]]] = {}
    for item in items:
        spell = chunks if draw(st.booleans(), label=f"chunks {item.id}") else triad
        lanes.setdefault(item.owner, []).append(spell(item, draw))
    # Interleave the lanes' events, keeping each lane's own order.
    queues = {lane: [e for group in groups for e in group] for lane, groups in lanes.items()}
    stream: list[Event] = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]
    while queues:
        lane = draw(st.sampled_from(sorted(queues, key=str)))
        stream.append(queues[lane].pop(0))
        if not queues[lane]:
            del queues[lane]
    stream.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})

    expected_stream = [e for item in items for e in triad(item, draw)]
    expected = items_of(expected_stream)
    # The triads' order is the order of first events per item in the interleaved stream.
    first_seen: list[str] = []
    for event in stream:
        item_id = event.get("messageId") or event.get("toolCallId")
        if item_id is not None and item_id not in first_seen:
            first_seen.append(item_id)
    expected.sort(key=lambda found: first_seen.index(found[1]))

    assert items_of(normalize_all(stream)) == expected
    assert [str(d) for d in check(stream) if d.severity != "info"] == []
