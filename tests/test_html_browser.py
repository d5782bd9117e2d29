"""The HTML page as a person sees it: rendered by headless Chromium.

The page itself has no JavaScript. The test wraps it in a frame page whose script copies
the frame's ``innerText`` (which honours CSS and collapsed ``<details>``) into the DOM
Chromium dumps. Without Chromium the tests skip, unless
``AGUI_TRANSCRIPTS_REQUIRE_BROWSER=1`` (set by CI, which installs it) makes that a failure.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agui_transcripts import fold

from .streams import RF, RMC, RME, RMS, RS, RZE, RZS, TMC, TME, TMS

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "examples" / "runs" / "pydantic-ai-weather.sse"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("AGUI_TRANSCRIPTS_REQUIRE_BROWSER") == "1":
        pytest.fail("no headless Chromium on PATH, and this run requires one")
    pytest.skip("headless Chromium is not installed")


def dump_dom(page: Path) -> str:
    """The DOM Chromium ends with after loading ``page`` (scripts run, 5 s virtual time)."""
    return subprocess.run(
        [
            _browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    ).stdout


def _visible_text(page: Path, tmp_path: Path) -> str:
    """What Chromium renders visible on ``page`` (innerText of its body)."""
    frame = tmp_path / "frame.html"
    frame.write_text(
        f'<!doctype html><iframe id="f" src="{page.name}"></iframe><pre id="out"></pre>'
        "<script>document.getElementById('f').onload = function () {"
        "document.getElementById('out').textContent = "
        "this.contentDocument.body.innerText; };</script>",
        encoding="utf-8",
    )
    dumped = dump_dom(frame)
    match = re.search(r'<pre id="out">(.*?)</pre>', dumped, re.DOTALL)
    assert match, dumped[:500]
    return html.unescape(match.group(1))


def test_show_html_renders_the_recorded_run_as_a_conversation(tmp_path: Path) -> None:
    page = tmp_path / "run.html"
    subprocess.run(
        [sys.executable, "-m", "agui_transcripts", "show", str(RECORDED), "--html", str(page)],
        check=True,
    )
    text = _visible_text(page, tmp_path)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # Roles as CSS shows them, messages in order, each result under its call.
    assert lines[:2] == ["USER", "What's the weather in Paris? Show me the city too."]
    assert lines.index("call get_weather call_weather_1") < lines.index(
        "result: 18°C and sunny in Paris"
    )
    assert lines.index("call show_map call_map_1") < lines.index(
        "result: Map shown: Paris, zoom 11"
    )
    assert "It is 18°C and sunny in Paris; the map is on your screen." in lines
    assert lines[-3:] == ["run run-1: success", "run run-2: success", "next: done"]
    # Arguments are collapsed: their summary shows, the JSON does not.
    assert "arguments" in lines
    assert '"city"' not in text


def test_reasoning_is_collapsed_and_diagnostics_are_shown(tmp_path: Path) -> None:
    events = [
        RS(),
        RZS("z1"),
        RMS("z1"),
        RMC("z1", "secret chain of thought"),
        RME("z1"),
        RZE("z1"),
        TMS("m1"),
        TMC("m1", "Hello <b>not bold</b>"),
        TME("m1"),
        TME("m1"),  # a second END: a violation the page must flag
        RF(),
    ]
    transcript = fold(events)
    assert transcript.diagnostics
    page = tmp_path / "page.html"
    page.write_text(transcript._repr_html_(), encoding="utf-8")
    text = _visible_text(page, tmp_path)
    assert "reasoning" in text
    assert "secret chain of thought" not in text
    assert "Hello <b>not bold</b>" in text  # escaped, shown as written
    assert str(transcript.diagnostics[0]) in text
