"""The adapter modules: those of ``agui_transcripts.adapters`` that declare a ``TARGET``."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import agui_transcripts.adapters as adapters_package


def adapter_modules() -> list[ModuleType]:
    """Every module of the adapters package that declares a target, by name."""
    modules = [
        importlib.import_module(f"{adapters_package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(adapters_package.__path__)
    ]
    return [module for module in modules if hasattr(module, "TARGET")]
