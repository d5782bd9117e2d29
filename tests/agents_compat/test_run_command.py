"""``agui-transcripts run`` over a real agent: 50 scenarios at -j 8, killed and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold

ROOT = Path(__file__).resolve().parents[2]
KINDS: list[tuple[list[str], dict[str, Any]]] = [
    (["weather in {city}"], {"toolsCalled": ["get_weather"], "responseContains": "{city}"}),
    (["map of {city}"], {"toolsCalled": ["show_map"], "responseContains": "map of {city}"}),
    (["hello {city}", "weather in {city}"], {"responseContains": "sunny in {city}"}),
    (["delete {city}.txt"], {"responseContains": "deleted {city}.txt"}),
    (["explode {city}"], {"toolsCalled": ["explode"], "responseContains": "boom"}),
]
CITIES = [f"City{n}" for n in range(10)]


def _scenarios(path: Path) -> list[str]:
    names = []
    with path.open("w") as out:
        for k, (turns, expect) in enumerate(KINDS):
            for city in CITIES:
                name = f"s{k}-{city.lower()}"
                names.append(name)
                scenario = {
                    "name": name,
                    "turns": [t.format(city=city) for t in turns],
                    "expect": {
                        key: (v.format(city=city) if isinstance(v, str) else v)
                        for key, v in expect.items()
                    },
                }
                out.write(json.dumps(scenario) + "\n")
    return names


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "agui_transcripts", *args]


def test_fifty_scenarios_at_eight_jobs_survive_a_kill_and_resume(
    pydantic_ai_url: str, tmp_path: Path
) -> None:
    names = _scenarios(tmp_path / "scenarios.jsonl")
    runs = tmp_path / "runs"
    arguments = [
        "run",
        str(tmp_path / "scenarios.jsonl"),
        "--endpoint",
        pydantic_ai_url,
        "--tools",
        "tests.agents.client_tools:registry",
        "--interrupts",
        "approve",
        "-o",
        str(runs),
        "-j",
        "8",
    ]
    first = subprocess.Popen(_command(*arguments), cwd=ROOT, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list(runs.glob("*.result.json"))) < 10 and time.monotonic() < deadline:
        assert first.poll() is None, "the run ended before it could be killed"
        time.sleep(0.01)
    first.send_signal(signal.SIGKILL)
    first.wait()
    kept = {p.name: p.read_bytes() for p in runs.glob("*.result.json")}
    assert 10 <= len(kept) < 50

    again = subprocess.run(_command(*arguments), cwd=ROOT, capture_output=True, text=True)
    refused = "already holds results" in again.stderr
    assert again.returncode == 2
    assert refused
    started = time.monotonic()
    resumed = subprocess.run(
        _command(*arguments, "--resume"), cwd=ROOT, capture_output=True, text=True
    )
    seconds = time.monotonic() - started
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    print(f"\n{50 - len(kept)} conversations resumed in {seconds:.1f} s at -j 8")
    # What the killed run finished was kept as it was, not had again.
    assert {name: (runs / name).read_bytes() for name in kept} == kept
    results = {p.name.split(".")[0]: json.loads(p.read_text()) for p in runs.glob("*.result.json")}
    assert sorted(results) == sorted(names)
    assert all(r["passed"] for r in results.values()), [
        r for r in results.values() if not r["passed"]
    ]
    # No half-written file is left, and every recording folds to a finished conversation.
    assert not list(runs.glob(".*"))
    for name in names:
        transcript = fold(runs / f"{name}.sse")
        assert transcript.continuation().status == "done"
        assert not transcript.errors
    table = resumed.stdout.splitlines()
    assert table[0].split() == ["scenario", "trials", "passed", "pass^1", "last", "status"]
    assert len(table) == 52  # the header, 50 scenarios, the mean

    converted = subprocess.run(
        _command("convert", str(runs), "-o", str(tmp_path / "rows.parquet"), "--format", "parquet"),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert converted.returncode == 0, converted.stderr
    pyarrow = pytest.importorskip("pyarrow.parquet")
    assert pyarrow.read_table(tmp_path / "rows.parquet").num_rows == 50


def test_epochs_give_pass_hat_k_per_scenario(pydantic_ai_url: str, tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios.jsonl"
    scenarios.write_text(
        json.dumps({"name": "weather", "turns": ["weather in Oslo"]})
        + "\n"
        + json.dumps({"name": "denied", "turns": ["delete x.txt"]})
        + "\n"
    )
    done = subprocess.run(
        _command(
            "run",
            str(scenarios),
            "--endpoint",
            pydantic_ai_url,
            "-o",
            str(tmp_path / "runs"),
            "--epochs",
            "3",
            "-q",
        ),
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert done.returncode == 1  # "denied" has no interrupt policy: it never passes
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:]}
    assert rows["weather"][1:5] == ["3", "3", "1.00", "1.00"]
    assert rows["denied"][1:6] == ["3", "0", "0.00", "0.00", "awaiting_resume"]
    assert sorted(p.name for p in (tmp_path / "runs").glob("weather.*.sse")) == [
        "weather.e1.sse",
        "weather.e2.sse",
        "weather.e3.sse",
    ]
