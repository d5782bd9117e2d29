"""One self-rewriting progress line for a terminal, and nothing when not on one.

Hand-written rather than a progress library: a count, a rate and a time left do not
justify a dependency in the core install. It is redrawn at most ten times a second and
cut to the terminal's width, so a narrow pane shows one line, never hundreds of wrapped
ones.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import IO

from ._terminal import visible

__all__ = ["REDRAW_EVERY", "LiveLine", "Progress", "clock"]

#: Seconds between two redraws (the last step is always drawn).
REDRAW_EVERY = 0.1


class LiveLine:
    """One terminal line rewritten in place: at most every ``REDRAW_EVERY`` seconds.

    ``render`` is asked for the text only when it will be drawn, given the terminal's
    width, and must keep to fewer columns (a full line would wrap).
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.drawn = False
        self._drawn_at = 0.0

    def draw(self, render: Callable[[int], str], *, last: bool = False) -> None:
        now = time.monotonic()
        if self.drawn and now - self._drawn_at < REDRAW_EVERY and not last:
            return
        self.drawn, self._drawn_at = True, now
        self.stream.write("\r\x1b[K" + render(shutil.get_terminal_size().columns))
        self.stream.flush()

    def clear(self) -> None:
        """Clear the line, so what is printed next starts at the margin."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


class Progress:
    """Bar, done/total, rate, time left and the current name, on one terminal line."""

    def __init__(
        self, total: int, stream: IO[str], *, unit: str = "logs", quiet: bool = False
    ) -> None:
        self.total = total
        self.stream = stream
        self.unit = unit
        self.live = not quiet and total > 1 and stream.isatty()
        self.done = 0
        self.started = time.monotonic()
        self._line = LiveLine(stream)

    def step(self, name: str) -> None:
        self.done += 1
        if self.live:
            elapsed = time.monotonic() - self.started
            self._line.draw(
                lambda width: self.line(visible(name, one_line=True), elapsed, width),
                last=self.done >= self.total,
            )

    def line(self, name: str, elapsed: float, width: int = 100) -> str:
        """The line for ``width`` columns: bar, counts, rate, time left, then the name.

        What does not fit goes, least useful first: the name shrinks, then the bar; the
        line never reaches the last column (a terminal would wrap it).
        """
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate else 0.0
        counts = f"{self.done}/{self.total} {rate:,.1f} {self.unit}/s ETA {clock(left)}"
        room = width - 1 - len(counts)
        bar_width = 24 if room >= 24 + 1 + 12 else max(0, min(24, room - 1 - 12))
        filled = bar_width * self.done // self.total if self.total else bar_width
        bar = "█" * filled + "·" * (bar_width - filled)
        line = f"{bar} {counts}" if bar else counts
        space = width - 1 - len(line) - 1
        if space >= 8:
            line += " " + (name if len(name) <= space else "…" + name[-(space - 1) :])
        return line[: max(0, width - 1)]

    def close(self) -> None:
        """Clear the line, so what is printed next starts at the margin."""
        self._line.clear()


def clock(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour."""
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02d}:{second:02d}" if hours else f"{minute}:{second:02d}"
