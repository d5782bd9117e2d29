"""The one table of event shapes, against the SDK's own event models.

Intake and verification both derive their tables from :mod:`agui_transcripts.schema`;
here the table meets ``ag_ui.core``: the same 31 types, the same fields, the same
required ones.
"""

from __future__ import annotations

import importlib.metadata
import inspect
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import EVENT_TYPES, Verifier
from agui_transcripts.diagnostics import DiagnosticSink
from agui_transcripts.events import EventIntake
from agui_transcripts.schema import (
    CAMEL_FIELDS,
    COMMON,
    EVENTS,
    FIELD_ALIASES,
    FieldAlias,
    field_names,
    snake_case,
)

# Fields of the AG-UI 1.0 JSON schema that ag-ui-protocol 1.0.0's models do not declare.
NEWER_THAN_THE_SDK = {("REASONING_ENCRYPTED_VALUE", "encryptedValueType")}

SDK_MAJOR = importlib.metadata.version("ag-ui-protocol").split(".")[0]


def _sdk_event_classes() -> dict[str, Any]:
    import ag_ui.core as core

    found = {}
    for obj in vars(core).values():
        fields = getattr(obj, "model_fields", None)
        if inspect.isclass(obj) and fields and "type" in fields:
            default = fields["type"].default
            if hasattr(default, "value"):
                found[default.value] = obj
    return found


def test_intake_knows_exactly_the_table_types() -> None:
    assert set(EVENTS) == EVENT_TYPES
    assert len(EVENTS) == 31


@pytest.mark.skipif(SDK_MAJOR == "0", reason="ag-ui-protocol 0.1.x predates AG-UI 1.0")
@pytest.mark.parametrize("kind", sorted(EVENTS))
def test_each_shape_is_the_sdk_model(kind: str) -> None:
    model = _sdk_event_classes()[kind]
    sdk = {(info.alias or name): info for name, info in model.model_fields.items()}
    sdk.pop("type")
    shape = EVENTS[kind]
    ours = {field.name for field in (*COMMON, *shape.fields)}
    ours |= {"subagentRunId"} if shape.attributed else set()
    ours -= {name for table_kind, name in NEWER_THAN_THE_SDK if table_kind == kind}
    assert set(sdk) == ours
    required = {field.name for field in shape.fields if field.required}
    assert {name for name, info in sdk.items() if info.is_required()} == required


def test_field_names_cover_every_field() -> None:
    names = field_names()
    for shape in EVENTS.values():
        assert {field.name for field in shape.fields} <= names
    assert {"timestamp", "rawEvent", "metadata", "subagentRunId"} <= names


@pytest.mark.parametrize("kind", sorted(EVENTS))
def test_the_verifier_requires_what_the_table_requires(kind: str) -> None:
    """An event of each type with nothing but its type: every required field is reported."""
    sink = DiagnosticSink()
    verifier = Verifier(sink)
    verifier.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}, index=0)
    verifier.feed({"type": kind}, index=1)
    reported = {
        d.message.split(":")[0].split(".", 1)[1]
        for d in sink.diagnostics
        if d.code == "malformed-event" and d.event_index == 1 and ": Required" in d.message
    }
    checked = {f.name for f in EVENTS[kind].fields if f.required and f.kind != "data"}
    assert reported == checked


# -- the other spellings ------------------------------------------------------------------


def _sample_event(kind: str) -> dict[str, Any]:
    """An event of ``kind`` with every required field, of the kind its table wants."""
    values = {"string": "x", "object": {}, "array": [], "boolean": True, "number": 1}
    event: dict[str, Any] = {"type": kind}
    for field in EVENTS[kind].fields:
        if field.required:
            event[field.name] = values.get(field.kind.split("|")[0], "x")
    return event


@pytest.mark.parametrize("row", FIELD_ALIASES, ids=lambda row: f"{row.alias}->{row.field}")
@pytest.mark.parametrize("strict", [False, True])
def test_every_row_of_the_alias_table_is_read(row: FieldAlias, strict: bool) -> None:
    """Each spelling of the table, on each type it names, reads as its field."""
    kinds = sorted(row.types) if row.types is not None else ["TOOL_CALL_START", "CUSTOM"]
    for kind in kinds:
        event = _sample_event(kind)
        value = event.pop(row.field, "spelled-value")
        event[row.alias] = value
        sink = DiagnosticSink(strict=strict)
        read = EventIntake(sink).normalize(event)
        assert read is not None
        if strict and not row.strict:  # left for the verifier to reject, as the reference
            assert row.field not in read
            assert read[row.alias] == value
        else:
            assert read[row.field] == value
            assert row.alias not in read
            assert [d.code for d in sink.diagnostics] == ([row.code] if row.code else [])


def test_the_behaviour_page_lists_every_spelling_but_the_snake_case_ones() -> None:
    page = Path(__file__).resolve().parent.parent / "docs" / "behaviour.md"
    section = (
        page.read_text(encoding="utf-8").split("## Other spellings", 1)[1].split("\n## ", 1)[0]
    )
    listed: set[tuple[str, str]] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            spellings, field = line.split(" | ")[:2]
            for spelling in spellings.strip("| ").split(", "):
                listed.add((spelling.strip("`"), field.strip("`")))
    named = {(row.alias, row.field) for row in FIELD_ALIASES if row.code is not None}
    assert listed == named
    snake = {(row.alias, row.field) for row in FIELD_ALIASES if row.code is None}
    assert snake == {(snake_case(name), name) for name in CAMEL_FIELDS}
