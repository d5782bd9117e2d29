"""Running an AG-UI endpoint: POST a run input, fold the events as they stream back.

Needs the ``http`` extra (httpx). ``run_endpoint`` sends a camelCase ``RunAgentInput``,
reads the SSE (or JSONL) body incrementally with this library's decoder, folds each event
as it arrives and returns the transcript. HTTP failures, transport failures and the total
deadline raise :class:`EndpointError`; protocol violations are diagnostics (or a
:class:`~agui_transcripts.ProtocolError` with ``strict=True``), never swallowed.
"""

from __future__ import annotations

import asyncio
import time
import uuid
import zlib
from collections.abc import Callable, Iterable
from typing import Any

from .collector import reading_collector
from .events import Event, normalize_run_input
from .limits import Limits
from .readers import EventReader
from .transcript import Transcript

__all__ = ["EndpointError", "arun_endpoint", "build_run_input", "run_endpoint"]


class EndpointError(RuntimeError):
    """The endpoint could not be run: an HTTP error, a transport error, or the deadline."""


def build_run_input(
    request: Any,
    *,
    transcript: Transcript | None = None,
    tools: list[dict[str, Any]] | None = None,
    resume: Any = None,
) -> dict[str, Any]:
    """The RunAgentInput for ``request``: a RunAgentInput, or a user message's text.

    With ``transcript`` the run continues that thread (its ``next_run_input``), a text
    request becoming the next user message.
    """
    if not isinstance(request, str):
        return normalize_run_input(request)
    user = {"id": f"user-{uuid.uuid4().hex[:12]}", "role": "user", "content": request}
    if transcript is not None:
        run_input = transcript.next_run_input(tools=tools, resume=resume)
        run_input["messages"].append(user)
        return run_input
    return {
        "threadId": f"thread-{uuid.uuid4().hex[:12]}",
        "runId": f"run-{uuid.uuid4().hex[:12]}",
        "state": {},
        "messages": [user],
        "tools": tools or [],
        "context": [],
        "forwardedProps": {},
    }


async def arun_endpoint(
    url: str,
    request: Any,
    *,
    transcript: Transcript | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60.0,
    deadline: float | None = 900.0,
    on_event: Callable[[Event], None] | None = None,
    tools: list[dict[str, Any]] | None = None,
    client_tools: Iterable[str] | None = None,
    resume: Any = None,
    strict: bool = False,
    client: Any = None,
    limits: Limits | None = None,
) -> Transcript:
    """Run one request against an AG-UI endpoint and return its transcript.

    ``timeout`` bounds each network step (connecting, and each read: a stream silent
    that long fails); ``deadline`` (seconds, None for none) the whole run. ``limits``
    bounds what the response can make us hold; past the event limit the response is
    closed. ``on_event`` sees each canonical event as it arrives. ``client`` may be an
    ``httpx.AsyncClient`` of your own (it is not closed). TLS certificates are verified
    (httpx's default); nothing is sent but the run input, ``Accept`` and ``headers``, and
    no header value is logged or put in an error message.
    """
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError("run_endpoint needs httpx: pip install 'agui-transcripts[http]'") from exc
    run_input = build_run_input(request, transcript=transcript, tools=tools, resume=resume)
    reader = EventReader(limits=limits)
    collector = reading_collector(
        reader, run_input=run_input, client_tools=client_tools, strict=strict
    )
    started = time.monotonic()

    def take(found: list[tuple[int, Event]]) -> None:
        for index, event in found:
            if on_event is not None:
                on_event(event)
            collector.feed_canonical(event, index)

    async def stream(http: Any) -> None:
        request_headers = {"Accept": "text/event-stream", **(headers or {})}
        async with http.stream("POST", url, json=run_input, headers=request_headers) as response:
            status = response.status_code
            if status >= 400:
                excerpt = await _error_excerpt(response)
                raise EndpointError(f"{url}: HTTP {status}: {excerpt}")
            if 300 <= status < 400:
                # Not followed: the run input would go to wherever the server points.
                where = response.headers.get("location", "nowhere")
                raise EndpointError(
                    f"{url}: HTTP {status} redirects to {where}; not followed (use the final URL)"
                )
            async for chunk in response.aiter_bytes():
                take(reader.feed_bytes(chunk))
                if reader.stopped:
                    break  # the event limit: leaving the block closes the response
            kind = response.headers.get("content-type", "no content type")
        take(reader.close())
        if reader.intake.count == 0:
            collector.sink.report(
                "endpoint-no-events",
                f"{url} answered HTTP {status} ({kind}) with no AG-UI event; the transcript "
                "is empty",
            )

    async def run() -> None:
        if client is not None:
            await stream(client)
            return
        async with httpx.AsyncClient(timeout=timeout) as http:
            await stream(http)

    try:
        if deadline is None:
            await run()
        else:
            await asyncio.wait_for(run(), deadline)
    except asyncio.TimeoutError as exc:
        elapsed = time.monotonic() - started
        raise EndpointError(
            f"{url}: no complete answer within the {deadline} s deadline ({elapsed:.1f} s)"
        ) from exc
    except httpx.HTTPError as exc:
        raise EndpointError(f"{url}: {type(exc).__name__}: {exc}") from exc
    transcript = collector.finish()
    collector.release()  # nothing reads it again: freed when dropped, without a collection
    return transcript


# What an error response may make us read and show: a compressed body is inflated only
# this far, so a small gzip bomb stays small.
_ERROR_RAW_BYTES = 64 * 1024
_ERROR_SHOWN = 200


async def _error_excerpt(response: Any) -> str:
    """The start of an error response's body, read and decompressed within bounds."""
    raw = b""
    async for chunk in response.aiter_raw():
        raw += chunk
        if len(raw) >= _ERROR_RAW_BYTES:
            break
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding in ("gzip", "x-gzip", "deflate"):
        try:
            inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib header
            raw = inflater.decompress(raw, _ERROR_SHOWN)
        except zlib.error:
            return f"(a {encoding} body that does not inflate)"
    elif encoding != "identity":
        return f"(a {encoding}-encoded body, not shown)"
    return raw[:_ERROR_SHOWN].decode("utf-8", "replace")


def run_endpoint(url: str, request: Any, **options: Any) -> Transcript:
    """:func:`arun_endpoint` for code that is not async."""
    return asyncio.run(arun_endpoint(url, request, **options))
