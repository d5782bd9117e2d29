"""What an adapter declares so the registry can offer it: a :class:`Target`.

Each adapter module ends with ``TARGET``, usually a :class:`Rendering` of its
functions; :mod:`.registry` lists them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..projection import Subagents
from ..row_messages import EachMessage
from ..transcript import Transcript

__all__ = ["EachMessage", "Rendering", "Target"]


class Target(Protocol):
    """What the registry needs of an adapter."""

    @property
    def name(self) -> str:
        """The name users pass (``--to NAME``)."""

    @property
    def extra(self) -> str | None:
        """The pip extra that brings the framework (None: the core suffices)."""

    @property
    def each(self) -> EachMessage | None:
        """Renders ordered messages one by one (None: only whole transcripts render).

        A target has it when the framework's form of a message depends on that message
        alone: rows per run then render only what each run added.
        """

    def require(self) -> None:
        """Raise an :class:`ImportError` naming the extra when the framework is missing."""

    def render(self, transcript: Transcript, *, ordered: bool, subagents: Subagents) -> list[Any]:
        """The transcript's messages as plain JSON values, as the framework holds them."""


def _nothing_to_import() -> None:
    return None


@dataclass(frozen=True, slots=True)
class Rendering:
    """A :class:`Target` made of functions: what most adapter modules declare."""

    name: str
    extra: str | None
    to_json: Callable[[Transcript, bool, Subagents], list[Any]]
    requires: Callable[[], object] = _nothing_to_import
    each: EachMessage | None = None

    def require(self) -> None:
        self.requires()

    def render(self, transcript: Transcript, *, ordered: bool, subagents: Subagents) -> list[Any]:
        return self.to_json(transcript, ordered, subagents)
