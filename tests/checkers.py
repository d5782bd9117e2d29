"""Checkers for message lists, as the consumers that reject bad ones would judge them.

Each takes AG-UI wire dicts (``message.to_dict()``) and returns a list of problems (empty
when the list is acceptable):

- ``openai_strict``: Chat Completions. A tool message answers a call of the nearest
  preceding assistant message with calls, with only tool messages in between; every call
  is answered before the next non-tool message; no call is answered twice.
- ``anthropic_grouping``: Messages API. Consecutive same-side messages merge into turns;
  an assistant turn's ``tool_use`` blocks are all answered by ``tool_result`` blocks at
  the start of the very next user turn, and every ``tool_result`` answers a ``tool_use``
  of the turn just before.
- ``ragas_shape``: ragas ``MultiTurnSample`` validation (which knows no ids): after the
  adapter drops what ragas has no type for, a tool message follows an assistant message
  with calls or another tool message.
"""

from __future__ import annotations

from typing import Any

Wire = dict[str, Any]


def openai_strict(messages: list[Wire], *, open_end: bool = False) -> list[str]:
    problems: list[str] = []
    expecting: set[str] = set()
    answered: set[str] = set()
    for index, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            call_id = message["toolCallId"]
            if call_id not in expecting:
                problems.append(
                    f"{index}: tool message for {call_id!r} does not answer the preceding calls"
                )
            elif call_id in answered:
                problems.append(f"{index}: {call_id!r} answered twice")
            answered.add(call_id)
            continue
        missing = expecting - answered
        if missing:
            problems.append(f"{index}: calls {sorted(missing)} unanswered before a {role} message")
        calls = message.get("toolCalls") or [] if role == "assistant" else []
        expecting = {call["id"] for call in calls}
        answered = set()
    missing = expecting - answered
    if missing and not open_end:
        problems.append(f"end: calls {sorted(missing)} unanswered")
    return problems


def anthropic_grouping(messages: list[Wire], *, open_end: bool = False) -> list[str]:
    turns: list[tuple[str, list[tuple[str, str]]]] = []  # (side, blocks as (kind, id))
    for message in messages:
        role = message["role"]
        if role in ("reasoning", "activity"):
            continue
        if role == "assistant":
            side = "assistant"
            blocks = [("text", "")] if message.get("content") else []
            blocks += [("tool_use", call["id"]) for call in message.get("toolCalls") or []]
        elif role == "tool":
            side, blocks = "user", [("tool_result", message["toolCallId"])]
        else:
            side, blocks = "user", [("text", "")]
        if turns and turns[-1][0] == side:
            turns[-1][1].extend(blocks)
        else:
            turns.append((side, list(blocks)))
    problems: list[str] = []
    for index, (side, blocks) in enumerate(turns):
        if side != "user":
            continue
        results = [block_id for kind, block_id in blocks if kind == "tool_result"]
        if not results:
            continue
        previous = turns[index - 1][1] if index > 0 else []
        uses = [block_id for kind, block_id in previous if kind == "tool_use"]
        leading = []
        for kind, block_id in blocks:
            if kind != "tool_result":
                break
            leading.append(block_id)
        if leading != results:
            problems.append(f"turn {index}: tool_result blocks are not all at the start")
        if sorted(results) != sorted(uses) or len(set(results)) != len(results):
            problems.append(
                f"turn {index}: results {results} do not answer exactly the previous "
                f"tool_use {uses}"
            )
    for index, (side, blocks) in enumerate(turns):
        uses = [block_id for kind, block_id in blocks if kind == "tool_use"]
        if side != "assistant" or not uses:
            continue
        following = turns[index + 1][1] if index + 1 < len(turns) else None
        if following is None:
            if not open_end:
                problems.append(f"turn {index}: tool_use without any following tool_result")
        elif not any(kind == "tool_result" for kind, _ in following):
            problems.append(f"turn {index}: tool_use not answered in the next user turn")
    return problems


def ragas_shape(messages: list[Wire]) -> list[str]:
    kept = [m for m in messages if m["role"] in ("user", "assistant", "tool")]
    problems: list[str] = []
    for index, message in enumerate(kept):
        if message["role"] != "tool":
            continue
        if not any(m["role"] == "assistant" for m in kept[:index]):
            problems.append(
                f"{index}: ToolMessage must be preceded by an AIMessage somewhere in the "
                "conversation"
            )
            continue
        previous = kept[index - 1]
        if previous["role"] not in ("assistant", "tool"):
            problems.append(f"{index}: ToolMessage must follow an AIMessage or another ToolMessage")
        nearest = next(m for m in reversed(kept[:index]) if m["role"] == "assistant")
        if not nearest.get("toolCalls"):
            problems.append(
                f"{index}: ToolMessage must follow an AIMessage where tools were called"
            )
    return problems


def all_problems(messages: list[Wire], *, open_end: bool = False) -> list[str]:
    return (
        openai_strict(messages, open_end=open_end)
        + anthropic_grouping(messages, open_end=open_end)
        + ragas_shape(messages)
    )
