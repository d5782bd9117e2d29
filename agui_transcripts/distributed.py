"""The archive-to-Parquet conversion on Ray Data, for archives that outgrow one machine.

A thin shell over the per-log function every batch path uses
(:func:`agui_transcripts.rows.log_rows`): Ray hands the logs out to tasks, each task
folds its logs one at a time into rows of :func:`agui_transcripts.arrow.row_schema`, and
Ray writes them as Parquet. Logs are local paths or URIs that ``pyarrow.fs`` reads
(``s3://``, ``gs://``, ``abfs://``, ``file://``), found by the same folder rules as the
command line. A task holds one log's transcript and its batch of rows at a time, so its
memory does not grow with the archive; ``memory_per_task`` tells Ray's scheduler so.
Needs the ``ray`` extra. ``docs/dataset.md`` has the cluster recipe.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Sequence
from typing import Any

from .adapters.registry import DEFAULT_TARGET
from .arrow import to_table
from .limits import Limits
from .logs import LogPaths, SkippedFile, as_path_list, find_logs
from .projection import Subagents
from .rows import ROW_TARGETS, Per, log_rows

__all__ = ["convert_with_ray"]

HINT = "the Ray pipeline needs Ray Data: pip install 'agui-transcripts[ray]'"


def convert_with_ray(
    paths: LogPaths,
    output: str | os.PathLike[str],
    *,
    target: str = DEFAULT_TARGET,
    subagents: Subagents = "inline",
    strict: bool = False,
    limits: Limits | None = None,
    per: Per = "log",
    logs_per_task: int = 32,
    memory_per_task: int | None = None,
    rows_per_file: int = 1000,
    notes: list[SkippedFile] | None = None,
    exclude: Sequence[str] = (),
) -> int:
    """Convert the logs under ``paths`` into Parquet files under ``output``; how many logs.

    ``output`` is a folder (a local path or a URI Ray can write). Rows equal what
    :func:`~agui_transcripts.rows.log_rows` gives for each log (``per`` log or run),
    failed logs included; Ray
    chooses the files' names and the rows' order (sort by ``source`` to compare).
    Connects to the running Ray instance, or starts a local one, as ``ray.data`` does.
    What the folder rules skip is appended to ``notes``; ``exclude`` globs leave files out.
    Each Parquet file holds at least ``rows_per_file`` rows (the last one what is left),
    as ``convert -o DIR/ --rows-per-file`` writes them, not one small file per task.

    Ray Data warns that a job "will hang" when it looks for a free CPU while this
    pipeline's own tasks hold every one (a small local instance, mid-write); that
    warning is left out while the pipeline runs, since no other job waits for them.
    """
    if target not in ROW_TARGETS:
        raise ValueError(f"rows are written for {', '.join(ROW_TARGETS)}, not {target!r}")
    try:
        import ray.data
    except ImportError as error:
        raise ImportError(HINT) from error
    sources = find_logs(paths, notes, exclude=exclude)
    if not sources:
        raise ValueError("no log files found in " + ", ".join(as_path_list(paths)))
    options: dict[str, Any] = {
        "per": per,
        "target": target,
        "subagents": subagents,
        "strict": strict,
        "limits": limits,
    }
    remote: dict[str, Any] = {} if memory_per_task is None else {"memory": memory_per_task}
    logs = ray.data.from_items([{"source": source} for source in sources])
    rows = logs.map_batches(
        _rows_of_batch,
        batch_size=logs_per_task,
        batch_format="pyarrow",
        fn_kwargs=options,
        **remote,
    )
    option = _rows_per_file_option(ray.data.Dataset)
    sizes = {option: rows_per_file} if option else {}
    busy = _OwnTasksHoldTheCPUs()
    warner = logging.getLogger("ray.data.dataset")  # the module that warns
    warner.addFilter(busy)
    try:
        rows.write_parquet(os.fspath(output), **sizes)
    finally:
        warner.removeFilter(busy)
    return len(sources)


def _rows_per_file_option(dataset: Any) -> str | None:
    """Ray's name for a minimum of rows per written file (it changed in Ray 2.40)."""
    parameters = inspect.signature(dataset.write_parquet).parameters
    return next((n for n in ("min_rows_per_file", "num_rows_per_file") if n in parameters), None)


class _OwnTasksHoldTheCPUs(logging.Filter):
    """Drops Ray Data's "no available CPUs, will hang" warning: our tasks hold them."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "does not have any available CPUs" not in record.getMessage()


def _rows_of_batch(batch: Any, **options: Any) -> Any:
    """One task's work: each log of the batch folded in turn, as one Arrow table."""
    sources = batch.column("source").to_pylist()
    return to_table(row for source in sources for row in log_rows(source, **options))
