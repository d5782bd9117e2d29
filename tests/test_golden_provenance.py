"""Every golden says which reference client produced it.

The expected folds (golden streams, reference cases, recordings, the examples' runs) and
the differential corpus were made by the reference fold tool; each records the client
and version the tool ran (``python -m tests.golden.provenance`` stamps them after checking
the tool still gives the same result).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
EXPECTED = sorted(GOLDEN.rglob("*.expected.json"))
CLIENT = re.compile(r"^@ag-ui/client@\d+\.\d+\.\d+$")


def test_there_are_goldens_to_check() -> None:
    assert len(EXPECTED) > 100


@pytest.mark.parametrize("path", EXPECTED, ids=lambda p: str(p.relative_to(GOLDEN)))
def test_each_expected_fold_names_its_client(path: Path) -> None:
    assert CLIENT.match(json.loads(path.read_text(encoding="utf-8")).get("client", ""))


def test_each_differential_record_names_its_client() -> None:
    lines = (GOLDEN / "differential" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    clients = [json.loads(line)["expected"].get("client", "") for line in lines]
    assert len(clients) == 300
    assert [c for c in clients if not CLIENT.match(c)] == []
