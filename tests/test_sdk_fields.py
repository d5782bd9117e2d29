"""Every field the installed ag-ui-protocol defines, with a value it accepts, passes.

The verifier's field table is written by hand (it follows the reference client's
schemas). This walks the installed SDK's event models instead, builds each event with
every field set, one event per alternative of each union (every outcome, every content
part...), and checks that no value the SDK accepts is reported as malformed. A field a
new protocol release adds or retypes fails here until the table follows it.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
import warnings
from collections.abc import Iterator
from typing import Any

import ag_ui.core as core
import pydantic
import pytest

from agui_transcripts import Verifier, normalize_event

#: What an ``Any`` field may hold: an object, a string, a number.
_ANY_SAMPLES: list[Any] = [{"k": [1, "two"]}, "text", 3]


def _unwrap(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def samples(annotation: Any, depth: int = 0) -> list[Any]:
    """Values of ``annotation``'s JSON form, one per alternative (the first is the fullest)."""
    annotation = _unwrap(annotation)
    origin = typing.get_origin(annotation)
    if annotation is Any or annotation is object:
        return _ANY_SAMPLES
    if origin is typing.Literal:
        return [
            value.value if isinstance(value, enum.Enum) else value
            for value in typing.get_args(annotation)
        ]
    if origin in (typing.Union, types.UnionType):
        out: list[Any] = []
        for member in typing.get_args(annotation):
            if member is not type(None):
                out += samples(member, depth)
        return out
    if origin in (list, typing.List, tuple):  # noqa: UP006 - the SDK's own spelling
        [item] = typing.get_args(annotation)[:1] or [Any]
        return [[value] for value in samples(item, depth + 1)]
    if origin in (dict, typing.Dict):  # noqa: UP006
        return [{"key": "value"}]
    if inspect.isclass(annotation) and issubclass(annotation, enum.Enum):
        return [member.value for member in annotation]
    if inspect.isclass(annotation) and issubclass(annotation, pydantic.BaseModel):
        return list(models(annotation, depth + 1))
    if annotation is bool:
        return [True]
    if annotation is int:
        return [7]
    if annotation is float:
        return [0.5]
    if annotation is str:
        return ["/x"]  # a JSON Pointer too (patch paths are constrained to one)
    raise AssertionError(f"no sample for {annotation!r}: teach this test the new type")


def models(model: type[pydantic.BaseModel], depth: int = 0) -> Iterator[dict[str, Any]]:
    """``model`` as wire dicts: every field set, then each field's other alternatives."""
    fields = {
        (info.alias or name): samples(info.annotation, depth) if depth < 6 else samples(str)
        for name, info in model.model_fields.items()
    }
    base = {name: values[0] for name, values in fields.items()}
    yield base
    for name, values in fields.items():
        for value in values[1:]:
            yield {**base, name: value}


def event_models() -> list[type[pydantic.BaseModel]]:
    found = []
    for name in dir(core):
        cls = getattr(core, name)
        if (
            inspect.isclass(cls)
            and issubclass(cls, pydantic.BaseModel)
            and name.endswith("Event")
            and "type" in cls.model_fields
            and isinstance(cls.model_fields["type"].default, (str, enum.Enum))
        ):
            found.append(cls)
    return found


EVENT_MODELS = event_models()


def test_the_walk_finds_the_sdk_events() -> None:
    assert len(EVENT_MODELS) >= 25


@pytest.mark.parametrize("model", EVENT_MODELS, ids=lambda model: model.__name__)
def test_no_field_the_sdk_defines_is_flagged(model: type[pydantic.BaseModel]) -> None:
    checked = 0
    for data in models(model):
        kind = model.model_fields["type"].default
        data["type"] = kind.value if isinstance(kind, enum.Enum) else kind
        try:
            with warnings.catch_warnings():  # a deprecated part type is still a valid one
                warnings.simplefilter("ignore", DeprecationWarning)
                event = model.model_validate(data)
        except pydantic.ValidationError:
            continue  # an alternative the model itself refuses (a constrained field)
        wire = normalize_event(event.model_dump(by_alias=True, mode="json", exclude_none=True))
        assert wire is not None
        verifier = Verifier()
        verifier.feed(wire, index=0)
        malformed = [d for d in verifier.sink.diagnostics if d.code == "malformed-event"]
        assert malformed == [], wire
        checked += 1
    assert checked, f"no {model.__name__} could be built"


def test_activity_content_follows_the_installed_release() -> None:
    """1.0 wants an object; 0.1.x typed the content as anything, so it passes there."""
    from importlib.metadata import version

    event = {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "x", "content": "s"}
    verifier = Verifier()
    verifier.feed(event, index=0)
    flagged = [d.message for d in verifier.sink.diagnostics if d.code == "malformed-event"]
    if version("ag-ui-protocol").startswith("0."):
        assert flagged == []
    else:
        assert flagged == ["ACTIVITY_SNAPSHOT.content: expected object, received string"]
