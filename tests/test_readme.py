"""The README's Python examples run as written and say what they print, and its quick start
names real files."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# A top-level expression whose comment states its value: `x.state  # 'resolved_server'`.
CLAIM = re.compile(r"^(?P<expr>[A-Za-z_][^#=]*?)\s+#\s+(?P<value>'[^']*'|\[[^\]]*\]|\{[^}]*\})")


def run_block(block: str) -> int:
    """Execute a README block; check each stated value. Returns how many were checked."""
    namespace: dict[str, object] = {}
    pending: list[str] = []
    checked = 0
    for line in block.splitlines():
        claim = CLAIM.match(line)
        if claim is None:
            pending.append(line)
            continue
        exec(compile("\n".join(pending), "README.md", "exec"), namespace)
        pending = []
        actual = eval(claim["expr"], namespace)
        assert actual == ast.literal_eval(claim["value"]), line
        checked += 1
    exec(compile("\n".join(pending), "README.md", "exec"), namespace)
    return checked


def test_python_blocks_run_and_their_stated_values_hold(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        checked = sum(run_block(block) for block in blocks)
    finally:
        os.chdir(cwd)
    assert checked >= 7
    printed = capsys.readouterr().out.splitlines()
    assert "assistant Let me look that up for you." in printed
    # An indented `print(...)  # SAMPLE` says what a line of output starts with.
    samples = re.findall(r"^\s+print\(.*\)\s+#\s+(.+)$", "".join(blocks), re.M)
    assert len(samples) >= 2
    for sample in samples:
        start = sample.removesuffix("...").rstrip()
        assert any(line.startswith(start) for line in printed), sample


def test_fold_of_a_path_reads_what_the_command_line_reads() -> None:
    """The tour's transcript is the one `convert` prints for the same log."""
    import json
    import subprocess
    import sys

    from agui_transcripts import fold

    log = ROOT / "examples" / "runs" / "pydantic-ai-weather.sse"
    done = subprocess.run(
        [sys.executable, "-m", "agui_transcripts", "convert", str(log)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["messages"] == fold(log).to_dicts()
    assert fold(log).messages[0].role == "user"


def test_quick_start_commands() -> None:
    commands = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    assert commands[0] == 'pip install ".[fast]" && python examples/fold_recorded_run.py'
    assert commands[1] == 'pip install -e ".[test]" && pytest'
    assert (ROOT / "examples" / "fold_recorded_run.py").exists()


def test_local_links_and_images_exist() -> None:
    targets = re.findall(r"\]\((?!https?://|#)([^)\s]+)\)", README)
    assert "docs/transcript.png" in targets
    missing = [target for target in targets if not (ROOT / target.split("#")[0]).exists()]
    assert missing == []
