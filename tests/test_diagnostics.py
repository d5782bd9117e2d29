"""The rule table: every code the library reports is in it, with a spec rule id."""

from __future__ import annotations

import re

import pytest

from agui_transcripts import RULES, Diagnostic, DiagnosticSink, ProtocolError

from .builds import PACKAGE as SOURCE  # the sources of the package under test

REPORTED = re.compile(r"""(?:report|_report)\(\s*["']([a-z0-9-]+)["']""")


def test_every_reported_code_is_in_the_rule_table() -> None:
    used = set()
    for path in SOURCE.glob("*.py"):
        used |= set(REPORTED.findall(path.read_text(encoding="utf-8")))
    assert used, "the scan found no report() calls"
    assert sorted(used - set(RULES)) == []


def test_rules_are_well_formed() -> None:
    spec_rule = re.compile(r"^(W|P|C|V|A|T|I|L)\d+$")  # L: this library's resource limits
    for code, rule in RULES.items():
        assert rule.code == code
        assert rule.severity in ("error", "warning", "info")
        assert spec_rule.match(rule.spec_rule), rule
        assert rule.title
        assert not rule.title.endswith(".")


def test_strict_sink_raises_on_errors_only() -> None:
    sink = DiagnosticSink(strict=True)
    sink.report("unknown-event-type", "info passes")
    sink.report("run-truncated", "warning passes")
    with pytest.raises(ProtocolError) as raised:
        sink.report("text-not-active", "No active text message found with ID 'x'", event_index=3)
    assert raised.value.diagnostic == Diagnostic(
        code="text-not-active",
        severity="error",
        message="No active text message found with ID 'x'",
        event_index=3,
    )
    assert str(raised.value) == (
        "[event 3] error: text-not-active: No active text message found with ID 'x'"
    )
    assert [d.code for d in sink.diagnostics] == [
        "unknown-event-type",
        "run-truncated",
        "text-not-active",
    ]
