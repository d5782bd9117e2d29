"""The HTML page as a person sees it: rendered by headless Chromium.

The page itself has no JavaScript. The test wraps it in a frame page whose script copies
the frame's ``innerText`` (which honours CSS and collapsed ``<details>``) into the DOM
Chromium dumps. Without Chromium the tests skip, unless
``AGUI_TRANSCRIPTS_REQUIRE_BROWSER=1`` (set by CI, which installs it) makes that a failure.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold

from .streams import MS, RF, RMC, RME, RMS, RS, RZE, RZS, TCE, TCR, TCS, TMC, TME, TMS

pytestmark = pytest.mark.slow  # a browser for every test

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

    # Each run's boundaries where they fall: the last message in run 2, then the status.
    # Each boundary is dated and timed from the recording's timestamps.
    def line(start: str) -> int:
        return next(i for i, text in enumerate(lines) if text.startswith(start))

    assert line("run run-1 at 2026-11-30 00:35:09.723 UTC") < lines.index(
        "call get_weather call_weather_1"
    )
    assert line("end of run run-1: success in 19 ms") < line("run run-2 at ")
    assert lines[-3:] == [
        "It is 18°C and sunny in Paris; the map is on your screen.",
        "end of run run-2: success in 7 ms",
        "next: done",
    ]
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


# -- readable in both colour schemes, on a dark notebook page ----------------------------

#: Chromium's switch for what ``prefers-color-scheme`` reports (0 dark, 1 light).
SCHEMES = {
    "dark": "--blink-settings=preferredColorScheme=0",
    "light": "--blink-settings=preferredColorScheme=1",
}
WINDOW = "--window-size=900,1400"
#: A dark notebook theme: dark page, light text that the card would inherit.
DARK_NOTEBOOK = '<body style="background:#111;color:#ddd;margin:8px">{}</body>'

#: For every visible element of the card that holds text of its own: its text colour, the
#: background painted under it, and (for bubbles) where it is on the page.
MEASURE = """
function rgb(text) { return text.match(/[\\d.]+/g).map(Number); }
function behind(el) {
  for (; el; el = el.parentElement) {
    const c = rgb(getComputedStyle(el).backgroundColor);
    if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
  }
  return [255, 255, 255];
}
const doc = document.getElementById('f').contentDocument, out = [];
for (const el of doc.querySelectorAll('.agui-t, .agui-t *')) {
  const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
  const box = el.getBoundingClientRect();
  const bubble = el.classList.contains('msg'), card = el.classList.contains('agui-t');
  if ((!own && !bubble && !card) || !box.width || !box.height || !el.checkVisibility()) continue;
  out.push({cls: el.className || el.tagName, fg: rgb(getComputedStyle(el).color).slice(0, 3),
            bg: behind(el), box: [box.x, box.y, box.width, box.height],
            bubble: bubble});
}
document.getElementById('out').textContent = JSON.stringify(out);
"""


def _luminance(colour: Sequence[float]) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(v) for v in colour[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _contrast(one: Sequence[float], other: Sequence[float]) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _page_for_every_element(tmp_path: Path) -> Path:
    """The recorded run and a stream with reasoning, an error result and diagnostics."""
    from agui_transcripts.html import STYLE, render_fragment

    troubled = fold(
        [
            RS(),
            RZS("z1"),
            RMS("z1"),
            RMC("z1", "thinking"),
            RME("z1"),
            RZE("z1"),
            TMS("m1"),
            TMC("m1", "Booking."),
            TME("m1"),
            TME("m1"),  # an error-level diagnostic
            TCS("c1", "book", "m1"),
            TCE("c1"),
            MS(
                {
                    "id": "m1",
                    "role": "assistant",
                    "content": "Booking.",
                    "toolCalls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "book", "arguments": "{}"},
                        }
                    ],
                },
                {
                    "id": "t1",
                    "role": "tool",
                    "toolCallId": "c1",
                    "content": "none",
                    "error": "sold out",
                },
            ),
            TCR("t2", "missing", "orphan"),  # a warning
        ]  # no RUN_FINISHED: truncated, a warning too
    )
    body = render_fragment(fold(RECORDED)) + render_fragment(troubled)
    page = tmp_path / "notebook.html"
    page.write_text(f"<style>{STYLE}</style>" + DARK_NOTEBOOK.format(body), encoding="utf-8")
    return page


def _measure(page: Path, tmp_path: Path, scheme: str) -> list[dict[str, Any]]:
    frame = tmp_path / f"measure-{scheme}.html"
    frame.write_text(
        '<!doctype html><body style="margin:0"><iframe id="f" src="'
        f'{page.name}" style="border:0;width:900px;height:1400px"></iframe>'
        '<pre id="out"></pre><script>document.getElementById("f").onload = function () {'
        f"{MEASURE}}};</script></body>",
        encoding="utf-8",
    )
    dumped = _run_browser(frame, SCHEMES[scheme], "--dump-dom")
    match = re.search(r'<pre id="out">(.*?)</pre>', dumped, re.DOTALL)
    assert match, dumped[:500]
    found: list[dict[str, Any]] = json.loads(html.unescape(match.group(1)))
    return found


def _run_browser(page: Path, *flags: str) -> str:
    return subprocess.run(
        [
            _browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
            WINDOW,
            *flags,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
        cwd=page.parent,
    ).stdout


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_is_readable_on_a_dark_notebook_in_both_schemes(
    tmp_path: Path, scheme: str
) -> None:
    from PIL import Image

    page = _page_for_every_element(tmp_path)
    elements = _measure(page, tmp_path, scheme)
    classes = {element["cls"] for element in elements}
    assert {"msg user", "msg assistant", "role", "result", "error", "diag-error"} <= classes
    assert {"diag-warning", "diag-info"} & classes
    # Every text the card shows clears WCAG AA against what is painted under it.
    worst = min(elements, key=lambda e: _contrast(e["fg"], e["bg"]))
    assert _contrast(worst["fg"], worst["bg"]) >= 4.5, worst
    card = next(e for e in elements if e["cls"] == "agui-t")
    if scheme == "dark":
        assert _luminance(card["bg"]) < 0.05, card  # a dark card, not a white slab
    else:
        assert _luminance(card["bg"]) > 0.9, card  # its own light card, dark text on it

    # The screenshot shows the same: in each bubble, the text pixels stand out from the
    # bubble's background as much as the styles say.
    shot = tmp_path / f"{scheme}.png"
    _run_browser(page, SCHEMES[scheme], f"--screenshot={shot}")
    image = Image.open(shot).convert("RGB")
    bubbles = [e for e in elements if e["bubble"]]
    assert len(bubbles) >= 4
    for bubble in bubbles:
        x, y, width, height = (round(v) for v in bubble["box"])
        raw = image.crop((x + 2, y + 2, x + width - 2, y + height - 2)).tobytes()
        pixels = [tuple(raw[i : i + 3]) for i in range(0, len(raw), 3)]
        background = Counter(pixels).most_common(1)[0][0]
        assert _contrast(background, bubble["bg"]) < 1.1, (bubble, background)
        text = max(pixels, key=lambda pixel: _contrast(pixel, background))
        assert _contrast(text, background) >= 4.5, (bubble, background, text)


def test_render_html_is_at_the_top_level() -> None:
    import agui_transcripts

    assert "render_html" in agui_transcripts.__all__
    page = agui_transcripts.render_html(fold(RECORDED), title="Paris <weather>")
    assert page.startswith("<!doctype html>")
    assert "<title>Paris &lt;weather&gt;</title>" in page
    assert "prefers-color-scheme:dark" in page
