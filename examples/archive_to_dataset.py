"""An archive of recorded runs to Parquet, to a ragas EvaluationDataset, to a score.

    python examples/archive_to_dataset.py [FOLDER] [OUT.parquet]

Every log in FOLDER (default: the recordings in examples/runs/) becomes one row of a
Parquet file (the same rows `agui-transcripts convert FOLDER --format parquet --to ragas`
writes); the rows read back from the file become ragas MultiTurnSamples, each with the
tool calls its task expected, and ragas's ToolCallF1 scores them. ToolCallF1 needs no
LLM, so this runs offline.

Needs, from the clone's root: pip install ".[ragas,dataset]"
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from ragas.metrics.collections import ToolCallF1

from agui_transcripts.adapters.ragas import to_evaluation_dataset
from agui_transcripts.arrow import read_rows, write_parquet
from agui_transcripts.rows import rows_of_logs

RUNS = Path(__file__).parent / "runs"
# What each recorded task should have called: the references a benchmark keeps.
EXPECTED = {
    "pydantic-ai-weather": [
        {"name": "get_weather", "args": {"city": "Paris"}},
        {"name": "show_map", "args": {"city": "Paris", "zoom": 11}},
    ],
    "booking-frontend-tool": [
        {
            "name": "confirm_booking",
            "args": {"restaurant": "Chez Marie", "time": "19:30", "guests": 2},
        }
    ],
}


def references(row: dict[str, Any]) -> dict[str, Any]:
    stem = Path(row["source"]).name.rsplit(".", 1)[0]
    return {"reference_tool_calls": EXPECTED.get(stem, [])}


async def main(folder: Path, output: Path) -> float:
    written = write_parquet(rows_of_logs([str(folder)], target="ragas"), output)
    rows = read_rows(output)
    failed = [row for row in rows if not row["ok"]]
    print(f"{written} logs -> {output.name}: {len(rows) - len(failed)} converted")
    for row in failed:
        print(f"  failed: {row['error']}")
    dataset = to_evaluation_dataset(rows, fields=references, failed="skip")
    metric = ToolCallF1()
    scores = []
    for row, sample in zip([r for r in rows if r["ok"]], dataset, strict=True):
        result = await metric.ascore(
            user_input=sample.user_input, reference_tool_calls=sample.reference_tool_calls
        )
        scores.append(float(result.value))
        print(
            f"  {Path(row['source']).name}: {len(sample.user_input)} messages, "
            f"ToolCallF1 {result.value}"
        )
    mean = sum(scores) / len(scores) if scores else 0.0
    print(f"mean ToolCallF1: {mean}")
    return mean


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(scratch) / "transcripts.parquet"
        sys.exit(0 if asyncio.run(main(folder, output)) == 1.0 else 1)
