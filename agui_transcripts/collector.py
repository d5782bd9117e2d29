"""The fold: one sans-I/O state machine from input items to a :class:`Transcript`.

:class:`Collector` chains the layers (intake, chunk expansion, verification,
application) over one shared diagnostic sink. :func:`fold` and :func:`afold` drive it
over whole sync or async sources; the CLI, the readers and the endpoint runner all use
the same machine.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable
from typing import Any, Final, Literal

from ._gc import gc_held
from .async_readers import AsyncEventStream, aread_events
from .call_views import SettledCalls
from .chunks import ContinuationName, continuation_name
from .delta_runs import DELTA_ID_KEYS, DeltaRun, ObjectRun, RunOpener
from .diagnostics import Diagnostic, DiagnosticSink
from .events import Event, EventIntake, normalize_run_input, unknown_key_count
from .limits import DEFAULT_LIMITS, Limits
from .model import MILLISECONDS_BELOW, MILLISECONDS_FROM, ToolCallRecord, ToolMessage
from .ownership import settle
from .pipeline import ProtocolPipeline
from .readers import EventReader, EventStream, ItemReader, Source, read_events, reads_as_path
from .recording import read_run_input
from .reduce import Reducer
from .restated import SharedMessages
from .text_budget import DeltaRoute
from .transcript import RunStarts, Transcript

# Compiled, a name imported from another module is a globals lookup at each read;
# these module constants are statics.
_DEFAULT_LIMITS: Final = DEFAULT_LIMITS
_DELTA_ID_KEYS: Final = DELTA_ID_KEYS
_MILLISECONDS_BELOW: Final = MILLISECONDS_BELOW
_MILLISECONDS_FROM: Final = MILLISECONDS_FROM

__all__ = ["Collector", "afold", "fold"]

# A plain delta's keys: its type, its item's id and the delta (and perhaps a timestamp).
_PLAIN_DELTA_KEYS: Final = 3
# (The timed one's count written out: interpreted, a sum of globals is two more steps.)
_TIMED_DELTA_KEYS: Final = 4
# Chunks whose continuations may take it too (the chunk layer says which).
_CHUNK_TYPES: Final = frozenset(
    {"TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK", "REASONING_MESSAGE_CHUNK"}
)
_LANE_TYPES: Final = _CHUNK_TYPES | frozenset(DELTA_ID_KEYS)

RunInput = Any
"""A ``RunAgentInput``: an ``ag_ui.core`` object or its dict, camelCase or snake_case."""


def _run_inputs(
    run_input: RunInput | list[RunInput] | None, shared: SharedMessages
) -> list[dict[str, Any]]:
    if run_input is None:
        return []
    items = run_input if isinstance(run_input, (list, tuple)) else [run_input]
    return [normalize_run_input(item, shared=shared) for item in items]


def all_millisecond_stamps(stamps: list[Any]) -> bool:
    """Whether every ``timestamp`` is epoch milliseconds as an integer.

    That form's time is recorded as it is, with no conversion that might refuse it.
    """
    for stamp in stamps:
        if type(stamp) is not int:
            return False
        number: int = stamp
        if number < _MILLISECONDS_FROM or number >= _MILLISECONDS_BELOW:
            return False
    return True


class _DeltaLane:
    """One delta type's routes by item id, and the item of its last plain delta.

    An item's route is made at its second plain delta in a row (or at a reader's run's
    first): many items have one delta (most calls' arguments), and a route nothing takes
    costs more than the delta itself.
    """

    __slots__ = ("id_key", "last_item", "routes")

    def __init__(self, id_key: str) -> None:
        self.id_key = id_key
        self.routes: dict[str, DeltaRoute] = {}
        self.last_item = ""


class Collector:
    """Folds AG-UI events into a transcript, one event at a time (sans-I/O).

    ``feed`` accepts any form of event :func:`read_events` understands (SDK objects,
    wire dicts, JSON text); read :attr:`transcript` at any time; :meth:`close` at end of
    input settles truncated runs and returns the final transcript. ``run_input`` (one
    ``RunAgentInput`` or a list, one per run) seeds the history and records each run's
    client tools. ``limits`` bounds what one stream may make it hold
    (:data:`~agui_transcripts.DEFAULT_LIMITS` unless given).

    ``observe``, if given, is shown every explicit event (chunks expanded, verified)
    just before it is applied, the ENDs owed at :meth:`close` included: a watcher that
    keeps more than the transcript (the ragas drop-in's steps and timestamps). The
    delta lane's untimed plain deltas are not shown: they change nothing but text.
    ``observe_types``, if given, shows it only the events of those types: a watcher that
    reads a few types costs no call for the rest. A plain delta with a timestamp is
    shown (the timestamp may be the first its message carries) unless the watcher reads
    no timestamps (``observe_timestamps=False``) or not that delta's type: then it takes
    the lane unseen, as untimed ones do.

    ``times=False`` records no times: runs keep no ``started_at``, ``ended_at`` or
    ``duration_ms`` and :attr:`Transcript.times` stays empty. Timestamps are still
    checked; nothing else changes. For a caller that reads only the conversation (the
    ragas drop-in), it saves a tenth of a timed stream's fold.
    """

    def __init__(
        self,
        *,
        run_input: RunInput | list[RunInput] | None = None,
        client_tools: Iterable[str] | None = None,
        strict: bool = False,
        sink: DiagnosticSink | None = None,
        limits: Limits | None = None,
        observe: Callable[[Event], None] | None = None,
        observe_types: Iterable[str] | None = None,
        observe_timestamps: bool = True,
        times: bool = True,
    ) -> None:
        self._run_input = run_input
        self._times = times
        self._client_tools = frozenset(client_tools) if client_tools is not None else None
        self._strict = strict
        self.limits = limits if limits is not None else _DEFAULT_LIMITS
        self._observe = observe
        observed = frozenset(observe_types) if observe_types is not None else None
        self._observed_types = observed
        # The delta types whose timed plain deltas may take the lane: those no watcher
        # reads a timestamp of.
        self._timed_lane_types = frozenset(
            kind
            for kind in _DELTA_ID_KEYS
            if observe is None
            or not observe_timestamps
            or (observed is not None and kind not in observed)
        )
        self._setup(sink)

    def _setup(self, sink: DiagnosticSink | None) -> None:
        self.sink = (
            sink
            if sink is not None
            else DiagnosticSink(strict=self._strict, max_kept=self.limits.max_diagnostics)
        )
        self._pipeline = ProtocolPipeline(sink=self.sink)
        self._pipeline.intake = EventIntake(self.sink, max_events=self.limits.max_events)
        self._reducer = Reducer(
            self.sink,
            run_inputs=_run_inputs(self._run_input, self._pipeline.intake.shared),
            client_tools=self._client_tools,
            max_text_chars=self.limits.max_text_chars,
            max_state_bytes=self.limits.max_state_bytes,
            chunk_marks=self._pipeline.chunks.marks,
            times=self._times,
        )
        self._closed = False
        self._run_starts: RunStarts | None = None  # the index the passing views share
        self._settled_calls = SettledCalls()  # and their calls
        # Where the next plain delta of an item goes, by delta type and item id: filled
        # by the delta lane, emptied by every other event (see feed_canonical).
        self._lanes: dict[str, _DeltaLane] = {
            kind: _DeltaLane(id_key) for kind, id_key in _DELTA_ID_KEYS.items()
        }
        # Where the next plain continuation of a lane goes, as the chunk layer resolved
        # the first, with that one's type and id: what it names (chunks.continuation_name)
        # by its lane (a subagentRunId, or none), which continues one stream at a time.
        # Interleaved subagent lanes keep one each. (Held by the lane, not by the whole
        # name: compiled, a tuple key is boxed and hashed at each lookup.)
        self._chunk_routes: dict[object, tuple[str, object, DeltaRoute]] = {}
        tables: list[dict[Any, Any]] = [lane.routes for lane in self._lanes.values()]
        self._route_tables = (*tables, self._chunk_routes)
        # Whether a route is held: most events come with none to forget.
        self._routed = False

    def _forget_routes(self) -> None:
        if self._routed:
            self._routed = False
            for routes in self._route_tables:
                if routes:
                    routes.clear()

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Everything reported so far, in stream order."""
        return self.sink.diagnostics

    def feed(self, item: object) -> None:
        """Fold one event (any accepted form)."""
        intake = self._pipeline.intake
        index = intake.count
        event = intake.normalize(item)
        if event is not None:
            self.feed_canonical(event, index)

    def feed_canonical(self, event: Event, index: int | None = None) -> None:
        """Fold one event already in canonical form (what :func:`read_events` yields)."""
        size = len(event)
        if size > _TIMED_DELTA_KEYS and event["type"] in _LANE_TYPES:
            # Keys no event defines (a recorder's own) make no delta special.
            size -= unknown_key_count(event)
        if size <= _TIMED_DELTA_KEYS:
            kind = event["type"]
            lane = self._lanes.get(kind)
            if lane is not None:
                # A plain delta: nothing but its type, its item's id, a non-empty text
                # delta and perhaps a timestamp. The one place that says so.
                item_id = event.get(lane.id_key)
                delta = event.get("delta")
                if (
                    type(item_id) is str
                    and type(delta) is str
                    and delta
                    and (
                        size == _PLAIN_DELTA_KEYS
                        or (
                            # A delta's timestamp may be the first its message shows: a
                            # watcher that reads it must see it (see _timed_lane_types).
                            kind in self._timed_lane_types
                            and type(event.get("timestamp")) in (int, float)
                        )
                    )
                ):
                    # An item the lane has just taken: nothing but events of the lane
                    # came since, so every layer is as the lane left it.
                    route = lane.routes.get(item_id)
                    if (route is not None and route.append(delta, index)) or self._plain_delta(
                        lane, kind, item_id, delta, index
                    ):
                        if size != _PLAIN_DELTA_KEYS and self._times:  # timed
                            self._reducer.note_delta_time(kind, item_id, event["timestamp"])
                        return
            elif kind in _CHUNK_TYPES:
                name = continuation_name(event, size, kind)
                if name is not None:
                    # Only lane events came since a route was kept (any other forgets
                    # them): the chunk layer would resolve a chunk with the name of the
                    # one that made it as it did that one.
                    held = self._chunk_routes.get(name[2]) if self._routed else None
                    if (
                        held is not None
                        and held[0] == kind
                        and held[1] == name[1]
                        and held[2].append(event["delta"], index)
                    ) or self._plain_chunk(event, index, name):
                        return
        if self._routed:
            self._forget_routes()
        pipeline = self._pipeline  # pipeline.feed_canonical, inlined: the hot path
        explicit = pipeline.chunks.feed(event, index=index)
        verifier = pipeline.verifier
        for item in explicit:
            verifier.feed(item, index=index)
        observe = self._observe
        if observe is not None:
            observed = self._observed_types
            for item in explicit:
                if observed is None or item["type"] in observed:
                    observe(item)
        reducer = self._reducer
        for item in explicit:
            reducer.apply(item, index)

    def feed_run(self, run: DeltaRun) -> None:
        """Fold consecutive plain deltas of one item as a reader read them.

        The first goes the usual way; where it took the delta lane, the rest append their
        joined text at once, when the text limit lets all of it in and each timestamp is
        the plain millisecond integer most are. Otherwise each is folded on its own, so
        the transcript and every diagnostic (its index included) are as if they had come
        apart.
        """
        index = run.index
        lane = self._lanes[run.kind]
        lane.last_item = run.item_id  # (its first delta makes the route)
        self.feed_canonical(run.events[0], index)
        last = run.length() - 1
        route = lane.routes.get(run.item_id) if self._routed else None
        if route is not None:
            timed = "timestamp" in run.keys
            stamps = run.stamps() if timed else []
            if (
                not timed or (run.kind in self._timed_lane_types and all_millisecond_stamps(stamps))
            ) and route.append(run.joined(), index + last):
                if timed and self._times:
                    # The last time: the first event was timed as it came, and those
                    # between change nothing the last does not.
                    self._reducer.note_delta_time(run.kind, run.item_id, stamps[-1])
                return
        for offset, event in enumerate(run.rest(), 1):
            self.feed_canonical(event, index + offset)

    def feed_items(self, items: Iterable[object]) -> None:
        """Fold every item, as :meth:`feed` on each would, runs of SDK deltas at once.

        Consecutive plain deltas of one item read from SDK event objects are folded as
        one run (see :meth:`feed_run`); nothing is read after the event limit stops the
        intake.
        """
        # item_runs's loop without its generator (see ItemReader).
        intake = self._pipeline.intake
        reader = ItemReader(intake, RunOpener(self._timed_lane_types, intake))
        held: ObjectRun | None = None
        for item in items:
            if held is not None:
                if reader.continues(held, item):
                    continue
                self._feed_held(held)
                held = None
            index, event, held = reader.read(item)
            if event is None:
                if intake.stopped:
                    break
            elif held is None:
                self.feed_canonical(event, index)
        if held is not None:
            self._feed_held(held)

    def _feed_held(self, held: ObjectRun) -> None:
        if held.length() == 1:
            self.feed_canonical(held.events[0], held.index)
        else:
            self.feed_run(held)

    def feed_stream(self, stream: EventStream) -> None:
        """Fold every event of a stream read by this collector's reader, runs as runs.

        The stream's reader must be the one :func:`reading_collector` was given.
        """
        for item in stream.with_delta_runs(self._timed_lane_types):
            if isinstance(item, DeltaRun):
                self.feed_run(item)
            else:
                index, event = item
                self.feed_canonical(event, index)

    def _plain_delta(
        self, lane: _DeltaLane, kind: str, item_id: str, delta: str, index: int | None
    ) -> bool:
        """The delta lane: a plain delta for an item every layer holds open.

        Most events of a stream are such deltas, and they change nothing but the item's
        text: the layers are asked (each question answers False where its layer would
        react) and only the reducer acts. Anything else (metadata, a closed item, a chunk
        stream open beside an explicit delta, a conflict) takes the full path.
        ``lane``: the delta type's (see :class:`_DeltaLane` for when a route is made).
        """
        pipeline = self._pipeline
        if not (
            pipeline.chunks.is_idle()
            and pipeline.verifier.accepts_delta(kind, item_id)
            and self._reducer.append_delta(kind, item_id, delta, index)
        ):
            return False
        if item_id != lane.last_item:
            lane.last_item = item_id
            return True
        route = self._reducer.delta_route(kind, item_id)
        if route is not None:
            lane.routes[item_id] = route
            self._routed = True
        return True

    def _plain_chunk(self, event: Event, index: int | None, name: ContinuationName) -> bool:
        """The delta lane for a chunk that only continues its open stream.

        ``name``: what the chunk names (:func:`~agui_transcripts.chunks.continuation_name`).
        """
        pipeline = self._pipeline
        found = pipeline.chunks.resolve_continuation(name)
        if found is None:
            return False
        content, stream_id, tag = found
        if not (
            pipeline.verifier.accepts_delta(content, stream_id, tag)
            and self._reducer.append_delta(content, stream_id, event["delta"], index)
        ):
            return False
        route = self._reducer.delta_route(content, stream_id)
        if route is not None:
            event_type, item_id, lane = name
            self._chunk_routes[lane] = (event_type, item_id, route)
            self._routed = True
        return True

    def close(self) -> Transcript:
        """End of input: close owed chunk streams, settle the last run, return the result."""
        self._end_input()
        return self.transcript

    def _end_input(self) -> None:
        self._forget_routes()
        if not self._closed:
            self._closed = True
            observe = self._observe
            observed = self._observed_types
            for explicit in self._pipeline.close_streams():
                if observe is not None and (observed is None or explicit["type"] in observed):
                    observe(explicit)
                self._reducer.apply(explicit, None)
            self._pipeline.verifier.close()
            self._reducer.close()
            self.sink.finish()

    def finish(self) -> Transcript:
        """:meth:`close` for a collector nobody feeds or reads again: the final transcript.

        It takes the collector's runs and tool-call records as they are, without the
        copies :attr:`transcript` makes: what ``fold`` and the endpoint runner return.
        """
        self._end_input()
        return self._snapshot(copy=False)

    def release(self) -> None:
        """Break the reference cycles of the machinery, for a collector dropped now.

        Its handlers are bound methods and its messages sit in a ring of nodes. ``fold``
        holds the cyclic garbage collector and leaves what it made in the oldest
        generation, where a cycle would keep the collector, and every message of the
        transcript with it, until a full collection, which a loop of folds may not trigger
        for a long time. Released, the collector is freed as soon as it is dropped, and a
        transcript it returned when its reader drops it. Nothing may feed or read the
        collector after this (:meth:`clear` starts it over).
        """
        self._observe = None
        self._reducer.release()
        self._pipeline.verifier.release()

    def clear(self) -> None:
        """Forget everything and start over (same options)."""
        self._setup(None)

    def add_client_result(
        self,
        tool_call_id: str,
        content: str | list[dict[str, Any]],
        *,
        error: str | None = None,
        message_id: str | None = None,
    ) -> ToolMessage | None:
        """Answer a client tool call before the next run, as an eval harness does.

        The tool message goes right after its call; it is ``undelivered`` until a run
        input carries it (see :meth:`Transcript.next_run_input`). A call that already has
        an answer keeps it: the attempt is reported and None returned.
        """
        self._forget_routes()
        return self._reducer.add_client_result(
            tool_call_id, content, error=error, message_id=message_id
        )

    def add_run_input(self, run_input: RunInput) -> None:
        """The ``RunAgentInput`` of the next run, before its events are fed.

        A live client knows each run's input only when it sends it: the run that
        ``RUN_STARTED`` announces takes it (by ``runId``, else in order), exactly as with
        inputs given up front.
        """
        self._forget_routes()
        self._reducer.add_run_input(
            normalize_run_input(run_input, shared=self._pipeline.intake.shared)
        )

    @property
    def transcript(self) -> Transcript:
        """The transcript as it stands now, with tool-call ownership settled."""
        return self._snapshot(copy=True)

    def passing_view(self, settled_from: int = 0) -> Transcript:
        """The transcript as it stands now, to be read before the fold goes on.

        Only the call records are copied (settling ownership writes to them, and the fold
        reads them); runs, times and lists are the fold's own and change as it goes on.
        The records dict is kept from one view to the next (the next view changes it).
        The message list is the one the fold appends to (a later change other than an
        append lists the messages anew and leaves it as it was), and the diagnostics the
        sink's, which only grow: so a caller that kept an earlier view's lists reads what
        came since from where it stopped. What a caller that reads each run's end at once
        needs, without copying the conversation at each one. ``settled_from``: the records
        before that position (in :attr:`Transcript.tool_calls` order) are left the fold's
        own, neither copied nor settled, for a caller that kept what it read of them.
        """
        return self._snapshot(copy="records", settled_from=settled_from)

    def _snapshot(self, *, copy: bool | Literal["records"], settled_from: int = 0) -> Transcript:
        self._forget_routes()  # what the caller does with the transcript is theirs
        reducer = self._reducer
        if copy:
            # Records are copied, so settling them leaves the fold's own as they were, and
            # (copy=True) runs too, so a transcript read mid-stream keeps its states.
            runs = [run.copy() for run in reducer.runs] if copy is True else reducer.runs
            settling: Iterable[ToolCallRecord]
            if copy == "records":  # one dict for every passing view, changed where it must
                calls, settling = self._settled_calls.view(
                    reducer.tool_calls, settled_from, reducer.calls_replaced
                )
            else:
                calls = {call_id: record.copy() for call_id, record in reducer.tool_calls.items()}
                settling = calls.values()
            earlier = [record.copy() for record in reducer.earlier_calls]
        else:
            runs, calls, earlier = reducer.runs, reducer.tool_calls, reducer.earlier_calls
            settling = calls.values()
        for records in (settling, earlier):
            settle(
                records,
                runs,
                client_tools=self._client_tools,
                delivered_ids=reducer.delivered_ids,
            )
        passing = copy == "records"
        transcript = Transcript(
            messages=reducer.listed_messages if passing else reducer.messages,
            runs=runs,
            tool_calls=calls,
            state=reducer.state,
            diagnostics=self.sink.diagnostics if passing else list(self.sink.diagnostics),
            superseded=list(reducer.superseded) if copy is True else reducer.superseded,
            call_aliases=dict(reducer.call_aliases) if copy is True else reducer.call_aliases,
            earlier_calls=earlier,
            times=reducer.times.copy() if copy is True else reducer.times,
        )
        if passing:
            # Views share the fold's runs, so one index of them serves every view.
            if self._run_starts is None or not self._run_starts.indexes(reducer.runs):
                self._run_starts = RunStarts(reducer.runs)
            transcript._run_starts = self._run_starts
        return transcript


def reading_collector(
    reader: EventReader,
    *,
    run_input: RunInput | list[RunInput] | None,
    client_tools: Iterable[str] | None,
    strict: bool,
    times: bool = True,
) -> Collector:
    """A collector fed by ``reader``, with the reader's limits.

    They share one intake and one sink, so indices and diagnostics are one sequence.
    """
    reader.sink.strict = strict
    collector = Collector(
        run_input=run_input,
        client_tools=client_tools,
        strict=strict,
        sink=reader.sink,
        limits=reader.limits,
        times=times,
    )
    collector._pipeline.intake = reader.intake
    return collector


def fold(
    events: Source | EventStream | Iterable[object],
    *,
    run_input: RunInput | list[RunInput] | None = None,
    client_tools: Iterable[str] | None = None,
    strict: bool = False,
    limits: Limits | None = None,
    inputs_beside: bool = True,
) -> Transcript:
    """Fold a whole stream into its transcript.

    ``events`` is anything :func:`read_events` reads (a path, bytes, text, a file, an
    iterable of SDK objects or wire dicts) or a stream it returned. ``run_input`` is the
    ``RunAgentInput`` of each run (one, or a list): the user turns and client results the
    stream itself does not carry. Given a path and no ``run_input``, ``fold`` reads the
    inputs recorded beside it (``NAME.input.json``, see
    :mod:`agui_transcripts.recording`), as the command line does; ``inputs_beside=False``
    folds the log alone. ``client_tools`` names the tools the client executes, when no
    run input says. Lenient by default: every repair is a diagnostic on the transcript.
    ``strict=True`` raises :class:`~agui_transcripts.ProtocolError` where the reference
    client would reject the stream. ``limits`` (:class:`~agui_transcripts.Limits`) bounds
    what a hostile or broken log can make it hold.

    Folding data at hand (a path, bytes, text, a file, a list), ``fold`` holds the
    cyclic garbage collector until it returns: the collections would only walk the
    transcript being built. Live sources (iterators, responses) leave it alone.
    """
    if run_input is None and inputs_beside and reads_as_path(events):
        run_input = read_run_input(events, limits=limits)
    stream = (
        events
        if isinstance(events, EventStream)
        else read_events(events, strict=strict, limits=limits)
    )
    collector = reading_collector(
        stream.reader, run_input=run_input, client_tools=client_tools, strict=strict
    )
    with gc_held(stream.is_local):
        try:
            collector.feed_stream(stream)
            return collector.finish()
        finally:
            collector.release()
            stream.close()


async def afold(
    events: AsyncIterable[Any] | AsyncEventStream | Any,
    *,
    run_input: RunInput | list[RunInput] | None = None,
    client_tools: Iterable[str] | None = None,
    strict: bool = False,
    limits: Limits | None = None,
) -> Transcript:
    """Fold an async stream (an async iterable of events, lines or bytes, or a response)."""
    stream = (
        events
        if isinstance(events, AsyncEventStream)
        else aread_events(events, strict=strict, limits=limits)
    )
    collector = reading_collector(
        stream.reader, run_input=run_input, client_tools=client_tools, strict=strict
    )
    try:
        async for index, event in stream.indexed():
            collector.feed_canonical(event, index)
        return collector.finish()
    finally:
        collector.release()
