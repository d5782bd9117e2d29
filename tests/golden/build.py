"""Write the golden streams, and their expected folds from the reference client.

Usage::

    python -m tests.golden.build                       # (re)write the streams only
    python -m tests.golden.build --reference DIR       # and fold each with the
                                                       # reference tool in DIR

``DIR`` is a writable copy of the reference fold tool (the official ``@ag-ui/client``
1.0 driven by Node.js) with its dependencies installed. Each stream ``NAME.jsonl`` (and
``NAME.input.json`` when it has run inputs) gets ``NAME.expected.json``: the messages,
state, error and run outcomes the reference client ends with, and the client (name and
version) that made them. The test suite reads only these files; it never needs Node.

Streams: the scenarios S01-S40 of the protocol rules (``scenario-*``), producer quirks
the reference accepts (``quirk-*``), producers restating history (``history-*``), streams
as producers nobody here wrote send them (``producer-*``) and deterministic random
streams (``random-*``); in ``deviations/``, streams where we depart
from the reference on purpose, with its result beside them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.generate import random_stream, to_jsonl
from tests.producers import (
    approval_runs,
    booking_run,
    calculator_run,
    chatty_run,
    gemini_snapshot_runs,
    reused_thread_run,
    snapshot_first_runs,
    with_recorder_keys,
)
from tests.streams import (
    AS,
    CU,
    MS,
    RAW,
    RE,
    REV,
    RF,
    RMC,
    RME,
    RMK,
    RMS,
    RS,
    RZE,
    RZS,
    SD,
    SUF,
    SUS,
    TCA,
    TCE,
    TCK,
    TCR,
    TCS,
    TMC,
    TME,
    TMK,
    TMS,
    at,
)

HERE = Path(__file__).parent
Event = dict[str, Any]
Case = tuple[list[Event], list[dict[str, Any]] | None]

RANDOM_SEEDS = range(1, 41)


def _input(
    run: str, messages: list[dict[str, Any]], tools: list[str] | None = None
) -> dict[str, Any]:
    return {
        "threadId": "t",
        "runId": run,
        "messages": messages,
        "tools": [{"name": name, "description": name} for name in tools or []],
    }


def scenarios() -> dict[str, Case]:
    """S01-S40 (protocol rules section 9), as streams."""
    return {
        "S01": ([RS(), TMS("m1"), TMC("m1", "Hel"), TMC("m1", "lo"), TME("m1"), RF()], None),
        "S02": ([RS(), TMK("m1", "Chunks "), TMK(delta="expand."), RF()], None),
        "S03": ([RS(), TMK("m1", "a"), TMK("m2", "b"), TMK(delta="c"), RF()], None),
        "S04": (
            [RS(), TMK("m1", "a1"), TMK("m2", "b1"), TMK(delta="b2"), TMK("m1", "a2"), RF()],
            None,
        ),
        "S05": ([RS(), TMK(delta="orphan"), RF()], None),
        "S06": ([RS(), TCK("c1", delta='{"q":1}'), RF()], None),
        "S07": ([RS(), TMK("m1", "a", role="user"), TMK("m1", "b", role="assistant"), RF()], None),
        "S08": ([RS(), TMK("m1", "a"), TMK("m1", "b", role="assistant"), RF()], None),
        "S08-conflict": ([RS(), TMK("m1", "a"), TMK("m1", "b", role="user"), RF()], None),
        "S09": (
            [
                RS(),
                TMS("m1"),
                TMC("m1", "Searching."),
                TME("m1"),
                TCK("c1", "search", '{"q":', parent="m1"),
                TCK("c1", "search", '"agui"}', parent="m1"),
                RF(),
            ],
            None,
        ),
        "S10": ([RS(), TMK("m1", "Half "), RAW(), TMK(delta="and half."), RF()], None),
        "S11": ([RS(), TMK("m1", "Half "), CU(), TMK(delta="and half."), RF()], None),
        "S12": (
            [RS(), TMK("m1", "Half "), AS("a1", "web_search", {"q": "x"}), TMK(delta="done"), RF()],
            None,
        ),
        "S13": (
            [
                RS(),
                TMK("m1", "Hel"),
                SD({"op": "add", "path": "/k", "value": 1}),
                TMK("m1", "lo"),
                RF(),
            ],
            None,
        ),
        "S13-idless": ([RS(), TMK("m1", "Hel"), SD(), TMK(delta="lo"), RF()], None),
        "S14": (
            [
                RS(),
                TMK("m1", "Checking"),
                TCK("c1", "get_weather", '{"city":'),
                TCK(delta='"Seoul"}'),
                RF(),
            ],
            None,
        ),
        "S15": (
            [
                RS(),
                TMS("m1"),
                TMC("m1", "Looking."),
                TME("m1"),
                TCS("c1", "search", "m1"),
                TCA("c1", '{"q":'),
                TCA("c1", '"agui"}'),
                TCE("c1"),
                RF(),
            ],
            None,
        ),
        "S16": (
            [
                RS(),
                TCS("c1", "get_invoice", "a1"),
                TCA("c1", "{}"),
                TCE("c1"),
                TMS("a1"),
                TMC("a1", "Here."),
                TME("a1"),
                RF(),
            ],
            None,
        ),
        "S17": (
            [RS(), TCS("c1", "f", "u1"), TCE("c1"), RF()],
            [_input("r1", [{"id": "u1", "role": "user", "content": "hi"}])],
        ),
        "S18": (
            [
                RS(),
                TCS("c1", "search", "a1"),
                TCE("c1"),
                TMS("a2"),
                TMC("a2", "after"),
                TME("a2"),
                TCR("t1", "c1", "res"),
                RF(),
            ],
            None,
        ),
        "S19": (
            [
                RS(),
                TCS("c1", "s", "a1"),
                TCE("c1"),
                TCS("c2", "s", "a1"),
                TCE("c2"),
                TCR("t2", "c2", "2"),
                TCR("t1", "c1", "1"),
                RF(),
            ],
            None,
        ),
        "S20": (
            [
                RS(),
                TCS("c1", "get_invoice", "a1"),
                TCE("c1"),
                TCR(
                    "t1",
                    "c1",
                    [
                        {"type": "text", "text": "Invoice"},
                        {
                            "type": "document",
                            "source": {"type": "url", "value": "https://example.com/inv.pdf"},
                        },
                    ],
                ),
                RF(),
            ],
            None,
        ),
        "S21": (
            [RS(), TCS("c1", "confirm", "a1"), TCA("c1", '{"id":1}'), TCE("c1"), RF()],
            [_input("r1", [], ["confirm"])],
        ),
        "S22": (
            [
                RS(),
                TCS("c1", "a"),
                TCE("c1"),
                TCS("c2", "b"),
                TCE("c2"),
                TCR("t1", "c1", "ok"),
                RF(outcome={"type": "success", "pendingToolCallIds": ["c2"]}),
            ],
            None,
        ),
        "S23": (
            [
                RS(),
                TCS("c1", "transfer", "a1"),
                TCE("c1"),
                RF(
                    outcome={
                        "type": "interrupt",
                        "interrupts": [{"id": "i1", "reason": "approval", "toolCallId": "c1"}],
                    }
                ),
            ],
            None,
        ),
        "S24": ([RS(), TMS("m1"), TMC("m1", "partial"), RF(outcome={"type": "cancelled"})], None),
        "S24-closed": (
            [RS(), TMS("m1"), TMC("m1", "partial"), TME("m1"), RF(outcome={"type": "cancelled"})],
            None,
        ),
        "S25": ([RS(), TMS("m1"), TMC("m1", "par"), RE("boom")], None),
        "S26": (
            [
                RS(),
                RE("first failed"),
                RS("r2"),
                TMS("m"),
                TMC("m", "second run"),
                TME("m"),
                RF("r2"),
            ],
            None,
        ),
        "S27": ([RS(), TMS("m"), TMC("m", "x"), TME("m"), RF(), RE("flush failed")], None),
        "S28": ([RS(), TMS("m"), TME("m"), RF(), TMS("m2")], None),
        "S29": ([TMS("m1")], None),
        "S29-error-only": ([RE("x")], None),
        "S30": ([RS(), RS("r2")], None),
        "S31": ([RS(), TMC("m9", "x"), RF()], None),
        "S32": (
            [
                RS(),
                RZS("s1"),
                RMS("r1"),
                RMC("r1", "weighing "),
                RMC("r1", "the options"),
                RME("r1"),
                RZE("s1"),
                TMS("m2"),
                TMC("m2", "the answer"),
                TME("m2"),
                RF(),
            ],
            None,
        ),
        "S33": (
            [
                RS(),
                RMK("r1", "Think"),
                RMK(delta="ing"),
                REV("message", "r1", "b3Bh"),
                REV("message", "zz", "x"),
                RF(),
            ],
            None,
        ),
        "S34": (
            [
                RS(),
                TMS("a"),
                TMC("a", "first draft"),
                TME("a"),
                TMS("b"),
                TMC("b", "retracted"),
                TME("b"),
                MS({"id": "a", "role": "assistant", "content": "first draft, corrected"}),
                RF(),
            ],
            None,
        ),
        "S35": (
            [
                RS(),
                RMS("r0"),
                RMC("r0", "..."),
                RME("r0"),
                AS("x", "progress", {"pct": 50}),
                RF(),
                RS("r2"),
                MS({"id": "u1", "role": "user", "content": "hi"}),
                RF("r2"),
            ],
            None,
        ),
        "S36": (
            [
                RS(),
                SUS("s1"),
                SUS("s2"),
                at(TMK("m1", "A "), "s1"),
                at(TMK("m2", "B "), "s2"),
                at(TMK(delta="one"), "s1"),
                at(TMK(delta="two"), "s2"),
                SUF("s1"),
                SUF("s2"),
                RF(),
            ],
            None,
        ),
        "S37": (
            [RS(), at(TMK("m1", "A"), "s1"), at(TMK("m2", "B"), "s2"), TMK(delta="?"), RF()],
            None,
        ),
        "S38": (
            [RS(), at(TMK("m1", "theirs "), "s1"), TMK("m2", "mine "), TMK(delta="too"), RF()],
            None,
        ),
        "S39": (
            [RS(), at(TCS("c1", "lookup"), "s1"), TCA("c1", "{}"), at(TCE("c1"), "s2"), RF()],
            None,
        ),
        "S40": (
            [
                RS(),
                {"type": "THINKING_START"},
                {"type": "THINKING_TEXT_MESSAGE_START"},
                {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "Let me check."},
                {"type": "THINKING_TEXT_MESSAGE_END"},
                {"type": "THINKING_END"},
                TMS("m1"),
                TMC("m1", "Checked."),
                TME("m1"),
                RF(),
            ],
            None,
        ),
    }


def quirks() -> dict[str, Case]:
    """Real-producer shapes the reference accepts (its result is the golden)."""
    return {
        # Q1: an empty text message as the parent of the call.
        "quirk-Q01-empty-parent-text": (
            [
                RS(),
                TMS("m1"),
                TME("m1"),
                TCS("c1", "f", "m1"),
                TCA("c1", "{}"),
                TCE("c1"),
                TCR("t1", "c1", "r"),
                RF(),
            ],
            None,
        ),
        # Q19: a text message held open across the call and its result.
        "quirk-Q19-text-open-across-tools": (
            [
                RS(),
                TMS("m1"),
                TMC("m1", "Let me check. "),
                TCS("c1", "weather", "m1"),
                TCA("c1", '{"city":"Oslo"}'),
                TCE("c1"),
                TCR("t1", "c1", "rain"),
                TMC("m1", "It rains."),
                TME("m1"),
                RF(),
            ],
            None,
        ),
        # Q25: each parallel call with its own never-started parent.
        "quirk-Q25-parent-per-call": (
            [
                RS(),
                TCS("c1", "f", "p1"),
                TCE("c1"),
                TCS("c2", "g", "p2"),
                TCE("c2"),
                TCR("t1", "c1"),
                TCR("t2", "c2"),
                RF(),
            ],
            None,
        ),
        # Q29: llama-index: chunks only, one chunk per call, no parents.
        "quirk-Q29-chunks-only": (
            [
                RS(),
                TMK("m1", "Checking", role="assistant"),
                TCK("c1", "search", '{"q":"x"}'),
                TCK("c2", "search", '{"q":"y"}'),
                TMK("m2", "Done", role="assistant"),
                RF(),
            ],
            None,
        ),
        # Q32: a snapshot that re-mints the streamed ids and adds the system prompt.
        "quirk-Q32-snapshot-remints": (
            [
                RS(),
                TMK("m1", "Hello", role="assistant"),
                MS(
                    {"id": "sys", "role": "system", "content": "You are helpful."},
                    {"id": "u1", "role": "user", "content": "Hi"},
                    {"id": "x1", "role": "assistant", "content": "Hello"},
                ),
                RF(),
            ],
            [_input("r1", [{"id": "u1", "role": "user", "content": "Hi"}])],
        ),
    }


def _call(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def history() -> dict[str, Case]:
    """Producers restating history, where the reference client defines the outcome."""
    weather: list[dict[str, Any]] = [
        {"id": "X1", "role": "user", "content": "Weather in Paris?"},
        {
            "id": "X2",
            "role": "assistant",
            "content": "Let me check",
            "toolCalls": [_call("c1", "get_weather", '{"city":"Paris"}')],
        },
        {"id": "X3", "role": "tool", "toolCallId": "c1", "content": "sunny"},
        {"id": "X4", "role": "assistant", "content": "Sunny in Paris."},
    ]
    return {
        # Issue 16, shape 1: a final snapshot that re-mints every id.
        "history-snapshot-remints-every-id": (
            [
                RS(),
                TMK("m-a", "Let me check", role="assistant"),
                TCS("c1", "get_weather", "m-a"),
                TCA("c1", '{"city":"Paris"}'),
                TCE("c1"),
                TCR("r-1", "c1", "sunny"),
                MS(*weather),
                RF(),
            ],
            [_input("r1", [{"id": "u-1", "role": "user", "content": "Weather in Paris?"}])],
        ),
        # Shape 1 as llama-index sends it (Q29-Q32): chunks only, results only in the
        # snapshots, one snapshot per step, each re-minting the system and assistant ids.
        "history-snapshot-per-step-remints": (
            [
                RS(),
                TMK("m-1", "Let me check", role="assistant"),
                TCK("c1", "get_weather", '{"city":"Paris"}'),
                MS(
                    {"id": "sys-1", "role": "system", "content": "You are a weather bot."},
                    {"id": "u-1", "role": "user", "content": "Weather in Paris?"},
                    {"id": "s1-a", "role": "assistant", "content": "Let me check"},
                    {"id": "s1-b", "role": "assistant", "toolCalls": [_call("c1", "get_weather")]},
                ),
                TMK("m-2", "Sunny in Paris.", role="assistant"),
                MS(
                    {"id": "sys-2", "role": "system", "content": "You are a weather bot."},
                    {"id": "u-1", "role": "user", "content": "Weather in Paris?"},
                    {"id": "s2-a", "role": "assistant", "content": "Let me check"},
                    {"id": "s2-b", "role": "assistant", "toolCalls": [_call("c1", "get_weather")]},
                    {"id": "s2-c", "role": "tool", "toolCallId": "c1", "content": "sunny"},
                    {"id": "s2-d", "role": "assistant", "content": "Sunny in Paris."},
                ),
                RF(),
            ],
            [_input("r1", [{"id": "u-1", "role": "user", "content": "Weather in Paris?"}])],
        ),
        # Shape 5: a chunked call resumed after other messages and calls (the chunk
        # transform's "two messages, two calls, interleaved").
        "history-chunk-call-resumed": (
            [
                RS(),
                TCK("tool-1", "search", '{"arg1":', parent="msg-1"),
                TMK("msg-2", "Meanwhile", role="assistant"),
                TCK("tool-2", "lookup", "{}", parent="msg-2"),
                TCK("tool-1", "search", '"more"}'),
                RF(),
            ],
            None,
        ),
        # A snapshot that restates a reasoning-free history around streamed reasoning.
        "history-snapshot-remints-around-reasoning": (
            [
                RS(),
                RMS("r-1"),
                RMC("r-1", "The user wants the weather."),
                RME("r-1"),
                TMS("m-1"),
                TMC("m-1", "Sunny."),
                TME("m-1"),
                MS(
                    {"id": "X1", "role": "user", "content": "Weather?"},
                    {"id": "X2", "role": "assistant", "content": "Sunny."},
                ),
                RF(),
            ],
            [_input("r1", [{"id": "u-1", "role": "user", "content": "Weather?"}])],
        ),
    }


def producers() -> dict[str, Case]:
    """Streams as producers nobody here wrote send them (issue 33), folded by the reference.

    Where the reference rejects one (a result under another field name, a snapshot before
    RUN_STARTED), the golden records the rejection; the lenient transcript is held by
    ``tests/test_real_producers.py``, and for the snapshot-first stream by the golden of
    the same conversation without the events before each RUN_STARTED.
    """
    gemini_input = [_input("r1", [{"id": "u1", "role": "user", "content": "Weather in Paris?"}])]
    approval, approval_inputs = approval_runs()
    snapshot_first, snapshot_first_inputs = snapshot_first_runs(client_ids=False)
    booking, booking_input = booking_run()
    reused, reused_input = reused_thread_run()
    return {
        "producer-snapshot-remints-call-ids": (gemini_snapshot_runs("A"), gemini_input),
        "producer-snapshot-remints-call-ids-and-results": (gemini_snapshot_runs("fresh"), None),
        "producer-result-under-result-key": (
            calculator_run({"type": "TOOL_CALL_RESULT", "toolCallId": "tc-1", "result": "714"}),
            None,
        ),
        # The reference replays a recording per request from RUN_STARTED to RUN_STARTED,
        # so it cannot take this one's inputs; it rejects the first event either way.
        "producer-snapshot-before-run-started": (snapshot_first, None),
        "producer-snapshot-before-run-started-stripped": (
            [e for i, e in enumerate(snapshot_first) if i not in (0, 6, 7)],
            snapshot_first_inputs,
        ),
        "producer-input-echo-without-resume": (approval, approval_inputs),
        "producer-input-object-content": (booking, [booking_input]),
        "producer-snapshot-drops-streamed-answer": (reused, [reused_input]),
        "producer-recorder-keys": (with_recorder_keys(chatty_run()), None),
    }


def deviations() -> dict[str, Case]:
    """Streams where we depart from the reference on purpose (README's table).

    Their reference results are committed too, and ``tests/test_history.py`` states the
    exact difference, so a change on either side shows.
    """
    run_1 = [
        RS("r1"),
        TMS("a1"),
        TMC("a1", "Checking"),
        TME("a1"),
        TCS("c1", "get_weather", "a1"),
        TCA("c1", "{}"),
        TCE("c1"),
        TCR("t1", "c1", "sunny"),
        RF("r1"),
    ]
    first = {"id": "u1", "role": "user", "content": "Weather?"}
    asked = {"id": "h-user", "role": "user", "content": "Book me a flight"}
    delegated = {
        "id": "m1",
        "role": "assistant",
        "toolCalls": [_call("call_task", "task", '{"description":"find flights"}')],
    }
    return {
        # Shape 2: run 2's input re-sends run 1's assistant message and its call under a
        # new message id (and leaves the server's result out, as a client may).
        "deviation-history-echo-new-ids": (
            [*run_1, RS("r2"), TMS("a2"), TMC("a2", "You're welcome."), TME("a2"), RF("r2")],
            [
                _input("r1", [first]),
                _input(
                    "r2",
                    [
                        first,
                        {
                            "id": "dump-7",
                            "role": "assistant",
                            "content": "Checking",
                            "toolCalls": [_call("c1", "get_weather")],
                        },
                        {"id": "u2", "role": "user", "content": "Thanks"},
                    ],
                ),
            ],
        ),
        # Shape 4: a call id reused in a later turn, under a new message.
        "deviation-call-id-reused-next-turn": (
            [
                *run_1,
                RS("r2"),
                TCS("c1", "get_weather", "a2"),
                TCA("c1", '{"day":2}'),
                TCE("c1"),
                RF("r2"),
            ],
            [
                _input("r1", [first]),
                _input("r2", [{"id": "u2", "role": "user", "content": "And tomorrow?"}]),
            ],
        ),
        # Shapes 6 and 9: ag-ui-langgraph with a deepagents subagent, no run input: the
        # user turn only in the snapshots, results re-minted by the checkpoint (Q10, Q16,
        # Q17).
        "deviation-langgraph-subagent-no-input": (
            [
                RS(),
                TCS("call_task", "task", "m1"),
                TCA("call_task", '{"description":"find flights"}'),
                TCE("call_task"),
                MS(
                    asked,
                    delegated,
                ),
                SUS("s1", name="researcher"),
                at(TCS("call_search", "search", "sm1"), "s1"),
                at(TCA("call_search", '{"q":"flights"}'), "s1"),
                at(TCE("call_search"), "s1"),
                at(TCR("call_search", "call_search", "3 flights"), "s1"),
                at(TMS("sm2"), "s1"),
                at(TMC("sm2", "Found 3 flights"), "s1"),
                at(TME("sm2"), "s1"),
                SUF("s1"),
                TCR("call_task", "call_task", "Found 3 flights"),
                TMS("m3"),
                TMC("m3", "I found 3 flights."),
                TME("m3"),
                MS(
                    asked,
                    delegated,
                    {
                        "id": "ck-1",
                        "role": "tool",
                        "toolCallId": "call_task",
                        "content": "Found 3 flights",
                    },
                    {"id": "m3", "role": "assistant", "content": "I found 3 flights."},
                    {
                        "id": "sm1",
                        "role": "assistant",
                        "toolCalls": [_call("call_search", "search", '{"q":"flights"}')],
                        "subagentRunId": "s1",
                    },
                    {
                        "id": "ck-2",
                        "role": "tool",
                        "toolCallId": "call_search",
                        "content": "3 flights",
                        "subagentRunId": "s1",
                    },
                    {
                        "id": "sm2",
                        "role": "assistant",
                        "content": "Found 3 flights",
                        "subagentRunId": "s1",
                    },
                ),
                RF(),
            ],
            None,
        ),
    }


def cases() -> dict[str, Case]:
    """Every golden stream by file name."""
    out = {f"scenario-{name}": case for name, case in scenarios().items()}
    out.update(quirks())
    out.update(history())
    out.update(producers())
    for seed in RANDOM_SEEDS:
        events, inputs = random_stream(seed)
        out[f"random-{seed:03d}"] = (events, inputs)
    return out


def write(directory: Path, streams: dict[str, Case] | None = None) -> list[Path]:
    """Write the streams (and run inputs) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (events, inputs) in (cases() if streams is None else streams).items():
        path = directory / f"{name}.jsonl"
        path.write_text(to_jsonl(events), encoding="utf-8")
        if inputs:
            (directory / f"{name}.input.json").write_text(
                json.dumps(inputs, indent=1) + "\n", encoding="utf-8"
            )
        paths.append(path)
    return paths


#: What a golden keeps of the reference tool's output: what the tests compare, and the
#: client (name and version) that produced it.
KEPT = ("messages", "state", "error", "outcome", "runs", "client")


def reference_fold(tool: Path, stream: Path, inputs: Path | None = None) -> dict[str, Any]:
    """Fold one stream with the reference tool; keep what the goldens compare.

    ``inputs`` defaults to ``NAME.input.json`` beside the stream, when there is one.
    """
    command = ["node", str(tool / "fold.mjs"), str(stream), "--compact"]
    if inputs is None:
        inputs = stream.parent / (stream.name.removesuffix(".jsonl") + ".input.json")
    if inputs.exists():
        command += ["--input", str(inputs)]
        if len(json.loads(inputs.read_text(encoding="utf-8"))) > 1:
            command.append("--per-request")
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result = json.loads(output)
    return {key: result[key] for key in KEPT}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reference", type=Path, help="the reference fold tool's directory")
    parser.add_argument("--out", type=Path, default=HERE / "streams")
    args = parser.parse_args(argv)
    paths = write(args.out) + write(HERE / "deviations", deviations())
    if args.reference:
        for path in paths:
            expected = reference_fold(args.reference, path)
            target = path.parent / (path.name.removesuffix(".jsonl") + ".expected.json")
            target.write_text(
                json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
    print(f"{len(paths)} streams written to {args.out} and {HERE / 'deviations'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
