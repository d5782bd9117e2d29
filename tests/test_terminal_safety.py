"""What a log holds is shown, never obeyed: escapes and bidirectional controls made visible.

``show`` and ``check`` print a log's ids and text to a terminal, and ``show --html``
writes them into a page. An escape sequence in them once reached the terminal raw
(window title, clear screen, clipboard writes) and a right-to-left override made a line
read reversed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agui_transcripts._terminal import visible
from agui_transcripts.cli import main

TITLE = "\x1b]0;pwned\x07"  # sets the window title
CLEAR = "\x1b[2J\x1b[H"  # clears the screen
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"  # writes the clipboard where allowed
REVERSED = "\u202etxt.exe"  # reads "exe.txt"
HOSTILE = TITLE + CLEAR + CLIPBOARD + REVERSED + "\r\x9b\u2066"

# What may reach the output: our own colours (SGR), and newlines.
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_OUR_COLOURS = re.compile("\x1b\\[[0-9;]*m")


def _hostile_log(tmp_path: Path) -> Path:
    h = HOSTILE
    events = [
        {"type": "RUN_STARTED", "threadId": f"t{h}", "runId": f"r{h}"},
        {"type": "TEXT_MESSAGE_START", "messageId": f"m{h}", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{h}", "delta": f"hi {h}"},
        {"type": "TEXT_MESSAGE_END", "messageId": f"m{h}"},
        {"type": "TOOL_CALL_START", "toolCallId": f"c{h}", "toolCallName": f"f{h}"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": f"c{h}", "delta": json.dumps({"a": h})},
        {"type": "TOOL_CALL_END", "toolCallId": f"c{h}"},
        {"type": "TOOL_CALL_RESULT", "messageId": f"res{h}", "toolCallId": f"c{h}", "content": h},
        {"type": "TOOL_CALL_RESULT", "messageId": "orphan", "toolCallId": f"x{h}", "content": h},
        {"type": "SUBAGENT_STARTED", "subagentRunId": f"s{h}", "name": h},
        {"type": "REASONING_MESSAGE_START", "messageId": f"th{h}", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": f"th{h}", "delta": h},
        {"type": "REASONING_MESSAGE_END", "messageId": f"th{h}"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": f"s{h}"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"ghost{h}", "delta": h},
        {"type": "RUN_ERROR", "message": h, "code": h},
    ]
    log = tmp_path / "hostile.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return log


def test_visible_escapes_controls_and_keeps_the_rest() -> None:
    assert visible("a\x1b[2Jb\u202ec\nd\te") == "a\\x1b[2Jb\\u202ec\nd\te"
    assert visible("id\n\t", one_line=True) == "id\\x0a\\x09"
    assert visible("plain, ünïcödé, 日本, emoji 🙂") == "plain, ünïcödé, 日本, emoji 🙂"


@pytest.mark.parametrize(
    "options",
    [["show", "--color", "never"], ["show", "--color", "always"], ["check"]],
    ids=["show", "show-in-colour", "check"],
)
def test_the_terminal_sees_no_escape_of_the_log(
    options: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _hostile_log(tmp_path)
    argv = [options[0], str(log), *options[1:]]
    main(argv)
    out = capsys.readouterr()
    for text in (out.out, out.err):
        assert _RAW.findall(_OUR_COLOURS.sub("", text)) == []
    assert "\\x1b]0;pwned\\x07" in out.out  # shown, as its escapes
    assert "\\u202etxt.exe" in out.out


def test_the_html_view_shows_the_escapes_and_obeys_none(tmp_path: Path) -> None:
    log = _hostile_log(tmp_path)
    page = tmp_path / "page.html"
    assert main(["show", str(log), "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert _RAW.findall(html) == []
    assert "\\u202etxt.exe" in html
