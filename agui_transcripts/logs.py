"""One recorded log, as every batch path folds it: the CLI, datasets and Ray alike.

A recorded run is a log (JSONL, SSE or a JSON array) plus the ``NAME.input.json``
beside it. :func:`find_logs` picks the logs out of folders by one documented rule;
:func:`fold_log` folds one into its transcript or raises a :class:`LogError` that names
the file, so a batch reports a bad log and goes on.
"""

from __future__ import annotations

import json
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from .collector import fold
from .diagnostics import DECODE_CODES, ProtocolError
from .limits import Limits
from .model import Transcript
from .readers import read_events
from .recording import RunInputError, read_run_input

__all__ = [
    "LOG_SUFFIXES",
    "EmptyLog",
    "LogError",
    "RejectedLog",
    "UnreadableLog",
    "available_cores",
    "find_logs",
    "fold_log",
    "map_logs",
]

LOG_SUFFIXES = (".jsonl", ".ndjson", ".sse", ".json", ".log", ".txt")
Result = TypeVar("Result")


class LogError(Exception):
    """A log that gives no transcript; the message names the file."""


class UnreadableLog(LogError):
    """Missing, not a file, no event in it that decodes, or unusable run inputs."""


class EmptyLog(LogError):
    """A log without a single event: nothing to convert, and not a finished conversation."""


class RejectedLog(LogError):
    """Strict mode: the reference client would reject the stream."""


def find_logs(paths: Sequence[str], notes: list[str] | None = None) -> list[str]:
    """Files named, and the logs inside directories named, in a stable order.

    In a directory (files named on the command line are always read):

    - ``NAME.input.json`` and any other ``NAME.WORD.json`` beside a log ``NAME.*`` are
      that log's sidecars, never logs;
    - a ``.json`` file is a log only when it holds events (a JSON array, or an object
      with ``type``, ``stream`` or ``events``); others (a manifest) are skipped;
    - a run recorded in several formats is read once, in this order of preference:
      ``.jsonl``, ``.ndjson``, ``.sse``, ``.json``, ``.log``, ``.txt``.

    What is skipped, and why, is appended to ``notes``.
    """
    found: list[str] = []
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            found += _logs_in(path, notes if notes is not None else [])
        else:
            found.append(raw)
    return found


def _logs_in(folder: Path, notes: list[str]) -> list[str]:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in LOG_SUFFIXES)
    stems = {(p.parent, p.name[: -len(p.suffix)]) for p in files}
    chosen: dict[tuple[Path, str], Path] = {}
    for path in files:
        stem = path.name[: -len(path.suffix)]
        owner = stem.rpartition(".")[0]
        if path.suffix == ".json" and owner and (path.parent, owner) in stems:
            continue  # NAME.input.json, NAME.meta.json...: a sidecar of NAME's log
        if path.suffix == ".json" and not _holds_events(path):
            notes.append(f"{path}: skipped, not a log (no events in it)")
            continue
        key = (path.parent, stem)
        other = chosen.get(key)
        if other is None or LOG_SUFFIXES.index(path.suffix) < LOG_SUFFIXES.index(other.suffix):
            if other is not None:
                notes.append(f"{other}: skipped, the same run as {path}")
            chosen[key] = path
        else:
            notes.append(f"{path}: skipped, the same run as {other}")
    return [str(p) for p in sorted(chosen.values())]


def _holds_events(path: Path) -> bool:
    """Whether a ``.json`` file reads as events: an array, or an event or event holder."""
    try:
        with path.open("rb") as file:
            head = file.read(1 << 20)
            whole = not file.read(1)
    except OSError:
        return True  # let reading it report the error
    head = head.lstrip()
    if head.startswith(b"["):
        return True
    if not head.startswith(b"{"):
        return False
    if whole:  # small enough to look at its keys
        try:
            value = json.loads(head)
        except ValueError:
            return True  # a broken log: reading it reports what is wrong
        return isinstance(value, dict) and bool({"type", "stream", "events"} & set(value))
    return any(key in head[:4096] for key in (b'"type"', b'"stream"', b'"events"'))


def _run_input(source: str) -> Any:
    if source == "-":
        return None
    # A bad sidecar fails its log (reported, counted), never the whole batch.
    try:
        return read_run_input(source)
    except RunInputError as error:
        raise UnreadableLog(str(error)) from None


def fold_log(
    source: str, *, strict: bool = False, limits: Limits | None = None
) -> tuple[Transcript, int]:
    """The transcript of one log (``-`` is stdin) with its run inputs, and its event count.

    Raises :class:`EmptyLog`, :class:`UnreadableLog` or (strict) :class:`RejectedLog`.
    """
    # stdin is read as it streams, in bounded blocks, like a file (never whole).
    data: Any = sys.stdin.buffer if source == "-" else Path(source)
    if source != "-" and not data.exists():
        raise UnreadableLog(f"{source}: no such file")
    if source != "-" and not data.is_file():
        # A device or a pipe named on the command line can stream forever (/dev/zero);
        # a log is a file (stdin, "-", is the way to pipe one in).
        raise UnreadableLog(f"{source}: not a regular file (pipe a stream in as '-')")
    stream = read_events(data, strict=strict, limits=limits)
    try:
        transcript = fold(stream, run_input=_run_input(source), strict=strict)  # as fold(path)
    except ProtocolError as error:
        raise RejectedLog(f"{source}: {error}") from error
    except OSError as error:
        raise UnreadableLog(f"{source}: {error.strerror or error}") from error
    items = stream.reader.intake.count
    if any(d.code == "empty-stream" for d in transcript.diagnostics):
        raise EmptyLog(f"{source}: empty log (no events in it), not a conversation")
    undecodable = [d for d in transcript.diagnostics if d.code in DECODE_CODES]
    if items and len(undecodable) == items:
        first = undecodable[0]
        where = f" (line {first.line})" if first.line is not None else ""
        raise UnreadableLog(f"{source}: no AG-UI event could be read{where}: {first.message}")
    return transcript, items


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def map_logs(
    function: Callable[..., Result],
    sources: Sequence[str],
    *,
    jobs: int | None = None,
    **options: Any,
) -> Iterator[Result]:
    """``function(source, **options)`` for each source, in order, on ``jobs`` processes.

    ``None`` uses every available core. One process (or one source, or stdin) runs in
    this process; more hand the sources out in chunks, so a worker's memory is one
    log's at a time. ``function`` must be importable by the workers (module level).
    """
    jobs = available_cores() if jobs is None else jobs
    work = partial(function, **options)
    if jobs <= 1 or len(sources) <= 1 or "-" in sources:
        yield from map(work, sources)
        return
    size = max(1, min(64, len(sources) // (jobs * 8)))
    chunks = (sources[start : start + size] for start in range(0, len(sources), size))
    with ProcessPoolExecutor(max_workers=min(jobs, len(sources))) as pool:
        # A bounded window of chunks in flight: finished rows wait for the reader in
        # numbers that do not grow with the archive.
        ahead = deque(pool.submit(_each, work, chunk) for chunk in islice(chunks, jobs * 3))
        while ahead:
            finished = ahead.popleft().result()
            ahead.extend(pool.submit(_each, work, chunk) for chunk in islice(chunks, 1))
            yield from finished


def _each(work: Callable[[str], Result], chunk: Sequence[str]) -> list[Result]:
    return [work(source) for source in chunk]
