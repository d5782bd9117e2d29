"""The pages under docs/ stay true: their code runs, their tables match the code."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
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
    plain = {"string": pa.string(), "bool": pa.bool_(), "int64": pa.int64(), "double": pa.float64()}
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


# -- every Python block of every page, run as a user runs it -----------------------------


def _python_blocks() -> list[tuple[str, str]]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
    found = []
    for page in pages:
        blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        for number, block in enumerate(blocks, 1):
            found.append((f"{page.relative_to(ROOT)}#{number}", block))
    return found


BLOCKS = _python_blocks()


def _missing_modules(where: str, block: str) -> list[str]:
    """The frameworks a block needs that are not installed here (its extra's).

    Those it imports, and the one an adapter page's adapter imports for it.
    """
    stem = Path(where.partition("#")[0]).stem
    names = {NEEDS[stem]} if where.startswith("docs/adapters/") and stem in NEEDS else set()
    for node in ast.walk(ast.parse(block)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
            adapter = node.module.removeprefix("agui_transcripts.adapters.")
            if adapter != node.module and adapter in NEEDS:
                names.add(NEEDS[adapter])  # the adapter imports its framework
    optional = {"ray", "ragas", "deepeval", "inspect_ai", "langchain_core", "httpx"}
    return sorted(name for name in names & optional if importlib.util.find_spec(name) is None)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A working folder laid out as the docs assume: the clone's examples, and runs/."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "examples" / "runs", tmp_path / "runs")
    return tmp_path


@pytest.mark.parametrize(("where", "block"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_every_python_block_runs_as_a_script(where: str, block: str, clone: Path) -> None:
    missing = _missing_modules(where, block)
    if missing:
        pytest.skip(f"{where} needs {', '.join(missing)} (its extra's CI leg runs it)")
    script = clone / "block.py"
    script.write_text(block, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    assert done.returncode == 0, f"{where}:\n{done.stderr[-3000:]}"


def test_the_dataset_recipe_runs_piped_on_stdin_and_jobs_without_a_guard_says_why(
    clone: Path,
) -> None:
    """The pool is opt-in; unguarded, it fails with the reason instead of a broken pool."""
    recipe = (
        "from agui_transcripts.arrow import write_parquet\n"
        "from agui_transcripts.rows import rows_of_logs\n"
        "print(write_parquet(rows_of_logs(['runs/']), 'rows.parquet'))\n"
    )
    piped = subprocess.run(
        [sys.executable, "-"], input=recipe, cwd=clone, capture_output=True, text=True, check=False
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.strip() == "2"
    (clone / "pooled.py").write_text(recipe.replace("['runs/']", "['runs/'], jobs=2"))
    pooled = subprocess.run(
        [sys.executable, "pooled.py"], cwd=clone, capture_output=True, text=True, check=False
    )
    assert pooled.returncode == 1
    assert "WorkerError" in pooled.stderr
    assert 'if __name__ == "__main__":' in pooled.stderr
    assert "BrokenProcessPool" not in pooled.stderr.splitlines()[-1]
    guarded = (
        "def main():\n"
        + "".join(
            f"    {line}\n"
            for line in recipe.replace("['runs/']", "['runs/'], jobs=2").splitlines()
        )
        + "\nif __name__ == '__main__':\n    main()\n"
    )
    (clone / "guarded.py").write_text(guarded)
    done = subprocess.run(
        [sys.executable, "guarded.py"], cwd=clone, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"


def test_every_shell_block_runs_as_written(clone: Path) -> None:
    """``sh`` blocks are commands a user pastes: run each page's in a clone-shaped folder."""
    pages = sorted((ROOT / "docs").glob("**/*.md"))
    blocks = [
        (page, block)
        for page in pages
        for block in re.findall(r"```sh\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    ]
    assert blocks, "the dataset page's commands"
    for page, block in blocks:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            cwd=clone,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert done.returncode == 0, f"{page.name}:\n{done.stderr[-2000:]}"
