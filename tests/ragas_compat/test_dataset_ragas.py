"""Rows written for ragas, through Parquet, give the samples the transcripts give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ragas.dataset_schema import EvaluationDataset, EvaluationResult, MultiTurnSample

from agui_transcripts.adapters.ragas import build_sample, sample_from_row, to_evaluation_dataset
from agui_transcripts.arrow import read_rows, write_parquet
from agui_transcripts.logs import find_logs, fold_log
from agui_transcripts.rows import log_row, log_rows, whole_rows
from tests.generate import one_message_runs
from tests.test_dataset import CORPUS
from tests.test_row_messages import _side_by_side
from tests.test_rows_linear import doubling

ROOT = Path(__file__).resolve().parents[2]
LOGS = [
    source
    for source in find_logs([str(ROOT / "tests" / "golden"), str(ROOT / "examples" / "runs")])
    if Path(source).parent.name != "differential"
]


def test_a_sample_read_back_from_parquet_is_the_transcripts_sample(tmp_path: Path) -> None:
    write_parquet((log_row(source, target="ragas") for source in LOGS), tmp_path / "r.parquet")
    rows = read_rows(tmp_path / "r.parquet")
    assert [row["source"] for row in rows] == LOGS
    for row in rows:
        transcript, _ = fold_log(row["source"])
        expected = build_sample(transcript)
        assert sample_from_row(row).model_dump() == expected.model_dump(), row["source"]


def test_an_evaluation_dataset_from_rows_and_from_transcripts() -> None:
    rows = [log_row(source, target="ragas") for source in LOGS[:20]]
    transcripts = [fold_log(source)[0] for source in LOGS[:20]]
    from_rows = to_evaluation_dataset(rows)
    from_transcripts = to_evaluation_dataset(transcripts)
    assert isinstance(from_rows, EvaluationDataset)
    assert len(from_rows) == 20
    assert all(isinstance(sample, MultiTurnSample) for sample in from_rows)
    assert [s.model_dump() for s in from_rows] == [s.model_dump() for s in from_transcripts]


def test_fields_give_each_sample_its_references() -> None:
    source = str(ROOT / "examples" / "runs" / "pydantic-ai-weather.sse")
    reference = [{"name": "get_weather", "args": {"city": "Paris"}}]
    dataset = to_evaluation_dataset(
        [log_row(source, target="ragas")], fields=lambda row: {"reference_tool_calls": reference}
    )
    (sample,) = dataset
    assert [(c.name, c.args) for c in sample.reference_tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]


def test_failed_rows_raise_or_are_skipped_and_other_targets_are_refused(tmp_path: Path) -> None:
    good = log_row(LOGS[0], target="ragas")
    failed = log_row(str(tmp_path / "missing.jsonl"), target="ragas")
    with pytest.raises(ValueError, match=r"missing\.jsonl: a failed row"):
        to_evaluation_dataset([good, failed])
    assert len(to_evaluation_dataset([good, failed], failed="skip")) == 1
    with pytest.raises(ValueError, match="written for 'openai'"):
        sample_from_row(log_row(LOGS[0], target="openai"))


def test_the_archive_to_dataset_example_scores_the_recordings(tmp_path: Path) -> None:
    import subprocess
    import sys

    output = tmp_path / "transcripts.parquet"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "archive_to_dataset.py"),
            str(ROOT / "examples" / "runs"),
            str(output),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        "2 logs -> transcripts.parquet: 2 converted",
        "  booking-frontend-tool.jsonl: 4 messages, ToolCallF1 1.0",
        "  pydantic-ai-weather.sse: 5 messages, ToolCallF1 1.0",
        "mean ToolCallF1: 1.0",
    ]
    # The file it wrote is the command line's Parquet output, row for row.
    cli = tmp_path / "cli.parquet"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "agui_transcripts",
            "convert",
            str(ROOT / "examples" / "runs"),
            "--format",
            "parquet",
            "--to",
            "ragas",
            "-o",
            str(cli),
        ],
        check=True,
        capture_output=True,
    )
    assert read_rows(output) == read_rows(cli)


def test_a_missed_call_lowers_the_score(tmp_path: Path) -> None:
    """The metric sees the conversation: a reference the agent did not call scores < 1."""
    import asyncio

    from ragas.metrics.collections import ToolCallF1

    row = log_row(str(ROOT / "examples" / "runs" / "pydantic-ai-weather.sse"), target="ragas")
    (sample,) = to_evaluation_dataset(
        [row],
        fields=lambda _: {"reference_tool_calls": [{"name": "book_flight", "args": {}}]},
    )
    result = asyncio.run(
        ToolCallF1().ascore(
            user_input=sample.user_input, reference_tool_calls=sample.reference_tool_calls
        )
    )
    assert float(result.value) == 0.0


# ragas 0.4 deprecates evaluate() and its metric classes for its @experiment API, but
# ships and documents both; the dataset is what either takes.
@pytest.mark.filterwarnings("ignore:Importing ToolCallAccuracy from 'ragas.metrics'")
@pytest.mark.filterwarnings("ignore:a?evaluate\\(\\) is deprecated")
def test_the_dataset_goes_straight_into_ragas_evaluate(tmp_path: Path) -> None:
    """``ragas.evaluate`` scores the dataset read back from Parquet (a metric with no LLM)."""
    from ragas import evaluate
    from ragas.metrics import ToolCallAccuracy

    runs = str(ROOT / "examples" / "runs")
    write_parquet((log_row(s, target="ragas") for s in find_logs([runs])), tmp_path / "r.parquet")
    expected = {
        "pydantic-ai-weather": [
            {"name": "get_weather", "args": {"city": "Paris"}},
            {"name": "show_map", "args": {"city": "Paris", "zoom": 11}},
        ],
        "booking-frontend-tool": [{"name": "cancel_booking", "args": {}}],  # not what it did
    }
    dataset = to_evaluation_dataset(
        read_rows(tmp_path / "r.parquet"),
        fields=lambda row: {
            "reference_tool_calls": expected[Path(row["source"]).name.rsplit(".", 1)[0]]
        },
    )
    result = evaluate(dataset, metrics=[ToolCallAccuracy()], show_progress=False)
    assert isinstance(result, EvaluationResult)
    names = [Path(source).stem for source in find_logs([runs])]
    scores = dict(zip(names, result["tool_call_accuracy"], strict=True))
    assert scores == {"booking-frontend-tool": 0.0, "pydantic-ai-weather": 1.0}


def test_the_dataset_pages_one_machine_code_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re
    import shutil

    page = (ROOT / "docs" / "dataset.md").read_text(encoding="utf-8")
    section = page.split("## On one machine", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    shutil.copytree(ROOT / "examples" / "runs", tmp_path / "runs")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(block, "docs/dataset.md", "exec"), namespace)
    dataset = namespace["dataset"]
    assert isinstance(dataset, EvaluationDataset)
    assert len(dataset) == 2


def test_rows_per_run_give_each_runs_whole_conversation(tmp_path: Path) -> None:
    # Three runs of a thread: the middle row holds only what its run added.
    log = tmp_path / "thread.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in one_message_runs(3)))
    rows = log_rows(str(log), per="run", target="ragas")
    assert rows[1]["messages_from"] == 1
    with pytest.raises(ValueError, match="restore the rows with"):
        sample_from_row(rows[1])
    samples = to_evaluation_dataset(rows, fields=lambda row: {"reference": row["response"]})
    assert [[m.content for m in s.user_input] for s in samples] == [
        ["answer 0"],
        ["answer 0", "answer 1"],
        ["answer 0", "answer 1", "answer 2"],
    ]
    assert [s.reference for s in samples] == ["answer 0", "answer 1", "answer 2"]
    restored = to_evaluation_dataset(whole_rows(rows))
    assert [s.user_input for s in restored] == [s.user_input for s in samples]


@pytest.mark.parametrize("source", CORPUS, ids=lambda s: Path(s).name)
def test_rows_per_run_for_ragas_render_each_run_as_a_whole_rendering_would(source: str) -> None:
    # What earlier runs left is kept and only what a run added is rendered; the oracle
    # renders the whole conversation at every run's end, in the same fold.
    _side_by_side(source, "ragas")


def test_ragas_rows_per_run_render_only_what_runs_add(tmp_path: Path) -> None:
    log = tmp_path / "thread.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in one_message_runs(40)))
    assert _side_by_side(str(log), "ragas") == (40, 1)
    rows = list(whole_rows(log_rows(str(log), per="run", target="ragas")))
    assert [[m["id"] for m in row["messages"]] for row in rows] == [
        [f"m{i}" for i in range(run + 1)] for run in range(40)
    ]


@pytest.mark.parametrize(
    "shape", ["one message a run", "a call answered a run", "window snapshots"]
)
def test_ragas_rows_per_run_cost_what_each_run_changed(tmp_path: Path, shape: str) -> None:
    small, large = doubling(tmp_path, shape, "ragas", "inline")
    assert large <= 2.2 * small, (small, large)
