"""The text limit on its own: one count per item, shared by the delta routes."""

from __future__ import annotations

from agui_transcripts.model import RunRecord
from agui_transcripts.text_budget import TextBudget


def _budget(limit: int | None) -> tuple[TextBudget, list[tuple[str, str, dict[str, str | None]]]]:
    reports: list[tuple[str, str, dict[str, str | None]]] = []

    def report(code: str, message: str, **ids: str | None) -> None:
        reports.append((code, message, ids))

    return TextBudget(limit, report), reports


def test_deltas_are_counted_per_kind_and_item() -> None:
    budget, reports = _budget(5)
    assert budget.admit("message", "m1", "abc")
    assert budget.admit("call", "m1", "abcde")  # another kind: its own count
    assert budget.admit("message", "m2", "abcde")
    assert not budget.admit("message", "m1", "def")
    assert [(code, ids) for code, _, ids in reports] == [("text-limit", {"message_id": "m1"})]


def test_a_full_item_stays_full_and_is_reported_once() -> None:
    budget, reports = _budget(4)
    assert not budget.admit("call", "c1", "12345")
    assert not budget.admit("call", "c1", "1")  # no text spliced around the dropped delta
    assert len(reports) == 1
    assert reports[0][2] == {"tool_call_id": "c1"}
    assert "call 'c1' would pass 4 characters" in reports[0][1]


def test_forget_starts_an_item_again() -> None:
    budget, reports = _budget(3)
    assert not budget.admit("replay", "c1", "abcd")
    budget.forget("replay", "c1")
    assert budget.admit("replay", "c1", "abc")
    assert not budget.admit("replay", "c1", "d")
    assert len(reports) == 2  # reported again once the count started over


def test_no_limit_admits_everything() -> None:
    budget, reports = _budget(None)
    assert budget.admit("message", "m1", "x" * 1_000_000)
    assert reports == []


def test_a_route_counts_against_the_same_share() -> None:
    budget, reports = _budget(6)
    pieces: list[str] = []
    run = RunRecord(index=0, announced=True)
    assert budget.admit("message", "m1", "ab")
    route = budget.route("message", "m1", pieces.append, run)
    assert route.append("cd", 7)
    assert pieces == ["cd"]
    assert run.last_event_index == 7
    assert not route.append("efg", 8)  # would pass 6: refused, nothing changed
    assert pieces == ["cd"]
    assert run.last_event_index == 7
    assert reports == []  # the general path reports it, once
    assert not budget.admit("message", "m1", "efg")
    assert len(reports) == 1
    assert not route.append("e", 9)  # full once refused: nothing spliced after the gap
    assert pieces == ["cd"]
