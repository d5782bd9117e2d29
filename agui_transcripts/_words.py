"""Counts in words for people: ``1 file``, ``2 files``."""

from __future__ import annotations

__all__ = ["count"]


def count(number: int, word: str, plural: str | None = None) -> str:
    """``number`` and ``word``, the plural form unless there is exactly one."""
    return f"{number} {word if number == 1 else plural or word + 's'}"
