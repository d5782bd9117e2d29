"""docs/harness.md stays true: its code runs as written, its table of stops is the code's."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from agui_transcripts.harness import Stop

from .test_readme import run_blocks

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "harness.md").read_text(encoding="utf-8")


def test_the_pages_code_runs_and_its_stated_values_hold() -> None:
    assert len(re.findall(r"```python\n", PAGE)) == 3
    assert run_blocks(PAGE) == 3


def test_the_table_of_stops_is_every_stop() -> None:
    rows = re.findall(r"^\| (`[^|]+`) \|", PAGE, re.M)
    named = {name for row in rows for name in re.findall(r"`(\w+)`", row)}
    assert named == set(typing.get_args(Stop))
