"""The README's three commands, as written: run the scenarios, make Parquet rows, score."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_then_convert_then_a_ragas_score(tmp_path: Path) -> None:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Run an agent\n")[1]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None
    commands = [shlex.split(line) for line in block[1].splitlines()]
    assert [c[:2] for c in commands] == [
        ["agui-transcripts", "run"],
        ["agui-transcripts", "convert"],
        ["python", "examples/score_runs.py"],
    ]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    script = shutil.which("agui-transcripts") or "agui-transcripts"
    outputs = []
    for command in commands:
        program = script if command[0] == "agui-transcripts" else sys.executable
        done = subprocess.run(
            [program, *command[1:]], cwd=tmp_path, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append(done.stdout)
    assert len(list((tmp_path / "runs").glob("*.sse"))) == 5
    assert outputs[2].splitlines()[-1] == "5 conversations, mean ToolCallF1 1.0"
