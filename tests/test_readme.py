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


def run_blocks(page: str) -> int:
    """Run every Python block of a page from the clone's root; the values checked."""
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert blocks
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        return sum(run_block(block) for block in blocks)
    finally:
        os.chdir(cwd)


def test_python_blocks_run_and_their_stated_values_hold(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_blocks(README) >= 7
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
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
    for page in (ROOT / "docs").glob("**/*.md"):  # the pages the README sends readers to
        text = page.read_text(encoding="utf-8")
        linked = re.findall(r"\]\((?!https?://|#)([^)\s]+)\)", text)
        broken = [t for t in linked if not (page.parent / t.split("#")[0]).exists()]
        assert broken == [], page


def test_the_readme_stays_a_first_hour_read_and_links_every_adapter_page() -> None:
    prose = re.sub(r"^```.*?^```", "", README, flags=re.S | re.M)
    assert len(prose.split()) <= 1500
    for page in sorted((ROOT / "docs" / "adapters").glob("*.md")):
        assert f"](docs/adapters/{page.name})" in README, page.name


def _headings() -> list[str]:
    """The README's ``##`` headings, outside code blocks."""
    prose = re.sub(r"^```.*?^```", "", README, flags=re.S | re.M)
    return re.findall(r"^## (.+)$", prose, re.M)


def test_sections_come_in_the_order_a_new_user_needs_them() -> None:
    """Quick start, the ragas swap, the CLI, then the API; the deeper sections after."""
    headings = _headings()
    assert headings[:4] == ["Quick start", "Coming from ragas", "Command line", "API tour"]
    assert headings.index("Going deeper") > headings.index("API tour")


@pytest.mark.slow
def test_the_command_line_examples_run_through_the_installed_script(tmp_path: Path) -> None:
    """The first block of the CLI section runs as written from a copy of the clone."""
    import shlex
    import shutil
    import subprocess

    section = README.split("\n## Command line\n", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None
    commands = [shlex.split(line) for line in block[1].splitlines()]
    assert [command[:2] for command in commands] == [
        ["agui-transcripts", "convert"],
        ["agui-transcripts", "check"],
    ]
    shutil.copytree(ROOT / "examples" / "runs", tmp_path / "examples" / "runs")
    script = shutil.which("agui-transcripts") or "agui-transcripts"
    for command in commands:
        done = subprocess.run(
            [script, *command[1:]], cwd=tmp_path, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
    import json

    written = (tmp_path / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(written) == 2  # one transcript per recorded run
    by_source = {Path(t["source"]).stem: t for t in map(json.loads, written)}
    weather = by_source["pydantic-ai-weather"]
    assert weather["target"] == "openai"
    # The user turn comes from the run input beside the log; each result follows its call.
    assert [m["role"] for m in weather["messages"]] == [
        "user", "assistant", "tool", "tool", "assistant"
    ]  # fmt: skip
    calls = [c["id"] for c in weather["messages"][1]["tool_calls"]]
    assert [m["tool_call_id"] for m in weather["messages"][2:4]] == calls
    assert weather["continuation"] == by_source["booking-frontend-tool"]["continuation"] == "done"


def test_the_extras_table_and_install_lines_name_the_packages_extras() -> None:
    """Every extra is documented, and the recommended install lines use only real ones."""
    from importlib.metadata import metadata

    extras = set(metadata("agui-transcripts").get_all("Provides-Extra") or [])
    assert "all" not in extras  # it could not be resolved: see the README
    section = README.split("\n## Installation extras\n", 1)[1].split("\n## ", 1)[0]
    table = set(re.findall(r"^\| `([a-z-]+)`(?: / `([a-z-]+)`)? \|", section, re.M))
    documented = {name for row in table for name in row if name}
    assert documented == extras
    lines = re.findall(r'^pip install "\.\[([a-z,]+)\]"$', section, re.M)
    assert len(lines) >= 4
    assert {name for line in lines for name in line.split(",")} <= extras


@pytest.mark.slow
def test_the_datasets_command_runs_and_writes_one_row_per_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shlex
    import shutil
    import subprocess

    from agui_transcripts.arrow import read_rows
    from agui_transcripts.logs import find_logs
    from agui_transcripts.rows import log_row

    section = README.split("\n## Datasets\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```text\n(.*?)\n```", section, re.S)
    assert block is not None
    command = shlex.split(block[1])
    assert command[:2] == ["agui-transcripts", "convert"]
    shutil.copytree(ROOT / "examples" / "runs", tmp_path / "runs")
    script = shutil.which("agui-transcripts") or "agui-transcripts"
    done = subprocess.run(
        [script, *command[1:]], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    rows = read_rows(tmp_path / "rows.parquet")
    monkeypatch.chdir(tmp_path)  # the rows name their logs as the command found them
    assert rows == [log_row(source, target="agui") for source in find_logs(["runs/"])]
    assert [row["ok"] for row in rows] == [True, True]
