"""The one table of event shapes, against the SDK's own event models.

Intake and verification both derive their tables from :mod:`agui_transcripts.schema`;
here the table meets ``ag_ui.core``: the same 31 types, the same fields, the same
required ones.
"""

from __future__ import annotations

import importlib.metadata
import inspect
from typing import Any

import pytest

from agui_transcripts import EVENT_TYPES, Verifier
from agui_transcripts.diagnostics import DiagnosticSink
from agui_transcripts.schema import COMMON, EVENTS, field_names

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
