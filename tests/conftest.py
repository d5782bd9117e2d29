from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.loopback import Server

# Property and fuzz tests: a bounded, reproducible run in CI; HYPOTHESIS_PROFILE=long for
# a long random one by hand.
settings.register_profile(
    "ci",
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long", max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _child_processes_cache_bytecode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The command line and examples run as child processes cache compiled modules.

    In a temporary folder (never the source tree): where ``PYTHONDONTWRITEBYTECODE`` is
    set, as on CI machines, each of them would compile the package again.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path_factory.mktemp("pycache")))
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        yield


@pytest.fixture
def examples_dir() -> Path:
    return ROOT / "examples"


@pytest.fixture
def server() -> Iterator[Server]:
    """A real HTTP server on loopback, stopped after the test (:mod:`tests.loopback`)."""
    running = Server()
    running.thread.start()
    yield running
    running.httpd.shutdown()
    running.httpd.server_close()
