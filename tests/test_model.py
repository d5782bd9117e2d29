"""The message model survives pickling and copying whole, interpreted and compiled.

Process pools, Ray and notebooks pickle transcripts, and users deep-copy them. The
compiled build's classes always run their constructor, so each class says how it is
rebuilt; these tests check that nothing a message or a record holds is lost on the way.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold, model, projection
from agui_transcripts.model import (
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    Message,
    ReasoningMessage,
    RunRecord,
    SystemMessage,
    ToolCall,
    ToolCallRecord,
    ToolMessage,
    ToolResult,
    UserMessage,
)
from agui_transcripts.ownership import Continuation
from agui_transcripts.projection import (
    MediaPart,
    ReasoningPart,
    SourceMessage,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from agui_transcripts.reconcile import Match, Reconciled

from .build_digest import ROOT, describe
from .builds import is_compiled, listed_for_compilation


def _call(call_id: str) -> ToolCall:
    call = ToolCall(call_id, "search", '{"q":', encrypted_value="sealed", metadata={"k": 1})
    call.append_arguments(' "x"}')
    call.encrypted_value_type = "aes"
    call.seq = 7
    return call


def _every_field_set(message: Message) -> Message:
    message.encrypted_value_type = "aes"
    message.extra = {"producerField": [1, 2]}
    message.seq = 11
    return message


def _assistant() -> AssistantMessage:
    message = AssistantMessage(
        "a1", "before ", name="agent", subagent_run_id="sub-1", metadata={"m": 1}
    )
    message.append("the call", seq=3, stretch=2)
    message.add_tool_call(_call("c1"))
    message.append("after the call", seq=9, stretch=4)
    return message


def _user_parts() -> UserMessage:
    parts: list[dict[str, Any]] = [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "url"}},
    ]
    return UserMessage("u2", parts, name="ann", metadata={"lang": "en"})


def _tool() -> ToolMessage:
    message = ToolMessage("t1", "c1", "partial", error="boom", subagent_run_id="sub-1")
    message.append(" result")
    return message


MESSAGES: dict[str, Callable[[], Message]] = {
    "developer": lambda: DeveloperMessage("d1", "be brief", encrypted_value="e"),
    "system": lambda: SystemMessage("s1", "you are", name="sys"),
    "user text": lambda: UserMessage("u1", "hello", subagent_run_id="sub-2"),
    "user parts": _user_parts,
    "reasoning": lambda: ReasoningMessage("r1", "thinking", encrypted_value="opaque"),
    "assistant": _assistant,
    "assistant without text": lambda: AssistantMessage("a2", None, [_call("c2")]),
    "tool": _tool,
    "activity": lambda: ActivityMessage("x1", "progress", {"step": 2}, metadata={"m": 2}),
}


def _observed(message: Message) -> dict[str, Any]:
    """What a reader can see of a message, the arrival order of its parts included."""
    seen: dict[str, Any] = {
        "class": type(message),
        "wire": message.to_dict(),
        "text": message.text,
        "seq": message.seq,
        "extra": message.extra,
    }
    if isinstance(message, AssistantMessage):
        seen["segments"] = [
            ("call", part.id, part.arguments, part.seq)
            if isinstance(part, ToolCall)
            else ("text", part.text, part.seq, part.stretch)
            for part in message.segments
        ]
    return seen


def _pickled(protocol: int) -> Callable[[Any], Any]:
    return lambda value: pickle.loads(pickle.dumps(value, protocol))


def _round_trips() -> dict[str, Callable[[Any], Any]]:
    trips = {
        f"pickle protocol {protocol}": _pickled(protocol)
        for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1)
    }
    trips["deepcopy"] = copy.deepcopy
    trips["copy"] = copy.copy
    return trips


ROUND_TRIPS = _round_trips()


@pytest.mark.parametrize("trip", list(ROUND_TRIPS))
@pytest.mark.parametrize("kind", list(MESSAGES))
def test_a_message_comes_back_whole(kind: str, trip: str) -> None:
    original = _every_field_set(MESSAGES[kind]())
    restored = ROUND_TRIPS[trip](original)
    assert restored is not original
    assert _observed(restored) == _observed(original)


@pytest.mark.parametrize("trip", ["pickle protocol 2", "deepcopy"])
def test_a_restored_message_keeps_streaming_into_its_own_text(trip: str) -> None:
    original = _assistant()
    restored = ROUND_TRIPS[trip](original)
    restored.append(" more", seq=12, stretch=4)
    assert isinstance(restored.tool_calls, list)
    restored.tool_calls[0].arguments_appender()("!")
    assert restored.content == "before the callafter the call more"
    assert restored.tool_calls[0].arguments == '{"q": "x"}!'
    assert original.content == "before the callafter the call"
    assert original.tool_calls is not None
    assert original.tool_calls[0].arguments == '{"q": "x"}'


if not is_compiled("model"):

    class TaggedUser(UserMessage):
        """An interpreted subclass with an attribute of its own (in its ``__dict__``)."""

        tag: str


def test_a_subclass_keeps_its_own_attributes_or_is_refused() -> None:
    if is_compiled("model"):
        # The compiled classes are native: the documented limit, not a silent loss.
        with pytest.raises(TypeError, match="interpreted classes cannot inherit"):
            type("TaggedUser", (UserMessage,), {})("u1")
        return
    message = TaggedUser("u1", "hello")
    message.tag = "kept"
    for trip in ROUND_TRIPS.values():
        restored = trip(message)
        assert type(restored) is TaggedUser
        assert restored.tag == "kept"
        assert restored.to_dict() == message.to_dict()


@pytest.mark.parametrize("trip", list(ROUND_TRIPS))
def test_a_tool_call_comes_back_whole(trip: str) -> None:
    original = _call("c9")
    restored = ROUND_TRIPS[trip](original)
    assert restored.to_dict() == original.to_dict()
    assert restored.seq == original.seq


# A value per field that no default has, so a field a copy forgets shows; a field added
# to a record without a value here fails the test.
RECORD_VALUES: dict[type[Any], dict[str, Any]] = {
    RunRecord: {
        "index": 4,
        "thread_id": "t",
        "run_id": "r",
        "parent_run_id": "p",
        "protocol_version": "1.0",
        "announced": False,
        "outcome": "interrupt",
        "result": {"ok": 1},
        "error_message": "bad",
        "error_code": "E1",
        "failed_late": True,
        "interrupts": [{"id": "i"}],
        "usage": {"tokens": 3},
        "pending_tool_call_ids": ["c1"],
        "pending_listed": True,
        "resume": [{"interruptId": "i"}],
        "new_turn": True,
        "tools": [{"name": "search"}],
        "input": {"threadId": "t"},
        "first_event_index": 5,
        "last_event_index": 9,
        "started_at": 1.5e12,
        "ended_at": 1.6e12,
    },
    ToolCallRecord: {
        "call": _call("c1"),
        "message_id": "a1",
        "run_index": 2,
        "subagent_run_id": "sub",
        "results": [ToolResult("t1", 2, "stream")],
        "ended": True,
        "event_index": 8,
        "occurrence": 1,
        "state": "resolved_server",
        "owner": "server",
        "evidence": "server_result_same_run",
        "resolving_run_index": 2,
        "delivered": True,
        "abandoned_reason": "why",
    },
}


@pytest.mark.parametrize("record_type", list(RECORD_VALUES), ids=lambda t: t.__name__)
def test_a_record_copy_keeps_every_field(record_type: type[Any]) -> None:
    values = RECORD_VALUES[record_type]
    fields = dataclasses.fields(record_type)
    assert set(values) == {f.name for f in fields}
    required = [f.name for f in fields if f.default is f.default_factory is dataclasses.MISSING]
    plain = record_type(**{name: values[name] for name in required})
    record = record_type(**values)
    copied = record.copy()
    assert copied is not record
    for name in values:
        assert getattr(copied, name) == getattr(record, name), name
        if name not in required:
            assert getattr(record, name) != getattr(plain, name), f"{name}: not its default"
    if record_type is ToolCallRecord:
        assert copied.results is not record.results


@pytest.mark.parametrize("trip", list(ROUND_TRIPS))
def test_records_come_back_whole(trip: str) -> None:
    run = RunRecord(3, thread_id="t", run_id="r", outcome="interrupt", interrupts=[{"id": "i"}])
    record = ToolCallRecord(
        _call("c1"), "a1", 3, results=[ToolResult("t1", 3, "stream")], state="resolved_server"
    )
    assert dataclasses.asdict(ROUND_TRIPS[trip](run)) == dataclasses.asdict(run)
    restored = ROUND_TRIPS[trip](record)
    assert restored.to_dict() == record.to_dict()
    assert restored.results == record.results


@pytest.mark.parametrize(
    "build",
    [
        lambda **kw: DeveloperMessage("m", "x", **kw),
        lambda **kw: AssistantMessage("m", "x", **kw),
        lambda **kw: ToolMessage("m", "c", "x", **kw),
        lambda **kw: ActivityMessage("m", "kind", {}, **kw),
    ],
    ids=["text", "assistant", "tool", "activity"],
)
def test_every_message_class_takes_the_common_keywords(build: Callable[..., Message]) -> None:
    message = build(name="n", subagent_run_id="s", metadata={"k": 1}, encrypted_value="e")
    assert (message.name, message.subagent_run_id, message.metadata, message.encrypted_value) == (
        "n",
        "s",
        {"k": 1},
        "e",
    )


STREAMS = sorted(
    path
    for folder in (ROOT / "tests", ROOT / "examples")
    for pattern in ("*.jsonl", "*.sse")
    for path in folder.rglob(pattern)
)


@pytest.mark.parametrize("trip", ["pickle protocol 5", "deepcopy"])
@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_folded_transcript_comes_back_whole(path: Path, trip: str) -> None:
    # Everything read from it: messages, runs, records, state, diagnostics, continuation,
    # every projection and rendering (what a process pool or Ray hands back).
    transcript = fold(path)
    restored = ROUND_TRIPS[trip](transcript)
    assert describe(restored) == describe(transcript)
    assert pickle.loads(pickle.dumps(transcript.continuation())) == transcript.continuation()


VALUES: dict[str, Any] = {
    "text part": TextPart("hello"),
    "reasoning part": ReasoningPart("thinking", "sealed", "r1"),
    "media part": MediaPart({"type": "image", "source": {"type": "url", "value": "u"}}),
    "call part": ToolCallPart("c1", "search", '{"q": 1}'),
    "result part": ToolResultPart("c1", [{"type": "text", "text": "out"}], "failed"),
    "source message": SourceMessage("s1", "user", [TextPart("a"), ToolCallPart("c", "n")], "n"),
    "continuation": Continuation("awaiting_client", ["c1"], ["i1"], ["c2"], ["c3"]),
    "tool result": ToolResult("t1", 2, "input"),
}


@pytest.mark.parametrize("trip", list(ROUND_TRIPS))
@pytest.mark.parametrize("kind", list(VALUES))
def test_a_value_users_build_or_get_comes_back_equal(kind: str, trip: str) -> None:
    value = VALUES[kind]
    assert ROUND_TRIPS[trip](value) == value


def _dataclasses(module_name: str) -> list[type]:
    module = importlib.import_module(f"agui_transcripts.{module_name}")
    return [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__ and dataclasses.is_dataclass(cls)
    ]


def _frozen_dataclasses(module_name: str) -> list[type]:
    return [
        cls
        for cls in _dataclasses(module_name)
        if cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize("module_name", listed_for_compilation())
def test_every_frozen_dataclass_of_a_compiled_module_says_how_it_is_rebuilt(
    module_name: str,
) -> None:
    # Compiled, pickle and copy would assign to the frozen instance and fail; checked in
    # every build, so the interpreted legs catch a new class before the compiled one.
    missing = [
        cls.__name__ for cls in _frozen_dataclasses(module_name) if "__reduce__" not in vars(cls)
    ]
    assert missing == []


WRITTEN_OUT = [
    cls
    for module_name in listed_for_compilation()
    for cls in _dataclasses(module_name)
    if not cls.__dataclass_params__.init  # type: ignore[attr-defined]
]


def test_the_classes_the_fold_makes_per_event_write_their_init_out() -> None:
    names = {cls.__name__ for cls in WRITTEN_OUT}
    assert {"TextSegment", "RunRecord", "ToolResult", "ToolCallRecord", "Match"} <= names


# A value for every field of each written-out class, of the field's type (the compiled
# build checks what its constructors are given) and unlike its default.
WRITTEN_OUT_VALUES: dict[type[Any], dict[str, Any]] = {
    **RECORD_VALUES,
    ToolResult: {"message_id": "t1", "run_index": 1, "source": "input"},
    model.TextSegment: {"seq": 4, "stretch": 2, "_text": model._Text("hi")},
    model.ItemTimes: {"messages": {"m1": [1.0, 2.0]}, "calls": {"c1": [1.5, 1.5]}},
    Match: {"held": 3, "kind": "call"},
    projection._Batch: {
        "message": AssistantMessage("a1", "hi"),
        "key": "a1",
        "open": ["c1"],
        "accepting": False,
    },
    Reconciled: {"matches": [None, Match(0, "id")], "aliases": {"c2": "c1"}},
}


def _same(a: Any, b: Any) -> bool:
    return a is b if isinstance(b, (ToolCall, model._Text)) else a == b


@pytest.mark.parametrize("cls", WRITTEN_OUT, ids=lambda cls: cls.__name__)
def test_a_written_out_init_takes_every_field_with_its_default(cls: type) -> None:
    fields = dataclasses.fields(cls)
    required = [
        f
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    values = WRITTEN_OUT_VALUES[cls]
    assert set(values) == {f.name for f in fields}
    given = {f.name: values[f.name] for f in required}
    made = cls(*given.values())
    for f in fields:
        value = getattr(made, f.name)
        if f.name in given:
            assert _same(value, given[f.name]), f.name
        elif f.default_factory is not dataclasses.MISSING:
            fresh = f.default_factory()
            assert type(value) is type(fresh), f.name
            if isinstance(value, list):
                assert value == fresh, f.name
            assert getattr(cls(*given.values()), f.name) is not value, f.name  # not shared
        else:
            assert value == f.default, f.name
    every = {f.name: values[f.name] for f in fields}
    for built in (cls(**every), cls(*every.values())):
        for f in fields:
            assert _same(getattr(built, f.name), every[f.name]), f.name
    for copied in (dataclasses.replace(built), pickle.loads(pickle.dumps(built))):
        for f in fields:
            value = getattr(copied, f.name)
            assert value == every[f.name] or type(value) is type(every[f.name]), f.name


@pytest.mark.parametrize("module_name", listed_for_compilation())
def test_every_dataclass_with_a_written_out_init_says_how_it_is_rebuilt(
    module_name: str,
) -> None:
    # Compiled, pickle and copy would call __new__, which runs that __init__ without
    # its arguments; checked in every build, as for the frozen classes.
    missing = [
        cls.__name__
        for cls in _dataclasses(module_name)
        if not cls.__dataclass_params__.init  # type: ignore[attr-defined]
        and "__reduce__" not in vars(cls)
    ]
    assert missing == []
