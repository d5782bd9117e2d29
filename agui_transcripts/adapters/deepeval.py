"""DeepEval test cases: ``ConversationalTestCase`` turns, or one ``LLMTestCase``.

``to_conversational_test_case`` renders a transcript (its ordered projection) as DeepEval
``Turn``s: one user turn per user message, one assistant turn per run of assistant
output, with each tool call in the turn's ``tools_called`` and its result folded into
the call's ``output`` (DeepEval has no tool role). ``to_llm_test_case`` makes one
``LLMTestCase`` of a single-turn run: the user's text as ``input``, the last assistant
message's text as ``actual_output``, every call in ``tools_called``. ``to_deepeval``
picks between them. Results of the tools named in ``retrieval_tools`` become
``retrieval_context``. Needs the ``deepeval`` extra.

What the format cannot hold, and what happens to it:

================================  ===============================================
AG-UI                             DeepEval
================================  ===============================================
message and call ids              dropped
tool messages                     the ``output`` of their call
tool ``error``                    ``"Error: <error>"`` leads the call's output
invalid or non-object arguments   ``{"_raw_arguments": text}``, reported
system and developer messages     dropped, reported (``deepeval-dropped``)
reasoning messages                dropped, reported (``deepeval-dropped``)
activity messages                 dropped (frontend-only)
user content parts                text parts joined; media parts dropped, reported
``subagentRunId``, metadata       dropped
content neither text nor parts    its JSON text (``message-content-invalid``)
================================  ===============================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._gc import holds_gc
from ..diagnostics import Diagnostic
from ..model import (
    ActivityMessage,
    AssistantMessage,
    Message,
    ToolCall,
    ToolMessage,
    UserMessage,
    parse_arguments,
)
from ..projection import Policy, Subagents
from ..transcript import Transcript
from . import messages_of, report, tool_text
from .target import Rendering

__all__ = ["to_conversational_test_case", "to_deepeval", "to_llm_test_case"]


def _deepeval() -> Any:
    try:
        import deepeval.test_case as test_case
    except ImportError as exc:
        raise ImportError(
            "the DeepEval adapter needs deepeval: pip install 'agui-transcripts[deepeval]'"
        ) from exc
    return test_case


def _parameters(call: ToolCall, diagnostics: list[Diagnostic] | None) -> dict[str, Any]:
    raw = call.arguments
    value, _ = parse_arguments(raw)
    if isinstance(value, dict):
        return value
    report(
        diagnostics,
        "deepeval-arguments-wrapped",
        f"tool call {call.id!r}: arguments are not a JSON object; kept as "
        '{"_raw_arguments": ...} since input_parameters is a dict',
        tool_call_id=call.id,
    )
    return {"_raw_arguments": raw}


class _Turns:
    """The projection grouped into DeepEval turns (plain values until built)."""

    def __init__(
        self,
        messages: list[Message],
        retrieval_tools: frozenset[str],
        diagnostics: list[Diagnostic] | None,
    ) -> None:
        self.turns: list[dict[str, Any]] = []
        self.last_answer = ""  # the text of the last assistant message that has text
        results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
        for message in messages:
            if isinstance(message, UserMessage):
                self._user(message, diagnostics)
            elif isinstance(message, AssistantMessage):
                turn = self._assistant()
                if message.text:
                    turn["content"] = "\n".join(filter(None, [turn["content"], message.text]))
                    self.last_answer = message.text
                for call in message.tool_calls or ():
                    result = results.get(call.id)
                    output = tool_text(result) if result is not None else None
                    turn["tools_called"].append(
                        {
                            "name": call.name,
                            "input_parameters": _parameters(call, diagnostics),
                            "output": output,
                        }
                    )
                    if call.name in retrieval_tools and output:
                        turn["retrieval_context"].append(output)
            elif not isinstance(message, (ToolMessage, ActivityMessage)):
                report(
                    diagnostics,
                    "deepeval-dropped",
                    f"{message.role} message {message.id!r} has no DeepEval turn; dropped",
                    message_id=message.id,
                )

    def _user(self, message: UserMessage, diagnostics: list[Diagnostic] | None) -> None:
        if not isinstance(message.content, str) and any(
            part.get("type") != "text" for part in message.content
        ):
            report(
                diagnostics,
                "deepeval-dropped",
                f"user message {message.id!r}: media parts have no DeepEval text; dropped",
                message_id=message.id,
            )
        last = self.turns[-1] if self.turns else None
        if last is not None and last["role"] == "user":
            last["content"] += "\n" + message.text
        else:
            self.turns.append({"role": "user", "content": message.text})

    def _assistant(self) -> dict[str, Any]:
        last = self.turns[-1] if self.turns else None
        if last is None or last["role"] != "assistant":
            last = {"role": "assistant", "content": "", "tools_called": [], "retrieval_context": []}
            self.turns.append(last)
        return last


def _group(
    source: Transcript | Sequence[Message],
    retrieval_tools: Iterable[str],
    policy: Policy,
    diagnostics: list[Diagnostic] | None,
    subagents: Subagents = "inline",
) -> _Turns:
    messages = messages_of(source, policy=policy, diagnostics=diagnostics, subagents=subagents)
    return _Turns(messages, frozenset(retrieval_tools), diagnostics)


@holds_gc
def to_conversational_test_case(
    source: Transcript | Sequence[Message],
    *,
    retrieval_tools: Iterable[str] = (),
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    diagnostics: list[Diagnostic] | None = None,
    **fields: Any,
) -> Any:
    """A ``ConversationalTestCase`` of the transcript's turns.

    ``fields`` go to the test case (``chatbot_role``, ``scenario``, ``expected_outcome``,
    ...). Turn numbering follows the conversation, so a metric that pins expected tools
    to a turn index finds them. Raises ValueError for a transcript with no turn.
    """
    test_case = _deepeval()
    grouped = _group(source, retrieval_tools, policy, diagnostics, subagents).turns
    if not grouped:
        raise ValueError("the transcript has no user or assistant turn for DeepEval")
    turns = []
    for turn in grouped:
        if turn["role"] == "user":
            turns.append(test_case.Turn(role="user", content=turn["content"]))
            continue
        turns.append(
            test_case.Turn(
                role="assistant",
                content=turn["content"],
                tools_called=[test_case.ToolCall(**call) for call in turn["tools_called"]] or None,
                retrieval_context=turn["retrieval_context"] or None,
            )
        )
    return test_case.ConversationalTestCase(turns=turns, **fields)


@holds_gc
def to_llm_test_case(
    source: Transcript | Sequence[Message],
    *,
    retrieval_tools: Iterable[str] = (),
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    diagnostics: list[Diagnostic] | None = None,
    **fields: Any,
) -> Any:
    """One ``LLMTestCase``: the user's text, the final answer, every tool call.

    Meant for single-turn runs; several user turns are joined into ``input``.
    ``fields`` go to the test case (``expected_output``, ``expected_tools``, ...).
    """
    test_case = _deepeval()
    found = _group(source, retrieval_tools, policy, diagnostics, subagents)
    grouped = found.turns
    user = "\n".join(t["content"] for t in grouped if t["role"] == "user")
    answers = [t for t in grouped if t["role"] == "assistant"]
    final = found.last_answer
    calls = [test_case.ToolCall(**call) for t in answers for call in t["tools_called"]]
    context = [text for t in answers for text in t["retrieval_context"]]
    return test_case.LLMTestCase(
        input=user,
        actual_output=final,
        tools_called=calls or None,
        retrieval_context=context or None,
        **fields,
    )


def to_deepeval(
    source: Transcript | Sequence[Message],
    *,
    retrieval_tools: Iterable[str] = (),
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    diagnostics: list[Diagnostic] | None = None,
    **fields: Any,
) -> Any:
    """An ``LLMTestCase`` for a single-turn run, a ``ConversationalTestCase`` otherwise."""
    tools = tuple(retrieval_tools)
    grouped = _group(source, tools, policy, None, subagents).turns
    users = sum(1 for turn in grouped if turn["role"] == "user")
    build = to_llm_test_case if users <= 1 else to_conversational_test_case
    return build(
        source,
        retrieval_tools=tools,
        policy=policy,
        diagnostics=diagnostics,
        subagents=subagents,
        **fields,
    )


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    return [to_deepeval(transcript, subagents=subagents).model_dump(mode="json", exclude_none=True)]


TARGET = Rendering("deepeval", "deepeval", _as_json, _deepeval)
