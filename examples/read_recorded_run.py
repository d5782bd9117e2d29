"""Read a recorded AG-UI run and summarise what it holds.

Usage: python examples/read_recorded_run.py [PATH]   (default: the shipped pydantic-ai run)
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from agui_transcripts import read_events

DEFAULT = Path(__file__).parent / "runs" / "pydantic-ai-weather.sse"


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT
    stream = read_events(path)
    counts = Counter(event["type"] for event in stream)
    print(f"{path.name}: {sum(counts.values())} events ({stream.format})")
    for kind, count in counts.most_common():
        print(f"  {kind:<28} {count}")
    for diagnostic in stream.diagnostics:
        print(f"  ! {diagnostic}")
    return 1 if any(d.severity == "error" for d in stream.diagnostics) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
