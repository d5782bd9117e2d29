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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from . import __version__
from ._codec import dumps_checked
from ._files import replacement_mode
from ._progress import Progress
from ._terminal import visible
from ._words import count
from .adapters.registry import DEFAULT_TARGET, names, render, target
from .cli_export import add_export_command
from .cli_run import CommandError, add_run_command
from .diagnostics import Diagnostic
from .html import content_text, shown_messages
from .limits import DEFAULT_LIMITS, LIMIT_NAMES, UNLIMITED, Limits
from .logs import (
    EmptyLog,
    LogError,
    SkippedFile,
    SkipReason,
    UnreadableLog,
    available_cores,
    find_logs,
    fold_log,
    is_uri,
    map_logs,
)
from .model import ActivityMessage, ReasoningMessage, ToolMessage
from .projection import Subagents
from .recording import run_input_path
from .transcript import Transcript
from .view import (
    MessageView,
    RunMark,
    SubagentMark,
    interrupt_labels,
    outcome_label,
    run_label,
    time_label,
    view_items,
)

__all__ = ["main"]


class CLIError(Exception):
    """A user-facing failure: printed as one line."""


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


# -- convert ------------------------------------------------------------------------------


def convert_one(
    source: str,
    target: str,
    ordered: bool,
    strict: bool,
    limits: Limits | None = None,
    subagents: Subagents = "inline",
    pretty: bool = False,
    otlp: bool = False,
    content: bool = False,
) -> Outcome:
    """Convert one source (also the unit of work of the parallel mode).

    The JSON text is made here: a transcript holding a value that has no JSON text
    (nested deeper than the encoders go) fails its file, never becomes a placeholder.
    ``otlp``: the text is the log's spans as one OTLP/JSON request (``content``: with
    message content).
    """
    try:
        transcript, events = fold_log(source, strict=strict, limits=limits)
        if otlp:
            from .adapters.otel import otlp_json, to_otel_spans

            spans = to_otel_spans(transcript, content=content, limits=limits)
            output: dict[str, Any] = {"messages": spans}
            document: Any = otlp_json(spans)
        else:
            output = {
                "source": source,
                "target": target,
                "messages": render(transcript, target, ordered=ordered, subagents=subagents),
                "runs": [run.to_dict() for run in transcript.runs],
                "continuation": transcript.continuation().status,
                "diagnostics": [_diagnostic_dict(d) for d in transcript.diagnostics],
            }
            document = output
    except LogError as error:
        return Outcome(source, ok=False, failure=str(error))
    except ImportError as error:
        return Outcome(source, ok=False, failure=f"{source}: {error}")
    except (ValueError, RecursionError) as error:
        return Outcome(source, ok=False, failure=f"{source}: cannot be converted: {error!r}")
    try:
        text = dumps_checked(document, indent=2 if pretty and not otlp else None)
    except ValueError as error:
        return Outcome(source, ok=False, failure=f"{source}: cannot be written as JSON: {error}")
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


def _outcomes(sources: list[str], args: argparse.Namespace) -> Iterator[Outcome]:
    yield from map_logs(
        convert_one,
        sources,
        jobs=args.jobs,
        crashed=lambda source, reason: Outcome(source, ok=False, failure=reason),
        target=args.to,
        ordered=args.ordered,
        strict=args.strict,
        limits=args.limits,
        subagents=args.subagents,
        pretty=args.format == "json",
        otlp=args.format == "otlp-json",
        content=args.content,
    )


def _require_extra(name: str) -> None:
    """A missing framework is said once, before any file."""
    try:
        target(name).require()
    except ImportError as error:
        raise CLIError(f"--to {name}: {error}") from None


def _local(name: str) -> Path | None:
    """The local file ``name`` names, a ``file://`` URI's included; None for other URIs."""
    if is_uri(name):
        parsed = urlparse(name)
        return Path(url2pathname(parsed.path)) if parsed.scheme == "file" else None
    return Path(name)


def _inputs_of(sources: Sequence[str]) -> list[Path]:
    """Every local file a conversion reads: the logs and their run-input sidecars."""
    files: list[Path] = []
    for source in sources:
        path = _local(source) if source != "-" else None
        if path is not None:
            files += [path, run_input_path(path)]
    return files


def _refuse_overwriting_an_input(output: str, sources: Sequence[str]) -> None:
    """An output that is one of the inputs (however named) is refused before any write."""
    if output in sources:
        raise CLIError(f"refusing to write over an input: {output}")
    target = _local(output)
    if target is None or not target.exists():
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
        os.chmod(handle.name, replacement_mode(target))
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def _expanded(args: argparse.Namespace, paths: Sequence[str]) -> list[str]:
    """The logs ``paths`` name, saying what folders held besides; none is an error.

    A path that does not exist stops the command before anything is read (exit 2), as
    finding no log at all does.
    """
    _require_paths(paths)
    skipped: list[SkippedFile] = []
    sources = find_logs(paths, skipped, exclude=getattr(args, "exclude", ()))
    if getattr(args, "verbose", False):
        for note in skipped:
            print(f"note: {note}", file=sys.stderr)
    elif skipped and not getattr(args, "quiet", False):
        print(f"note: {skipped_summary(skipped)}; -v lists them", file=sys.stderr)
    if not sources:
        raise CLIError("no log files found in " + ", ".join(paths))
    return sources


def _require_paths(paths: Sequence[str]) -> None:
    for raw in paths:
        if raw != "-" and not is_uri(raw) and not os.path.lexists(raw):
            raise CLIError(f"{raw}: no such file or directory")


def skipped_summary(skipped: Sequence[SkippedFile]) -> str:
    """``skipped 40 duplicate formats, 1 non-log, 2 excluded``."""
    by_reason = Counter(note.reason for note in skipped)
    words: dict[SkipReason, tuple[str, str]] = {
        "duplicate": ("duplicate format", "duplicate formats"),
        "not-a-log": ("non-log", "non-logs"),
        "excluded": ("excluded", "excluded"),
    }
    parts = [count(by_reason[reason], *words[reason]) for reason in words if by_reason[reason]]
    return "skipped " + ", ".join(parts)


def _check_output(output: str | None) -> None:
    """An output whose folder does not exist fails before any log is read."""
    if output is None or is_uri(output):
        return
    parent = Path(output).parent  # of a folder for part files (DIR/) too: DIR is made
    if not parent.is_dir():
        raise CLIError(f"cannot write {output}: the folder {parent} does not exist")


def cmd_convert(args: argparse.Namespace) -> int:
    if args.format == "otlp-json":
        if args.to not in (DEFAULT_TARGET, "otel"):
            raise CLIError(f"--format otlp-json writes OpenTelemetry spans, not --to {args.to}")
        args.to = "otel"
        if args.resume:
            raise CLIError("--resume needs -o with --format jsonl or parquet")
    elif args.content:
        raise CLIError("--content is for OpenTelemetry spans: use it with --format otlp-json")
    parquet = args.format == "parquet"
    if args.per != "log" and not parquet:
        raise CLIError("--per run writes dataset rows: use it with --format parquet")
    if parquet:
        _require_parquet(args)
    elif args.resume and (not args.output or args.format != "jsonl"):
        raise CLIError("--resume needs -o with --format jsonl or parquet")
    _require_extra(args.to)
    _check_output(args.output)
    sources = _expanded(args, args.paths)
    if args.output:
        _refuse_overwriting_an_input(args.output, sources)
    if parquet:
        return _convert_to_parquet(sources, args)
    if args.resume:
        with _resumed_jsonl(args.output, sources) as (out, todo):
            return _convert(todo, args, out, total=len(sources))
    if args.output:
        with _atomic_output(args.output) as out:
            return _convert(sources, args, out)
    return _convert(sources, args, sys.stdout)


def _require_parquet(args: argparse.Namespace) -> None:
    """What --format parquet needs, said once, before any file is read."""
    from .rows import ROW_TARGETS

    if args.to not in ROW_TARGETS:
        raise CLIError(f"--format parquet writes {', '.join(ROW_TARGETS)}, not --to {args.to}")
    if not args.output:
        raise CLIError("--format parquet writes files: name one with -o (a folder for parts)")
    if args.resume and Path(args.output).is_file():
        raise CLIError(f"--resume writes parquet parts into a folder; {args.output} is a file")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise CLIError(
            "--format parquet needs pyarrow: pip install 'agui-transcripts[dataset]'"
        ) from None


@dataclass
class _Tally:
    """What a batch converted, for its summary line."""

    files: int
    events: int = 0
    messages: int = 0
    failures: int = 0
    truncated: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    #: Errors only: no warning, no summary.
    quiet: bool = False

    def add(
        self,
        progress: Progress,
        source: str,
        failure: str | None,
        *,
        events: int = 0,
        messages: int = 0,
        codes: Mapping[str, int] | None = None,
        truncated: bool = False,
    ) -> bool:
        """Count one log, saying what went wrong with it; whether it converted."""
        if failure is not None:
            self.failures += 1
            progress.close()
            print(f"error: {visible(failure)}", file=sys.stderr)
            return False
        self.events += events
        self.messages += messages
        self.codes.update(codes or {})
        if truncated:
            self.truncated += 1
            if self.quiet:
                return True
            progress.close()
            print(
                f"warning: {source}: truncated (the stream ended inside a run, which has no "
                "outcome): converted, but not a finished conversation",
                file=sys.stderr,
            )
        return True

    def finish(self, summary: bool) -> int:
        """Print the summary line (for a batch, or when asked) and give the exit code."""
        if (self.files > 1 or summary) and not self.quiet:
            print(self.summary(), file=sys.stderr)
        return 1 if self.failures else 0

    def summary(self) -> str:
        by_code = ", ".join(f"{code} {n}" for code, n in self.codes.most_common()) or "none"
        return (
            f"{count(self.files, 'file')}, {count(self.events, 'event')}, "
            f"{count(self.messages, 'message')}, {self.failures} failed, "
            f"{self.truncated} truncated; diagnostics: {by_code}"
        )


def _convert(
    sources: list[str], args: argparse.Namespace, out: IO[str], *, total: int | None = None
) -> int:
    progress = Progress(len(sources), sys.stderr, quiet=args.quiet)
    tally = _Tally(total if total is not None else len(sources), quiet=args.quiet)
    written = 0
    as_array = args.format == "json"
    try:
        for outcome in _outcomes(sources, args):
            progress.step(outcome.source)
            converted = tally.add(
                progress,
                outcome.source,
                None if outcome.ok else outcome.failure,
                events=outcome.events,
                messages=outcome.messages,
                codes=outcome.codes,
                truncated=bool(outcome.truncated),
            )
            if not converted:
                continue
            if as_array:
                out.write(("[\n" if not written else ",\n") + str(outcome.text))
            else:
                out.write(f"{outcome.text}\n")
                if args.resume:
                    out.flush()  # what is written stays written if the run is stopped
            written += 1
    finally:
        progress.close()
    if as_array:
        out.write("\n]\n" if written else "[]\n")
    return tally.finish(args.summary)


@contextmanager
def _resumed_jsonl(output: str, sources: list[str]) -> Iterator[tuple[IO[str], list[str]]]:
    """The output opened for appending, and the sources it does not hold yet.

    A line counts as written when it is whole (ends with a newline and parses); a line a
    stopped run left half written is cut off and its log converted again.
    """
    done: set[str] = set()
    keep = 0
    try:
        with open(output, "rb") as existing:
            for line in existing:
                if not line.endswith(b"\n"):
                    break
                try:
                    done.add(str(json.loads(line)["source"]))
                except (ValueError, KeyError, TypeError):
                    break
                keep += len(line)
    except FileNotFoundError:
        pass
    todo = _not_yet_written(output, sources, done)
    if keep or done:
        with open(output, "r+b") as existing:
            existing.truncate(keep)
    with open(output, "a", encoding="utf-8") as out:
        yield out, todo


def _not_yet_written(output: str, sources: list[str], done: set[str]) -> list[str]:
    """The sources ``output`` lacks, saying how many it already holds."""
    todo = [source for source in sources if source not in done]
    if len(todo) < len(sources):
        print(
            f"note: resuming {output}: {len(sources) - len(todo)} of "
            f"{count(len(sources), 'log')} already written",
            file=sys.stderr,
        )
    return todo


def _convert_to_parquet(sources: list[str], args: argparse.Namespace) -> int:
    from .arrow import parquet_sources, write_parquet
    from .rows import failed_row, log_rows

    output = Path(args.output)
    parts = args.resume or args.output.endswith(("/", os.sep)) or output.is_dir()
    total = len(sources)
    if args.resume:
        done = parquet_sources(output)
        sources = _not_yet_written(args.output, sources, done)
    progress = Progress(len(sources), sys.stderr, quiet=args.quiet)
    tally = _Tally(total, quiet=args.quiet)

    def counted() -> Iterator[dict[str, Any]]:
        for rows in map_logs(
            log_rows,
            sources,
            jobs=args.jobs,
            crashed=lambda source, reason: [failed_row(source, reason, target=args.to)],
            per=args.per,
            target=args.to,
            subagents=args.subagents,
            strict=args.strict,
            limits=args.limits,
        ):
            last = rows[-1]  # a log's last row is the whole log: counted once
            progress.step(last["source"])
            tally.add(
                progress,
                last["source"],
                None if last["ok"] else last["error"],
                events=last["events"],
                messages=len(last["messages"]),
                codes={d["code"]: d["count"] for d in last["diagnostics"]},
                truncated=last["truncated"],
            )
            yield from rows

    try:
        write_parquet(counted(), output, rows_per_file=args.rows_per_file if parts else None)
    except OSError as error:
        raise CLIError(f"cannot write {args.output}: {error.strerror or error}") from None
    finally:
        progress.close()
    return tally.finish(args.summary)


# -- check --------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    sources = _expanded(args, args.paths)
    worst = 0
    report: list[dict[str, Any]] = []
    for source in sources:
        try:
            transcript, _ = fold_log(source, strict=args.strict, limits=args.limits)
        except LogError as error:
            status = (
                "UNREADABLE"
                if isinstance(error, UnreadableLog)
                else "EMPTY"
                if isinstance(error, EmptyLog)
                else "FAIL"
            )
            worst = 1
            report.append({"source": source, "status": status.lower(), "failure": str(error)})
            if args.format == "text":
                print(f"{status} {visible(str(error))}")
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
                f"{status} {visible(source, one_line=True)}: {count(len(errors), 'error')}, "
                f"{len(diagnostics) - len(errors)} other"
            )
            for diagnostic in diagnostics:
                print(f"  {visible(str(diagnostic))}")
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


def show_text(
    transcript: Transcript,
    style: Style,
    *,
    ordered: bool = False,
    subagents: Subagents = "inline",
) -> str:
    """A transcript for a person: run boundaries, subagent turns, calls with their results.

    By default the messages as the stream left them (the reference client's list);
    ``ordered`` shows the projection an evaluator scores instead, synthetic results
    for unanswered calls marked.
    """
    lines: list[str] = []
    messages = shown_messages(transcript, ordered=ordered, subagents=subagents)
    for item in view_items(transcript, messages):
        if isinstance(item, RunMark):
            lines.append(style(visible(_run_line(item)), "2;1" if item.kind == "end" else "2"))
        elif isinstance(item, SubagentMark):
            subagent = visible(str(item.subagent), one_line=True)
            mark = f"  ┌ subagent {subagent}" if item.kind == "start" else "  └"
            lines.append(style(mark, "36"))
        else:
            lines.extend(_message_lines(item, style))
    lines.append("")
    for diagnostic in transcript.diagnostics:
        colour = {"error": "1;31", "warning": "33", "info": "2"}[diagnostic.severity]
        lines.append(style(f"! {visible(str(diagnostic))}", colour))
    continuation = transcript.continuation()
    lines.append(style(f"next: {continuation.status}", "1"))
    return "\n".join(lines)


def _run_line(mark: RunMark) -> str:
    run = mark.run
    when = time_label(mark)
    if mark.kind == "start":
        at = f" {when}" if when else ""
        return f"── {run_label(run)}{' (continued)' if mark.again else ''}{at} ──"
    words = [f"── end of {run_label(run)}: {outcome_label(run)}"]
    if when:
        words.append(f" {when}")
    if run.error_message:
        words.append(f" — {run.error_message}")
    interrupts = interrupt_labels(run)
    if interrupts:
        words.append(f"; waiting on {count(len(interrupts), 'interrupt')}: {', '.join(interrupts)}")
    if mark.empty:
        words.append(" (no messages)")
    return "".join(words) + " ──"


def _message_lines(item: MessageView, style: Style) -> list[str]:
    message = item.message
    bar = "  │ " if item.subagent is not None else ""
    label = style(f"{message.role:>9}", ROLE_COLOURS.get(message.role, "1"))
    if isinstance(message, ReasoningMessage):
        return [style(f"{bar}  (reasoning) {visible(message.text)}", "2")]
    if isinstance(message, ToolMessage):  # a result whose call is not shown
        flag = style(" error", "1;31") if message.error else ""
        answered = visible(message.tool_call_id, one_line=True)
        return [f"{bar}{label}  ← {visible(message.text)}{flag}  [{answered}, no call shown]"]
    body = content_text(message.content) if isinstance(message, ActivityMessage) else message.text
    lines = [f"{bar}{label}  {visible(body)}" if body else f"{bar}{label}"]
    pad = f"{bar}{'':>9}"
    for call in item.calls:
        name = style(visible(call.call.name, one_line=True), "1")
        arguments = visible(call.call.arguments, one_line=True)
        lines.append(f"{pad}  → {name}({arguments})  [{visible(call.call.id, one_line=True)}]")
        if call.result is None:
            lines.append(style(f"{pad}    ← ({call.state})", "2"))
            continue
        flag = style(" error", "1;31") if call.result.error else ""
        note = style(" (synthetic: no result was streamed)", "2") if call.synthetic else ""
        lines.append(f"{pad}    ← {visible(call.result.text)}{flag}{note}")
    return lines


def cmd_show(args: argparse.Namespace) -> int:
    _require_paths([args.path])
    _check_output(args.html)
    if args.html:
        _refuse_overwriting_an_input(args.html, [args.path])
    try:
        transcript, _ = fold_log(args.path, strict=False, limits=args.limits)
    except LogError as error:
        print(f"error: {visible(str(error))}", file=sys.stderr)
        return 1
    if args.html:
        from .html import render_html

        page = render_html(transcript, ordered=args.ordered, subagents=args.subagents)
        with _atomic_output(args.html) as out:
            out.write(page)
        return 0
    colour = args.color == "always" or (
        args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    )
    print(show_text(transcript, Style(colour), ordered=args.ordered, subagents=args.subagents))
    return 0


# -- entry point --------------------------------------------------------------------------


#: One table of exit codes for every command (``run`` has its own 1: a scenario failed).
EXIT_CODES = (
    "Exit status: 0 every log done (converted, ok, shown); 1 some log failed: unreadable, "
    "empty, rejected, or for check truncated or with an error diagnostic; 2 nothing was "
    "done: bad arguments, a missing extra, a path that does not exist, no log found, an "
    "output that cannot be written."
)
FOLDER_RULES = (
    "In a folder, NAME.input.json is the run inputs of the log NAME.*, other NAME.WORD.json "
    "files are its sidecars, a .json file without events and a .log or .txt file that "
    "starts as neither JSON nor server-sent events are skipped, and a run recorded in "
    "several formats is read once (.jsonl, .ndjson, .sse, .json, .log, .txt, in that "
    "order); one line counts what was skipped (-v lists it)."
)


def add_limits(parser: argparse.ArgumentParser) -> None:
    """The input bounds, last and under their own heading: rarely what a reader wants."""
    group = parser.add_argument_group(
        "limits", "bounds on hostile input (see agui_transcripts.Limits)"
    )
    for name in LIMIT_NAMES:
        default = getattr(DEFAULT_LIMITS, name)
        group.add_argument(
            "--" + name.replace("_", "-"), type=_positive, metavar="N", help=f"default {default}"
        )
    group.add_argument("--no-limits", action="store_true", help="lift every bound")


def _add_folder_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="in folders, leave out files matching GLOB (their path under the folder, or "
        "their name: '*.lock', 'drafts/*'); repeatable",
    )
    loudness = parser.add_mutually_exclusive_group()
    loudness.add_argument(
        "-v", "--verbose", action="store_true", help="list every file skipped, and why"
    )
    loudness.add_argument(
        "-q", "--quiet", action="store_true", help="errors only: no notes, warnings or progress"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agui-transcripts",
        description="Recorded AG-UI runs as transcripts: convert, check and show logs, and "
        "run scenarios against an agent.",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    convert = commands.add_parser(
        "convert",
        help="logs to transcripts for a framework",
        description="Convert logs (files, folders, or - for stdin) to transcripts.",
        epilog=f"{FOLDER_RULES} Output: one JSON object per log, one per line (jsonl, "
        "the default), all in one JSON array (--format json), or one dataset row per log "
        "(--format parquet: -o FILE.parquet, or -o DIR/ for part files; the columns are in "
        "docs/dataset.md). --resume keeps what -o holds and converts only the logs it "
        "lacks. Folders use every core (-j 1 for one process). A log without events fails; "
        "a log that ends inside a run is converted and flagged 'truncated'. " + EXIT_CODES,
    )
    convert.add_argument("paths", nargs="+", help="log files, directories, or - for stdin")
    convert.add_argument(
        "--to",
        choices=names(),
        default=DEFAULT_TARGET,
        metavar="TARGET",
        help="the framework to write for: %(choices)s (default: %(default)s)",
    )
    convert.add_argument(
        "--format",
        choices=("jsonl", "json", "parquet", "otlp-json"),
        default="jsonl",
        help="jsonl: one object per log per line; json: one indented JSON array; "
        "parquet: one dataset row per log (needs -o and the dataset extra); otlp-json: "
        "each log's OpenTelemetry spans as one OTLP/JSON request per line (the otel "
        "extra) (default: %(default)s)",
    )
    convert.add_argument(
        "--content",
        action="store_true",
        help="otlp-json: write message content into the spans (left out by default)",
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
        "-j",
        "--jobs",
        type=_positive,
        default=None,
        help=f"worker processes for many files (default: every core, {available_cores()} here)",
    )
    convert.add_argument(
        "--resume",
        action="store_true",
        help="keep what -o already holds and convert only the logs it lacks",
    )
    convert.add_argument(
        "--per",
        choices=("log", "run"),
        default="log",
        help="parquet: one row per log, or one per run (the conversation as it stood when "
        "the run ended; a row between a log's first and last holds what its run changed, "
        "see docs/dataset.md) (default: %(default)s)",
    )
    convert.add_argument(
        "--rows-per-file",
        type=_positive,
        default=1000,
        metavar="N",
        help=(
            "parquet into a folder (-o DIR/): rows per part file, a log's rows never split "
            "(default: %(default)s)"
        ),
    )
    convert.add_argument(
        "--summary", action="store_true", help="print the summary for one file too"
    )
    _add_folder_options(convert)
    add_limits(convert)
    convert.set_defaults(run=cmd_convert)

    check = commands.add_parser(
        "check",
        help="the diagnostics of each stream",
        description="Fold each log and list its diagnostics: the protocol violations, "
        "repairs and limits it ran into, each with its rule and where it happened.",
        epilog=f"{FOLDER_RULES} Each log gets one verdict: ok, TRUNCATED (ended inside a "
        "run), EMPTY (no events), FAIL (an error-level diagnostic, or a strict failure) or "
        "UNREADABLE. " + EXIT_CODES,
    )
    check.add_argument("paths", nargs="+", help="log files, directories, or - for stdin")
    check.add_argument(
        "--strict", action="store_true", help="FAIL where the reference client would reject"
    )
    check.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: a verdict line per log and its diagnostics; json: one array of them "
        "(default: %(default)s)",
    )
    _add_folder_options(check)
    add_limits(check)
    check.set_defaults(run=cmd_check)

    show = commands.add_parser(
        "show",
        help="one transcript, for a person",
        description="Show one log's conversation: each call with its result under it, "
        "subagent turns marked, each run's boundary with its outcome and interrupts, the "
        "diagnostics, and what must happen next.",
        epilog=EXIT_CODES,
    )
    show.add_argument("path", help="a log file, or - for stdin")
    show.add_argument(
        "--ordered", action="store_true", help="every call before its result, as evaluators see it"
    )
    show.add_argument(
        "--subagents",
        choices=("inline", "exclude", "apart"),
        default="inline",
        help="subagent turns: where they arrived, left out, or after the top-level ones "
        "(default: %(default)s)",
    )
    show.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="auto: on a terminal, unless NO_COLOR is set (default: %(default)s)",
    )
    show.add_argument("--html", metavar="FILE", help="write a self-contained HTML page instead")
    add_limits(show)
    show.set_defaults(run=cmd_show)
    add_run_command(commands, add_limits)
    add_export_command(commands, add_limits, _add_folder_options, _expanded, EXIT_CODES)
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
    except (CLIError, LogError, CommandError) as error:
        print(f"error: {visible(str(error))}", file=sys.stderr)
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
