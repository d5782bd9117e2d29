"""Imports flow one way: the layers of the architecture page, held against the code.

Every module of the package sits in one layer of the table in ``docs/architecture.md``
and imports (at module level or inside a function, for type checking or not) only
modules of lower layers; no module imports a private name of another.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from .builds import PACKAGE

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"


def _module_name(path: Path) -> str:
    """``reduce``, ``adapters.openai``, ``adapters`` (a package) and ``__init__`` (ours)."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts == ["__init__"]:
        return "__init__"
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# Written by the build hook into the compiled wheel only: data, not code with imports.
GENERATED = {"_compiled_docs"}
MODULES = {
    name: path
    for path in sorted(PACKAGE.rglob("*.py"))
    if (name := _module_name(path)) not in GENERATED
}


def _layers() -> dict[str, int]:
    """The page's table: module (or ``adapters.*``) -> layer."""
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("\nlayer  modules", 1)[1].split("```", 1)[0]
    layers: dict[str, int] = {}
    layer = -1
    for line in block.splitlines()[1:]:
        found = re.match(r"^\s*(\d+)\s+(.*)$", line)
        if found:
            layer = int(found.group(1))
            names = found.group(2)
        else:
            names = line
        for name in names.split():
            layers[name] = layer
    return layers


def _layer_of(module: str, layers: dict[str, int]) -> int | None:
    if module in layers:
        return layers[module]
    if module.startswith("adapters."):
        return layers.get("adapters.*")
    return None


def _imports(module: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken, line) for every import of the package's modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" and module != "__init__" else []
    if not package:
        package = module.split(".")[:-1] if module != "__init__" else []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                if node.module:
                    found.append((".".join([*base, node.module]), names, node.lineno))
                    continue
                for name in names:  # from . import name: a module, or a name of the package
                    candidate = ".".join([*base, name])
                    if candidate in MODULES:
                        found.append((candidate, [], node.lineno))
                    else:
                        found.append((".".join(base), [name], node.lineno))
            elif node.module and node.module.startswith("agui_transcripts"):
                inner = node.module.removeprefix("agui_transcripts").lstrip(".")
                found.append((inner, names, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("agui_transcripts"):
                    inner = alias.name.removeprefix("agui_transcripts").lstrip(".")
                    found.append((inner, [], node.lineno))
    return [(target or "__init__", names, line) for target, names, line in found]


def test_every_module_has_a_layer() -> None:
    layers = _layers()
    assert [m for m in MODULES if _layer_of(m, layers) is None] == []
    assert len(set(layers.values())) > 8


def test_the_table_names_only_real_modules() -> None:
    stale = [name for name in _layers() if name != "adapters.*" and name not in MODULES]
    assert stale == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module: str) -> None:
    layers = _layers()
    own = _layer_of(module, layers)
    assert own is not None
    upward = []
    for target, _, line in _imports(module, MODULES[module]):
        theirs = _layer_of(target, layers)
        assert theirs is not None, target
        if theirs >= own:
            upward.append(f"line {line}: {target} (layer {theirs}) from layer {own}")
    assert upward == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_name_crosses_modules(module: str) -> None:
    taken = [
        f"line {line}: {name} from {target}"
        for target, names, line in _imports(module, MODULES[module])
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert taken == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_attribute_of_another_module(module: str) -> None:
    """``obj._name`` only for names this module defines itself (its own classes' fields)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    own = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }
    own |= {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, (ast.ClassDef,))
        for item in node.body
        if isinstance(item, (ast.AnnAssign, ast.Assign))
        for target in (item.targets if isinstance(item, ast.Assign) else [item.target])
        if isinstance(target, ast.Name)
    }
    own |= {
        node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }
    foreign = [
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
        and node.attr not in own
    ]
    assert foreign == []


def test_the_scan_sees_every_kind_of_import() -> None:
    """Guard: relative, package-level and function-level imports are all found."""
    reduce_targets = {target for target, _, _ in _imports("reduce", MODULES["reduce"])}
    assert {"model", "message_list", "text_budget", "chunks"} <= reduce_targets
    openai = _imports("adapters.openai", MODULES["adapters.openai"])
    assert ("adapters", ["messages_of"]) in [(target, names[:1]) for target, names, _ in openai]
    registry = _imports("adapters.registry", MODULES["adapters.registry"])
    assert {"adapters.openai", "adapters.target", "_gc"} <= {target for target, _, _ in registry}
    inner = _imports("cli", MODULES["cli"])  # the CLI imports html inside a function
    assert "html" in {target for target, _, _ in inner}
