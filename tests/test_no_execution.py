"""Nothing in the library evaluates or executes what a stream carries.

Stream content is data: the package never hands it to ``eval``/``exec``/``compile``,
never unpickles, never imports by a name it was given, and never starts a process or a
shell. Checked on the syntax tree of every module, so a new use fails here first.

One import by name is allowed: ``agui-transcripts run`` imports the agent app, client
tools and policies its command line names (``--tools module:registry``), as uvicorn
and pytest do. Those names come from the person running it, never from a stream.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .builds import PACKAGE

MODULES = sorted(PACKAGE.rglob("*.py"))
FORBIDDEN_BUILTINS = {"eval", "exec", "compile", "__import__", "breakpoint"}
FORBIDDEN_ATTRIBUTES = {("os", "system"), ("os", "popen"), ("importlib", "import_module")}
FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "subprocess", "ctypes", "dill", "yaml"}
# Uses that are what the module is for: (module, the call's text).
ALLOWED = {("cli_run.py", "importlib.import_module()")}


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_code_execution_primitives(module: Path) -> None:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_BUILTINS:
                found.append(f"line {node.lineno}: {func.id}()")
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and (func.value.id, func.attr) in FORBIDDEN_ATTRIBUTES
            ):
                call = f"{func.value.id}.{func.attr}()"
                if (module.name, call) not in ALLOWED:
                    found.append(f"line {node.lineno}: {call}")
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in FORBIDDEN_MODULES
        ):
            found.append(node.module)
    assert found == []


def test_the_scan_sees_the_package() -> None:
    assert len(MODULES) > 20


def test_the_allowed_import_by_name_is_still_there() -> None:
    """An allowance nothing uses any more must go."""
    text = (PACKAGE / "cli_run.py").read_text(encoding="utf-8")
    assert "importlib.import_module(" in text
