"""``agui-transcripts run``: have a dataset of scenarios' conversations with an agent.

The command line face of :func:`~agui_transcripts.run_dataset`: what it records is what
``convert``, ``check`` and the dataset builders read.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["CommandError", "add_run_command", "load_object"]


class CommandError(Exception):
    """Arguments the command cannot use (exit status 2)."""


def load_object(reference: str, what: str) -> Any:
    """The object ``module:attribute`` names (the current folder is importable first)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise CommandError(f"{what} must be written module:attribute, not {reference!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise CommandError(f"{what}: cannot import {module_name!r}: {error}") from None
    found: Any = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise CommandError(f"{what}: {module_name!r} has no {attribute!r}")
        found = getattr(found, part)
    return found


def _endpoint(text: str) -> Any:
    if text.startswith(("http://", "https://")):
        return text
    return load_object(text, "--endpoint")


def _interrupts(text: str | None) -> Any:
    from .interrupts import approve_all, deny_all

    if text is None:
        return None
    return {"approve": approve_all, "deny": deny_all}.get(text) or load_object(text, "--interrupts")


def _headers(given: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for item in given:
        name, colon, value = item.partition(":")
        if not colon or not name.strip():
            raise CommandError(f"--header must be written 'Name: value', not {item!r}")
        headers[name.strip()] = value.strip()
    return headers


def cmd_run(args: argparse.Namespace) -> int:
    """Run the scenarios; print the summary table; 0 only if every conversation passed."""
    from .scenario_runs import ScenarioError, run_dataset

    try:
        result = run_dataset(
            _endpoint(args.endpoint),
            args.scenarios,
            output=args.output,
            tools=load_object(args.tools, "--tools") if args.tools else None,
            interrupts=_interrupts(args.interrupts),
            user=load_object(args.user, "--user") if args.user else None,
            jobs=args.jobs,
            epochs=args.epochs,
            resume=args.resume,
            retries=args.retries,
            progress=None if args.quiet else sys.stderr,
            max_runs=args.max_runs,
            max_tool_rounds=args.max_tool_rounds,
            deadline=args.deadline,
            headers=_headers(args.header),
            timeout=args.timeout,
            limits=args.limits,
        )
    except (ScenarioError, FileExistsError) as error:
        raise CommandError(str(error)) from None
    print(result.table())
    conversations = len(result.records)
    print(
        f"{conversations} conversation(s), {conversations - len(result.failed)} passed, "
        f"{result.seconds:.1f} s at -j {result.jobs}; recorded in {args.output}",
        file=sys.stderr,
    )
    return 1 if result.failed else 0


def add_run_command(commands: Any, add_limits: Callable[[argparse.ArgumentParser], None]) -> None:
    """The ``run`` subcommand, on the CLI's subparsers (its limits added last)."""
    run = commands.add_parser(
        "run",
        help="have scenarios' conversations with an agent, and record them",
        description="Drive an AG-UI agent through each scenario of a JSONL file (one "
        'object per line: {"name": ..., "turns": [...], "expect": {...}}) and record '
        "every conversation in -o: NAME.sse (or .jsonl) with NAME.input.json, as convert "
        "and check read them, and NAME.result.json.",
        epilog="Transport failures (refused or dropped connections, HTTP 429/5xx) restart "
        "the conversation after a backoff; an agent's RUN_ERROR is its answer, never "
        "retried. --resume keeps the conversations -o already holds and has the rest. "
        "Exit status: 0 every conversation passed, 1 some did not (or could not be had), "
        "2 nothing could be done (bad arguments, unreadable scenarios, -o already holding "
        "results without --resume).",
    )
    run.add_argument("scenarios", help="the scenarios, a JSONL file")
    run.add_argument(
        "--endpoint",
        required=True,
        help="the agent: an http(s) URL, or module:app for an ASGI app run in-process",
    )
    run.add_argument(
        "--tools", metavar="MODULE:REGISTRY", help="the client tools (a ClientTools, a dict)"
    )
    run.add_argument(
        "--interrupts",
        metavar="POLICY",
        help="approve, deny, or module:callable (default: interrupts stop the conversation)",
    )
    run.add_argument(
        "--user", metavar="MODULE:FACTORY", help="factory(scenario) -> user simulator callable"
    )
    run.add_argument("-o", "--output", required=True, help="the folder to record into")
    run.add_argument("-j", "--jobs", type=_positive, default=4, help="conversations at a time")
    run.add_argument("--epochs", type=_positive, default=1, help="trials of each scenario")
    run.add_argument("--resume", action="store_true", help="keep what -o holds; have the rest")
    run.add_argument("--retries", type=int, default=2, help="restarts on transport failures")
    run.add_argument("--max-runs", type=_positive, default=20, help="runs per conversation")
    run.add_argument("--max-tool-rounds", type=_positive, default=10, help="rounds of client calls")
    run.add_argument("--deadline", type=float, help="seconds per conversation")
    run.add_argument("--timeout", type=float, default=60.0, help="seconds per network step")
    run.add_argument(
        "--header", action="append", default=[], metavar="'NAME: VALUE'", help="HTTP header"
    )
    run.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    add_limits(run)
    run.set_defaults(run=cmd_run)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value
