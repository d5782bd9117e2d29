"""The frameworks a transcript is written for, as plain JSON values.

One function renders a transcript for each target name the command line, the dataset
rows and the Ray pipeline accept, so every batch path writes the same messages.
Frameworks are imported only when their target is asked for.
"""

from __future__ import annotations

from typing import Any

from .projection import Subagents
from .transcript import Transcript

__all__ = ["TARGETS", "render"]

TARGETS = (
    "agui",
    "openai",
    "responses",
    "chat-turns",
    "inspect",
    "deepeval",
    "langchain",
    "ragas",
)


def render(
    transcript: Transcript, target: str, *, ordered: bool, subagents: Subagents = "inline"
) -> list[Any]:
    """The transcript's messages as plain JSON values for ``target``.

    ``subagents`` other than ``inline`` orders an ``agui`` rendering too (it is a choice
    the projection makes).
    """
    if target == "agui":
        from .adapters.agui import to_dicts

        return to_dicts(transcript, ordered=ordered or subagents != "inline", subagents=subagents)
    if target == "openai":
        from .adapters.openai import to_openai

        return list(to_openai(transcript, subagents=subagents))
    if target == "responses":
        from .adapters.responses import to_responses

        return to_responses(transcript, subagents=subagents)
    if target == "chat-turns":
        from .adapters.chat_turns import to_chat_turns

        return list(to_chat_turns(transcript, subagents=subagents))
    if target == "inspect":
        from .adapters.inspect import to_inspect

        return [
            message.model_dump(mode="json", exclude_none=True)
            for message in to_inspect(transcript, subagents=subagents)
        ]
    if target == "deepeval":
        from .adapters.deepeval import to_deepeval

        case = to_deepeval(transcript, subagents=subagents)
        return [case.model_dump(mode="json", exclude_none=True)]
    if target == "langchain":
        from langchain_core.messages import messages_to_dict

        from .adapters.langchain import to_langchain

        return list(messages_to_dict(to_langchain(transcript, subagents=subagents)))
    from .adapters.ragas import to_ragas

    ragas_messages = to_ragas(transcript, metadata=True, subagents=subagents)
    return [m.model_dump(mode="json") for m in ragas_messages]
