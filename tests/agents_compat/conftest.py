"""Real AG-UI agents on loopback (the [test-agents] extra): pydantic-ai and ag-ui-langgraph.

Each agent of ``tests/agents`` is served by uvicorn in a process of its own. CI's agents
leg starts them before the tests and names them in ``AGUI_TRANSCRIPTS_PYDANTIC_AI_URL``
and ``AGUI_TRANSCRIPTS_LANGGRAPH_URL``; without those, the tests start them here.

Without the agents' packages these tests are not collected (``test_extra_present.py``
reports them skipped), unless ``AGUI_TRANSCRIPTS_REQUIRE_AGENTS=1`` (set by that leg),
where their absence is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.extras import ignored_without

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("pydantic_ai", "ag_ui_langgraph", "uvicorn")

if os.environ.get("AGUI_TRANSCRIPTS_REQUIRE_AGENTS") == "1":
    missing = [m for m in MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise RuntimeError(f"AGUI_TRANSCRIPTS_REQUIRE_AGENTS=1 but {missing} not installed")

collect_ignore = sorted(
    {name for module in MODULES for name in ignored_without(module, Path(__file__).parent)}
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_listening(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the agent server exited: {log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the agent server did not listen within 60 s: {log.read_text()[-2000:]}")


def _serve(app: str, variable: str, tmp: Path) -> Iterator[str]:
    given = os.environ.get(variable)
    if given:
        yield given.rstrip("/") + "/"
        return
    port = _free_port()
    log = tmp / f"{app.replace(':', '-')}.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_until_listening(port, server, log)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="session")
def pydantic_ai_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of pydantic-ai's AG-UI agent (``/flaky`` beside it drops first requests)."""
    yield from _serve(
        "tests.agents.pydantic_ai_app:app",
        "AGUI_TRANSCRIPTS_PYDANTIC_AI_URL",
        tmp_path_factory.mktemp("pydantic-ai"),
    )


@pytest.fixture(scope="session")
def langgraph_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of the ag-ui-langgraph agent."""
    yield from _serve(
        "tests.agents.langgraph_app:app",
        "AGUI_TRANSCRIPTS_LANGGRAPH_URL",
        tmp_path_factory.mktemp("langgraph"),
    )
