"""Pydantic models to JSON values without ``model_dump``, where that gives the same result.

``model_dump(by_alias=True, mode="json")`` of an ``ag_ui.core`` event costs several
microseconds per nested model (the SDK's wrap serializer runs in Python for each), more
than the whole fold of the event. For models whose serialization is plain (their fields
by alias, no custom field or model serializer other than the SDK's dropping of unset
optional fields, no computed or excluded fields, no extras) reading the fields directly
gives the same value. :func:`json_value` does that and returns :data:`NOT_PLAIN` for
anything it cannot vouch for, so the caller falls back to ``model_dump``.
"""

from __future__ import annotations

import enum
import math
from typing import Any, Final

__all__ = ["NOT_PLAIN", "is_plain_model", "json_value"]

NOT_PLAIN: Final[Any] = object()
"""Returned when a value is not certainly dumped as read: use ``model_dump``."""

# The SDK's model serializer: it drops the optional fields that hold None. Any other
# model serializer may change anything.
_OMITTING_SERIALIZER: Final = "_omit_fields_without_value"
_MAX_DEPTH: Final = 64  # deeper values are left to model_dump


class _Plan:
    """How to dump one model class (a plain class: compiled, its fields read natively)."""

    __slots__ = ("omittable", "wire")

    def __init__(self, wire: dict[str, str], omittable: frozenset[str]) -> None:
        self.wire = wire  # field name -> serialized name
        self.omittable = omittable  # fields whose None is dropped


_PLANS: Final[dict[type, _Plan | None]] = {}


def _plan(cls: type) -> _Plan | None:
    fields = getattr(cls, "model_fields", None)
    decorators = getattr(cls, "__pydantic_decorators__", None)
    if not isinstance(fields, dict) or decorators is None:
        return None
    if (
        getattr(cls, "__pydantic_computed_fields__", None)
        or getattr(cls, "__pydantic_root_model__", False)
        or decorators.field_serializers
    ):
        return None
    serializers = decorators.model_serializers
    for name, decorator in serializers.items():
        module = getattr(decorator.func, "__module__", None) or ""
        if name != _OMITTING_SERIALIZER or not module.startswith("ag_ui."):
            return None
    wire: dict[str, str] = {}
    omittable: set[str] = set()
    for name, field in fields.items():
        alias = field.alias or name
        if field.exclude or field.serialization_alias not in (None, alias):
            return None
        wire[name] = alias
        if serializers and not field.is_required() and field.default is None:
            omittable.add(name)
    return _Plan(wire, frozenset(omittable))


def _plan_of(cls: type) -> _Plan | None:
    try:
        return _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
        return plan


def is_plain_model(cls: type) -> bool:
    """Whether instances of ``cls`` dump as their fields read by alias (see above)."""
    return _plan_of(cls) is not None


def _model(item: Any, depth: int) -> Any:
    plan = _plan_of(type(item))
    if plan is None or getattr(item, "__pydantic_extra__", None):
        return NOT_PLAIN
    wire = plan.wire
    omittable = plan.omittable
    out: dict[str, Any] = {}
    for name, value in item.__dict__.items():
        key = wire.get(name)
        if key is None:
            return NOT_PLAIN  # an attribute set on the object that is no field of its class
        if value is None:
            if name not in omittable:
                out[key] = None
            continue
        value = json_value(value, depth + 1)
        if value is NOT_PLAIN:
            return NOT_PLAIN
        out[key] = value
    return out


def json_value(value: Any, depth: int = 0) -> Any:
    """``value`` as ``model_dump(by_alias=True, mode="json")`` would give it, or NOT_PLAIN."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if depth > _MAX_DEPTH:
        return NOT_PLAIN
    if kind is float:
        return value if math.isfinite(value) else NOT_PLAIN
    if kind is list or kind is tuple:
        items = []
        for item in value:
            item = json_value(item, depth + 1)
            if item is NOT_PLAIN:
                return NOT_PLAIN
            items.append(item)
        return items
    if kind is dict:
        out: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                return NOT_PLAIN
            item = json_value(item, depth + 1)
            if item is NOT_PLAIN:
                return NOT_PLAIN
            out[key] = item
        return out
    if isinstance(value, enum.Enum):
        inner = value.value
        return inner if type(inner) in (str, int) else NOT_PLAIN
    # Any other class: a plain pydantic model, or not (its plan, cached per class, says).
    return _model(value, depth)
