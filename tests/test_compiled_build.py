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
