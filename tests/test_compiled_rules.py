"""Rules a compiled module's source obeys, read from the source (in either build).

In the compiled build a module-level name that is not ``Final`` is looked up in the
module's globals at every read, a named tuple's fields are read by lookups rather than
natively, and ``isinstance`` against a tuple held in a name is a generic call where a
tuple written out is one type comparison per class (see the architecture page's
compiled-build rules). These hold for every module the build compiles, so a new
constant or class cannot bring the lookups back to the hot path unnoticed.
"""

from __future__ import annotations

import ast

import pytest

from .builds import PACKAGE, listed_for_compilation

COMPILED = listed_for_compilation()


def _tree(module: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))


def _is_constant_name(name: str) -> bool:
    bare = name.lstrip("_")
    return bare[:1].isalpha() and bare.upper() == bare


def _is_type_variable(value: ast.expr | None) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in {"TypeVar", "ParamSpec"}
    )


def test_the_rules_are_held_against_the_modules_the_build_compiles() -> None:
    assert {"events", "reduce", "readers", "_dump"} <= set(COMPILED)


@pytest.mark.parametrize("module", COMPILED)
def test_module_constants_are_final(module: str) -> None:
    loose = []
    for node in _tree(module).body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            final = False
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
            final = "Final" in ast.unparse(node.annotation)
        else:
            continue
        if not final and not _is_type_variable(node.value):
            loose += [name for name in names if _is_constant_name(name) and name != "__all__"]
    assert loose == []


@pytest.mark.parametrize("module", COMPILED)
def test_no_named_tuples(module: str) -> None:
    named = [
        node.name
        for node in ast.walk(_tree(module))
        if isinstance(node, ast.ClassDef)
        and any(ast.unparse(base) in {"NamedTuple", "typing.NamedTuple"} for base in node.bases)
    ]
    assert named == []


@pytest.mark.parametrize("module", COMPILED)
def test_isinstance_takes_classes_written_out(module: str) -> None:
    held = [
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(_tree(module))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Name)
        and _is_constant_name(node.args[1].id)
    ]
    assert held == []


def _imported_constants(tree: ast.Module) -> set[str]:
    """Constant names a module imports from the package's other modules."""
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level >= 1
        for alias in node.names
        if _is_constant_name(alias.asname or alias.name)
    }


@pytest.mark.parametrize("module", COMPILED)
def test_functions_read_no_constant_imported_from_another_module(module: str) -> None:
    # Compiled, only a module's own Final names are statics: an imported one is looked up
    # in the module's globals at each read (a frozenset read per key of every event, once).
    tree = _tree(module)
    imported = _imported_constants(tree)
    read = [
        f"line {name.lineno}: {name.id} in {function.name}"
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for name in ast.walk(function)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load) and name.id in imported
    ]
    assert read == []
