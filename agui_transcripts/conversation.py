"""One thread across runs: the live AG-UI client a harness drives.

A :class:`Conversation` sends each run's ``RunAgentInput`` to an endpoint and folds the
events into one collector for the whole thread, so every run's messages are in one
:class:`~agui_transcripts.Transcript` and tool-call ownership is carried from run to run,
never re-derived from a replayed history. Between runs the application answers client
calls (:meth:`Conversation.add_client_result`), resumes interrupts
(:meth:`Conversation.resume`) and says the next user turn (:meth:`Conversation.say`);
:meth:`Conversation.next_run_input` is what the next run will send.

It records what it sent and received: :meth:`Conversation.save` writes the log and its
``NAME.input.json`` in the layout :func:`~agui_transcripts.fold`, the CLI and the dataset
builders read, and folding that recording gives the transcript the conversation holds.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from .client_tools import ClientTools
from .collector import reading_collector
from .events import Event, normalize_run_input
from .interrupts import InterruptAnswer, resume_entry
from .limits import Limits
from .model import JSONObject, ToolMessage, pending_interrupts
from .readers import EventReader
from .recording import read_run_input, run_input_path
from .transcript import Transcript, resume_entries
from .transport import TransportError, endpoint_name, http_client, post_run

__all__ = ["Conversation", "ConversationError", "conversation_of"]


class ConversationError(RuntimeError):
    """A conversation asked to do what its state does not allow (say over open calls)."""


class Conversation:
    """A live AG-UI thread: runs sent to one endpoint, folded into one transcript.

    ``endpoint`` is a URL or an ASGI application (see :mod:`agui_transcripts.endpoint`).
    ``tools`` are the client's tools: a :class:`~agui_transcripts.ClientTools` registry,
    a mapping of names to functions, functions, or AG-UI ``Tool`` dicts the application
    answers itself; all are declared in every run's ``tools``. ``thread_id``, ``state``,
    ``context``, ``forwarded_props`` and ``parent_run_id`` go into the run inputs.
    ``timeout`` bounds each network step, ``deadline`` each run (seconds, None for
    none). ``retries`` retries a run whose request failed in transport before any event
    arrived (after ``backoff`` seconds, doubling); a failure once events have arrived is
    raised, since those events are already part of the thread.

    Use :meth:`arun` from async code and :meth:`run` elsewhere.
    """

    def __init__(
        self,
        endpoint: Any,
        *,
        tools: ClientTools | Mapping[str, Callable[..., Any]] | Iterable[Any] | None = None,
        client_tools: Iterable[str] | None = None,
        thread_id: str | None = None,
        state: Any = None,
        context: list[JSONObject] | None = None,
        forwarded_props: Any = None,
        parent_run_id: str | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 60.0,
        deadline: float | None = 900.0,
        retries: int = 0,
        backoff: float = 0.5,
        client: Any = None,
        strict: bool = False,
        limits: Limits | None = None,
    ) -> None:
        self.endpoint = endpoint
        declared = [tool for tool in tools or () if isinstance(tool, Mapping)] if tools else []
        functions = (
            tools
            if isinstance(tools, (ClientTools, Mapping))
            else [tool for tool in tools or () if not isinstance(tool, Mapping)]
        )
        #: The registered client tools, run by :func:`~agui_transcripts.run_conversation`.
        self.tools = ClientTools.of(functions)
        self._declared: list[JSONObject] = self.tools.definitions() + [dict(t) for t in declared]
        self.thread_id = thread_id or f"thread-{uuid.uuid4().hex[:12]}"
        self._state = state if state is not None else {}
        self._context = list(context or [])
        self._forwarded_props = forwarded_props if forwarded_props is not None else {}
        self._parent_run_id = parent_run_id
        self.headers = headers
        self.timeout = timeout
        self.deadline = deadline
        self.retries = retries
        self.backoff = backoff
        self.client = client
        self._reader = EventReader(limits=limits, strict=strict)
        self._collector = reading_collector(
            self._reader, run_input=None, client_tools=client_tools, strict=strict
        )
        self._user: list[JSONObject] = []  # user turns for the next run
        self._resume: dict[str, JSONObject] = {}  # resume entries for the next run
        #: The run inputs sent, in order (what ``NAME.input.json`` holds).
        self.inputs: list[JSONObject] = []
        self._log = bytearray()
        self._version = 0
        self._closed = False
        self._final: Transcript | None = None

    # -- reading ---------------------------------------------------------------------

    @property
    def transcript(self) -> Transcript:
        """Every run so far in one transcript, ownership settled (a copy of the runs)."""
        if self._final is not None:
            return self._final
        transcript = self._collector.transcript
        transcript.origin = (self, self._version)
        return transcript

    @property
    def declared_tools(self) -> list[JSONObject]:
        """The tools every run input declares: the registry's, then the dicts given."""
        return [dict(tool) for tool in self._declared]

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has ended the conversation."""
        return self._closed

    @property
    def log(self) -> bytes:
        """The bodies the endpoint answered, as one log (what :meth:`save` writes)."""
        return bytes(self._log)

    @property
    def log_format(self) -> str:
        """``sse`` or ``jsonl``: how the endpoint streamed (``sse`` before any run)."""
        return "jsonl" if self._reader.format == "jsonl" else "sse"

    # -- between runs ----------------------------------------------------------------

    def say(self, text: str, *, force: bool = False, message_id: str | None = None) -> None:
        """The next user turn, sent with the next run.

        Refused (:class:`ConversationError`) while client calls or interrupts wait for an
        answer, since a new turn would leave them unanswered for good; ``force=True``
        sends it anyway (the calls are then abandoned, as the agent sees them).
        """
        self._check_open()
        if not force:
            waiting = self.transcript.continuation()
            unresumed = [i for i in waiting.interrupts if i not in self._resume]
            if waiting.client_calls or unresumed:
                what = []
                if waiting.client_calls:
                    what.append(f"client call(s) {', '.join(waiting.client_calls)}")
                if unresumed:
                    what.append(f"interrupt(s) {', '.join(unresumed)}")
                raise ConversationError(
                    f"{' and '.join(what)} still wait for an answer: answer them "
                    "(add_client_result, resume) or say(..., force=True)"
                )
        self._user.append(
            {
                "id": message_id or f"user-{uuid.uuid4().hex[:12]}",
                "role": "user",
                "content": text,
            }
        )

    def add_client_result(
        self,
        tool_call_id: str,
        content: str | list[dict[str, Any]],
        *,
        error: str | None = None,
        message_id: str | None = None,
    ) -> ToolMessage | None:
        """Answer a client call; the result goes right after its call, and out next run.

        A call that already has an answer keeps it: the attempt is reported (a
        diagnostic) and None returned. An unknown call id raises ``KeyError``.
        """
        self._check_open()
        message = self._collector.add_client_result(
            tool_call_id, content, error=error, message_id=message_id
        )
        self._version += 1
        return message

    def resume(
        self,
        interrupt_id: str,
        payload: Any = None,
        *,
        status: str = "resolved",
        metadata: dict[str, Any] | None = None,
    ) -> JSONObject:
        """Answer a pending interrupt in the next run; returns the ``ResumeEntry``.

        The payload is checked against the interrupt's ``responseSchema`` when it has
        one (:class:`~agui_transcripts.PayloadError`). An id that no pending interrupt
        has raises ``KeyError``.
        """
        self._check_open()
        if status not in ("resolved", "cancelled"):
            raise ValueError(f"a resume status is 'resolved' or 'cancelled', not {status!r}")
        interrupt = self.pending_interrupt(interrupt_id)
        answer = InterruptAnswer(status, payload, metadata)  # type: ignore[arg-type]
        entry = resume_entry(interrupt, answer)
        self._resume[interrupt_id] = entry
        return entry

    def answer(self, interrupt_id: str, answer: InterruptAnswer) -> JSONObject:
        """:meth:`resume` with an :class:`~agui_transcripts.InterruptAnswer`."""
        return self.resume(
            interrupt_id, answer.payload, status=answer.status, metadata=answer.metadata
        )

    def resume_all(self, resume: Mapping[str, str | JSONObject] | list[JSONObject]) -> None:
        """Resume entries in :meth:`Transcript.next_run_input`'s ``resume`` forms."""
        for entry in resume_entries(resume):
            interrupt_id = str(entry.get("interruptId"))
            self.resume(
                interrupt_id,
                entry.get("payload"),
                status=str(entry.get("status", "resolved")),
                metadata=entry.get("metadata"),
            )

    def pending_interrupt(self, interrupt_id: str) -> JSONObject:
        """The pending interrupt with this id (``KeyError`` if none)."""
        for interrupt in pending_interrupts(self._collector.transcript.runs):
            if interrupt.get("id") == interrupt_id:
                return interrupt
        raise KeyError(f"no pending interrupt has the id {interrupt_id!r}")

    def next_run_input(self, *, run_id: str | None = None) -> JSONObject:
        """The ``RunAgentInput`` the next run sends.

        The history with client results right after their calls, the user turns
        :meth:`say` queued, the resume entries, the declared tools (those of the last run
        when none were declared here), and ``parentRunId``: the interrupted run's id when
        resuming, else the one the conversation was given.
        """
        transcript = self._collector.transcript
        last = transcript.runs[-1] if transcript.runs else None
        run_input = transcript.next_run_input(
            run_id=run_id,
            thread_id=self.thread_id,
            tools=self._declared if self._declared or last is None else None,
            resume=list(self._resume.values()) or None,
            context=self._context,
            forwarded_props=self._forwarded_props,
        )
        if not transcript.runs and not self.inputs:
            run_input["state"] = self._state
        run_input["messages"].extend(dict(message) for message in self._user)
        parent = self._parent_run_id
        if self._resume and last is not None and last.run_id is not None:
            parent = last.run_id
        if parent is not None:
            run_input["parentRunId"] = parent
        return run_input

    def _check_open(self) -> None:
        if self._closed:
            last = self._final.runs[-1] if self._final is not None and self._final.runs else None
            why = (
                ": its last run was cut off (no RUN_FINISHED or RUN_ERROR)"
                if last is not None and last.outcome == "truncated"
                else ""
            )
            raise ConversationError(f"the conversation is closed{why}")

    # -- running ---------------------------------------------------------------------

    async def arun(
        self,
        request: Any = None,
        *,
        endpoint: Any = None,
        on_event: Callable[[Event], None] | None = None,
        headers: dict[str, str] | None = None,
        client: Any = None,
    ) -> Transcript:
        """Send the next run and fold what streams back; the whole thread's transcript.

        ``request``, when given, is the run's ``RunAgentInput`` (object or dict) instead
        of :meth:`next_run_input`: it must be for this thread (``ValueError`` if not), and
        only what it adds to the history joins it. Raises
        :class:`~agui_transcripts.EndpointError` when the endpoint cannot be run.
        """
        self._check_open()
        if self._reader.format == "json":
            raise ConversationError(
                "the endpoint answered with a JSON document, not an event stream: "
                "only SSE and JSONL streams can be continued"
            )
        run_input = self._given_input(request) if request is not None else self.next_run_input()
        target = endpoint if endpoint is not None else self.endpoint
        name = endpoint_name(target)
        reader, collector = self._reader, self._collector
        before = reader.intake.count
        sent = False

        def take(found: list[tuple[int, Event]]) -> None:
            for index, event in found:
                if on_event is not None:
                    on_event(event)
                collector.feed_canonical(event, index)

        def send() -> None:
            nonlocal sent
            if not sent:  # the run exists once its answer starts
                sent = True
                self.inputs.append(run_input)
                collector.add_run_input(run_input)

        def body(chunk: bytes) -> bool:
            send()
            self._log += chunk
            take(reader.feed_bytes(chunk))
            return not reader.stopped

        attempt = 0
        while True:
            try:
                async with http_client(
                    target, timeout=self.timeout, client=client or self.client
                ) as (http, url):
                    kind = await post_run(
                        http,
                        url,
                        run_input,
                        name=name,
                        headers=headers if headers is not None else self.headers,
                        deadline=self.deadline,
                        body=body,
                        received=lambda: reader.intake.count - before,
                    )
                break
            except TransportError as error:
                if sent or attempt >= self.retries:
                    error.events = reader.intake.count - before
                    raise
                await asyncio.sleep(self.backoff * 2**attempt)
                attempt += 1
        send()
        self._end_body(take)
        if reader.intake.count == before:
            collector.sink.report(
                "endpoint-no-events",
                f"{name} answered ({kind}) with no AG-UI event; the run has no events",
            )
        self._user = []
        self._resume = {}
        self._version += 1
        runs = self._collector.transcript.runs
        if runs and runs[-1].outcome is None:
            # Cut off (no RUN_FINISHED or RUN_ERROR): the agent's state is unknown, so the
            # thread ends here, the run truncated, as a fold of the recording ends it.
            return self.close()
        return self.transcript

    def run(self, request: Any = None, **options: Any) -> Transcript:
        """:meth:`arun` for code that is not async (same arguments)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.arun(request, **options))
        raise ConversationError(
            "Conversation.run() was called inside a running event loop (a notebook, async "
            "code): use 'await conversation.arun()'"
        )

    def _end_body(self, take: Callable[[list[tuple[int, Event]]], None]) -> None:
        """Ends a response's body, so the next one starts on a fresh event or line.

        The same separator goes into the log, so the recording folds as it was read.
        """
        reader, log = self._reader, self._log
        if not log:
            return
        separator = b""
        if reader.format == "sse" and not (log.endswith((b"\n\n", b"\r\n\r\n"))):
            separator = b"\n" if log.endswith(b"\n") else b"\n\n"
        elif reader.format == "jsonl" and not log.endswith(b"\n"):
            separator = b"\n"
        elif reader.format == "json":
            take(reader.close())  # a whole document: nothing can follow it
        if separator:
            log += separator
            take(reader.feed_bytes(separator))

    def _given_input(self, request: Any) -> JSONObject:
        run_input = normalize_run_input(request)
        thread = run_input.get("threadId")
        if isinstance(thread, str) and thread != self.thread_id:
            if self.inputs:
                raise ValueError(
                    f"the request is for thread {thread!r}, not this conversation's "
                    f"{self.thread_id!r}: it cannot be merged"
                )
            self.thread_id = thread
        if self._user or self._resume:
            raise ConversationError(
                "user turns or resume entries are queued for the next input: send them "
                "with arun() without a request, or give them in the request"
            )
        return run_input

    @classmethod
    def of(cls, transcript: Transcript) -> Conversation:
        """The live conversation a transcript came from (see :func:`conversation_of`)."""
        return conversation_of(transcript)

    def close(self) -> Transcript:
        """End the conversation: a run left open is truncated. The final transcript.

        A run whose stream ends without ``RUN_FINISHED`` or ``RUN_ERROR`` closes the
        conversation itself, since nothing can follow it reliably.
        """
        if self._final is None:
            self._closed = True
            reader, collector = self._reader, self._collector
            for index, event in reader.close():
                collector.feed_canonical(event, index)
            self._final = collector.close()
            self._final.origin = None
        return self._final

    # -- recordings ------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the log and its ``NAME.input.json``; returns the log's path.

        ``path`` names the log; without a ``.sse``/``.jsonl`` suffix the format's is
        added. Folding it (``fold(path)``) gives the transcript this conversation holds.
        """
        target = Path(path)
        if target.suffix not in (".sse", ".jsonl"):
            target = target.with_name(f"{target.name}.{self.log_format}")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, self.log)
        inputs = json.dumps(self.inputs, indent=1, ensure_ascii=False) + "\n"
        write_atomically(run_input_path(target), inputs.encode("utf-8"))
        return target

    @classmethod
    def from_log(cls, path: str | os.PathLike[str], endpoint: Any, **options: Any) -> Conversation:
        """A conversation that continues a recording (a log and its ``NAME.input.json``).

        The recording is folded into the live state, so ownership is what it was, and
        the next run goes to ``endpoint``. ``options`` are the constructor's.
        """
        inputs = read_run_input(path) or []
        inputs = inputs if isinstance(inputs, list) else [inputs]
        conversation = cls(endpoint, **options)
        for given in inputs:
            normalized = normalize_run_input(given)
            conversation.inputs.append(normalized)
            conversation._collector.add_run_input(normalized)
        data = Path(path).read_bytes()
        conversation._log += data
        collector = conversation._collector

        def take(found: list[tuple[int, Event]]) -> None:
            for index, event in found:
                collector.feed_canonical(event, index)

        take(conversation._reader.feed_bytes(data))
        conversation._end_body(take)
        thread = conversation._collector.transcript.thread_id
        if thread is not None and options.get("thread_id") is None:
            conversation.thread_id = thread
        return conversation


def conversation_of(transcript: Transcript) -> Conversation:
    """The live conversation a transcript was read from, to continue it.

    ``ValueError`` when there is none (a fold of a log) or when the conversation has
    moved on since (only its latest transcript continues it).
    """
    origin = transcript.origin
    if origin is None:
        raise ValueError(
            "this transcript does not come from a live conversation (it was folded from a "
            "log, or its conversation is closed): Conversation.from_log(path, endpoint) "
            "continues a recording"
        )
    conversation, version = origin
    if not isinstance(conversation, Conversation) or version != conversation._version:
        raise ValueError(
            "this transcript is an earlier state of its conversation, which has moved on: "
            "continue from the conversation's latest transcript"
        )
    return conversation


def write_atomically(target: Path, data: bytes) -> None:
    """Write a file whole or not at all (a temporary beside it, then a rename)."""
    partial = target.with_name(f".{target.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, target)
