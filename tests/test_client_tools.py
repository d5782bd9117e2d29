"""Client tools as Python functions: declared from their signature, validated, contained."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Literal

import pytest
from pydantic import BaseModel

from agui_transcripts import ClientTools, ToolOutcome


class Place(BaseModel):
    city: str
    country: str = "FR"


def _run(tools: ClientTools, name: str, arguments: object) -> ToolOutcome:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return asyncio.run(tools.run(name, text))


def test_the_declaration_comes_from_the_signature_and_the_docstring() -> None:
    tools = ClientTools()

    @tools.tool
    def show_map(place: Place, zoom: int = 10, style: Literal["road", "sky"] = "road") -> str:
        """Show a place on the user's map.

        Longer notes stay out of the description.
        """
        return ""

    [declaration] = tools.definitions()
    assert declaration["name"] == "show_map"
    assert declaration["description"] == "Show a place on the user's map."
    parameters = declaration["parameters"]
    assert parameters["type"] == "object"
    assert parameters["required"] == ["place"]
    assert parameters["additionalProperties"] is False
    assert parameters["properties"]["zoom"] == {"default": 10, "title": "Zoom", "type": "integer"}
    assert parameters["properties"]["style"]["enum"] == ["road", "sky"]
    assert "Place" in parameters["$defs"]


def test_arguments_are_validated_and_coerced_before_the_call() -> None:
    calls: list[tuple[Place, int]] = []
    tools = ClientTools()

    @tools.tool
    def show_map(place: Place, zoom: int = 10) -> dict[str, object]:
        """Show a place."""
        calls.append((place, zoom))
        return {"shown": place.city, "zoom": zoom}

    done = _run(tools, "show_map", {"place": {"city": "Lyon"}, "zoom": "12"})
    assert done == ToolOutcome('{"shown": "Lyon", "zoom": 12}')
    assert calls == [(Place(city="Lyon"), 12)]
    wrong = _run(tools, "show_map", {"place": {"town": "Lyon"}})
    assert wrong.error is not None
    assert "place.city: Field required" in wrong.error
    assert wrong.content == wrong.error
    extra = _run(tools, "show_map", {"place": {"city": "Lyon"}, "colour": "red"})
    assert extra.error is not None
    assert "colour" in extra.error
    assert len(calls) == 1  # neither bad call reached the function


@pytest.mark.parametrize(
    ("arguments", "message"),
    [("{not json", "not JSON"), ("[1, 2]", "a JSON object, not list")],
)
def test_arguments_that_are_not_an_object_are_an_error_result(arguments: str, message: str) -> None:
    tools = ClientTools({"noop": lambda: "ok"})
    outcome = _run(tools, "noop", arguments)
    assert outcome.error is not None
    assert message in outcome.error
    assert _run(tools, "noop", "") == ToolOutcome("ok")  # no arguments streamed at all


def test_an_exception_becomes_an_error_result() -> None:
    def explode(power: int) -> str:
        raise RuntimeError(f"boom x{power}")

    assert _run(ClientTools([explode]), "explode", {"power": 2}) == ToolOutcome(
        "RuntimeError: boom x2", error="RuntimeError: boom x2"
    )


def test_async_and_sync_tools_both_time_out() -> None:
    async def slow_async() -> str:
        await asyncio.sleep(5)
        return "late"

    def slow_sync() -> str:
        time.sleep(0.5)
        return "late"

    tools = ClientTools([slow_async], timeout=0.05)
    tools.add(slow_sync, timeout=0.05)
    for name in ("slow_async", "slow_sync"):
        outcome = _run(tools, name, {})
        assert outcome.error == f"{name} did not answer within 0.05 s"


def test_an_unknown_tool_is_an_error_result_and_names_are_unique() -> None:
    tools = ClientTools({"a": lambda: "x"})
    assert _run(tools, "b", {}).error == "no client tool named 'b' is registered"
    with pytest.raises(ValueError, match="already registered"):
        tools.add(lambda: "y", name="a")


def test_parameters_named_like_pydantic_internals_work() -> None:
    def lookup(json: str, model_config: int) -> str:
        return f"{json}/{model_config}"

    tools = ClientTools([lookup])
    properties = tools.definitions()[0]["parameters"]["properties"]
    assert set(properties) == {"json", "model_config"}
    assert _run(tools, "lookup", {"json": "a", "model_config": 2}) == ToolOutcome("a/2")


def test_star_parameters_cannot_be_declared() -> None:
    def anything(*args: int, **kwargs: int) -> str:
        return ""

    with pytest.raises(TypeError, match=r"\*args and \*\*kwargs"):
        ClientTools([anything])
