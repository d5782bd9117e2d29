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
from typing import Any, BinaryIO

from .limits import Limits

__all__ = [
    "RunInputError",
    "load_run_input",
    "parse_run_input",
    "read_run_input",
    "run_input_path",
]


class RunInputError(ValueError):
    """Run inputs saved beside a log that cannot be used (not JSON, not input objects)."""


def run_input_path(log: str | os.PathLike[str]) -> Path:
    """Where the run inputs of ``log`` are kept: ``NAME.input.json`` beside ``NAME.EXT``."""
    path = Path(log)
    return path.with_name(path.name.rsplit(".", 1)[0] + ".input.json")


def read_run_input(log: str | os.PathLike[str], *, limits: Limits | None = None) -> Any:
    """The run inputs recorded beside ``log``: one ``RunAgentInput`` dict or a list of them.

    None when there is no such file. Raises :class:`RunInputError`, naming the file, when
    it is not JSON, holds something other than input objects, is not a regular file, or
    is larger than ``limits.max_document_bytes`` (it is a document read whole; the
    default :class:`~agui_transcripts.Limits` when None). Past the limit nothing more
    than the limit is read.
    """
    sidecar = run_input_path(log)
    try:
        if not sidecar.is_file():
            if not sidecar.exists():
                return None
            # A pipe or a device named like a sidecar would be read forever.
            raise RunInputError(f"{sidecar}: the run inputs are not a regular file")
        with sidecar.open("rb") as file:
            return load_run_input(file, str(sidecar), limits)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise RunInputError(f"{sidecar}: the run inputs cannot be read: {error}") from None


def load_run_input(file: BinaryIO, sidecar: str, limits: Limits | None) -> Any:
    """Run inputs from an open ``NAME.input.json`` (``sidecar`` names it in errors).

    Reads no more than one byte past ``limits.max_document_bytes`` (the default
    :class:`~agui_transcripts.Limits` when None). Raises :class:`RunInputError` as
    :func:`read_run_input` does; errors reading the file are the caller's.
    """
    most = (limits or Limits()).max_document_bytes
    data = file.read() if most is None else file.read(most + 1)
    if most is not None and len(data) > most:
        raise RunInputError(
            f"{sidecar}: the run inputs are larger than the document limit of {most} bytes "
            "(Limits.max_document_bytes); not read"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RunInputError(f"{sidecar}: the run inputs cannot be read: {error}") from None
    return parse_run_input(text, sidecar)


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
