"""The blocking twin of a coroutine function: same signature, same types, run to the end."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

__all__ = ["blocking"]

P = ParamSpec("P")
T = TypeVar("T")


def blocking(function: Callable[P, Coroutine[Any, Any, T]], name: str) -> Callable[P, T]:
    """``function`` for code that is not async, named ``name``.

    Its keyword arguments keep their types (for type checkers, and ``inspect.signature``
    through ``__wrapped__``), so the two never drift apart.
    """

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return asyncio.run(function(*args, **kwargs))

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f":func:`{function.__name__}` for code that is not async (same arguments)."
    return run
