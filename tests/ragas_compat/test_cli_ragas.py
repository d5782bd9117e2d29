"""The command line's ragas target (needs the ragas extra, like the rest of this folder)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "examples" / "runs" / "pydantic-ai-weather.sse"


def test_convert_to_ragas_from_stdin() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agui_transcripts", "convert", "-", "--to", "ragas"],
        input=RUN.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    messages = json.loads(result.stdout)["messages"]
    # No run input on stdin: the client's show_map answer is unknown, so it is synthesized.
    assert [m["type"] for m in messages] == ["ai", "tool", "tool", "ai"]
    assert messages[1]["metadata"]["tool_call_id"] == "call_weather_1"
    assert messages[2]["metadata"]["synthetic"] is True
