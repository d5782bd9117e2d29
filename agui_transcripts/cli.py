"""The ``agui-transcripts`` command: convert, check and show recorded AG-UI runs.

``convert`` turns logs (JSONL, SSE or JSON arrays; files, directories, ``-`` for stdin)
into transcripts for a framework; ``check`` lists each stream's diagnostics; ``show``
renders one transcript for a person. A ``LOG.input.json`` beside a log is read as its run
inputs. Errors are one line naming the file (and line); ``--debug`` adds tracebacks.

The terminal output is hand-written on purpose: one progress line and a few colours do not
justify a dependency in the core install.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from . import __version__
from ._codec import dumps_checked
from .collector import fold
from .diagnostics import DECODE_CODES, Diagnostic, ProtocolError
from .html import content_text
from .limits import DEFAULT_LIMITS, LIMIT_NAMES, UNLIMITED, Limits
from .model import ActivityMessage, AssistantMessage, ReasoningMessage, ToolMessage, Transcript
from .projection import Subagents
from .readers import read_events
from .recording import RunInputError, read_run_input, run_input_path

__all__ = ["main"]

LOG_SUFFIXES = (".jsonl", ".ndjson", ".sse", ".json", ".log", ".txt")
TARGETS = (
    "agui",
    "openai",
    "responses",
    "chat-turns",
    "inspect",
    "deepeval",
    "langchain",
    "ragas",
)


class CLIError(Exception):
    """A user-facing failure: printed as one line."""


class Unreadable(CLIError):
    """An input that cannot be read at all (missing, not a log, bad run inputs)."""


class Empty(CLIError):
    """A log without a single event: nothing to convert, and not a finished conversation."""


@dataclass
class Outcome:
    """What converting or checking one source gave."""

    source: str
    ok: bool
    events: int = 0
    messages: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    #: Runs the stream ended inside (no RUN_FINISHED or RUN_ERROR): not finished.
    truncated: int = 0
    #: The converted transcript as JSON text (serialised where it was made).
    text: str | None = None
    failure: str | None = None


# -- sources ------------------------------------------------------------------------------


def expand(paths: Sequence[str], notes: list[str] | None = None) -> list[str]:
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
        raise Unreadable(str(error)) from None


def _fold(source: str, *, strict: bool, limits: Limits | None = None) -> tuple[Transcript, int]:
    # stdin is read as it streams, in bounded blocks, like a file (never whole).
    data: Any = sys.stdin.buffer if source == "-" else Path(source)
    if source != "-" and not data.exists():
        raise Unreadable(f"{source}: no such file")
    if source != "-" and not data.is_file():
        # A device or a pipe named on the command line can stream forever (/dev/zero);
        # a log is a file (stdin, "-", is the way to pipe one in).
        raise Unreadable(f"{source}: not a regular file (pipe a stream in as '-')")
    stream = read_events(data, strict=strict, limits=limits)
    try:
        transcript = fold(stream, run_input=_run_input(source), strict=strict)  # as fold(path)
    except ProtocolError as error:
        raise CLIError(f"{source}: {error}") from error
    except OSError as error:
        raise Unreadable(f"{source}: {error.strerror or error}") from error
    items = stream.reader.intake.count
    if any(d.code == "empty-stream" for d in transcript.diagnostics):
        raise Empty(f"{source}: empty log (no events in it), not a conversation")
    undecodable = [d for d in transcript.diagnostics if d.code in DECODE_CODES]
    if items and len(undecodable) == items:
        first = undecodable[0]
        where = f" (line {first.line})" if first.line is not None else ""
        raise Unreadable(f"{source}: no AG-UI event could be read{where}: {first.message}")
    return transcript, items


# -- convert ------------------------------------------------------------------------------


def render(
    transcript: Transcript, target: str, *, ordered: bool, subagents: Subagents = "inline"
) -> list[Any]:
    """The transcript's messages as plain JSON values for ``target``.

    ``subagents`` other than ``inline`` orders an ``agui`` rendering too (it is a choice
    the projection makes).
    """
    if target == "agui":
        from .adapters.agui import to_dicts

        return to_dicts(transcript, ordered=ordered or subagents != "inline", subagents=subagents)
    if target == "openai":
        from .adapters.openai import to_openai

        return list(to_openai(transcript, subagents=subagents))
    if target == "responses":
        from .adapters.responses import to_responses

        return to_responses(transcript, subagents=subagents)
    if target == "chat-turns":
        from .adapters.chat_turns import to_chat_turns

        return list(to_chat_turns(transcript, subagents=subagents))
    if target == "inspect":
        from .adapters.inspect import to_inspect

        return [
            message.model_dump(mode="json", exclude_none=True)
            for message in to_inspect(transcript, subagents=subagents)
        ]
    if target == "deepeval":
        from .adapters.deepeval import to_deepeval

        case = to_deepeval(transcript, subagents=subagents)
        return [case.model_dump(mode="json", exclude_none=True)]
    if target == "langchain":
        from langchain_core.messages import messages_to_dict

        from .adapters.langchain import to_langchain

        return list(messages_to_dict(to_langchain(transcript, subagents=subagents)))
    from .adapters.ragas import to_ragas

    ragas_messages = to_ragas(transcript, metadata=True, subagents=subagents)
    return [m.model_dump(mode="json") for m in ragas_messages]


def convert_one(
    source: str,
    target: str,
    ordered: bool,
    strict: bool,
    limits: Limits | None = None,
    subagents: Subagents = "inline",
    pretty: bool = False,
) -> Outcome:
    """Convert one source (also the unit of work of the parallel mode).

    The JSON text is made here: a transcript holding a value that has no JSON text
    (nested deeper than the encoders go) fails its file, never becomes a placeholder.
    """
    try:
        transcript, events = _fold(source, strict=strict, limits=limits)
        output = {
            "source": source,
            "target": target,
            "messages": render(transcript, target, ordered=ordered, subagents=subagents),
            "runs": [run.to_dict() for run in transcript.runs],
            "continuation": transcript.continuation().status,
            "diagnostics": [_diagnostic_dict(d) for d in transcript.diagnostics],
        }
        text = dumps_checked(output, indent=2 if pretty else None)
    except CLIError as error:
        return Outcome(source, ok=False, failure=str(error))
    except ImportError as error:
        return Outcome(source, ok=False, failure=f"{source}: {error}")
    except (ValueError, RecursionError) as error:
        reason = str(error) if isinstance(error, ValueError) else "nested too deep"
        return Outcome(source, ok=False, failure=f"{source}: cannot be written as JSON: {reason}")
    codes = Counter(d.code for d in transcript.diagnostics)
    return Outcome(
        source,
        ok=True,
        events=events,
        messages=len(output["messages"]),
        codes=codes,
        errors=len(transcript.errors),
        truncated=sum(run.outcome == "truncated" for run in transcript.runs),
        text=text,
    )


def _diagnostic_dict(diagnostic: Diagnostic) -> dict[str, Any]:
    out = {"code": diagnostic.code, "severity": diagnostic.severity, "message": diagnostic.message}
    for key in ("event_index", "line", "message_id", "tool_call_id", "subagent_run_id"):
        value = getattr(diagnostic, key)
        if value is not None:
            out[key] = value
    return out


class Progress:
    """One self-rewriting line on a terminal; silent otherwise."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total = total
        self.stream = stream
        self.live = total > 1 and stream.isatty()
        self.done = 0

    def step(self, source: str) -> None:
        self.done += 1
        if self.live:
            width = 30
            filled = width * self.done // self.total
            name = source if len(source) < 40 else "…" + source[-39:]
            bar = "█" * filled + "·" * (width - filled)
            self.stream.write(f"\r{bar} {self.done}/{self.total} {name:<40}")
            self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()


def _outcomes(sources: list[str], args: argparse.Namespace) -> Iterator[Outcome]:
    pretty = args.format == "json"
    jobs = (
        args.jobs if args.jobs and args.jobs > 1 and len(sources) > 1 and "-" not in sources else 1
    )
    if jobs == 1:
        for source in sources:
            yield convert_one(
                source, args.to, args.ordered, args.strict, args.limits, args.subagents, pretty
            )
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(
            convert_one,
            sources,
            [args.to] * len(sources),
            [args.ordered] * len(sources),
            [args.strict] * len(sources),
            [args.limits] * len(sources),
            [args.subagents] * len(sources),
            [pretty] * len(sources),
            chunksize=max(1, len(sources) // (jobs * 4)),
        )


#: What each framework target imports, so a missing extra is said once, before any file.
def _require_extra(target: str) -> None:
    try:
        if target == "ragas":
            from .adapters.ragas import import_ragas_messages

            import_ragas_messages()
        elif target == "langchain":
            from .adapters.langchain import _import

            _import()
        elif target == "inspect":
            from .adapters.inspect import _inspect

            _inspect()
        elif target == "deepeval":
            from .adapters.deepeval import _deepeval

            _deepeval()
    except ImportError as error:
        raise CLIError(f"--to {target}: {error}") from None


def _inputs_of(sources: Sequence[str]) -> list[Path]:
    """Every file a conversion reads: the logs and their run-input sidecars."""
    files: list[Path] = []
    for source in sources:
        if source != "-":
            path = Path(source)
            files += [path, run_input_path(path)]
    return files


def _refuse_overwriting_an_input(output: str, sources: Sequence[str]) -> None:
    target = Path(output)
    if not target.exists():
        return
    for source in _inputs_of(sources):
        try:
            same = source.exists() and os.path.samefile(source, target)
        except OSError:
            same = False
        if same:
            raise CLIError(f"refusing to write over an input: {output} is {source}")


@contextmanager
def _atomic_output(path: str) -> Iterator[IO[str]]:
    """A file written beside ``path`` and renamed over it only when all went well.

    A run that fails midway leaves ``path`` as it was (or absent), never half written.
    """
    target = Path(os.path.realpath(path))  # through a link, as open() would write
    try:
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - renamed, not deleted, on success
            "w",
            encoding="utf-8",
            dir=target.parent,
            prefix=f".{target.name}.",
            suffix=".partial",
            delete=False,
        )
    except OSError as error:
        raise CLIError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with handle:
            yield handle
        os.chmod(handle.name, _mode_for(target))
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    """The file's own permissions when it exists, else what the umask gives a new file."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _expanded(paths: Sequence[str]) -> list[str]:
    notes: list[str] = []
    sources = expand(paths, notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return sources


def cmd_convert(args: argparse.Namespace) -> int:
    _require_extra(args.to)
    sources = _expanded(args.paths)
    if not sources:
        raise CLIError("no log files found in " + ", ".join(args.paths))
    if args.output:
        _refuse_overwriting_an_input(args.output, sources)
        with _atomic_output(args.output) as out:
            return _convert(sources, args, out)
    return _convert(sources, args, sys.stdout)


def _convert(sources: list[str], args: argparse.Namespace, out: IO[str]) -> int:
    progress = Progress(len(sources), sys.stderr)
    totals: Counter[str] = Counter()
    events = messages = failures = truncated = written = 0
    as_array = args.format == "json"
    try:
        for outcome in _outcomes(sources, args):
            progress.step(outcome.source)
            if not outcome.ok:
                failures += 1
                progress.close()
                print(f"error: {outcome.failure}", file=sys.stderr)
                continue
            events += outcome.events
            messages += outcome.messages
            totals.update(outcome.codes)
            if outcome.truncated:
                truncated += 1
                progress.close()
                print(
                    f"warning: {outcome.source}: truncated (the stream ended inside a run, "
                    "which has no outcome): converted, but not a finished conversation",
                    file=sys.stderr,
                )
            if as_array:
                out.write(("[\n" if not written else ",\n") + str(outcome.text))
            else:
                out.write(f"{outcome.text}\n")
            written += 1
    finally:
        progress.close()
    if as_array:
        out.write("\n]\n" if written else "[]\n")
    if len(sources) > 1 or args.summary:
        by_code = ", ".join(f"{code} {count}" for code, count in totals.most_common()) or "none"
        print(
            f"{len(sources)} files, {events} events, {messages} messages, "
            f"{failures} failed, {truncated} truncated; diagnostics: {by_code}",
            file=sys.stderr,
        )
    return 1 if failures else 0


# -- check --------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    sources = _expanded(args.paths)
    worst = 0
    report: list[dict[str, Any]] = []
    for source in sources:
        try:
            transcript, _ = _fold(source, strict=args.strict, limits=args.limits)
        except CLIError as error:
            status = (
                "UNREADABLE"
                if isinstance(error, Unreadable)
                else "EMPTY"
                if isinstance(error, Empty)
                else "FAIL"
            )
            worst = max(worst, 2 if status == "UNREADABLE" else 1)
            report.append({"source": source, "status": status.lower(), "failure": str(error)})
            if args.format == "text":
                print(f"{status} {error}")
            continue
        diagnostics = transcript.diagnostics
        errors = [d for d in diagnostics if d.severity == "error"]
        truncated = any(run.outcome == "truncated" for run in transcript.runs)
        status = "FAIL" if errors else "TRUNCATED" if truncated else "ok"
        worst = max(worst, 0 if status == "ok" else 1)
        report.append(
            {
                "source": source,
                "status": status.lower(),
                "diagnostics": [_diagnostic_dict(d) for d in diagnostics],
            }
        )
        if args.format == "text":
            print(
                f"{status} {source}: {len(errors)} errors, {len(diagnostics) - len(errors)} other"
            )
            for diagnostic in diagnostics:
                print(f"  {diagnostic}")
    if args.format == "json":
        print(json.dumps(report, indent=2, ensure_ascii=False))
    return worst


# -- show ---------------------------------------------------------------------------------


class Style:
    """ANSI styles, or nothing when the output is not a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


ROLE_COLOURS = {
    "user": "1;34",
    "assistant": "1;32",
    "tool": "1;33",
    "system": "1;35",
    "developer": "1;35",
}


def show_text(transcript: Transcript, style: Style) -> str:
    """A transcript for a person: roles, calls with their results under them, diagnostics."""
    lines: list[str] = []
    results = {m.tool_call_id: m for m in transcript.messages if isinstance(m, ToolMessage)}
    for message in transcript.ordered():
        if isinstance(message, ToolMessage):
            continue  # shown under its call
        if isinstance(message, ReasoningMessage):
            lines.append(style(f"  (reasoning) {message.text}", "2"))
            continue
        label = style(f"{message.role:>9}", ROLE_COLOURS.get(message.role, "1"))
        body = (
            content_text(message.content) if isinstance(message, ActivityMessage) else message.text
        )
        lines.append(f"{label}  {body}" if body else label)
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or ():
                lines.append(f"{'':>9}  → {style(call.name, '1')}({call.arguments})  [{call.id}]")
                result = results.get(call.id)
                if result is not None:
                    flag = style(" error", "1;31") if result.error else ""
                    lines.append(f"{'':>9}    ← {result.text}{flag}")
                else:
                    record = transcript.tool_calls.get(call.id)
                    state = record.state if record is not None else "unanswered"
                    lines.append(style(f"{'':>9}    ← ({state})", "2"))
    lines.append("")
    for run in transcript.runs:
        lines.append(
            f"run {run.run_id or '(unannounced)'}: {run.outcome}"
            + (f" — {run.error_message}" if run.error_message else "")
        )
    for diagnostic in transcript.diagnostics:
        colour = {"error": "1;31", "warning": "33", "info": "2"}[diagnostic.severity]
        lines.append(style(f"! {diagnostic}", colour))
    continuation = transcript.continuation()
    lines.append(style(f"next: {continuation.status}", "1"))
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    transcript, _ = _fold(args.path, strict=False, limits=args.limits)
    if args.html:
        from .html import render_html

        Path(args.html).write_text(render_html(transcript), encoding="utf-8")
        return 0
    colour = args.color == "always" or (
        args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    )
    print(show_text(transcript, Style(colour)))
    return 0


# -- entry point --------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agui-transcripts", description="Recorded AG-UI runs as transcripts."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    bounds = argparse.ArgumentParser(add_help=False)
    group = bounds.add_argument_group("limits (see agui_transcripts.Limits)")
    for name in LIMIT_NAMES:
        default = getattr(DEFAULT_LIMITS, name)
        group.add_argument(
            "--" + name.replace("_", "-"), type=_positive, metavar="N", help=f"default {default}"
        )
    group.add_argument("--no-limits", action="store_true", help="lift every bound")

    convert = commands.add_parser(
        "convert",
        help="logs to transcripts for a framework",
        parents=[bounds],
        description="Convert logs (files, folders, or - for stdin) to transcripts.",
        epilog="In a folder, NAME.input.json is the run inputs of the log NAME.*, other "
        "NAME.WORD.json files are its sidecars, a .json file without events is skipped, and "
        "a run recorded in several formats is read once (.jsonl, .ndjson, .sse, .json, "
        ".log, .txt, in that order). Output: one JSON object per log, one per line (jsonl, "
        "the default) or all in one JSON array (--format json). A log without events fails; "
        "a log that ends inside a run is converted and flagged 'truncated'. Exit status: 0 "
        "every file converted, 1 some file failed (or was empty), 2 nothing could be done "
        "(bad arguments, a missing extra, no log found).",
    )
    convert.add_argument("paths", nargs="+", help="log files, directories, or - for stdin")
    convert.add_argument(
        "--to",
        choices=TARGETS,
        default="agui",
        metavar="TARGET",
        help="the framework to write for: %(choices)s (default: %(default)s)",
    )
    convert.add_argument(
        "--format",
        choices=("jsonl", "json"),
        default="jsonl",
        help="jsonl: one object per log per line; json: one indented JSON array "
        "(default: %(default)s)",
    )
    convert.add_argument(
        "--ordered", action="store_true", help="agui: every call before its result"
    )
    convert.add_argument(
        "--subagents",
        choices=("inline", "exclude", "apart"),
        default="inline",
        help="subagent turns: where they arrived, left out, or after the top-level ones",
    )
    convert.add_argument(
        "--strict", action="store_true", help="fail where the reference client would"
    )
    convert.add_argument("-o", "--output", help="write here instead of stdout")
    convert.add_argument(
        "-j", "--jobs", type=int, default=1, help="worker processes for many files"
    )
    convert.add_argument(
        "--summary", action="store_true", help="print the summary for one file too"
    )
    convert.set_defaults(run=cmd_convert)

    check = commands.add_parser(
        "check",
        help="the diagnostics of each stream",
        parents=[bounds],
        epilog="Folders are read as for convert. Each file gets one verdict: ok, TRUNCATED "
        "(ended inside a run), EMPTY (no events), FAIL (an error-level diagnostic, or a strict "
        "failure) or UNREADABLE. Exit status: 0 every file ok, 1 some file truncated, empty "
        "or failed, 2 some file unreadable.",
    )
    check.add_argument("paths", nargs="+")
    check.add_argument("--strict", action="store_true")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(run=cmd_check)

    show = commands.add_parser("show", help="one transcript, for a person", parents=[bounds])
    show.add_argument("path")
    show.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    show.add_argument("--html", help="write an HTML page instead")
    show.set_defaults(run=cmd_show)
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def _limits(args: argparse.Namespace) -> Limits:
    base = UNLIMITED if args.no_limits else DEFAULT_LIMITS
    given = {name: getattr(args, name) for name in LIMIT_NAMES if getattr(args, name) is not None}
    return replace(base, **given)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.limits = _limits(args)
    try:
        code: int = args.run(args)
    except CLIError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - interactive
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as other Unix tools do; point
        # stdout at nothing so the interpreter's last flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:  # an unexpected bug: one line unless asked for more
        if args.debug:
            traceback.print_exc()
        else:
            print(
                f"error: {type(error).__name__}: {error} (run with --debug for details)",
                file=sys.stderr,
            )
        return 2
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
