"""A transcript as a self-contained HTML page (notebooks, ``show --html``): no JavaScript.

Chat bubbles by role; each tool call with its arguments in a collapsible block and its
result under it; reasoning collapsed; run outcomes; diagnostics flagged by severity.
"""

from __future__ import annotations

import html
import json
from typing import Protocol

from .diagnostics import Diagnostic
from .model import (
    ActivityMessage,
    AssistantMessage,
    ReasoningMessage,
    RunRecord,
    ToolMessage,
    TranscriptData,
)
from .ownership import continuation
from .projection import project

__all__ = ["Viewable", "render_fragment", "render_html"]


class Viewable(TranscriptData, Protocol):
    """What the page shows of a transcript (a :class:`~agui_transcripts.Transcript` is one)."""

    @property
    def runs(self) -> list[RunRecord]: ...

    @property
    def diagnostics(self) -> list[Diagnostic]: ...


# The card paints its own background and text in both schemes, so it stays readable
# wherever it lands: a dark notebook theme (light text inherited from the page) whether
# or not the browser reports ``prefers-color-scheme: dark``. Every pair clears WCAG AA
# (4.5:1), which tests/test_html_browser.py measures in Chromium.
STYLE = """
.agui-t{--fg:#1f2328;--muted:#59636e;--bg:#ffffff;--user:#e8f0fe;--assistant:#eaf5ea;
--system:#f3eefa;--call:#9a6700;--error:#b00020;--warning:#7d4e00;
color-scheme:light;color:var(--fg);background:var(--bg);
font-family:system-ui,sans-serif;max-width:52rem;line-height:1.4;padding:.5rem .75rem;
border-radius:.6rem}
@media (prefers-color-scheme:dark){.agui-t{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;
--user:#172a45;--assistant:#13301c;--system:#2a2140;--call:#d29922;--error:#ff7b72;
--warning:#e3b341;color-scheme:dark}}
.agui-t .msg{margin:.4rem 0;padding:.5rem .75rem;border-radius:.6rem;white-space:pre-wrap;
color:var(--fg)}
.agui-t .user{background:var(--user);margin-left:4rem}
.agui-t .assistant{background:var(--assistant);margin-right:4rem}
.agui-t .system,.agui-t .developer{background:var(--system);font-size:.9em}
.agui-t .role{font-weight:600;font-size:.75em;text-transform:uppercase;color:var(--muted)}
.agui-t .call{margin:.3rem 0 .3rem 1rem;padding:.3rem .6rem;border-left:3px solid var(--call)}
.agui-t .result{margin-left:1rem}
.agui-t .error{color:var(--error);font-weight:600}
.agui-t details.reasoning,.agui-t details.activity{color:var(--muted);margin:.3rem 0}
.agui-t .diag-error{color:var(--error)}.agui-t .diag-warning{color:var(--warning)}
.agui-t .diag-info{color:var(--muted)}
.agui-t .runs{font-size:.9em;margin-top:.8rem}
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def content_text(value: object, *, indent: int | None = None) -> str:
    """Activity content as JSON for a person to read, or a note saying it cannot be shown.

    A view, not data: content nested deeper than JSON encoders go is named, not dumped
    (``convert`` fails such a file instead).
    """
    try:
        return json.dumps(value, indent=indent)
    except (RecursionError, TypeError, ValueError):
        return "[not shown: nested deeper than JSON encoders go]"


def render_fragment(transcript: Viewable) -> str:
    """The conversation as an HTML fragment (what a notebook shows)."""
    results = {m.tool_call_id: m for m in transcript.messages if isinstance(m, ToolMessage)}
    parts = ['<div class="agui-t">']
    for message in project(transcript).messages:
        if isinstance(message, ToolMessage):
            continue
        if isinstance(message, ReasoningMessage):
            summary = "<summary>reasoning</summary>"
            parts.append(f'<details class="reasoning">{summary}{_e(message.text)}</details>')
            continue
        if isinstance(message, ActivityMessage):
            parts.append(
                f'<details class="activity"><summary>activity: {_e(message.activity_type)}'
                f"</summary><pre>{_e(content_text(message.content, indent=1))}</pre></details>"
            )
            continue
        parts.append(
            f'<div class="msg {_e(message.role)}"><div class="role">{_e(message.role)}</div>'
        )
        if message.text:
            parts.append(f"<div>{_e(message.text)}</div>")
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or ():
                parts.append(
                    f'<div class="call">call <b>{_e(call.name)}</b> <small>{_e(call.id)}</small>'
                    f"<details><summary>arguments</summary><pre>{_e(call.arguments)}</pre></details>"
                )
                result = results.get(call.id)
                if result is None:
                    record = transcript.tool_calls.get(
                        transcript.call_aliases.get(call.id, call.id)
                    )
                    state = record.state if record is not None else "unanswered"
                    parts.append(f'<div class="result"><i>no result ({_e(state)})</i></div>')
                else:
                    error = (
                        f' <span class="error">error: {_e(result.error)}</span>'
                        if result.error
                        else ""
                    )
                    parts.append(f'<div class="result">result: {_e(result.text)}{error}</div>')
                parts.append("</div>")
        parts.append("</div>")
    parts.append('<div class="runs">')
    for run in transcript.runs:
        detail = f" — {_e(run.error_message)}" if run.error_message else ""
        parts.append(
            f"<div>run {_e(run.run_id or '(unannounced)')}: <b>{_e(run.outcome)}</b>{detail}</div>"
        )
    status = continuation(transcript.tool_calls.values(), transcript.runs).status
    parts.append(f"<div>next: <b>{_e(status)}</b></div></div>")
    if transcript.diagnostics:
        parts.append('<ul class="diagnostics">')
        for diagnostic in transcript.diagnostics:
            parts.append(f'<li class="diag-{_e(diagnostic.severity)}">{_e(diagnostic)}</li>')
        parts.append("</ul>")
    parts.append("</div>")
    return "".join(parts)


def render_html(transcript: Viewable, *, title: str = "AG-UI transcript") -> str:
    """A complete, self-contained page."""
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        f'<meta name="color-scheme" content="light dark"><title>{_e(title)}</title>'
        f"<style>{STYLE}</style></head><body>{render_fragment(transcript)}</body></html>"
    )
