"""A recorded run on disk: its log, and the run inputs saved beside it.

A recorder keeps each run's ``RunAgentInput`` (or the list of them, one per run) next to
the log as ``NAME.input.json`` (``NAME.jsonl`` → ``NAME.input.json``). Without it a fold
sees no user turn and no client result sent back, so :func:`~agui_transcripts.fold` and
the command line both read it, through the functions here, and give the same transcript.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["RunInputError", "parse_run_input", "read_run_input", "run_input_path"]


class RunInputError(ValueError):
    """Run inputs saved beside a log that cannot be used (not JSON, not input objects)."""


def run_input_path(log: str | os.PathLike[str]) -> Path:
    """Where the run inputs of ``log`` are kept: ``NAME.input.json`` beside ``NAME.EXT``."""
    path = Path(log)
    return path.with_name(path.name.rsplit(".", 1)[0] + ".input.json")


def read_run_input(log: str | os.PathLike[str]) -> Any:
    """The run inputs recorded beside ``log``: one ``RunAgentInput`` dict or a list of them.

    None when there is no such file. Raises :class:`RunInputError`, naming the file, when
    it is not JSON or holds something other than input objects.
    """
    sidecar = run_input_path(log)
    try:
        text = sidecar.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise RunInputError(f"{sidecar}: the run inputs cannot be read: {error}") from None
    return parse_run_input(text, str(sidecar))


def parse_run_input(text: str, sidecar: str) -> Any:
    """Run inputs from the text of a ``NAME.input.json`` (``sidecar`` names it in errors).

    Raises :class:`RunInputError` as :func:`read_run_input` does.
    """
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise RunInputError(f"{sidecar}: the run inputs cannot be read: {error}") from None
    inputs = value if isinstance(value, list) else [value]
    if not all(isinstance(item, dict) for item in inputs):
        found = "a list holding other values" if isinstance(value, list) else type(value).__name__
        raise RunInputError(
            f"{sidecar}: run inputs must be a RunAgentInput object or a list of them, not {found}"
        )
    return value
