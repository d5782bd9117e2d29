"""JSON decoding and encoding: orjson when installed (the ``fast`` extra), else the stdlib.

orjson parses a typical event line several times faster than :mod:`json` and validates
UTF-8 itself, which is the largest fixed cost of reading a log. It stays optional so the
core install is pydantic and ag-ui-protocol only. Both paths accept the same documents:
the stdlib fallback rejects ``NaN`` and ``Infinity`` as orjson does, since they are not JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["HAVE_ORJSON", "JSONDecodeError", "dumps", "dumps_checked", "loads"]

#: The exception every ``loads`` failure is an instance of (including invalid UTF-8).
JSONDecodeError = ValueError


def stdlib_loads(data: str | bytes) -> Any:
    if not isinstance(data, str):
        data = bytes(data).decode("utf-8")
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except RecursionError:
        # The stdlib parser recurses per level; orjson stops at 1,024 with a ValueError.
        raise ValueError("JSON nested deeper than the parser goes") from None


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a UTF-16 surrogate code point (no UTF-8 text can)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def _stdlib_dumps(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        # A lone surrogate has no UTF-8 form: written as its JSON escape instead.
        return (
            json.dumps(value, separators=(",", ":"), default=str) if has_surrogate(text) else text
        )
    except (RecursionError, ValueError):
        # Nested deeper than JSON encoders go, or circular: no JSON text exists for it.
        return json.dumps(f"<unserialisable {type(value).__name__}>")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


loads: Callable[[str | bytes], Any]
"""Parse one JSON document."""
dumps: Callable[[Any], str]
"""Serialise compactly, keeping non-ASCII text as is; never raises (a value that has no
JSON text, too deep or not data, becomes a placeholder string or its ``str``)."""

try:
    import orjson
except ImportError:  # pragma: no cover - exercised by the stdlib-only CI leg
    HAVE_ORJSON = False
    loads = stdlib_loads
    dumps = _stdlib_dumps
else:
    HAVE_ORJSON = True
    loads = orjson.loads

    def dumps(value: Any) -> str:
        try:
            return orjson.dumps(value).decode("utf-8")
        except TypeError:  # not JSON data, or nested past orjson's limit
            return _stdlib_dumps(value)


def dumps_checked(value: Any, *, indent: int | None = None) -> str:
    """Serialise ``value`` as JSON text, or raise ValueError saying why it has none.

    For output that must hold the data itself (a converted transcript): nested deeper
    than the encoders go, circular, or not JSON data is an error, never a placeholder.
    """
    if HAVE_ORJSON:
        option = orjson.OPT_INDENT_2 if indent == 2 else 0
        if indent in (None, 2):
            try:
                return orjson.dumps(value, option=option).decode("utf-8")
            except TypeError:
                pass  # past orjson's depth (255) or not its types: the stdlib may still go
    try:
        separators = (",", ":") if indent is None else None
        text = json.dumps(
            value, ensure_ascii=False, indent=indent, separators=separators, allow_nan=False
        )
        if has_surrogate(text):  # a lone surrogate: written as its JSON escape
            return json.dumps(value, indent=indent, separators=separators, allow_nan=False)
        return text
    except RecursionError:
        raise ValueError("a value is nested deeper than JSON encoders go") from None
    except (TypeError, ValueError) as error:
        raise ValueError(f"a value is not JSON data: {error}") from None
