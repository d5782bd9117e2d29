"""Which given ``RunAgentInput`` each run of a stream took.

A recording's inputs are one per request, but a stream's runs do not line up with them
by position: a producer sends events before ``RUN_STARTED`` (ag-ui-dify-adapter), a
recording lacks a run or has one more. A run takes the input that names its ``runId``
(their ``threadId`` not differing), else the next input no run has taken, in the order
of ``RUN_STARTED`` events; a run that ``RUN_STARTED`` announces late may trade the input
it took in order for the one that names it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RunInputs"]


class RunInputs:
    """The inputs given for a stream's runs, and which runs took which (sans-I/O)."""

    __slots__ = ("_by_run", "_current", "_next", "_taken", "inputs", "seeded")

    def __init__(self, inputs: list[dict[str, Any]]) -> None:
        #: The inputs, in the order given.
        self.inputs = inputs
        self._by_run: dict[str, list[int]] = {}
        for position, given in enumerate(inputs):
            run_id = given.get("runId")
            if isinstance(run_id, str):
                self._by_run.setdefault(run_id, []).append(position)
        self._taken: set[int] = set()
        self._next = 0
        # The input the current run took, while a late RUN_STARTED may still trade it.
        self._current: int | None = None
        #: The input that seeded the history before any event (the first), until a run
        #: takes it: that run adds nothing more from it.
        self.seeded: int | None = 0 if inputs else None

    def add(self, given: dict[str, Any]) -> int:
        """One more input, for a run still to come (a live conversation); its position."""
        position = len(self.inputs)
        self.inputs.append(given)
        run_id = given.get("runId")
        if isinstance(run_id, str):
            self._by_run.setdefault(run_id, []).append(position)
        return position

    def take(self, event: dict[str, Any] | None) -> int | None:
        """The input a new run takes (its position), or None when none is left.

        ``event`` is the run's RUN_STARTED (None for a run no RUN_STARTED announced).
        """
        if not self.inputs:
            return None
        position = self._named(event)
        if position is None:
            while self._next in self._taken:
                self._next += 1
            if self._next >= len(self.inputs):
                self._current = None
                return None
            position = self._next
        self._taken.add(position)
        self._current = position
        return position

    def trade(self, event: dict[str, Any]) -> int | None:
        """A late RUN_STARTED for the current run: the input that names it, if another.

        Returns the position of the input the run now takes, or None when it keeps the
        one it took (which then goes back to those left).
        """
        run_id = event.get("runId")
        current = self._current
        held = self.inputs[current].get("runId") if current is not None else None
        if not isinstance(run_id, str) or held == run_id or run_id not in self._by_run:
            return None
        named = self._named(event)
        if named is None:
            return None
        self._taken.add(named)
        if current is not None:
            self._taken.discard(current)
            self._next = min(self._next, current)
        self._current = named
        return named

    def _named(self, event: dict[str, Any] | None) -> int | None:
        """The first input left that names the event's run (runId, threadId not differing)."""
        if event is None:
            return None
        run_id = event.get("runId")
        if not isinstance(run_id, str):
            return None
        thread_id = event.get("threadId")
        for position in self._by_run.get(run_id, ()):
            given_thread = self.inputs[position].get("threadId")
            if position not in self._taken and (
                not isinstance(thread_id, str)
                or not isinstance(given_thread, str)
                or given_thread == thread_id
            ):
                return position
        return None
