"""JSON decoding and encoding: orjson when installed (the ``fast`` extra), else the stdlib.

orjson parses a typical event line several times faster than :mod:`json` and validates
UTF-8 itself, which is the largest fixed cost of reading a log. It stays optional so the
core install is pydantic and ag-ui-protocol only. Both paths accept the same documents:
the stdlib fallback rejects ``NaN`` and ``Infinity`` as orjson does, since they are not JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["HAVE_ORJSON", "JSONDecodeError", "dumps", "loads"]

#: The exception every ``loads`` failure is an instance of (including invalid UTF-8).
JSONDecodeError = ValueError


def _stdlib_loads(data: str | bytes) -> Any:
    if not isinstance(data, str):
        data = bytes(data).decode("utf-8")
    return json.loads(data, parse_constant=_reject_constant)


def _stdlib_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


loads: Callable[[str | bytes], Any]
"""Parse one JSON document."""
dumps: Callable[[Any], str]
"""Serialise compactly, keeping non-ASCII text as is."""

try:
    import orjson
except ImportError:  # pragma: no cover - exercised by the stdlib-only CI leg
    HAVE_ORJSON = False
    loads = _stdlib_loads
    dumps = _stdlib_dumps
else:
    HAVE_ORJSON = True
    loads = orjson.loads

    def dumps(value: Any) -> str:
        return orjson.dumps(value).decode("utf-8")
