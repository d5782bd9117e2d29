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
    from agui_transcripts.rows import log_rows

    runs = str(ROOT / "tests" / "golden" / "recordings")
    convert_with_ray([runs], tmp_path / "out", per="run", target="agui")
    expected = [row for log in find_logs([runs]) for row in log_rows(log, per="run", target="agui")]
    rows = read_rows(tmp_path / "out")

    def key(row: dict[str, Any]) -> tuple[str, int]:
        return row["source"], row["run_index"]

    assert sorted(rows, key=key) == sorted(expected, key=key)
    assert len(rows) > len(find_logs([runs]))
