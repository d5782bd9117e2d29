"""The pages under docs/ stay true: their code runs, their tables match the code."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from agui_transcripts.adapters.registry import REGISTRY

from .adapter_modules import adapter_modules
from .builds import PACKAGE

ROOT = Path(__file__).resolve().parent.parent
ADAPTER_PAGES = sorted((ROOT / "docs" / "adapters").glob("*.md"))
SEPARATOR = re.compile(r"=+\s+=+")
# The framework each page's code imports, when it imports one.
NEEDS = {
    "langchain": "langchain_core",
    "ragas": "ragas",
    "deepeval": "deepeval",
    "inspect": "inspect_ai",
}


def docstring_table(module: str) -> list[tuple[str, str]]:
    """The two-column table in a module docstring, continuation lines joined."""
    spec = importlib.util.find_spec(module)
    assert spec is not None
    assert spec.origin is not None
    doc = ast.get_docstring(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))) or ""
    lines = doc.splitlines()
    rules = [i for i, line in enumerate(lines) if SEPARATOR.fullmatch(line.strip())]
    assert len(rules) == 3, f"{module}: expected one table"
    width = len(lines[rules[0]].split()[0])
    rows: list[list[str]] = []
    for line in lines[rules[0] + 1 : rules[1]] + lines[rules[1] + 1 : rules[2]]:
        left, right = line[:width].strip(), line[width:].strip()
        if left:
            rows.append([left, right])
        elif rows and right:
            rows[-1][1] += " " + right
    return [(left.replace("``", "`"), right.replace("``", "`")) for left, right in rows]


def page_table(page: Path) -> list[tuple[str, str]]:
    rows = []
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            rows.append((cells[0], cells[1]))
    return rows


def test_every_registered_adapter_has_a_page() -> None:
    # An adapter module is one that declares a target (tests/test_registry.py).
    modules = {module.__name__ for module in adapter_modules()}
    assert {f"agui_transcripts.adapters.{page.stem}" for page in ADAPTER_PAGES} == modules
    assert len(modules) == len(REGISTRY)


@pytest.mark.parametrize("page", ADAPTER_PAGES, ids=lambda page: page.stem)
def test_page_table_is_the_module_table(page: Path) -> None:
    assert page_table(page) == docstring_table(f"agui_transcripts.adapters.{page.stem}")


@pytest.mark.parametrize("page", ADAPTER_PAGES, ids=lambda page: page.stem)
def test_page_code_runs(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    framework = NEEDS.get(page.stem)
    if framework is not None:
        pytest.importorskip(framework)
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, str(page), "exec"), {})


def test_architecture_names_real_modules() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b([a-z_]+)\.py\b", text))
    missing = [
        name
        for name in named
        if not list(PACKAGE.glob(f"**/{name}.py"))
        and not (ROOT / f"{name}.py").exists()  # the build hook
        and not (ROOT / "tests" / f"{name}.py").exists()
        and not list(ROOT.glob(f"tests/**/{name}.py"))
    ]
    assert missing == []
    for module in ("chunks", "verify", "reduce", "ownership", "projection"):
        importlib.import_module(f"agui_transcripts.{module}")


def _dataset_page_table(heading: str) -> list[list[str]]:
    text = (ROOT / "docs" / "dataset.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
        elif rows and not line.startswith("|"):
            break
    return rows[1:]  # past the header


def test_dataset_page_lists_every_column_with_its_type() -> None:
    import pyarrow as pa

    from agui_transcripts.arrow import row_schema
    from agui_transcripts.rows import SCHEMA_VERSION

    page = (ROOT / "docs" / "dataset.md").read_text(encoding="utf-8")
    assert f"## The row (schema version {SCHEMA_VERSION})" in page
    schema = row_schema()
    documented: list[tuple[str, str]] = []
    for cells in _dataset_page_table("## The row"):
        for name in re.findall(r"`([a-z_]+)`", cells[0]):
            documented.append((name, cells[1].replace("\\<", "<")))
    assert [name for name, _ in documented] == schema.names
    plain = {"string": pa.string(), "bool": pa.bool_(), "int64": pa.int64()}
    for name, kind in documented:
        field = schema.field(name).type
        if kind in plain:
            assert field == plain[kind], name
        elif kind == "list<string>":
            assert field == pa.list_(pa.string()), name
        else:
            assert pa.types.is_list(field), name
            assert pa.types.is_struct(field.value_type), name
    message = schema.field("messages").type.value_type
    fields = [cells[0].strip("`") for cells in _dataset_page_table("A **message**")]
    assert fields == message.names
    call = schema.field("tool_calls").type.value_type
    listed = re.search(r"A \*\*tool call\*\* is `struct<([^>]+)>`", page.replace("\n", " "))
    assert listed is not None
    assert [name.strip() for name in listed[1].split(",")] == call.names
