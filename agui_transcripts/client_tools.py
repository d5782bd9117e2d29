"""Client tools as Python functions: the tools a harness declares and runs itself.

An AG-UI agent calls a client tool and ends its run; the client runs the tool and sends
the result in the next run. :class:`ClientTools` maps tool names to sync or async
functions: their JSON schema, derived from the signature with pydantic, goes out as
``RunAgentInput.tools``; each call's arguments are validated before the function runs;
an exception, invalid arguments or a timeout become a tool *error* result the agent can
read, never a crash of the harness.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import to_jsonable_python

__all__ = ["ClientTool", "ClientTools", "ToolOutcome"]


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What running one call gave: the result's content, and the error if it failed."""

    content: str
    error: str | None = None


class ClientTool:
    """One client tool: its function, its declaration, and how a call is run."""

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
    ) -> None:
        self.function = function
        self.name = name or function.__name__
        doc = inspect.getdoc(function) or ""
        self.description = description if description is not None else doc.split("\n\n")[0]
        self.timeout = timeout
        self._parameters, self._arguments = _arguments_model(function, self.name)
        self._is_async = inspect.iscoroutinefunction(function)

    def definition(self) -> dict[str, Any]:
        """The AG-UI ``Tool`` declaration (name, description, JSON schema parameters)."""
        schema = self._arguments.model_json_schema(by_alias=True)
        schema.pop("title", None)
        return {"name": self.name, "description": self.description, "parameters": schema}

    async def run(self, arguments: str, *, timeout: float | None = None) -> ToolOutcome:
        """Run one call whose arguments are the JSON text the agent streamed.

        ``timeout`` (the tool's own when it has one) bounds the call. A synchronous
        function runs in a worker thread, so the harness keeps serving other calls; at
        the timeout its result is no longer waited for, though Python cannot stop the
        thread itself.
        """
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError as error:
            return _failed(f"the arguments are not JSON: {error}")
        if not isinstance(parsed, dict):
            return _failed(f"the arguments must be a JSON object, not {type(parsed).__name__}")
        try:
            validated = self._arguments.model_validate(parsed)
        except ValidationError as error:
            details = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in error.errors(include_url=False)
            )
            return _failed(f"invalid arguments for {self.name}: {details}")
        kwargs = {name: getattr(validated, field) for name, field in self._parameters}
        limit = self.timeout if self.timeout is not None else timeout
        try:
            if self._is_async:
                call: Any = self.function(**kwargs)
            else:
                call = asyncio.to_thread(functools.partial(self.function, **kwargs))
            value = await (call if limit is None else asyncio.wait_for(call, limit))
        except asyncio.TimeoutError:
            return _failed(f"{self.name} did not answer within {limit} s")
        except Exception as error:  # the tool's failure is the agent's to read
            return _failed(f"{type(error).__name__}: {error}")
        return ToolOutcome(_content(value))

    def __repr__(self) -> str:
        return f"ClientTool({self.name!r})"


def _failed(message: str) -> ToolOutcome:
    return ToolOutcome(message, error=message)


def _content(value: Any) -> str:
    """A function's return value as tool result content: text as it is, the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable_python(value), ensure_ascii=False)


def _arguments_model(
    function: Callable[..., Any], name: str
) -> tuple[list[tuple[str, str]], type[BaseModel]]:
    """A pydantic model of the function's parameters, and (parameter, field) pairs.

    Fields are named ``p0``, ``p1``, ... with the parameter names as aliases, so a
    parameter may be called ``json`` or ``model_config`` without clashing with pydantic.
    """
    fields: dict[str, Any] = {}
    pairs: list[tuple[str, str]] = []
    hints = _resolved_annotations(function)
    for position, parameter in enumerate(inspect.signature(function).parameters.values()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(
                f"client tool {name!r}: *args and **kwargs cannot be declared to an agent; "
                "name each parameter"
            )
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"client tool {name!r}: {parameter.name!r} must accept a keyword")
        annotation = hints.get(parameter.name, parameter.annotation)
        if annotation is parameter.empty:
            annotation = Any
        default = ... if parameter.default is parameter.empty else parameter.default
        field = f"p{position}"
        fields[field] = (annotation, Field(default, alias=parameter.name))
        pairs.append((parameter.name, field))
    model = create_model(
        f"{name}_arguments",
        __config__=ConfigDict(extra="forbid", populate_by_name=False),
        **fields,
    )
    return pairs, model


def _resolved_annotations(function: Callable[..., Any]) -> dict[str, Any]:
    """The parameters' annotations with string (postponed) ones evaluated."""
    try:
        return dict(inspect.get_annotations(function, eval_str=True))
    except Exception:  # an annotation that does not evaluate: the raw one is used
        return {}


class ClientTools:
    """A registry of client tools: name → sync or async function.

    Build it with the :meth:`tool` decorator, from a mapping, or from functions::

        tools = ClientTools()

        @tools.tool
        def show_map(city: str, zoom: int = 10) -> str:
            \"\"\"Show a city on the user's map.\"\"\"
            return f"map of {city} shown"

    ``timeout`` is the default per-call timeout in seconds (None: none).
    """

    def __init__(
        self,
        functions: Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]] = (),
        *,
        timeout: float | None = 60.0,
    ) -> None:
        self.timeout = timeout
        self._tools: dict[str, ClientTool] = {}
        items = (
            functions.items()
            if isinstance(functions, Mapping)
            else ((None, function) for function in functions)
        )
        for name, function in items:
            self.add(function, name=name)

    @classmethod
    def of(cls, tools: Any) -> ClientTools:
        """A registry from what a caller gave: a registry, a mapping or functions."""
        if tools is None:
            return cls()
        if isinstance(tools, ClientTools):
            return tools
        return cls(tools)

    def add(
        self,
        function: Callable[..., Any] | ClientTool,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
    ) -> ClientTool:
        """Register a function; returns its :class:`ClientTool`."""
        if isinstance(function, ClientTool):
            tool = function
        else:
            tool = ClientTool(function, name=name, description=description, timeout=timeout)
        if tool.name in self._tools:
            raise ValueError(f"a client tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def tool(
        self,
        function: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Decorator registering a function (``@tools.tool`` or ``@tools.tool(name=...)``).

        The function is returned unchanged, so it stays callable as it was.
        """

        def register(target: Callable[..., Any]) -> Callable[..., Any]:
            self.add(target, name=name, description=description, timeout=timeout)
            return target

        return register(function) if function is not None else register

    def definitions(self) -> list[dict[str, Any]]:
        """The AG-UI ``Tool`` declarations, for ``RunAgentInput.tools``."""
        return [tool.definition() for tool in self._tools.values()]

    async def run(self, name: str, arguments: str) -> ToolOutcome:
        """Run a call of the tool ``name``; an unknown name is an error result."""
        tool = self._tools.get(name)
        if tool is None:
            return _failed(f"no client tool named {name!r} is registered")
        return await tool.run(arguments, timeout=self.timeout)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __getitem__(self, name: str) -> ClientTool:
        return self._tools[name]

    def __repr__(self) -> str:
        return f"ClientTools({', '.join(self._tools)})"
