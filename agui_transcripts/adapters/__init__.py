"""Adapters: transcripts in the shapes evaluation frameworks and providers take.

Each adapter is a pure function of a :class:`~agui_transcripts.Transcript` (rendered from
its ordered projection, so every call precedes its result) or of a list of messages. Each
imports its framework lazily and documents what it loses in its module docstring.
Importing this package imports no framework.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..diagnostics import Diagnostic
from ..model import Message, Transcript
from ..projection import Policy

__all__ = ["messages_of"]


def messages_of(
    source: Transcript | Sequence[Message],
    *,
    policy: Policy = "synthesize",
    diagnostics: list[Diagnostic] | None = None,
) -> list[Message]:
    """The messages an adapter renders: a transcript's ordered projection, or a given list.

    A list of messages is taken as already ordered. The projection's diagnostics are
    appended to ``diagnostics`` when it is given.
    """
    if isinstance(source, Transcript):
        projection = source.project(policy)
        if diagnostics is not None:
            diagnostics.extend(projection.diagnostics)
        return projection.messages
    return list(source)
