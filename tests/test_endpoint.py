"""run_endpoint against a real loopback HTTP server streaming a recorded run."""

from __future__ import annotations

import json
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

from agui_transcripts import (
    AssistantMessage,
    Conversation,
    ConversationError,
    ProtocolError,
    fold,
)
from agui_transcripts.endpoint import EndpointError, build_run_input, run_endpoint
from tests.loopback import Server

RUNS = Path(__file__).resolve().parent.parent / "examples" / "runs"
RECORDED = (RUNS / "pydantic-ai-weather.sse").read_bytes()
INPUTS = json.loads((RUNS / "pydantic-ai-weather.input.json").read_text())
# The first run of the recording: everything up to the blank line after its RUN_FINISHED.
FIRST_RUN = RECORDED[: RECORDED.index(b"\n\n", RECORDED.index(b"RUN_FINISHED")) + 2]


def test_streamed_in_small_chunks_matches_folding_the_recording(server: Server) -> None:
    url = server.route("/agent", FIRST_RUN, size=37, pause=0.0005)
    seen: list[str] = []
    transcript = run_endpoint(url, INPUTS[0], on_event=lambda e: seen.append(e["type"]))
    expected = fold(FIRST_RUN, run_input=INPUTS[0])
    assert transcript.to_dicts() == expected.to_dicts()
    assert [d.code for d in transcript.diagnostics] == [d.code for d in expected.diagnostics]
    assert transcript.runs[-1].outcome == "success"
    assert seen[0] == "RUN_STARTED"
    assert seen[-1] == "RUN_FINISHED"
    assert len(seen) == FIRST_RUN.count(b"data: ")
    # The request is the camelCase RunAgentInput, sent as asking for SSE.
    assert server.posted == [INPUTS[0]]
    assert server.headers[0]["Accept"] == "text/event-stream"


def test_a_text_request_becomes_a_fresh_thread_with_one_user_message(server: Server) -> None:
    url = server.route("/agent", FIRST_RUN)
    run_endpoint(url, "What's the weather in Paris?", headers={"Authorization": "Bearer t"})
    (posted,) = server.posted
    assert set(posted) == {
        "threadId",
        "runId",
        "state",
        "messages",
        "tools",
        "context",
        "forwardedProps",
    }
    assert [m["role"] for m in posted["messages"]] == ["user"]
    assert posted["messages"][0]["content"] == "What's the weather in Paris?"
    assert server.headers[0]["Authorization"] == "Bearer t"


def test_continuing_a_transcript_sends_its_history_then_the_new_message(server: Server) -> None:
    url = server.route("/agent", FIRST_RUN)
    first = run_endpoint(url, INPUTS[0])
    # The first run left the client's show_map call open: a new turn would abandon it.
    with pytest.raises(ConversationError, match="call_map_1"):
        run_endpoint(url, "And tomorrow?", transcript=first)
    conversation = Conversation.of(first)
    conversation.add_client_result("call_map_1", "Map shown", message_id="map-result")
    answered = conversation.transcript
    expected = answered.next_run_input()["messages"]
    second = run_endpoint(url, "And tomorrow?", transcript=answered)
    history = server.posted[1]["messages"]
    assert history[:-1] == expected
    assert history[-2] == {
        "id": "map-result",
        "role": "tool",
        "toolCallId": "call_map_1",
        "content": "Map shown",
    }
    assert len(second.runs) == 2  # one transcript for the thread
    assert history[-1]["role"] == "user"
    assert history[-1]["content"] == "And tomorrow?"
    assert server.posted[1]["threadId"] == first.runs[-1].thread_id


def test_a_body_cut_inside_an_event_keeps_what_arrived_and_reports_the_rest(server: Server) -> None:
    cut = FIRST_RUN[: FIRST_RUN.index(b"TOOL_CALL_ARGS") + 30]
    url = server.route("/agent", cut, size=50)
    transcript = run_endpoint(url, INPUTS[0])
    codes = {d.code for d in transcript.diagnostics}
    assert "invalid-json" in codes
    assert transcript.runs[-1].outcome == "truncated"
    assistant = [m for m in transcript.messages if isinstance(m, AssistantMessage)]
    assert assistant
    assert assistant[0].content == "Let me look that up for you."


def test_an_http_error_is_an_endpoint_error_naming_the_status(server: Server) -> None:
    url = server.route("/agent", b"agent crashed", status=500)
    with pytest.raises(EndpointError, match="HTTP 500: agent crashed"):
        run_endpoint(url, "hi")


def test_the_deadline_bounds_the_whole_run(server: Server) -> None:
    url = server.route("/slow", FIRST_RUN, size=64, pause=0.05)
    with pytest.raises(EndpointError, match="deadline"):
        run_endpoint(url, "hi", deadline=0.3)


def test_an_unreachable_endpoint_is_an_endpoint_error() -> None:
    with pytest.raises(EndpointError, match="ConnectError"):
        run_endpoint("http://127.0.0.1:9/agent", "hi", timeout=2.0)


def test_strict_mode_raises_on_the_first_violation(server: Server) -> None:
    from agui_transcripts import ProtocolError

    broken = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x"}\n\n'
    url = server.route("/agent", FIRST_RUN.replace(b"\n\n", b"\n\n" + broken, 1))
    with pytest.raises(ProtocolError):
        run_endpoint(url, INPUTS[0], strict=True)


def test_build_run_input_keeps_a_given_run_input() -> None:
    assert build_run_input(INPUTS[0]) == INPUTS[0]


def test_a_jsonl_body_is_read_as_well(server: Server) -> None:
    log = RUNS / "booking-frontend-tool.jsonl"
    inputs = json.loads((RUNS / "booking-frontend-tool.input.json").read_text())
    body = log.read_bytes()
    first_run = body[: body.index(b'{"type":"RUN_STARTED"', 1)]
    url = server.route("/agent", first_run, size=23)
    transcript = run_endpoint(url, inputs[0])
    assert transcript.to_dicts() == fold(first_run, run_input=inputs[0]).to_dicts()
    assert transcript.continuation().client_calls == ["call_confirm_1"]
    assert transcript.diagnostics == []


# -- bounds and hygiene -------------------------------------------------------------------


def test_a_silent_stream_fails_at_the_read_timeout(server: Server) -> None:
    url = server.route("/silent", FIRST_RUN[:200] + b" " * 10, size=200, pause=3.0)
    started = time.monotonic()
    with pytest.raises(EndpointError, match="ReadTimeout"):
        run_endpoint(url, "hi", timeout=0.3, deadline=None)
    assert time.monotonic() - started < 2.5


def test_the_runner_has_a_deadline_by_default() -> None:
    import inspect

    from agui_transcripts.endpoint import arun_endpoint

    assert inspect.signature(arun_endpoint).parameters["deadline"].default == 900.0


def test_a_cancelled_run_closes_its_connection(server: Server) -> None:
    import asyncio

    from agui_transcripts.endpoint import arun_endpoint

    body = FIRST_RUN * 200  # long enough to still be streaming when cancelled
    url = server.route("/long", body, size=256, pause=0.002)
    seen: list[str] = []

    async def run_and_cancel() -> None:
        task = asyncio.create_task(arun_endpoint(url, "hi", on_event=lambda e: seen.append("")))
        while len(seen) < 5:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run_and_cancel())
    assert server.disconnected.wait(5.0), "the server kept writing to an open connection"


def test_the_event_limit_closes_the_response(server: Server) -> None:
    from agui_transcripts import Limits

    url = server.route("/long", FIRST_RUN * 200, size=256, pause=0.001)
    transcript = run_endpoint(url, "hi", limits=Limits(max_events=20))
    assert [d.code for d in transcript.errors].count("event-limit") == 1
    assert server.disconnected.wait(5.0)


def test_tls_is_verified_and_nothing_but_the_request_is_sent(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    made: list[dict[str, Any]] = []
    real = httpx.AsyncClient

    def recording(**options: Any) -> httpx.AsyncClient:
        made.append(options)
        return real(**options)

    monkeypatch.setattr(httpx, "AsyncClient", recording)
    url = server.route("/agent", FIRST_RUN)
    run_endpoint(url, INPUTS[0], headers={"Authorization": "Bearer s3cret"})
    assert made
    assert all(options.get("verify", True) is True for options in made)
    assert server.posted == [INPUTS[0]]
    sent = {name.lower() for name in server.headers[0]}
    expected = {"host", "accept", "accept-encoding", "connection", "user-agent"}
    assert sent == expected | {"content-length", "content-type", "authorization"}


def test_header_values_never_reach_errors_or_logs(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    secret = {"Authorization": "Bearer s3cret-token"}
    failing = server.route("/agent", b"denied", status=401)
    for url in (failing, "http://127.0.0.1:9/agent"):
        with pytest.raises(EndpointError) as raised:
            run_endpoint(url, "hi", headers=secret, timeout=2.0)
        assert "s3cret" not in str(raised.value)
        assert "s3cret" not in repr(raised.value.__cause__)
    assert "s3cret" not in caplog.text


def _gzip_bomb(megabytes: int) -> bytes:
    """A gzip body that inflates to ``megabytes`` MiB of zeros (about 1 KiB per MiB)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1 << 20)
    return b"".join(deflate.compress(block) for _ in range(megabytes)) + deflate.flush()


@pytest.mark.slow
def test_an_error_body_is_read_only_as_far_as_it_is_shown(server: Server) -> None:
    bomb = _gzip_bomb(512)
    assert len(bomb) < 1 << 20  # under 1 MiB on the wire, 512 MiB inflated
    url = server.route("/bomb", bomb, status=500, headers={"Content-Encoding": "gzip"})
    tracemalloc.start()
    try:
        with pytest.raises(EndpointError, match="HTTP 500") as raised:
            run_endpoint(url, "hi", timeout=10, deadline=30)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20
    assert len(str(raised.value)) < 400  # the status and a short excerpt


def test_a_redirect_is_an_endpoint_error_not_an_empty_transcript(server: Server) -> None:
    url = server.route("/moved", b"", status=307, headers={"Location": "https://elsewhere/agent"})
    with pytest.raises(EndpointError, match="HTTP 307 redirects to https://elsewhere/agent"):
        run_endpoint(url, "hi", timeout=10)
    assert len(server.posted) == 1  # the run input went nowhere else


def test_an_empty_answer_is_reported(server: Server) -> None:
    url = server.route("/empty", b"")
    transcript = run_endpoint(url, "hi", timeout=10)
    assert transcript.messages[0].role == "user"  # only what we sent
    assert [d.code for d in transcript.errors] == ["endpoint-no-events"]
    with pytest.raises(ProtocolError, match="no AG-UI event"):
        run_endpoint(url, "hi", timeout=10, strict=True)
