"""One recorded log, as every batch path folds it: the CLI, datasets and Ray alike.

A recorded run is a log (JSONL, SSE or a JSON array) plus the ``NAME.input.json``
beside it. :func:`find_logs` picks the logs out of folders by one documented rule;
:func:`fold_log` folds one into its transcript or raises a :class:`LogError` that names
the file, so a batch reports a bad log and goes on.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import partial
from itertools import islice
from pathlib import Path, PurePosixPath
from typing import Any, Literal, TypeVar

from ._codec import loads
from ._gc import gc_held
from .collector import fold, reading_collector
from .diagnostics import DECODE_CODES, ProtocolError
from .events import Event
from .limits import Limits
from .readers import EventStream, read_events
from .recording import RunInputError, load_run_input, read_run_input, run_input_path
from .transcript import Transcript

__all__ = [
    "LOG_SUFFIXES",
    "EmptyLog",
    "LogError",
    "LogPaths",
    "RejectedLog",
    "SkipReason",
    "SkippedFile",
    "UnreadableLog",
    "WorkerError",
    "as_path_list",
    "available_cores",
    "find_logs",
    "fold_log",
    "is_uri",
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


SkipReason = Literal["duplicate", "not-a-log", "excluded"]


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file in a folder that is not read as a log, and why."""

    path: str
    reason: SkipReason
    #: For a duplicate, the log read instead; for a non-log, what it holds.
    detail: str = ""

    def __str__(self) -> str:
        if self.reason == "duplicate":
            return f"{self.path}: skipped, the same run as {self.detail}"
        if self.reason == "excluded":
            return f"{self.path}: skipped, excluded by {self.detail}"
        return f"{self.path}: skipped, not a log ({self.detail})"


#: What the folder readers take: one path or several (``str`` or ``pathlib.Path``).
LogPaths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def as_path_list(paths: LogPaths) -> list[str]:
    """Paths as strings; one path given alone is a list of one (never its characters)."""
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(path) for path in paths]


def find_logs(
    paths: LogPaths,
    notes: list[SkippedFile] | None = None,
    *,
    exclude: Sequence[str] = (),
) -> list[str]:
    """Files named, and the logs inside directories named, in a stable order.

    A path is a local path, ``-`` (stdin), or a URI that ``pyarrow.fs`` reads
    (``s3://bucket/runs/``, ``gs://...``, ``file:///...``; the ``dataset`` extra). In a
    directory (files named are always read):

    - a file matching an ``exclude`` glob (against its path under the directory, or its
      name: ``*.lock``, ``drafts/*``) is skipped;
    - ``NAME.input.json`` and any other ``NAME.WORD.json`` beside a log ``NAME.*`` are
      that log's sidecars, never logs;
    - a ``.json`` file is a log only when it holds events (a JSON array, or an object
      with ``type``, ``stream`` or ``events``), and a ``.log`` or ``.txt`` file only when
      its first bytes are JSON or server-sent events; others (a manifest, a README, a
      lock file) are skipped;
    - a run recorded in several formats is read once, in this order of preference:
      ``.jsonl``, ``.ndjson``, ``.sse``, ``.json``, ``.log``, ``.txt``.

    What is skipped, and why, is appended to ``notes``.
    """
    found: list[str] = []
    kept = notes if notes is not None else []
    for raw in as_path_list(paths):
        if is_uri(raw):
            found += _Remote(raw).logs(kept, exclude)
        elif raw != "-" and Path(raw).is_dir():
            local = [str(p) for p in Path(raw).rglob("*") if p.is_file()]
            found += _choose(raw, local, _open_local, kept, exclude)
        else:
            found.append(raw)
    return found


def _excluded_by(folder: str, name: str, exclude: Sequence[str]) -> str | None:
    """The first ``exclude`` glob that ``name`` (a file under ``folder``) matches."""
    if not exclude:
        return None
    base = folder.replace(os.sep, "/").rstrip("/") + "/"
    whole = name.replace(os.sep, "/")
    relative = whole[len(base) :] if whole.startswith(base) else whole
    leaf = relative.rpartition("/")[2]
    return next(
        (glob for glob in exclude if fnmatchcase(relative, glob) or fnmatchcase(leaf, glob)),
        None,
    )


def is_uri(source: str) -> bool:
    """Whether ``source`` names a file system by scheme (``s3://``, ``file://``...)."""
    scheme, sep, _ = source.partition("://")
    return bool(sep) and scheme.isidentifier()


#: Opens a listed file for reading bytes (a local file, or a ``pyarrow.fs`` stream).
Opener = Callable[[str], AbstractContextManager[Any]]


def _choose(
    folder: str,
    files: list[str],
    open_binary: Opener,
    notes: list[SkippedFile],
    exclude: Sequence[str],
) -> list[str]:
    """The logs among ``files`` (full names under ``folder``: local paths, or URIs)."""

    def split(name: str) -> tuple[str, str, str]:
        parent, _, base = name.replace(os.sep, "/").rpartition("/")
        stem, dot, suffix = base.rpartition(".")
        return parent, stem, dot + suffix

    listed = sorted(files, key=_path_order)
    kept_files: list[str] = []
    for name in listed:
        glob = _excluded_by(folder, name, exclude)
        if glob is None:
            kept_files.append(name)
        else:
            notes.append(SkippedFile(name, "excluded", glob))
    parts = [(name, *split(name)) for name in kept_files]
    parts = [part for part in parts if part[3] in LOG_SUFFIXES and part[2]]
    stems = {(parent, stem) for _, parent, stem, _ in parts}
    chosen: dict[tuple[str, str], tuple[str, str]] = {}
    for name, parent, stem, suffix in parts:
        owner = stem.rpartition(".")[0]
        if suffix == ".json" and owner and (parent, owner) in stems:
            continue  # NAME.input.json, NAME.meta.json...: a sidecar of NAME's log
        if suffix == ".json" and not _holds_events(open_binary, name):
            notes.append(SkippedFile(name, "not-a-log", "no events in it"))
            continue
        if suffix in _SNIFFED and not _starts_like_a_log(open_binary, name):
            notes.append(SkippedFile(name, "not-a-log", "neither JSON nor server-sent events"))
            continue
        key = (parent, stem)
        other = chosen.get(key)
        if other is None or LOG_SUFFIXES.index(suffix) < LOG_SUFFIXES.index(other[1]):
            if other is not None:
                notes.append(SkippedFile(other[0], "duplicate", name))
            chosen[key] = (name, suffix)
        else:
            notes.append(SkippedFile(name, "duplicate", other[0]))
    return sorted((name for name, _ in chosen.values()), key=_path_order)


def _path_order(name: str) -> list[str]:
    """Sort as paths do, folder by folder (``a/b`` before ``a-b/c``)."""
    return name.replace(os.sep, "/").split("/")


def _open_local(name: str) -> AbstractContextManager[Any]:
    return open(name, "rb")


def _holds_events(open_binary: Opener, name: str) -> bool:
    """Whether a ``.json`` file reads as events: an array, or an event or event holder."""
    try:
        with open_binary(name) as file:
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
            value = loads(head)  # (the stdlib parser recurses per level; this one never)
        except ValueError:
            return True  # a broken log: reading it reports what is wrong
        return isinstance(value, dict) and bool({"type", "stream", "events"} & set(value))
    return any(key in head[:4096] for key in (b'"type"', b'"stream"', b'"events"'))


#: Suffixes that other files share (a README.txt, a build.log): read only when they
#: start as a log does.
_SNIFFED = (".log", ".txt")
#: What a log's first bytes are: JSON (an event, an array) or a server-sent event field.
_LOG_STARTS = (b"{", b"[", b"data:", b"data ", b"event:", b"id:", b"retry:", b":")


def _starts_like_a_log(open_binary: Opener, name: str) -> bool:
    """Whether a ``.log``/``.txt`` file starts as JSON or server-sent events."""
    try:
        with open_binary(name) as file:
            head: bytes = file.read(4096)
    except OSError:
        return True  # let reading it report the error
    return head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(_LOG_STARTS)


class _Remote:
    """A URI's file system (``pyarrow.fs``): listing, opening, and the run inputs."""

    def __init__(self, uri: str) -> None:
        try:
            from pyarrow import fs
        except ImportError:
            raise UnreadableLog(
                f"{uri}: reading URIs needs pyarrow: pip install 'agui-transcripts[dataset]'"
            ) from None
        self.fs_module = fs
        self.uri = uri
        self.scheme = uri[: uri.index("://") + 3]
        try:
            self.filesystem, self.path = fs.FileSystem.from_uri(uri)
        except (OSError, ValueError) as error:  # unknown scheme, bad bucket name...
            raise UnreadableLog(f"{uri}: {error}") from None

    def name(self, path: str) -> str:
        """The URI of a path on this file system (``file://`` + ``/tmp/x``)."""
        return self.scheme + path

    def kind(self) -> Any:
        return self.filesystem.get_file_info(self.path).type

    def logs(self, notes: list[SkippedFile], exclude: Sequence[str]) -> list[str]:
        if self.kind() != self.fs_module.FileType.Directory:
            return [self.uri]
        selector = self.fs_module.FileSelector(self.path, recursive=True)
        infos = self.filesystem.get_file_info(selector)
        files = [self.name(i.path) for i in infos if i.type == self.fs_module.FileType.File]
        return _choose(self.name(self.path), files, self._open, notes, exclude)

    def _open(self, name: str) -> Any:
        return self.filesystem.open_input_stream(self.path_of(name))

    def path_of(self, name: str) -> str:
        return name[len(self.scheme) :]

    def open(self) -> Any:
        kind = self.kind()
        if kind == self.fs_module.FileType.NotFound:
            raise UnreadableLog(f"{self.uri}: no such file")
        if kind != self.fs_module.FileType.File:
            raise UnreadableLog(f"{self.uri}: not a regular file")
        return self.filesystem.open_input_stream(self.path)

    def run_input(self, limits: Limits | None) -> Any:
        """The sidecar beside the log, bounded as :func:`read_run_input` bounds it."""
        sidecar = self.name(str(run_input_path(PurePosixPath(self.path))))
        try:
            with self.filesystem.open_input_stream(self.path_of(sidecar)) as file:
                return load_run_input(file, sidecar, limits)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise UnreadableLog(f"{sidecar}: the run inputs cannot be read: {error}") from None
        except RunInputError as error:
            raise UnreadableLog(str(error)) from None


def _run_input(source: str, limits: Limits | None) -> Any:
    if source == "-":
        return None
    # A bad sidecar fails its log (reported, counted), never the whole batch.
    try:
        return read_run_input(source, limits=limits)
    except RunInputError as error:
        raise UnreadableLog(str(error)) from None


#: Diagnostics of an item that is no AG-UI event: a log made only of them is not a log (a
#: manifest with a "type" key is not a conversation).
_NOT_EVENTS = DECODE_CODES | {"unknown-event-type"}

#: Called at each run's terminal event with the transcript so far (as a function of the
#: records to leave unsettled, see :meth:`Collector.passing_view`) and the events read; it
#: reads what it needs before it returns (see :func:`fold_log`).
RunEnd = Callable[[Callable[[int], Transcript], int], None]


def fold_log(
    source: str,
    *,
    strict: bool = False,
    limits: Limits | None = None,
    at_run_end: RunEnd | None = None,
    at_event: Callable[[Event], None] | None = None,
) -> tuple[Transcript, int]:
    """The transcript of one log with its run inputs, and its event count.

    ``source`` is a path, ``-`` (stdin) or a URI (see :func:`find_logs`). Raises
    :class:`EmptyLog`, :class:`UnreadableLog` or (strict) :class:`RejectedLog`.
    ``at_run_end(view, events)`` sees the conversation as it stands at the end of each
    run (RUN_FINISHED or RUN_ERROR): ``view(n)`` is what a client held then, with the
    diagnostics so far, its calls settled from the n-th on (0: all). It must read what it
    needs before it returns: that transcript's settled calls are its own, but its runs,
    messages and times are the fold's, which goes on changing them (copying them at
    every run's end would cost the square of the runs).
    ``at_event``, with ``at_run_end``, sees every event as it is folded.
    """
    if is_uri(source):
        remote = _Remote(source)
        with remote.open() as file:
            return _fold_opened(
                source, file, remote.run_input(limits), strict, limits, at_run_end, at_event
            )
    # stdin is read as it streams, in bounded blocks, like a file (never whole).
    data: Any = sys.stdin.buffer if source == "-" else Path(source)
    if source != "-" and not data.exists():
        raise UnreadableLog(f"{source}: no such file")
    if source != "-" and not data.is_file():
        # A device or a pipe named on the command line can stream forever (/dev/zero);
        # a log is a file (stdin, "-", is the way to pipe one in).
        raise UnreadableLog(f"{source}: not a regular file (pipe a stream in as '-')")
    return _fold_opened(
        source, data, _run_input(source, limits), strict, limits, at_run_end, at_event
    )


def _fold_opened(
    source: str,
    data: Any,
    run_input: Any,
    strict: bool,
    limits: Limits | None,
    at_run_end: RunEnd | None = None,
    at_event: Callable[[Event], None] | None = None,
) -> tuple[Transcript, int]:
    stream = read_events(data, strict=strict, limits=limits)
    try:
        if at_run_end is None:
            transcript = fold(stream, run_input=run_input, strict=strict)  # as fold(path)
        else:
            transcript = _fold_watching_runs(stream, run_input, strict, at_run_end, at_event)
    except ProtocolError as error:
        raise RejectedLog(f"{source}: {error}") from error
    except OSError as error:
        raise UnreadableLog(f"{source}: {error.strerror or error}") from error
    items = stream.reader.intake.count
    if any(d.code == "empty-stream" for d in transcript.diagnostics):
        raise EmptyLog(f"{source}: empty log (no events in it), not a conversation")
    undecodable = [d for d in transcript.diagnostics if d.code in _NOT_EVENTS]
    if items and len(undecodable) == items:
        first = undecodable[0]
        where = f" (line {first.line})" if first.line is not None else ""
        raise UnreadableLog(f"{source}: no AG-UI event could be read{where}: {first.message}")
    return transcript, items


def _fold_watching_runs(
    stream: EventStream,
    run_input: Any,
    strict: bool,
    at_run_end: RunEnd,
    at_event: Callable[[Event], None] | None,
) -> Transcript:
    """:func:`fold`'s loop, showing ``at_run_end`` the transcript at each run's end.

    Each run's end sees the collector's passing view (its calls settled on copies); the
    end of the log takes the collector's own, as :func:`fold` does, since nothing reads
    it after.
    """
    collector = reading_collector(
        stream.reader, run_input=run_input, client_tools=None, strict=strict
    )
    with gc_held(stream.is_local):
        try:
            for index, event in stream.indexed():
                collector.feed_canonical(event, index)
                if at_event is not None:
                    at_event(event)
                if event["type"] in ("RUN_FINISHED", "RUN_ERROR"):
                    at_run_end(collector.passing_view, stream.reader.intake.count)
            return collector.finish()
        finally:
            collector.release()
            stream.close()


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class WorkerError(RuntimeError):
    """Worker processes died: most often a script without a ``__main__`` guard.

    Workers start from a clean interpreter that imports the caller's script; a script
    that converts at its top level (or code piped on stdin) starts the conversion again
    there, which Python refuses, and the pool breaks.
    """


_WORKERS_DIED = (
    "the worker processes died before the conversion finished ({cause}). Code that "
    'passes jobs= must run under `if __name__ == "__main__":` in a script (not at its '
    "top level, nor piped on stdin), because each worker imports the script; or leave "
    "jobs out to fold in this process"
)


def map_logs(
    function: Callable[..., Result],
    sources: Sequence[str],
    *,
    jobs: int | None = 1,
    crashed: Callable[[str, str], Result] | None = None,
    **options: Any,
) -> Iterator[Result]:
    """``function(source, **options)`` for each source, in order, on ``jobs`` processes.

    One (the default) folds in this process; more, or ``None`` for every available
    core, start worker processes (one source, or stdin, still runs here), which hand
    the sources out in chunks, so a worker's memory is one log's at a time.
    ``function`` must be importable by the workers (module level), and the caller must
    be importable too: a script that starts workers needs a ``__main__`` guard, and
    without one the pool fails with :class:`WorkerError` saying so.

    ``crashed(source, reason)``: the result of a log whose worker died (killed for its
    memory, or the interpreter crashed). Given, a dead worker fails that log only: the
    logs that were in flight are read again one at a time to find it, and the rest go
    on; without it, the batch stops with :class:`WorkerError`.
    """
    jobs = available_cores() if jobs is None else jobs
    work = partial(function, **options)
    if jobs <= 1 or len(sources) <= 1 or "-" in sources:
        yield from map(work, sources)
        return
    size = max(1, min(64, len(sources) // (jobs * 8)))
    chunks = (sources[start : start + size] for start in range(0, len(sources), size))
    done = 0  # logs given back: a pool that dies before any is a setup that cannot work
    while True:
        # Each chunk taken and not yet given back, with its future once submitted (a
        # submission the dead pool refuses leaves the chunk here, to be read again).
        in_flight: deque[list[Any]] = deque()
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(sources)), mp_context=_context()
        ) as pool:
            # A bounded window of chunks in flight: finished rows wait for the reader in
            # numbers that do not grow with the archive.
            try:
                for chunk in islice(chunks, jobs * 3):
                    _submit(pool, in_flight, work, chunk)
                while in_flight:
                    future: Future[list[Result]] = in_flight[0][1]
                    finished = future.result()
                    in_flight.popleft()
                    done += len(finished)
                    yield from finished
                    for chunk in islice(chunks, 1):  # (after: the pool may be dead now)
                        _submit(pool, in_flight, work, chunk)
                return
            except BrokenProcessPool as error:
                if crashed is None:
                    raise WorkerError(_WORKERS_DIED.format(cause=error)) from None
        # The pool is gone with every chunk in flight: read their logs one at a time.
        again = [source for chunk, _ in in_flight for source in chunk]  # in order
        for source, result in _one_by_one(work, again, crashed, started=done > 0):
            if result is None:
                raise WorkerError(_WORKERS_DIED.format(cause=f"{source} could not start"))
            done += 1
            yield result


def _submit(
    pool: ProcessPoolExecutor,
    in_flight: deque[list[Any]],
    work: Callable[[str], Result],
    chunk: Sequence[str],
) -> None:
    """Hand ``chunk`` to the pool, noted in flight first (the pool may refuse it)."""
    taken: list[Any] = [chunk, None]
    in_flight.append(taken)
    taken[1] = pool.submit(_each, work, chunk)


def _one_by_one(
    work: Callable[[str], Result],
    sources: Sequence[str],
    crashed: Callable[[str, str], Result],
    *,
    started: bool,
) -> Iterator[tuple[str, Result | None]]:
    """Each source's result from one worker that takes them in turn, a new one after a crash.

    A worker that dies on its source gives ``crashed(source, reason)``; None when
    workers died on two sources in a row and none ever gave a result back (``started``:
    some did before): workers that cannot start.
    """
    position = 0
    returned = started
    deaths = 0
    while position < len(sources):
        with ProcessPoolExecutor(max_workers=1, mp_context=_context()) as pool:
            futures = [pool.submit(work, source) for source in sources[position:]]
            for future in futures:
                source = sources[position]
                try:
                    result = future.result()
                except BrokenProcessPool:
                    deaths += 1
                    if deaths >= 2 and not returned:
                        yield source, None
                        return
                    reason = (
                        f"{source}: the worker reading it died (out of memory, or the "
                        "interpreter crashed); the other logs went on"
                    )
                    yield source, crashed(source, reason)
                    position += 1
                    break
                returned = True
                position += 1
                yield source, result


def _context() -> multiprocessing.context.BaseContext:
    """Workers forked from a clean server process where the platform has one.

    Forking the caller itself is unsafe once it runs threads (pyarrow's, a notebook's),
    and Python 3.12 warns of it; a fork server is what Python 3.14 uses by default.
    """
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else None)


def _each(work: Callable[[str], Result], chunk: Sequence[str]) -> list[Result]:
    return [work(source) for source in chunk]
