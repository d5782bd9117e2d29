"""Datasets of scenarios: many conversations with an agent, recorded for scoring.

:func:`run_dataset` has each scenario's conversation ``epochs`` times, ``jobs`` at a
time. Each conversation is recorded in the folder the CLI, ``fold`` and the dataset
builders read: ``NAME.sse`` (or ``.jsonl``, as the agent streamed) with its run inputs in
``NAME.input.json`` and how it went in ``NAME.result.json`` (a sidecar the readers
skip). With several epochs the names are ``NAME.e1``, ``NAME.e2``, ...

A transport failure (a refused or dropped connection, HTTP 429/5xx) restarts the
conversation after a backoff, up to ``retries`` times; an agent's own ``RUN_ERROR`` is
its answer and is never retried. A scenario that still fails is recorded as failed and
the batch goes on. ``resume=True`` keeps every conversation already recorded with a
result and has only the others.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from ._blocking import blocking
from ._progress import LiveLine
from ._words import count
from .client_tools import ClientTools
from .conversation import write_atomically
from .harness import Scenario, User, arun_conversation
from .interrupts import InterruptPolicy
from .transport import EndpointError, TransportError

__all__ = [
    "DatasetRun",
    "ScenarioError",
    "ScenarioRecord",
    "arun_dataset",
    "read_scenarios",
    "run_dataset",
]

#: A conversation's end that is the harness's, not the agent's: retried on --resume.
FAILED_TO_RUN = ("transport_error", "endpoint_error", "harness_error")


class ScenarioError(ValueError):
    """A scenarios file that cannot be used (not JSONL, an invalid or repeated scenario)."""


@dataclass(slots=True)
class ScenarioRecord:
    """How one conversation of a dataset went: what ``NAME.result.json`` holds."""

    name: str
    epoch: int
    #: The conversation's stop (``done``, ``error``, ...), or why it could not be had
    #: (``transport_error``, ``endpoint_error``, ``harness_error``).
    status: str
    passed: bool
    failures: list[str] = field(default_factory=list)
    error: str | None = None
    runs: int = 0
    tool_rounds: int = 0
    seconds: float = 0.0
    attempts: int = 1
    #: The recorded log's file name (None when no run was answered).
    log: str | None = None


@dataclass(slots=True)
class DatasetRun:
    """Every conversation of a dataset run, and pass^k per scenario."""

    records: list[ScenarioRecord]
    epochs: int
    seconds: float
    jobs: int

    def pass_hat_k(self) -> dict[str, dict[int, float]]:
        """pass^k for each scenario and k = 1..epochs: the chance all k trials pass.

        As tau-bench estimates it from n trials with c passes: C(c, k) / C(n, k).
        """
        by_name: dict[str, list[bool]] = {}
        for record in self.records:
            by_name.setdefault(record.name, []).append(record.passed)
        table: dict[str, dict[int, float]] = {}
        for name, trials in by_name.items():
            n, c = len(trials), sum(trials)
            table[name] = {k: math.comb(c, k) / math.comb(n, k) for k in range(1, n + 1)}
        return table

    @property
    def failed(self) -> list[ScenarioRecord]:
        """The conversations that did not pass."""
        return [record for record in self.records if not record.passed]

    def table(self) -> str:
        """The summary: one row per scenario (trials, passes, pass^1, pass^k, last stop).

        pass^k is shown for k = the number of epochs, when there are several.
        """
        k = self.epochs
        header = ("scenario", "trials", "passed", "pass^1", f"pass^{k}", "last status")
        rows: list[tuple[str, ...]] = [header]
        scores = self.pass_hat_k()
        last: dict[str, ScenarioRecord] = {}
        for record in self.records:
            if record.name not in last or record.epoch >= last[record.name].epoch:
                last[record.name] = record
        for name, by_k in scores.items():
            trials = sum(1 for r in self.records if r.name == name)
            passes = sum(1 for r in self.records if r.name == name and r.passed)
            rows.append(
                (
                    name,
                    str(trials),
                    str(passes),
                    f"{by_k[1]:.2f}",
                    f"{by_k.get(k, 0.0):.2f}",
                    last[name].status,
                )
            )
        if scores:
            mean_1 = sum(s[1] for s in scores.values()) / len(scores)
            mean_k = sum(s.get(k, 0.0) for s in scores.values()) / len(scores)
            rows.append(("(mean)", "", "", f"{mean_1:.2f}", f"{mean_k:.2f}", ""))
        if k == 1:
            rows = [row[:4] + row[5:] for row in rows]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        return "\n".join(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows
        )


def read_scenarios(path: str | os.PathLike[str]) -> list[Scenario]:
    """The scenarios of a JSONL file, one object per line (blank lines skipped).

    Raises :class:`ScenarioError` naming the line of the first bad one, or a name used
    twice (names name the recordings).
    """
    scenarios: list[Scenario] = []
    seen: dict[str, int] = {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"{path}: cannot be read: {error}") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            scenario = Scenario.model_validate(json.loads(line))
        except ValueError as error:
            detail = (
                "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or 'line'}: {e['msg']}"
                    for e in error.errors(include_url=False)
                )
                if isinstance(error, ValidationError)
                else str(error)
            )
            raise ScenarioError(f"{path}, line {number}: {detail}") from None
        if scenario.name in seen:
            raise ScenarioError(
                f"{path}, line {number}: the name {scenario.name!r} is used on line "
                f"{seen[scenario.name]} too"
            )
        seen[scenario.name] = number
        scenarios.append(scenario)
    if not scenarios:
        raise ScenarioError(f"{path}: no scenario found")
    return scenarios


def _stem(scenario: Scenario, epoch: int, epochs: int) -> str:
    return scenario.name if epochs == 1 else f"{scenario.name}.e{epoch}"


def _recorded(output: Path, stem: str) -> ScenarioRecord | None:
    """The record of a conversation already had (None: to have, or to have again)."""
    try:
        data = json.loads((output / f"{stem}.result.json").read_text(encoding="utf-8"))
        record = ScenarioRecord(**data)
    except (OSError, ValueError, TypeError):
        return None
    return None if record.status in FAILED_TO_RUN else record


class _Progress:
    """One line: done/total, passed, failed, errors, elapsed.

    On a terminal it is rewritten in place, at most ten times a second and cut to the
    terminal's width (as the convert command's line is); elsewhere (a file, a pipe) each
    scenario gets a line of its own, a log to read back.
    """

    def __init__(self, total: int, stream: IO[str] | None) -> None:
        self.total, self.stream = total, stream
        self.done = self.passed = self.errors = 0
        self.started = time.monotonic()
        self._line = LiveLine(stream) if stream is not None and stream.isatty() else None

    def step(self, record: ScenarioRecord) -> None:
        self.done += 1
        self.passed += record.passed
        self.errors += record.status in FAILED_TO_RUN
        if self.stream is None:
            return
        failed = self.done - self.passed - self.errors
        line = (
            f"[{self.done}/{self.total}] {self.passed} passed, {failed} failed, "
            f"{count(self.errors, 'error')}, {time.monotonic() - self.started:.1f} s "
            f"({record.name}: {record.status})"
        )
        if self._line is not None:
            self._line.draw(lambda width: line[: max(width - 1, 20)], last=self.done == self.total)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._line is not None:
            self._line.stream.write("\n")


async def arun_dataset(
    endpoint: Any,
    scenarios: Iterable[Scenario | Mapping[str, Any]] | str | os.PathLike[str],
    *,
    output: str | os.PathLike[str],
    tools: ClientTools | Mapping[str, Callable[..., Any]] | Sequence[Any] | None = None,
    interrupts: InterruptPolicy | None = None,
    user: Callable[[Scenario], User] | None = None,
    jobs: int = 4,
    epochs: int = 1,
    resume: bool = False,
    retries: int = 2,
    backoff: float = 1.0,
    progress: IO[str] | None = sys.stderr,
    max_runs: int = 20,
    max_tool_rounds: int = 10,
    deadline: float | None = None,
    **options: Any,
) -> DatasetRun:
    """Have every scenario's conversation with the agent at ``endpoint``, and record it.

    ``scenarios`` is a JSONL file (see :class:`~agui_transcripts.Scenario`) or scenario
    objects or mappings. ``output`` is the folder the recordings go to. ``jobs``
    conversations run at a time; each scenario is had ``epochs`` times (pass^k per
    scenario in :meth:`DatasetRun.table`). ``user(scenario)``, if given, makes each
    conversation's user simulator (else the scenario's turns are said as scripted).
    ``tools``, ``interrupts``, the limits and ``options`` are
    :func:`~agui_transcripts.run_conversation`'s. ``progress`` gets one line per
    conversation (rewritten in place on a terminal; None: silent).
    """
    if jobs < 1 or epochs < 1 or retries < 0:
        raise ValueError("jobs and epochs must be at least 1, retries at least 0")
    given = (
        read_scenarios(scenarios)
        if isinstance(scenarios, (str, os.PathLike))
        else [Scenario.of(s) for s in scenarios]
    )
    folder = Path(output)
    folder.mkdir(parents=True, exist_ok=True)
    work = [(scenario, epoch) for scenario in given for epoch in range(1, epochs + 1)]
    if not resume and any(
        (folder / f"{_stem(s, e, epochs)}.result.json").exists() for s, e in work
    ):
        raise FileExistsError(
            f"{folder} already holds results of these scenarios: resume=True (--resume) "
            "keeps them and has the rest, or choose another folder"
        )
    gate = asyncio.Semaphore(jobs)
    meter = _Progress(len(work), progress)
    started = time.monotonic()

    async def have(scenario: Scenario, epoch: int) -> ScenarioRecord:
        stem = _stem(scenario, epoch, epochs)
        kept = _recorded(folder, stem) if resume else None
        if kept is not None:
            meter.step(kept)
            return kept
        async with gate:
            record = await _converse(
                endpoint,
                scenario,
                epoch,
                stem,
                folder,
                tools=tools,
                interrupts=interrupts,
                user=user,
                retries=retries,
                backoff=backoff,
                limits=(max_runs, max_tool_rounds, deadline),
                options=options,
            )
        payload = json.dumps(asdict(record), indent=1, ensure_ascii=False) + "\n"
        write_atomically(folder / f"{stem}.result.json", payload.encode("utf-8"))
        meter.step(record)
        return record

    try:
        records = await asyncio.gather(*(have(s, e) for s, e in work))
    finally:
        meter.close()
    return DatasetRun(list(records), epochs, time.monotonic() - started, jobs)


async def _converse(
    endpoint: Any,
    scenario: Scenario,
    epoch: int,
    stem: str,
    folder: Path,
    *,
    tools: Any,
    interrupts: InterruptPolicy | None,
    user: Callable[[Scenario], User] | None,
    retries: int,
    backoff: float,
    limits: tuple[int, int, float | None],
    options: dict[str, Any],
) -> ScenarioRecord:
    """One conversation, restarted on transport failures; its record, its log saved."""
    max_runs, max_tool_rounds, deadline = limits
    for attempt in range(1, retries + 2):
        status = "harness_error"
        try:
            result = await arun_conversation(
                endpoint,
                scenario,
                tools=tools,
                interrupts=interrupts,
                user=user(scenario) if user is not None else None,
                max_runs=max_runs,
                max_tool_rounds=max_tool_rounds,
                deadline=deadline,
                **options,
            )
        except TransportError as error:
            if attempt <= retries:
                await asyncio.sleep(backoff * 2 ** (attempt - 1))
                continue
            status, message = "transport_error", str(error)
        except EndpointError as error:
            status, message = "endpoint_error", str(error)
        except Exception as error:  # a tool registry, user or policy of the caller's failed
            message = f"{type(error).__name__}: {error}"
        else:
            log = (
                result.conversation.save(folder / stem).name if result.conversation.inputs else None
            )
            return ScenarioRecord(
                name=scenario.name,
                epoch=epoch,
                status=result.stop,
                passed=result.passed,
                failures=result.failures,
                error=result.error,
                runs=result.runs,
                tool_rounds=result.tool_rounds,
                seconds=round(result.seconds, 3),
                attempts=attempt,
                log=log,
            )
        return ScenarioRecord(
            name=scenario.name,
            epoch=epoch,
            status=status,
            passed=False,
            failures=[message],
            error=message,
            attempts=attempt,
        )
    raise AssertionError("unreachable")  # pragma: no cover


run_dataset = blocking(arun_dataset, "run_dataset")
