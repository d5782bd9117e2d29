"""The compiled build: what the hook compiles, and that it folds every corpus alike.

These run where the mypyc-compiled wheel is installed (CI's compiled leg sets
``AGUI_TRANSCRIPTS_EXPECT_COMPILED=1``, which makes a pure-Python install a failure);
elsewhere they report themselves skipped with the command that builds it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .build_digest import digest
from .builds import EXPECT_COMPILED, PACKAGE, ROOT, compiled_modules, listed_for_compilation

BUILD = 'AGUI_TRANSCRIPTS_BUILD=compiled pip install ".[test]"'


@pytest.fixture(scope="module")
def compiled() -> list[str]:
    found = compiled_modules()
    if not found:
        if EXPECT_COMPILED:
            pytest.fail(f"AGUI_TRANSCRIPTS_EXPECT_COMPILED=1, but {PACKAGE} is pure Python")
        pytest.skip(f"pure-Python install; the compiled build is tested after {BUILD}")
    return found


def test_the_wheel_compiles_what_the_build_hook_lists(compiled: list[str]) -> None:
    assert compiled == listed_for_compilation()


def _pure_copy(target: Path) -> Path:
    """The installed package's sources alone, without its extension modules."""
    shutil.copytree(
        PACKAGE,
        target / "agui_transcripts",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
    )
    return target


def test_both_builds_fold_every_corpus_alike(compiled: list[str], tmp_path: Path) -> None:
    pure = _pure_copy(tmp_path / "pure")
    out = tmp_path / "pure.json"
    # The scratch folder is the child's working directory, so only ``pure`` and the
    # tests' root are on its path: it folds with the interpreted sources.
    probe = (
        "import sys\n"
        "from tests.builds import compiled_modules\n"
        "from tests.build_digest import main\n"
        "assert compiled_modules() == [], compiled_modules()\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pure), str(ROOT)])}
    subprocess.run(
        [sys.executable, "-c", probe, str(out)], cwd=tmp_path, env=env, check=True, timeout=600
    )
    interpreted = json.loads(out.read_text(encoding="utf-8"))
    here = digest()
    assert sorted(here) == sorted(interpreted)
    assert len(here) > 1000  # every stream, record, random stream and shape
    differing = [name for name in here if here[name] != interpreted[name]]
    assert differing == []


def _public_snapshot(cwd: Path, pythonpath: Path | None) -> dict[str, object]:
    """What ``_docs.snapshot`` records of the package a fresh interpreter imports."""
    probe = (
        "import json, agui_transcripts as a\n"
        "from agui_transcripts._docs import snapshot\n"
        "print(a.__file__)\n"
        "print(json.dumps(snapshot(vars(a), a.__all__)))\n"
    )
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    where, record = done.stdout.split("\n", 1)
    assert where.startswith(str(pythonpath or PACKAGE)), where
    result: dict[str, object] = json.loads(record)
    return result


def test_every_public_name_has_its_docstring_and_signature_in_both_builds(
    compiled: list[str], tmp_path: Path
) -> None:
    """``help(fold)`` and ``fold?`` read the same in both builds (mypyc strips them)."""
    import inspect

    import agui_transcripts

    pure = _pure_copy(tmp_path / "pure")
    # Both in fresh interpreters, so defaults such as ``sys.stderr`` print alike.
    interpreted = _public_snapshot(tmp_path, pure)
    here = _public_snapshot(tmp_path, None)
    assert len(interpreted) > 50
    differing = [name for name in interpreted if here.get(name) != interpreted[name]]
    assert differing == []
    for name in ("fold", "read_events", "check", "Collector", "ToolCallRecord"):
        value = getattr(agui_transcripts, name)
        assert (value.__doc__ or "").strip(), name
        assert ": " in str(inspect.signature(value)), name  # annotated, as in the source
    assert inspect.iscoroutinefunction(agui_transcripts.afold)
    assert agui_transcripts.fold([]).messages == []  # the wrapper calls the compiled fold
