"""Everything a stream carries is text on the page, never markup or script.

A hostile stream puts injection payloads in every field the page can show: message
contents of every role, message, call, run and thread ids, tool names, arguments,
results and their errors, reasoning, activity types and contents, run errors, interrupt
data, and the diagnostics that quote them. The page must keep its own small set of
tags and attributes (checked by parsing it), show each payload as written, and run no
script (checked in headless Chromium, which sets a flag if any payload executes).
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import Transcript, fold
from agui_transcripts.html import render_html

from .test_html_browser import dump_dom

PAYLOADS = [
    "<script>window.top.__pwned='script'</script>",
    '"><img src=x onerror="window.top.__pwned=\'img\'">',
    "'><svg onload=\"window.top.__pwned='svg'\"></svg>",
    "</pre></details><script>window.top.__pwned='pre'</script>",
    "javascript:window.top.__pwned='url'",
    "<a href=\"javascript:window.top.__pwned='href'\">click</a>",
    "--><iframe srcdoc=\"<script>parent.top.__pwned='srcdoc'</script>\"></iframe>",
    '<style>*{display:none}</style><base href="https://evil.example/">',
]

# What the page itself is made of: anything else came from the stream.
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "div", "b", "small", "i", "span",
    "details", "summary", "pre", "ul", "li",
}  # fmt: skip
# Attributes by tag: the page's own ``<meta charset>`` and ``<meta name="color-scheme">``,
# and ``class`` on the elements it styles. A payload's attribute shows up as a new pair.
ALLOWED_ATTRIBUTES = {("meta", "charset"), ("meta", "name"), ("meta", "content")} | {
    (tag, "class") for tag in ALLOWED_TAGS - {"html", "head", "meta", "title", "style"}
}
# The page's own meta elements, exactly: a payload cannot add or change one.
PAGE_META = [[("charset", "utf-8")], [("name", "color-scheme"), ("content", "light dark")]]


def hostile_stream(payload: str) -> list[dict[str, Any]]:
    """One stream with ``payload`` in every field the page can show."""
    p = payload
    return [
        {"type": "RUN_STARTED", "threadId": p, "runId": p},
        {"type": "TEXT_MESSAGE_START", "messageId": "m-" + p, "role": "assistant", "name": p},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-" + p, "delta": p},
        {"type": "TEXT_MESSAGE_END", "messageId": "m-" + p},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c-" + p,
            "toolCallName": p,
            "parentMessageId": "m-" + p,
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c-" + p, "delta": p},
        {"type": "TOOL_CALL_END", "toolCallId": "c-" + p},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "r-" + p,
            "toolCallId": "c-" + p,
            "content": p,
            "metadata": {"k": p},
        },
        {"type": "TOOL_CALL_START", "toolCallId": "d-" + p, "toolCallName": p},
        {"type": "TOOL_CALL_END", "toolCallId": "d-" + p},
        {"type": "REASONING_START", "messageId": "z-" + p},
        {"type": "REASONING_MESSAGE_START", "messageId": "y-" + p, "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "y-" + p, "delta": p},
        {"type": "REASONING_MESSAGE_END", "messageId": "y-" + p},
        {"type": "REASONING_END", "messageId": "z-" + p},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a-" + p, "activityType": p, "content": {p: p}},
        {"type": "TEXT_MESSAGE_END", "messageId": "n-" + p},  # a violation quoting the id
        {"type": p},  # an unknown type, quoted by its diagnostic
        {
            "type": "RUN_FINISHED",
            "threadId": p,
            "runId": p,
            "outcome": {"type": "interrupt", "interrupts": [{"id": p, "reason": p}]},
        },
        {
            "type": "RUN_STARTED",
            "threadId": p,
            "runId": p + "2",
            "input": {
                "threadId": p,
                "runId": p + "2",
                "messages": [
                    {"id": "u-" + p, "role": "user", "content": p},
                    {"id": "s-" + p, "role": "system", "content": p},
                    {"id": "v-" + p, "role": "developer", "content": p},
                ],
            },
        },
        {"type": "RUN_ERROR", "message": p, "code": p},
    ]


class _Structure(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[tuple[str, str]] = set()
        self.metas: list[list[tuple[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update((tag, name) for name, _ in attrs)
        if tag == "meta":
            self.metas.append(attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _page(payload: str) -> tuple[Transcript, str]:
    transcript = fold(hostile_stream(payload))
    return transcript, render_html(transcript, title=payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_field_is_text_on_the_page(payload: str) -> None:
    transcript, page = _page(payload)
    parsed = _Structure()
    parsed.feed(page)
    assert parsed.tags <= ALLOWED_TAGS
    assert parsed.attributes <= ALLOWED_ATTRIBUTES
    assert parsed.metas == PAGE_META
    text = "".join(parsed.text)
    # The payload is shown as written wherever a field is shown (content, names, ids...).
    assert text.count(payload) >= 10
    assert payload not in page or payload == html.escape(payload)
    assert transcript.diagnostics  # the violations and the unknown type are listed too
    assert any(payload in str(d) for d in transcript.diagnostics)


@pytest.mark.slow
def test_no_payload_runs_in_a_browser(tmp_path: Path) -> None:
    for number, payload in enumerate(PAYLOADS):
        (tmp_path / f"p{number}.html").write_text(_page(payload)[1], encoding="utf-8")
    frames = "".join(f'<iframe src="p{n}.html"></iframe>' for n in range(len(PAYLOADS)))
    harness = tmp_path / "harness.html"
    harness.write_text(
        f'<!doctype html>{frames}<pre id="out">pending</pre><script>'
        "window.onload = function () {"
        "  var shown = [].map.call(document.querySelectorAll('iframe'), function (f) {"
        "    return f.contentDocument.body.innerText.length; });"
        "  document.getElementById('out').textContent ="
        "    'pwned=' + (window.__pwned || 'none') + ' shown=' + shown.join(',');"
        "};</script>",
        encoding="utf-8",
    )
    dumped = dump_dom(harness)
    match = re.search(r'<pre id="out">(.*?)</pre>', dumped, re.DOTALL)
    assert match, dumped[:500]
    result = html.unescape(match.group(1))
    assert result.startswith("pwned=none shown="), result
    assert all(int(n) > 100 for n in result.split("shown=")[1].split(","))  # pages rendered
