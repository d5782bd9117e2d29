"""Ray Data gives, row for row, what the embedded conversion gives.

A local Ray instance (two CPUs, as CI's machine has) converts an archive laid out like
real recordings, from a local path and from a ``file://`` URI read through
``pyarrow.fs``, and the rows are compared with :func:`log_row` for each log.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from agui_transcripts.arrow import read_rows
from agui_transcripts.distributed import convert_with_ray
from agui_transcripts.logs import SkippedFile, find_logs
from agui_transcripts.rows import log_row

ROOT = Path(__file__).resolve().parents[2]
# Ray Data warns about its own deprecated settings when it reads its context.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=256 * 1024 * 1024,
        log_to_driver=False,
        configure_logging=False,
    )
    yield
    ray.shutdown()


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """Recorded runs with their inputs, a manifest, one run in two formats, an empty log."""
    folder = tmp_path / "archive"
    shutil.copytree(ROOT / "tests" / "golden" / "streams", folder / "streams")
    shutil.copytree(ROOT / "examples" / "runs", folder / "examples")
    weather = folder / "examples" / "pydantic-ai-weather"
    (folder / "examples" / "pydantic-ai-weather.jsonl").write_text(
        "".join(
            line.removeprefix("data: ") + "\n"
            for line in weather.with_suffix(".sse").read_text().splitlines()
            if line.startswith("data: ")
        )
    )
    (folder / "manifest.json").write_text('{"runs": 2}')
    (folder / "empty.jsonl").write_bytes(b"")
    return folder


def _by_source(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda row: row["source"])


@pytest.mark.usefixtures("local_ray")
def test_ray_rows_equal_the_embedded_rows(archive: Path, tmp_path: Path) -> None:
    notes: list[SkippedFile] = []
    count = convert_with_ray([str(archive)], tmp_path / "out", logs_per_task=8, notes=notes)
    expected = [log_row(source) for source in find_logs([str(archive)])]
    assert count == len(expected) > 90
    assert any(
        str(note).endswith("manifest.json: skipped, not a log (no events in it)") for note in notes
    )
    assert any(note.reason == "duplicate" for note in notes)
    rows = read_rows(tmp_path / "out")
    assert _by_source(rows) == _by_source(expected)
    assert sum(not row["ok"] for row in rows) == 1  # the empty log, as a failed row


@pytest.mark.usefixtures("local_ray")
def test_ray_reads_a_uri_through_pyarrow_fs(archive: Path, tmp_path: Path) -> None:
    uri = archive.as_uri()
    convert_with_ray([uri], (tmp_path / "out").as_uri(), target="ragas")
    expected = [log_row(source, target="ragas") for source in find_logs([uri])]
    assert all(row["source"].startswith("file:///") for row in expected)
    rows = read_rows(tmp_path / "out")
    assert _by_source(rows) == _by_source(expected)
    # The URI rows say what the local rows say, but for their source.
    local = {
        Path(row["source"]).as_uri(): row
        for row in (log_row(source, target="ragas") for source in find_logs([str(archive)]))
    }
    assert sorted(local) == sorted(row["source"] for row in rows)
    for row in rows:
        twin = local[row["source"]]
        assert {**row, "source": "", "error": ""} == {**twin, "source": "", "error": ""}
        assert (row["error"] is None) == (twin["error"] is None)


@pytest.mark.usefixtures("local_ray")
def test_ray_rows_per_run_equal_the_embedded_rows_per_run(tmp_path: Path) -> None:
    from agui_transcripts.rows import log_rows, whole_rows

    runs = str(ROOT / "tests" / "golden" / "recordings")
    convert_with_ray([runs], tmp_path / "out", per="run", target="agui")
    expected = [row for log in find_logs([runs]) for row in log_rows(log, per="run", target="agui")]
    rows = read_rows(tmp_path / "out")

    def key(row: dict[str, Any]) -> tuple[str, int]:
        return row["source"], row["run_index"]

    assert sorted(rows, key=key) == sorted(expected, key=key)
    assert len(rows) > len(find_logs([runs]))
    # Ray does not keep the logs' order: sorted by log and run, the rows restore whole.
    in_order = sorted(rows, key=key)
    assert list(whole_rows(in_order)) == list(whole_rows(expected))


@pytest.mark.usefixtures("local_ray")
def test_ray_writes_files_of_rows_per_file_rows_not_one_per_task(
    archive: Path, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    count = convert_with_ray([str(archive)], tmp_path / "out", logs_per_task=4, rows_per_file=40)
    sizes = sorted(
        (pq.read_metadata(part).num_rows for part in (tmp_path / "out").glob("*.parquet")),
        reverse=True,
    )
    assert sum(sizes) == count > 80
    # Tasks of four logs, files of at least 40 rows: the last file holds what is left.
    assert all(size >= 40 for size in sizes[:-1])
    assert len(sizes) <= -(-count // 40)  # not one file per task of four


def test_a_busy_small_instance_does_not_warn_that_the_job_will_hang(
    archive: Path, tmp_path: Path
) -> None:
    """Ray Data warns "will hang" when our own tasks hold both CPUs mid-write."""
    import os
    import subprocess
    import sys

    for copy in range(10):
        shutil.copytree(archive / "streams", tmp_path / "many" / str(copy))
    script = (
        "import ray\n"
        "from agui_transcripts.distributed import convert_with_ray\n"
        "ray.init(num_cpus=2, include_dashboard=False, object_store_memory=256 * 1024**2)\n"
        "print(convert_with_ray(['many/'], 'out/'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    count = int(done.stdout.split()[-1])
    assert count > 900
    assert "will hang" not in done.stderr
    files = len(list((tmp_path / "out").glob("*.parquet")))
    assert files <= -(-count // 1000)  # 1,000 rows per file by default
