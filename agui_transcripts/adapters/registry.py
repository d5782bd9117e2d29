"""The adapter registry: every framework a transcript can be written for, by name.

The command line (``--to``), the dataset rows and the Ray pipeline render through
:func:`render`, and the tests and docs iterate :data:`REGISTRY`, so a target is added
in one place: an adapter module that declares ``TARGET`` (a :class:`Target`), and one
line here naming the module. Modules are imported when their target is first asked
for; frameworks only when a target renders or is required.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .._gc import gc_held
from ..projection import Subagents
from ..transcript import Transcript

__all__ = ["REGISTRY", "Rendering", "Target", "names", "render", "target"]


class Target(Protocol):
    """What the registry needs of an adapter."""

    #: The name users pass (``--to NAME``).
    @property
    def name(self) -> str: ...

    #: The pip extra that brings the framework (None: the core suffices).
    @property
    def extra(self) -> str | None: ...

    def require(self) -> None:
        """Raise an :class:`ImportError` naming the extra when the framework is missing."""

    def render(self, transcript: Transcript, *, ordered: bool, subagents: Subagents) -> list[Any]:
        """The transcript's messages as plain JSON values, as the framework holds them."""


#: Target name -> the module of ``agui_transcripts.adapters`` whose ``TARGET`` it is, in
#: the order the command line lists them.
REGISTRY: dict[str, str] = {
    "agui": "agui",
    "openai": "openai",
    "responses": "responses",
    "chat-turns": "chat_turns",
    "inspect": "inspect",
    "deepeval": "deepeval",
    "langchain": "langchain",
    "ragas": "ragas",
}


def _nothing_to_import() -> None:
    return None


@dataclass(frozen=True, slots=True)
class Rendering:
    """A :class:`Target` made of functions: what most adapter modules declare."""

    name: str
    extra: str | None
    to_json: Callable[[Transcript, bool, Subagents], list[Any]]
    requires: Callable[[], object] = _nothing_to_import

    def require(self) -> None:
        self.requires()

    def render(self, transcript: Transcript, *, ordered: bool, subagents: Subagents) -> list[Any]:
        return self.to_json(transcript, ordered, subagents)


def names() -> tuple[str, ...]:
    """Every target's name."""
    return tuple(REGISTRY)


def target(name: str) -> Target:
    """The target called ``name`` (a :class:`ValueError` listing them if there is none)."""
    module = REGISTRY.get(name)
    if module is None:
        raise ValueError(f"unknown target {name!r}: one of {', '.join(REGISTRY)}")
    declared: Target = importlib.import_module(f"{__package__}.{module}").TARGET
    return declared


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
