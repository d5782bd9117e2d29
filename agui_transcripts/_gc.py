"""Holding CPython's cyclic garbage collector while building what is all kept.

A fold, a projection or an adapter allocates many container objects and returns every
one of them (in the transcript, the ordered list, the framework's messages). The full
collections those allocations trigger find nothing to free and only walk an ever larger
heap: on a 100k-event transcript they are two thirds of the time of ``to_ragas`` and
``to_openai``, and they made a fold's cost per event grow with the stream. While held,
reference counting still frees everything that is dropped; only cycles wait, and the
collector is back on when the call returns (or raises). A collector the caller disabled
stays disabled.
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

__all__ = ["gc_held", "holds_gc"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextlib.contextmanager
def gc_held(hold: bool = True) -> Iterator[None]:
    """Hold the cyclic collector for the block (when ``hold`` and it is on)."""
    if not hold or not gc.isenabled():
        yield
        return
    gc.disable()
    others_frozen = gc.get_freeze_count() > 0
    try:
        yield
    finally:
        if not others_frozen:
            # Everything made while held sits in the youngest generation, so the first
            # collection after it would walk all of it (a tenth of a fold's time on large
            # logs) to free nothing. Freezing and unfreezing moves it, in constant time,
            # to the oldest generation, which full collections reach in their own time.
            # Skipped when someone else froze objects: unfreezing would release theirs.
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def holds_gc(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a function that builds and returns many objects: it runs in :func:`gc_held`."""

    @functools.wraps(function)
    def held(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with gc_held():
            return function(*args, **kwargs)

    return held
