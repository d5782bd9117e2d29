"""JSON Patch (RFC 6902) for state and activity deltas: atomic, copy-on-write, bounded.

Each operation is applied by ``jsonpatch`` (the RFC's semantics, pointer handling and
errors), in place, on a document whose containers along the operation's paths were first
copied: the rest is shared with the document before the patch. So a patch costs what it
touches, not the size of the state (a one-op delta on a large state does not copy it),
and it stays atomic: the document before is never changed, and a patch that fails
leaves it as it was.

The size a patch may make is bounded. ``copy`` can double a document per operation (a
1 KB delta of ``{"op": "copy", "from": "", "path": "/kN"}`` would reach gigabytes), so
every patch keeps a running estimate of the document's JSON size, measured without
recursion and never past the bound, and a patch that would pass it is refused whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jsonpatch
import jsonpointer

__all__ = ["PatchError", "PatchTooLarge", "apply_patch", "json_size"]


class PatchError(ValueError):
    """A patch that does not apply (RFC 6902 says the whole patch fails)."""


class PatchTooLarge(PatchError):
    """A patch that would make the document larger than the bound."""


def json_size(value: Any, budget: int) -> int:
    """About how many bytes ``value`` takes as JSON; ``budget + 1`` once it passes ``budget``.

    Iterative (any depth), and it stops at the budget, so a document that shares its
    parts many times over is never walked in full.
    """
    size = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            size += 2 + len(item)
            for key, child in item.items():
                size += len(key) + 3
                stack.append(child)
        elif isinstance(item, list):
            size += 2 + len(item)
            stack.extend(item)
        elif isinstance(item, str):
            size += len(item) + 2
        else:
            size += 8
        if size > budget:
            return budget + 1
    return size


# The operation classes by name: each operation is built once (its pointer parsed once)
# and applied on its own, rather than through a one-operation JsonPatch, which builds it
# twice. A public mapping of jsonpatch's.
_OPERATIONS = jsonpatch.JsonPatch.operations

# What applying an operation may raise when the patch is not one that applies.
_FAILURES = (
    jsonpatch.JsonPatchException,
    jsonpointer.JsonPointerException,
    TypeError,
    ValueError,
    KeyError,
    IndexError,
    RecursionError,
)


def _parts(pointer: object) -> list[str] | None:
    if not isinstance(pointer, str):
        return None
    try:
        return list(jsonpointer.JsonPointer(pointer).parts)
    except jsonpointer.JsonPointerException:
        return None


def _index(part: str, length: int) -> int | None:
    """The array index a pointer segment names, as RFC 6901 reads it, if in ``length``.

    ASCII digits without a leading zero only: ``"²"`` or ``"٣"`` pass ``str.isdigit``
    (and ``int`` reads the second) but name no index.
    """
    if not (part.isascii() and part.isdigit()) or (part[0] == "0" and part != "0"):
        return None
    index = int(part)
    return index if index < length else None


def _at(document: Any, parts: Sequence[str]) -> Any:
    """The value at a pointer, or None when there is none."""
    node = document
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and (index := _index(part, len(node))) is not None:
            node = node[index]
        else:
            return None
    return node


def _own_path(holder: list[Any], parts: Sequence[str], owned: dict[int, Any]) -> None:
    """Copy each container above the pointer's target that this patch does not own yet."""
    parent: Any = holder
    key: Any = 0
    node = holder[0]
    for part in parts:
        if not isinstance(node, (dict, list)):
            return
        if id(node) not in owned:
            node = dict(node) if isinstance(node, dict) else list(node)
            parent[key] = node
            owned[id(node)] = node  # kept alive, so no id is reused during the patch
        if isinstance(node, dict):
            if part not in node:
                return
            parent, key, node = node, part, node[part]
        else:
            index = _index(part, len(node))
            if index is None:
                return
            parent, key, node = node, index, node[index]


def _replaced(document: Any, parts: Sequence[str] | None) -> Any:
    """What an ``add`` at ``parts`` replaces: the whole document, or a member of an object.

    None when it replaces nothing (an ``add`` into an array inserts).
    """
    if parts is None:
        return None
    if not parts:
        return document
    parent = _at(document, parts[:-1])
    return parent.get(parts[-1]) if isinstance(parent, dict) else None


def _growth(document: Any, op: dict[str, Any], parts: list[str] | None, budget: int) -> int:
    """How much an operation adds to the document's size (negative when it shrinks it).

    ``parts``: its ``path``, parsed (None when it is no pointer).
    """
    kind = op["op"]
    if kind in ("add", "replace"):
        added = json_size(op.get("value"), budget)
        if kind == "replace":
            old = _at(document, parts) if parts is not None else None
        else:
            old = _replaced(document, parts)
        return added - (json_size(old, budget) if old is not None else 0)
    if kind == "copy":
        source_parts = _parts(op.get("from"))
        source = _at(document, source_parts) if source_parts is not None else None
        return json_size(source, budget) if source is not None else 0
    if kind == "remove":
        old = _at(document, parts) if parts is not None else None
        return -json_size(old, budget) if old is not None else 0
    return 0  # move and test do not change the size


def _operation(op: dict[str, Any]) -> tuple[Any, list[str] | None, str | None]:
    """The operation built once, its path parsed, and why it cannot apply if it cannot."""
    try:
        operation = _OPERATIONS[op["op"]](op)
        return operation, list(operation.pointer.parts), None
    except _FAILURES as error:
        return None, None, str(error)


def apply_patch(
    document: Any, ops: Sequence[dict[str, Any]], *, size: int, max_size: int
) -> tuple[Any, int]:
    """The patched document and its size estimate; ``document`` itself is never changed.

    ``size`` is the document's current estimate. Raises :class:`PatchError` when an
    operation does not apply and :class:`PatchTooLarge` when the result would pass
    ``max_size``.
    """
    holder = [document]
    owned: dict[int, Any] = {}
    for op in ops:
        operation, parts, broken = _operation(op)
        size += _growth(holder[0], op, parts, max_size)
        if size > max_size:
            raise PatchTooLarge(
                f"operation {op['op']!r} at {op.get('path')!r} would make the document pass "
                f"{max_size} bytes"
            )
        if broken is not None:
            raise PatchError(broken)
        if parts is not None:
            _own_path(holder, parts, owned)
        if op["op"] == "move":
            source = _parts(op.get("from"))
            if source is not None:
                _own_path(holder, source, owned)
        try:
            holder[0] = operation.apply(holder[0])
        except _FAILURES as error:
            raise PatchError(str(error)) from None
    return holder[0], max(size, 0)
