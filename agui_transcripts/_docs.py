"""The public names' docstrings and signatures, kept for the compiled build.

mypyc drops docstrings and annotations from what it compiles: ``help(fold)`` and a
notebook's ``fold?`` would show nothing. The build hook imports the pure-Python package
before compiling it and records, with :func:`snapshot`, each public callable's
docstring and signature as text; the compiled wheel ships the record as
``_compiled_docs.py`` and ``__init__`` hands it to :func:`restore`. Classes take their
docstring and signature back as attributes; a compiled function, whose ``__doc__``
cannot be set, is exported through a thin Python function that carries them.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import types
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

__all__ = ["restore", "snapshot"]

_KINDS = {
    int(kind): kind
    for kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    )
}


def snapshot(namespace: MutableMapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """Each callable's docstring and signature, as JSON-able text."""
    records: dict[str, Any] = {}
    for name in names:
        value = namespace[name]
        if not (isinstance(value, type) or inspect.isroutine(value)):
            continue
        signature = None
        # An exception takes its base's arguments: no signature of its own to keep.
        if not (isinstance(value, type) and issubclass(value, BaseException)):
            with contextlib.suppress(TypeError, ValueError):
                signature = inspect.signature(value)
        records[name] = {
            "doc": value.__doc__,
            "coroutine": inspect.iscoroutinefunction(value),
            "parameters": None
            if signature is None
            else [
                (
                    parameter.name,
                    int(parameter.kind),
                    None if parameter.default is parameter.empty else repr(parameter.default),
                    _text(parameter.annotation, parameter.empty),
                )
                for parameter in signature.parameters.values()
            ],
            "returns": None
            if signature is None
            else _text(signature.return_annotation, signature.empty),
        }
    return records


def _text(annotation: Any, empty: Any) -> str | None:
    if annotation is empty:
        return None
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


class _Shown:
    """A default value shown as its recorded text (the signature is for reading)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _signature(record: dict[str, Any]) -> inspect.Signature | None:
    if record["parameters"] is None:
        return None
    parameters = [
        inspect.Parameter(
            name,
            _KINDS[kind],
            default=inspect.Parameter.empty if default is None else _Shown(default),
            annotation=inspect.Parameter.empty if annotation is None else annotation,
        )
        for name, kind, default, annotation in record["parameters"]
    ]
    returns = record["returns"]
    return inspect.Signature(
        parameters, return_annotation=inspect.Signature.empty if returns is None else returns
    )


def restore(namespace: MutableMapping[str, Any], records: dict[str, Any]) -> None:
    """Give each compiled public name back what :func:`snapshot` recorded of its source."""
    for name, record in records.items():
        value = namespace.get(name)
        if value is None or value.__doc__ == record["doc"]:
            continue  # not compiled, or nothing lost
        signature = _signature(record)
        if isinstance(value, type):
            try:
                value.__doc__ = record["doc"]
                if signature is not None:
                    value.__signature__ = signature  # type: ignore[attr-defined]
            except (AttributeError, TypeError):  # a type that refuses: left as it is
                pass
        elif not isinstance(value, types.FunctionType) and callable(value):
            # A compiled function (a builtin, or mypyc's own type for coroutines).
            namespace[name] = _documented(value, name, record, signature)


def _documented(
    function: Callable[..., Any],
    name: str,
    record: dict[str, Any],
    signature: inspect.Signature | None,
) -> Callable[..., Any]:
    if record["coroutine"]:

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await function(*args, **kwargs)

        wrapper: Callable[..., Any] = call_async
    else:

        def call(*args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)

        wrapper = call
    functools.update_wrapper(wrapper, function)
    wrapper.__doc__ = record["doc"]
    wrapper.__name__ = wrapper.__qualname__ = name
    # Pickle finds the wrapper under the package's name, where it is exported.
    wrapper.__module__ = "agui_transcripts"
    if signature is not None:
        wrapper.__signature__ = signature  # type: ignore[attr-defined]
    return wrapper
