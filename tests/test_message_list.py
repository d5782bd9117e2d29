"""The reducer's message list on its own: order, indexes, runs of results, rebuilds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_transcripts import message_list
from agui_transcripts.message_list import MessageList, Node, kept_aside
from agui_transcripts.model import (
    ActivityMessage,
    AssistantMessage,
    Message,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)


def _assistant(message_id: str, *call_ids: str) -> AssistantMessage:
    return AssistantMessage(message_id, None, [ToolCall(call_id, "f") for call_id in call_ids])


def _ids(held: MessageList) -> list[str]:
    return [message.id for message in held.messages]


def test_messages_keep_their_order_and_are_found_by_id() -> None:
    held = MessageList()
    assert not held
    first = held.append(UserMessage("u1", "hi"))
    held.append(_assistant("a1"))
    assert held
    assert "u1" in held
    assert "nope" not in held
    assert _ids(held) == ["u1", "a1"]
    assert held.node("u1") is first
    assert held.node("nope") is None


def test_a_duplicate_id_keeps_the_first_node_in_the_index() -> None:
    held = MessageList()
    first = held.append(UserMessage("m", "one"))
    held.append(UserMessage("m", "two"))
    assert _ids(held) == ["m", "m"]
    assert held.node("m") is first


def test_the_listing_is_a_copy_rebuilt_only_after_a_change() -> None:
    held = MessageList()
    held.append(UserMessage("u1", "hi"))
    listing = held.messages
    listing.clear()
    assert _ids(held) == ["u1"]
    assert held.messages == held.messages


def test_results_go_after_their_owner_and_its_earlier_results() -> None:
    held = MessageList()
    owner = held.append(_assistant("a1", "c1", "c2"))
    later = held.append(UserMessage("u2", "next"))
    held.insert_after(held.after_results(owner), ToolMessage("r1", "c1", "one"))
    held.insert_after(held.after_results(owner), ToolMessage("r2", "c2", "two"))
    assert _ids(held) == ["a1", "r1", "r2", "u2"]
    assert held.after_results(later) is later


def test_a_moved_node_leaves_its_old_run_of_results() -> None:
    held = MessageList()
    first = held.append(_assistant("a1", "c1"))
    held.insert_after(held.after_results(first), ToolMessage("r1", "c1", "x"))
    stray = held.insert_after(held.after_results(first), ToolMessage("orphan", "c9", "y"))
    second = held.append(_assistant("a2", "c9"))
    held.move_after(held.after_results(second), stray)
    assert _ids(held) == ["a1", "r1", "a2", "orphan"]
    # a1's run of results ends at r1 now, though it once ended at the orphan
    held.insert_after(held.after_results(first), ToolMessage("r1b", "c1", "z"))
    assert _ids(held) == ["a1", "r1", "r1b", "a2", "orphan"]


def test_a_result_turned_into_another_kind_ends_the_run() -> None:
    from agui_transcripts.model import ActivityMessage

    held = MessageList()
    owner = held.append(_assistant("a1", "c1", "c2"))
    result = held.insert_after(held.after_results(owner), ToolMessage("r1", "c1", "x"))
    held.replace(result, ActivityMessage("r1", "progress", {}))
    held.insert_after(held.after_results(owner), ToolMessage("r2", "c2", "y"))
    assert _ids(held) == ["a1", "r2", "r1"]


def test_calls_are_found_through_their_declaring_message() -> None:
    held = MessageList()
    owner = held.append(_assistant("a1", "c1"))
    held.declare("c1", owner)
    assert held.has_call("c1")
    assert not held.has_call("c2")
    assert held.owner("c1") is owner
    call = held.call("c1")
    assert call is not None
    assert call.id == "c1"
    assert held.call("c2") is None


@pytest.mark.parametrize("scanned", [0, 1000], ids=["indexed", "scanned"])
def test_the_latest_occurrence_of_a_reused_id_is_the_current_one(
    scanned: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(message_list, "_SCANNED_CALLS", scanned)
    held = MessageList()
    message = _assistant("a1", *[f"c{i}" for i in range(12)])
    node = held.append(message)
    again = ToolCall("c3", "f")
    message.add_tool_call(again)
    assert held.call_in(node, "c3") is again
    assert held.call_in(node, "c11") is message.tool_calls[11]  # type: ignore[index]
    assert held.call_in(node, "c99") is None


def test_rebuild_holds_exactly_the_given_messages() -> None:
    held = MessageList()
    owner = held.append(_assistant("a1", "c1"))
    held.declare("c1", owner)
    held.rebuild([UserMessage("u9", "fresh"), _assistant("a9")])
    assert _ids(held) == ["u9", "a9"]
    assert "a1" not in held
    assert not held.has_call("c1")


OPERATIONS = ["append", "append", "insert", "move", "replace", "resplice", "ask"]


def _kind(step: int, pick: int, message_id: str | None = None) -> Message:
    message_id = message_id or f"m{step}"
    kinds: list[Message] = [
        ReasoningMessage(message_id, "think"),
        ActivityMessage(message_id, "plan", {}),
        UserMessage(message_id, "hi"),
        ToolMessage(message_id, "result", f"c{pick}"),
        AssistantMessage(message_id, "say", []),
    ]
    return kinds[pick % len(kinds)]


@given(st.lists(st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 50)), max_size=60))
def test_the_ring_of_other_messages_follows_the_list(operations: list[tuple[str, int]]) -> None:
    """Whatever is added, moved, replaced or respliced, the second ring lists exactly the
    messages that are not reasoning or activity, in the list's order, and the answers to
    each call are the tool messages naming it, whether first asked before or after.

    (Both are built when first needed: the ring at the first reasoning or activity
    message, the answers at the first question.)"""
    held = MessageList()
    asked = False
    for step, (operation, pick) in enumerate(operations):
        nodes = list(held.nodes())
        node = nodes[pick % len(nodes)] if nodes else None
        if operation == "ask":
            held.answers(f"c{pick}")
            asked = True
        elif operation == "append" or node is None:
            held.append(_kind(step, pick))
        elif operation == "insert":
            held.insert_after(node, _kind(step, pick))
        elif operation == "move":
            anchor = nodes[(pick * 7) % len(nodes)]
            if anchor is not node:  # the reducer moves a node after another one
                held.move_after(anchor, node)
        elif operation == "replace":
            held.replace(node, _kind(step, pick, node.message.id))
        else:  # a snapshot that keeps the reasoning and activity: every other message anew
            asides: dict[int, tuple[Node, Node]] = {}
            order: list[Message] = []
            for anchor in [held.start, *held.others()]:
                run = held.aside_after(anchor)
                if run is not None:
                    order.append(run[0].message)
                    asides[id(run[0].message)] = run
                if pick % 3:
                    order.append(UserMessage(f"new{step}-{len(order)}", "again"))
            kept = [n.message for n in held.nodes() if kept_aside(n.message)]
            held.respliced(order, asides)
            assert [n.message for n in held.nodes() if kept_aside(n.message)] == kept
        others = [n for n in held.nodes() if not kept_aside(n.message)]
        assert list(held.others()) == others
        if asked:
            for call_id in {f"c{p}" for p in range(51)}:
                answering = [
                    n
                    for n in held.nodes()
                    if isinstance(n.message, ToolMessage) and n.message.tool_call_id == call_id
                ]
                assert sorted(map(id, held.answers(call_id))) == sorted(map(id, answering))
        ids = [n.message.id for n in held.nodes()]
        assert held.ids_unique == (len(set(ids)) == len(ids))
        assert all(held.node(message_id) is not None for message_id in ids)
