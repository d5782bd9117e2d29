"""The transport under the live client: POST a run input, hand its body over as it streams.

An endpoint is a URL, or an ASGI application (FastAPI, Starlette: what pydantic-ai,
ag-ui-langgraph and agent-framework serve) run in-process through
``httpx.ASGITransport``, without a port. Needs the ``http`` extra (httpx), imported
only when a run is sent.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

__all__ = [
    "ASGIApp",
    "Endpoint",
    "EndpointError",
    "TransportError",
    "endpoint_name",
    "http_client",
    "import_httpx",
    "post_run",
]

ASGIApp: TypeAlias = Callable[..., Awaitable[None]]
"""An ASGI application: ``await app(scope, receive, send)`` (typed loosely: frameworks
type the three arguments each their own way)."""

Endpoint: TypeAlias = "str | ASGIApp"
"""Where runs go: an ``http(s)://`` URL, or an ASGI application run in-process."""

# The URL an in-process application is reached under (nothing leaves the process).
_IN_PROCESS = "http://agent.invalid/"
# HTTP statuses that say "try again later", not "your request is wrong".
_RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


class EndpointError(RuntimeError):
    """The endpoint could not be run: an HTTP error, a transport error, or the deadline."""


class TransportError(EndpointError):
    """A failure of the transport, not of the agent: worth retrying the conversation.

    A refused or dropped connection, a read timeout, or an HTTP status that asks to try
    again (429, 5xx). ``events`` is how many events had arrived before it: a retry starts
    the conversation over, since what arrived is already part of it.
    """

    def __init__(self, message: str, *, events: int = 0) -> None:
        super().__init__(message)
        self.events = events


def endpoint_name(endpoint: Endpoint) -> str:
    """The endpoint as error messages show it."""
    if isinstance(endpoint, str):
        return endpoint
    return f"the in-process app {getattr(endpoint, '__name__', type(endpoint).__name__)}"


@asynccontextmanager
async def http_client(
    endpoint: Endpoint, *, timeout: float, client: Any = None
) -> AsyncIterator[tuple[Any, str]]:
    """An ``httpx.AsyncClient`` for the endpoint and the URL to POST to.

    ``client``, when given, is used as it is (and not closed). An ASGI application gets
    a client over ``httpx.ASGITransport``, which hands over each response whole, when the
    application has finished it: the timeouts then bound the run, not each read.
    """
    httpx = import_httpx()
    if client is not None:
        yield client, endpoint if isinstance(endpoint, str) else _IN_PROCESS
        return
    if isinstance(endpoint, str):
        async with httpx.AsyncClient(timeout=timeout) as http:
            yield http, endpoint
        return
    transport = httpx.ASGITransport(app=endpoint)
    async with httpx.AsyncClient(transport=transport, timeout=timeout) as http:
        yield http, _IN_PROCESS


def import_httpx() -> Any:
    """httpx, or an ImportError naming the extra that brings it."""
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "running an endpoint needs httpx: pip install 'agui-transcripts[http]'"
        ) from exc
    return httpx


async def post_run(
    http: Any,
    url: str,
    run_input: dict[str, Any],
    *,
    name: str,
    headers: Mapping[str, str] | None,
    deadline: float | None,
    body: Callable[[bytes], bool],
    received: Callable[[], int],
) -> str:
    """POST one run input and hand each chunk of the body to ``body``; its content type.

    ``body`` returns False to stop reading (the event limit); ``received`` counts the
    events read so far (what a :class:`TransportError` reports). TLS certificates are
    verified (httpx's default); nothing is sent but the run input, ``Accept`` and
    ``headers``, and no header value is logged or put in an error message.
    """
    httpx = import_httpx()
    started = time.monotonic()
    kind = "no content type"

    async def stream() -> None:
        nonlocal kind
        request_headers = {"Accept": "text/event-stream", **(headers or {})}
        async with http.stream("POST", url, json=run_input, headers=request_headers) as response:
            status = response.status_code
            if status >= 400:
                excerpt = await _error_excerpt(response)
                error = TransportError if status in _RETRYABLE_STATUS else EndpointError
                raise error(f"{name}: HTTP {status}: {excerpt}")
            if 300 <= status < 400:
                # Not followed: the run input would go to wherever the server points.
                where = response.headers.get("location", "nowhere")
                raise EndpointError(
                    f"{name}: HTTP {status} redirects to {where}; not followed (use the final URL)"
                )
            kind = response.headers.get("content-type", "no content type")
            async for chunk in response.aiter_bytes():
                if not body(chunk):
                    break  # leaving the block closes the response

    try:
        if deadline is None:
            await stream()
        else:
            await asyncio.wait_for(stream(), deadline)
    except asyncio.TimeoutError as exc:
        elapsed = time.monotonic() - started
        raise EndpointError(
            f"{name}: no complete answer within the {deadline} s deadline ({elapsed:.1f} s)"
        ) from exc
    except httpx.TransportError as exc:
        raise TransportError(
            f"{name}: {type(exc).__name__}: {exc}".rstrip(": "), events=received()
        ) from exc
    except httpx.HTTPError as exc:
        raise EndpointError(f"{name}: {type(exc).__name__}: {exc}") from exc
    return str(kind)


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
