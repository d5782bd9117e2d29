"""The adapter registry: every framework a transcript can be written for, by name.

The command line (``--to``), the dataset rows and the Ray pipeline render through
:func:`render`, and the tests and docs iterate :data:`REGISTRY`, so a target is added
in one place: an adapter module that declares ``TARGET`` (a :class:`.target.Target`),
and its line in the list below. Adapter modules import their frameworks only when a
target renders or is required.
"""

from __future__ import annotations

from typing import Any

from .._gc import gc_held
from ..projection import Subagents
from ..transcript import Transcript
from . import agui, chat_turns, deepeval, inspect, langchain, openai, otel, ragas, responses
from .target import Target

__all__ = ["DEFAULT_TARGET", "REGISTRY", "names", "render", "target"]

#: What every path writes when no target is named (the command line, dataset rows, Ray):
#: the canonical transcript, lossless; a framework's shape is asked for by name.
DEFAULT_TARGET = "agui"

#: Every target by name, in the order the command line lists them.
REGISTRY: dict[str, Target] = {
    declared.name: declared
    for declared in (
        agui.TARGET,
        openai.TARGET,
        responses.TARGET,
        chat_turns.TARGET,
        inspect.TARGET,
        deepeval.TARGET,
        langchain.TARGET,
        ragas.TARGET,
        otel.TARGET,
    )
}


def names() -> tuple[str, ...]:
    """Every target's name."""
    return tuple(REGISTRY)


def target(name: str) -> Target:
    """The target called ``name`` (a :class:`ValueError` listing them if there is none)."""
    found = REGISTRY.get(name)
    if found is None:
        raise ValueError(f"unknown target {name!r}: one of {', '.join(REGISTRY)}")
    return found


def render(
    transcript: Transcript, name: str, *, ordered: bool, subagents: Subagents = "inline"
) -> list[Any]:
    """The transcript's messages as plain JSON values for the target called ``name``.

    Rendering builds many objects and keeps them all: the cyclic collector is held
    meanwhile (see :mod:`agui_transcripts._gc`), for every target alike.
    """
    chosen = target(name)
    with gc_held():
        return chosen.render(transcript, ordered=ordered, subagents=subagents)
