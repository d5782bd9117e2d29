"""The README's Python examples run as written, and its quick start names real files."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_python_blocks_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        for block in blocks:
            exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert "assistant Let me look that up for you." in capsys.readouterr().out


def test_quick_start_commands() -> None:
    commands = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    assert commands[0] == 'pip install ".[fast]" && python examples/fold_recorded_run.py'
    assert commands[1] == 'pip install -e ".[test]" && pytest'
    assert (ROOT / "examples" / "fold_recorded_run.py").exists()
