"""Hostile input, second round: no crash, no bomb, no silent loss.

Each test feeds what an attacker (or a badly broken producer) would, in a child process
under a memory cap and a time bound (:mod:`tests.bounded`), and checks the promise the
README makes: lenient mode never raises, memory stays bounded, every violation is
reported, a log is never destroyed.
"""

from __future__ import annotations

import pytest

from agui_transcripts.model import parse_arguments

from .bounded import run_bounded

# -- recursion in argument parsing ------------------------------------------------------------


@pytest.mark.parametrize("text", ["[" * 3000, "[" * 3000 + "]" * 3000, '{"a":' * 3000])
def test_arguments_nested_past_any_parser_are_an_invalid_call(text: str) -> None:
    value, error = parse_arguments(text)
    assert value is None
    assert error is not None


@pytest.mark.parametrize("strict", [False, True])
def test_a_call_with_deeply_nested_arguments_folds_in_both_modes(strict: bool) -> None:
    done = run_bounded(
        f"""
        import json
        from agui_transcripts import fold
        events = [
            {{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}},
            {{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}},
            {{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "[" * 3000}},
            {{"type": "TOOL_CALL_END", "toolCallId": "c1"}},
            {{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}},
        ]
        transcript = fold(events, strict={strict})
        print(json.dumps([d.code for d in transcript.diagnostics]))
        """,
        memory_mb=512,
        seconds=60,
    )
    assert done.returncode == 0, done.stderr
    assert "tool-arguments-invalid" in done.output


def test_the_stdlib_decoder_turns_deep_nesting_into_a_decode_error() -> None:
    from agui_transcripts._codec import _stdlib_loads

    with pytest.raises(ValueError, match="nested deeper"):
        _stdlib_loads("[" * 100_000)
