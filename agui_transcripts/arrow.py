"""Dataset rows as Arrow tables, Parquet files, pandas frames and Hugging Face datasets.

The rows of :mod:`agui_transcripts.rows` get one explicit Arrow schema,
:func:`row_schema`: nested columns (messages, tool calls, diagnostics) are lists of
structs, never JSON strings, so a query engine reads ``messages[0].role`` directly.
Writing streams: :func:`write_parquet` holds one batch of rows at a time, whatever the
size of the archive. Needs the ``dataset`` extra (pyarrow); pandas and ``datasets`` are
imported only by the functions that return their objects.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import groupby, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ._codec import has_surrogate
from ._files import replacement_mode

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "View",
    "parquet_sources",
    "read_rows",
    "row_schema",
    "to_hf_dataset",
    "to_pandas",
    "to_table",
    "utf8_row",
    "write_parquet",
]

HINT = "Arrow and Parquet output need pyarrow: pip install 'agui-transcripts[dataset]'"


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as error:
        raise ImportError(HINT) from error
    return pyarrow


@cache
def row_schema() -> pa.Schema:
    """The Arrow schema of a row (``docs/dataset.md`` describes each column).

    Built once: every batch written and every Ray task's table use it.
    """
    pa = _pyarrow()
    text = pa.string()
    call = pa.struct([("id", text), ("name", text), ("arguments", text)])
    message = pa.struct(
        [
            ("id", text),
            ("role", text),
            ("content", text),
            ("content_json", text),
            ("name", text),
            ("tool_calls", pa.list_(call)),
            ("tool_call_id", text),
            ("error", text),
        ]
    )
    tool_call = pa.struct(
        [
            ("id", text),
            ("name", text),
            ("arguments", text),
            ("result", text),
            ("result_error", text),
            ("state", text),
            ("owner", text),
            ("run_id", text),
            ("started_at_ms", pa.float64()),
            ("answered_at_ms", pa.float64()),
        ]
    )
    tokens = [(name, pa.int64()) for name in ("input_tokens", "output_tokens", "total_tokens")]
    run_time = pa.struct(
        [
            ("started_at_ms", pa.float64()),
            ("ended_at_ms", pa.float64()),
            ("duration_ms", pa.float64()),
            ("time_to_first_token_ms", pa.float64()),
            *tokens,
        ]
    )
    diagnostic = pa.struct([("code", text), ("severity", text), ("count", pa.int64())])
    from .rows import SCHEMA_VERSION

    return pa.schema(
        [
            ("schema_version", text),
            ("source", text),
            ("run_index", pa.int64()),
            ("ok", pa.bool_()),
            ("error", text),
            ("thread_id", text),
            ("run_ids", pa.list_(text)),
            ("run_outcomes", pa.list_(text)),
            ("run_times", pa.list_(run_time)),
            ("started_at_ms", pa.float64()),
            ("ended_at_ms", pa.float64()),
            *tokens,
            ("events", pa.int64()),
            ("target", text),
            ("messages_from", pa.int64()),
            ("tool_calls_from", pa.int64()),
            ("runs_from", pa.int64()),
            ("messages", pa.list_(message)),
            ("response", text),
            ("tool_calls", pa.list_(tool_call)),
            ("continuation", text),
            ("truncated", pa.bool_()),
            ("diagnostics", pa.list_(diagnostic)),
            ("errors", pa.int64()),
            ("warnings", pa.int64()),
        ],
        metadata={"agui_transcripts.schema_version": SCHEMA_VERSION},
    )


def to_table(rows: Iterable[dict[str, Any]]) -> pa.Table:
    """The rows as one Arrow table of :func:`row_schema`.

    Arrow strings are UTF-8, which has no form for a lone UTF-16 surrogate (half of an
    emoji a producer cut and never finished). A row holding one is stored with U+FFFD in
    its place and says so: its ``diagnostics`` count ``text-not-utf8``.
    """
    pa = _pyarrow()
    batch = list(rows)
    try:
        return pa.Table.from_pylist(batch, schema=row_schema())
    except UnicodeEncodeError:  # rare: only then are the rows' strings walked
        return pa.Table.from_pylist([utf8_row(row) for row in batch], schema=row_schema())


def utf8_row(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with each lone surrogate replaced by U+FFFD, counted in its diagnostics.

    The row itself when it holds none.
    """
    replaced = 0

    def clean(value: Any) -> Any:
        nonlocal replaced
        if isinstance(value, str):
            if has_surrogate(value):
                fixed = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
                replaced += fixed != value
                return fixed
            return value
        if isinstance(value, list):
            return [clean(item) for item in value]
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        return value

    cleaned: dict[str, Any] = clean(row)
    if not replaced:
        return row
    counts = [d for d in cleaned["diagnostics"] if d["code"] != "text-not-utf8"]
    counts.append({"code": "text-not-utf8", "severity": "warning", "count": replaced})
    cleaned["diagnostics"] = sorted(counts, key=lambda d: (d["code"], d["severity"]))
    cleaned["warnings"] += replaced
    return cleaned


#: What a frame has a row for: each dataset row, each message, or each tool call.
View = Literal["rows", "messages", "tool_calls", "timed"]
_VIEWS: tuple[str, ...] = ("rows", "messages", "tool_calls", "timed")
# The list column each item view spreads, the parallel lists it adds to each item, and
# the count of items before the row's first (rows per run hold what their run changed).
_ITEMS = {
    "messages": ("messages", (), "messages_from"),
    "tool_calls": ("tool_calls", (), "tool_calls_from"),
    "timed": ("run_times", (("run_id", "run_ids"), ("outcome", "run_outcomes")), "runs_from"),
}
#: The columns that say where a message or a call comes from, first in the flat views.
_WHERE = ("source", "run_index", "thread_id", "target")


def to_pandas(rows: Iterable[dict[str, Any]], *, view: View = "rows") -> Any:
    """The rows as a pandas ``DataFrame``: one row per dataset row, message or call.

    ``view="messages"`` gives one row per message and ``view="tool_calls"`` one per
    call (with its result, state, owner and run), ``view="timed"`` one per run (its id,
    outcome, times, time to first token and tokens), each with the log's ``source``,
    ``run_index``, ``thread_id``, ``target`` and its ``position`` in the row's
    conversation (for ``timed``, the run's index in its log), so no ``explode`` or
    ``json_normalize`` is needed. A row per run lists what its run changed (pass the
    rows through :func:`~agui_transcripts.rows.whole_rows` for each run's whole
    conversation). Nested cells (a row's messages, a message's calls) are Python lists
    of dicts, not numpy arrays.
    """
    if view not in _VIEWS:
        raise ValueError(f"view must be one of {', '.join(_VIEWS)}: {view!r}")
    try:
        import pandas
    except ImportError as error:
        raise ImportError("to_pandas needs pandas: pip install pandas") from error
    if view == "rows":
        table = to_table(rows)
        frame = table.to_pandas()
        pa = _pyarrow()
        for field in table.schema:
            if pa.types.is_list(field.type):
                cells = table.column(field.name).to_pylist()
                frame[field.name] = pandas.Series(cells, index=frame.index, dtype=object)
        return frame.astype({"run_index": "Int64"})  # null for rows per log, not NaN
    key, parallel, before = _ITEMS[view]
    item_type = row_schema().field(key).type.value_type
    item_fields = item_type.names
    records = [
        {
            **{name: row.get(name) for name in _WHERE},
            "position": (row.get(before) or 0) + index,
            **{name: _at(row.get(column), index) for name, column in parallel},
            **{name: item.get(name) for name in item_fields},
        }
        for row in rows
        for index, item in enumerate(row.get(key) or ())
    ]
    columns = [*_WHERE, "position", *(name for name, _ in parallel), *item_fields]
    frame = pandas.DataFrame.from_records(records, columns=columns)
    counts = {f.name: "Int64" for f in item_type if _pyarrow().types.is_integer(f.type)}
    return frame.astype({"run_index": "Int64", "position": "int64", **counts})


def _at(values: Any, position: int) -> Any:
    return values[position] if isinstance(values, list) and position < len(values) else None


def to_hf_dataset(rows: Iterable[dict[str, Any]]) -> Any:
    """The rows as a Hugging Face ``datasets.Dataset`` with the same nested features."""
    try:
        import datasets
        from datasets.table import InMemoryTable
    except ImportError as error:
        raise ImportError("to_hf_dataset needs datasets: pip install datasets") from error
    return datasets.Dataset(InMemoryTable(to_table(rows)))


def write_parquet(
    rows: Iterable[dict[str, Any]],
    path: str | os.PathLike[str],
    *,
    rows_per_file: int | None = None,
    batch_rows: int = 256,
) -> int:
    """Write rows to Parquet, a batch of ``batch_rows`` at a time; returns how many.

    Without ``rows_per_file``, ``path`` is one file. With it, ``path`` is a folder that
    receives ``part-00000.parquet``, ``part-00001.parquet``..., each of at most that many
    rows unless one log has more (consecutive rows of one ``source`` are never split
    across parts); a part is written under a temporary name and renamed when complete,
    so an interrupted run leaves only whole parts of whole logs (:func:`parquet_sources`
    lists their sources for a resumed run). An existing folder's parts are kept,
    numbering continues after them.
    """
    pq = _parquet()
    iterator = iter(rows)
    if rows_per_file is None:
        return _write_file(pq, iterator, Path(path), batch_rows)
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    number = len(list(folder.glob("part-*.parquet")))
    total = 0
    for part in _parts(iterator, rows_per_file):
        while (folder / f"part-{number:05d}.parquet").exists():
            number += 1
        total += _write_file(pq, iter(part), folder / f"part-{number:05d}.parquet", batch_rows)
        number += 1
    return total


def _parts(rows: Iterator[dict[str, Any]], most: int) -> Iterator[list[dict[str, Any]]]:
    """Rows in parts of at most ``most``, a log's consecutive rows kept in one part.

    A part that holds some of a log's rows holds them all: a resumed run, which skips
    every source a part names, then never skips the rest of a log (``--per run``).
    """
    part: list[dict[str, Any]] = []
    for _, log in groupby(rows, key=_source):
        rows_of_log = list(log)
        if part and len(part) + len(rows_of_log) > most:
            yield part
            part = []
        part += rows_of_log
        if len(part) >= most:
            yield part
            part = []
    if part:
        yield part


def _source(row: dict[str, Any]) -> Any:
    return row.get("source")


def _write_file(pq: Any, rows: Iterator[dict[str, Any]], target: Path, batch_rows: int) -> int:
    # Written under a name nobody can guess, created by us alone (never through a link
    # planted beside the target), then renamed over the target once complete.
    descriptor, name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".partial"
    )
    partial = Path(name)
    total = 0
    try:
        with os.fdopen(descriptor, "wb") as file, pq.ParquetWriter(file, row_schema()) as writer:
            while batch := list(islice(rows, batch_rows)):
                writer.write_table(to_table(batch))
                total += len(batch)
        os.chmod(partial, replacement_mode(target))
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return total


def read_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a Parquet file or of a folder of parts, as dicts."""
    rows: list[dict[str, Any]] = _dataset(path).to_table().to_pylist()
    return rows


def parquet_sources(path: str | os.PathLike[str]) -> set[str]:
    """The sources already written to a Parquet file or folder (empty when there is none).

    Only complete files count: parts still being written carry a temporary name.
    """
    target = Path(path)
    if not target.exists() or (target.is_dir() and not any(target.glob("*.parquet"))):
        return set()
    column = _dataset(target).to_table(columns=["source"]).column("source")
    return {str(source) for source in column.to_pylist()}


def _dataset(path: str | os.PathLike[str]) -> Any:
    _parquet()
    import pyarrow.dataset as ds

    target = Path(path)
    files = sorted(target.glob("*.parquet")) if target.is_dir() else [target]
    return ds.dataset([str(f) for f in files], schema=row_schema(), format="parquet")


def _parquet() -> Any:
    _pyarrow()
    import pyarrow.parquet as pq

    return pq
