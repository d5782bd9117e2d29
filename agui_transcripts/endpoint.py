"""Running an AG-UI endpoint: POST a run input, fold the events as they stream back.

Needs the ``http`` extra (httpx). ``run_endpoint`` runs one request against a URL or an
in-process ASGI application (see :mod:`agui_transcripts.transport`) and returns its
transcript; the transcript it returns continues the same
:class:`~agui_transcripts.Conversation` when given back as ``transcript=``.

HTTP failures, transport failures and the deadline raise :class:`EndpointError`
(:class:`TransportError` for those worth a retry); protocol violations are diagnostics
(or a :class:`~agui_transcripts.ProtocolError` with ``strict=True``), never swallowed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any

from ._blocking import blocking
from .conversation import Conversation, conversation_of
from .events import Event, normalize_run_input
from .limits import Limits
from .transcript import Transcript
from .transport import Endpoint, EndpointError, TransportError

__all__ = [
    "EndpointError",
    "TransportError",
    "arun_endpoint",
    "build_run_input",
    "run_endpoint",
]


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
    url: Endpoint,
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

    ``request`` is a ``RunAgentInput`` (object or dict) or a user message's text.
    ``transcript``, one that this function (or a :class:`~agui_transcripts.Conversation`)
    returned, continues its conversation: the result holds every run of the thread, with
    ownership carried over. A transcript folded from a log cannot be continued this way
    (``Conversation.from_log`` can), nor an older one of a conversation that has moved
    on: both raise ``ValueError``, as does a request for another thread.

    ``timeout`` bounds each network step (connecting, and each read: a stream silent
    that long fails); ``deadline`` (seconds, None for none) the whole run. ``limits``
    bounds what the response can make us hold; past the event limit the response is
    closed. ``on_event`` sees each canonical event as it arrives. ``client`` may be an
    ``httpx.AsyncClient`` of your own (it is not closed).
    """
    if transcript is not None:
        conversation = conversation_of(transcript)
        if tools is not None or client_tools is not None:
            raise ValueError(
                "tools and client_tools belong to the conversation; they cannot change "
                "when continuing a transcript"
            )
    else:
        conversation = Conversation(
            url,
            tools=tools,
            client_tools=client_tools,
            strict=strict,
            limits=limits,
            headers=headers,
            timeout=timeout,
            deadline=deadline,
            client=client,
        )
    if isinstance(request, str):
        conversation.say(request)
        if resume is not None:
            conversation.resume_all(resume)
        return await conversation.arun(
            endpoint=url, on_event=on_event, headers=headers, client=client
        )
    return await conversation.arun(
        request, endpoint=url, on_event=on_event, headers=headers, client=client
    )


run_endpoint = blocking(arun_endpoint, "run_endpoint")
