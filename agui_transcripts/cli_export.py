"""``agui-transcripts export``: send logs' transcripts to a trace backend over OTLP/HTTP.

Each log is folded and its runs and tool calls sent as OpenTelemetry spans
(:mod:`agui_transcripts.adapters.otel`) with the SDK's OTLP/HTTP exporter.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ._words import count
from .logs import LogError, fold_log

__all__ = ["add_export_command"]

Expand = Callable[[argparse.Namespace, list[str]], list[str]]


def _header(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"a header is written NAME=VALUE, not {text!r}")
    return name.strip(), value.strip()


def _export(args: argparse.Namespace, expand: Expand) -> int:
    try:
        from .adapters.otel import TARGET as OTEL
        from .adapters.otel import ExportError, export_otlp, to_otel_spans, traces_endpoint

        OTEL.require()
    except ImportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sources = expand(args, args.paths)
    endpoint = traces_endpoint(args.otlp)
    headers = dict(args.header)
    failed = spans_sent = logs_sent = 0
    for source in sources:
        try:
            transcript, _ = fold_log(source, strict=args.strict, limits=args.limits)
        except LogError as error:
            failed += 1
            print(f"error: {error}", file=sys.stderr)
            continue
        spans = to_otel_spans(
            transcript, content=args.content, agent_name=args.agent_name, limits=args.limits
        )
        try:
            export_otlp(spans, endpoint, headers=headers, timeout=args.timeout)
        except ExportError as error:
            print(f"error: {source}: {error}", file=sys.stderr)
            if logs_sent == 0:
                return 2  # the endpoint takes nothing: the rest would fail alike
            failed += 1
            continue
        logs_sent += 1
        spans_sent += len(spans)
    if not args.quiet:
        print(
            f"sent {count(spans_sent, 'span')} of {count(logs_sent, 'log')} to {endpoint}"
            + (f"; {failed} failed" if failed else ""),
            file=sys.stderr,
        )
    if logs_sent == 0:
        return 2
    return 1 if failed else 0


def add_export_command(
    commands: Any,
    add_limits: Callable[[argparse.ArgumentParser], None],
    add_folder_options: Callable[[argparse.ArgumentParser], None],
    expand: Expand,
    exit_codes: str,
) -> None:
    """The ``export`` subcommand, on the CLI's subparsers (its limits added last)."""
    export = commands.add_parser(
        "export",
        help="send logs to a trace backend as OpenTelemetry spans",
        description="Fold each log and send its runs and tool calls as OpenTelemetry spans "
        "(GenAI and OpenInference attributes) over OTLP/HTTP: Phoenix, Langfuse, MLflow, "
        "an OpenTelemetry collector. Needs the otel extra.",
        epilog="Message content (what runs were sent and said, tool arguments and results) "
        "is left out unless --content. " + exit_codes,
    )
    export.add_argument("paths", nargs="+", help="log files, directories, or - for stdin")
    export.add_argument(
        "--otlp",
        required=True,
        metavar="URL",
        help="the OTLP/HTTP endpoint, e.g. http://localhost:6006 (/v1/traces is added)",
    )
    export.add_argument(
        "--header",
        type=_header,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an HTTP header for the endpoint (authorization, a project); repeatable",
    )
    export.add_argument(
        "--content", action="store_true", help="write message content into the spans"
    )
    export.add_argument("--agent-name", help="the agent's name (gen_ai.agent.name)")
    export.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per request (default: %(default)s)"
    )
    export.add_argument(
        "--strict", action="store_true", help="fail where the reference client would"
    )
    add_folder_options(export)
    add_limits(export)
    export.set_defaults(run=lambda args: _export(args, expand))
