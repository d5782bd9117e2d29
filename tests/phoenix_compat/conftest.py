"""These tests export to a real Phoenix server on loopback (the [test-phoenix] extra).

Without Phoenix they are not collected (``test_extra_present.py`` reports them skipped,
with the reason), unless ``AGUI_TRANSCRIPTS_REQUIRE_PHOENIX=1`` (set by CI's phoenix leg,
which installs it), where its absence is a failure. The fixture starts ``phoenix serve``
on free loopback ports with a fresh SQLite database and stops it after the session.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.extras import ignored_without

if (
    importlib.util.find_spec("phoenix") is None
    and os.environ.get("AGUI_TRANSCRIPTS_REQUIRE_PHOENIX") == "1"
):
    raise RuntimeError("AGUI_TRANSCRIPTS_REQUIRE_PHOENIX=1 but Phoenix is not installed")

collect_ignore = ignored_without("phoenix", Path(__file__).parent)

if not collect_ignore:
    # Phoenix imports ldap3, which reads names pyasn1 deprecated: a warning at import
    # time, which the suite would make an error. Imported once here, with it silenced.
    # (Its client's pytest plugin imports it too: CI runs this folder with -p no:phoenix.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        importlib.import_module("phoenix.client")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a Phoenix server of our own, up and answering."""
    folder = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    command = shutil.which("phoenix") or str(Path(sys.executable).with_name("phoenix"))
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen([command, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "Phoenix did not start:\n" + (folder / "server.log").read_text(errors="replace")
                )
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
