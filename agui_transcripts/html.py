"""A transcript as a self-contained HTML page (notebooks, ``show --html``): no JavaScript.

Chat bubbles by role; each tool call with its arguments in a collapsible block and its
result under it; reasoning collapsed; run boundaries with their outcomes and interrupts;
subagent turns set apart; diagnostics flagged by severity (the items of ``view``).
"""

from __future__ import annotations

import html
import json

from ._terminal import visible
from .model import ActivityMessage, Message, ReasoningMessage, ToolMessage
from .ownership import continuation
from .projection import Subagents, project
from .view import (
    MessageView,
    RunMark,
    SubagentMark,
    Viewable,
    arrival_order,
    interrupt_labels,
    outcome_label,
    run_label,
    time_label,
    view_items,
)

__all__ = ["Viewable", "render_fragment", "render_html", "shown_messages"]


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
.agui-t .run{font-size:.8em;color:var(--muted);border-top:1px solid var(--muted);
margin:.6rem 0 .2rem;padding-top:.2rem}
.agui-t .subagent{margin:.3rem 0 .3rem 1.5rem;padding-left:.6rem;border-left:3px solid var(--muted)}
"""


def _e(text: object) -> str:
    """Escaped for HTML, control and bidirectional characters shown (:mod:`._terminal`)."""
    return html.escape(visible(str(text)))


def content_text(value: object, *, indent: int | None = None) -> str:
    """Activity content as JSON for a person to read, or a note saying it cannot be shown.

    A view, not data: content nested deeper than JSON encoders go is named, not dumped
    (``convert`` fails such a file instead).
    """
    try:
        return json.dumps(value, indent=indent)
    except (RecursionError, TypeError, ValueError):
        return "[not shown: nested deeper than JSON encoders go]"


def render_fragment(
    transcript: Viewable, *, ordered: bool = False, subagents: Subagents = "inline"
) -> str:
    """The conversation as an HTML fragment (what a notebook shows).

    The same items as ``show``: the messages as the stream left them, or with
    ``ordered`` the projection an evaluator scores.
    """
    parts = ['<div class="agui-t">']
    messages = shown_messages(transcript, ordered=ordered, subagents=subagents)
    for item in view_items(transcript, messages):
        if isinstance(item, RunMark):
            parts.append(_run_mark(item))
        elif isinstance(item, SubagentMark):
            parts.append(
                f'<div class="subagent"><div class="role">subagent {_e(item.subagent)}</div>'
                if item.kind == "start"
                else "</div>"
            )
        else:
            parts.append(_message(item))
    status = continuation(transcript.tool_calls.values(), transcript.runs).status
    parts.append(f'<div class="runs">next: <b>{_e(status)}</b></div>')
    if transcript.diagnostics:
        parts.append('<ul class="diagnostics">')
        for diagnostic in transcript.diagnostics:
            parts.append(f'<li class="diag-{_e(diagnostic.severity)}">{_e(diagnostic)}</li>')
        parts.append("</ul>")
    parts.append("</div>")
    return "".join(parts)


def shown_messages(transcript: Viewable, *, ordered: bool, subagents: Subagents) -> list[Message]:
    """What a view of ``transcript`` draws (``show`` and this page alike).

    The messages as the stream left them, or with ``ordered`` the projection an
    evaluator scores; subagent turns kept, left out or moved after the others.
    """
    if ordered:
        return project(transcript, subagents=subagents).messages
    return arrival_order(transcript.messages, subagents)


def _run_mark(mark: RunMark) -> str:
    run = mark.run
    when = time_label(mark)
    if mark.kind == "start":
        again = " (continued)" if mark.again else ""
        at = f" <time>{_e(when)}</time>" if when else ""
        return f'<div class="run">{_e(run_label(run))}{again}{at}</div>'
    detail = f" <time>{_e(when)}</time>" if when else ""
    detail += f" — {_e(run.error_message)}" if run.error_message else ""
    interrupts = interrupt_labels(run)
    if interrupts:
        detail += f"; waiting on {_e(', '.join(interrupts))}"
    if mark.empty:
        detail += " (no messages)"
    outcome = outcome_label(run)
    return f'<div class="run">end of {_e(run_label(run))}: <b>{_e(outcome)}</b>{detail}</div>'


def _message(item: MessageView) -> str:
    message = item.message
    if isinstance(message, ReasoningMessage):
        summary = "<summary>reasoning</summary>"
        return f'<details class="reasoning">{summary}{_e(message.text)}</details>'
    if isinstance(message, ActivityMessage):
        return (
            f'<details class="activity"><summary>activity: {_e(message.activity_type)}'
            f"</summary><pre>{_e(content_text(message.content, indent=1))}</pre></details>"
        )
    parts = [f'<div class="msg {_e(message.role)}"><div class="role">{_e(message.role)}</div>']
    if isinstance(message, ToolMessage):  # a result whose call is not shown
        parts.append(f"<div>result of {_e(message.tool_call_id)} (no call shown): ")
        parts.append(f"{_e(message.text)}{_error(message.error)}</div>")
    elif message.text:
        parts.append(f"<div>{_e(message.text)}</div>")
    for call in item.calls:
        parts.append(
            f'<div class="call">call <b>{_e(call.call.name)}</b> <small>{_e(call.call.id)}</small>'
            f"<details><summary>arguments</summary><pre>{_e(call.call.arguments)}</pre></details>"
        )
        if call.result is None:
            parts.append(f'<div class="result"><i>no result ({_e(call.state)})</i></div>')
        else:
            note = " <i>(synthetic: no result was streamed)</i>" if call.synthetic else ""
            parts.append(
                f'<div class="result">result: {_e(call.result.text)}'
                f"{_error(call.result.error)}{note}</div>"
            )
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def _error(error: str | None) -> str:
    return f' <span class="error">error: {_e(error)}</span>' if error else ""


def render_html(
    transcript: Viewable,
    *,
    title: str = "AG-UI transcript",
    ordered: bool = False,
    subagents: Subagents = "inline",
) -> str:
    """A complete, self-contained page (``ordered`` and ``subagents`` as the fragment's)."""
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        f'<meta name="color-scheme" content="light dark"><title>{_e(title)}</title>'
        f"<style>{STYLE}</style></head><body>"
        f"{render_fragment(transcript, ordered=ordered, subagents=subagents)}</body></html>"
    )
