"""Score the conversations `agui-transcripts run` recorded: Parquet rows to a ragas score.

The third of three commands (the agent here is the scripted one, run in-process):

    agui-transcripts run examples/scenarios.jsonl --endpoint examples.scripted_agent:app \
        --tools examples.scripted_agent:tools --interrupts approve -o runs/
    agui-transcripts convert runs/ --format parquet --to ragas -o runs.parquet
    python examples/score_runs.py runs.parquet examples/scenarios.jsonl

Each row becomes a ragas MultiTurnSample whose reference tool calls come from its
scenario's ``metadata.referenceToolCalls``; ToolCallF1 scores it (no LLM, so this runs
offline). Exit status 0 when every conversation scores 1.0.

Needs, from the clone's root: pip install ".[ragas,dataset]"
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from ragas.metrics.collections import ToolCallF1

from agui_transcripts import read_scenarios
from agui_transcripts.adapters.ragas import to_evaluation_dataset
from agui_transcripts.arrow import read_rows


async def main(rows_path: Path, scenarios_path: Path) -> float:
    references = {
        s.name: s.metadata.get("referenceToolCalls", []) for s in read_scenarios(scenarios_path)
    }
    rows = [row for row in read_rows(rows_path) if row["ok"]]

    def reference(row: dict[str, Any]) -> dict[str, Any]:
        name = Path(row["source"]).name.split(".")[0]  # NAME.sse, or NAME.e1.sse per epoch
        return {"reference_tool_calls": references.get(name, [])}

    dataset = to_evaluation_dataset(rows, fields=reference, failed="skip")
    metric = ToolCallF1()
    scores = []
    for row, sample in zip(rows, dataset, strict=True):
        result = await metric.ascore(
            user_input=sample.user_input, reference_tool_calls=sample.reference_tool_calls
        )
        scores.append(float(result.value))
        print(f"{Path(row['source']).name}: ToolCallF1 {result.value}")
    mean = sum(scores) / len(scores) if scores else 0.0
    print(f"{len(scores)} conversations, mean ToolCallF1 {mean}")
    return mean


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python examples/score_runs.py ROWS.parquet SCENARIOS.jsonl")
    sys.exit(0 if asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]))) == 1.0 else 1)
