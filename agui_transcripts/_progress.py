"""One self-rewriting progress line for a terminal, and nothing when not on one.

Hand-written rather than a progress library: a count, a rate and a time left do not
justify a dependency in the core install. It is redrawn at most ten times a second and
cut to the terminal's width, so a narrow pane shows one line, never hundreds of wrapped
ones.
"""

from __future__ import annotations

import shutil
import time
from typing import IO

__all__ = ["REDRAW_EVERY", "Progress", "clock"]

#: Seconds between two redraws (the last step is always drawn).
REDRAW_EVERY = 0.1


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
        self._drawn_at: float | None = None
        self._width = 0

    def step(self, name: str) -> None:
        self.done += 1
        if not self.live:
            return
        now = time.monotonic()
        if (
            self._drawn_at is not None
            and now - self._drawn_at < REDRAW_EVERY
            and self.done < self.total
        ):
            return
        self._drawn_at = now
        self._width = shutil.get_terminal_size().columns
        self.stream.write("\r" + self.line(name, now - self.started, self._width) + "\x1b[K")
        self.stream.flush()

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
        if self.live and self._drawn_at is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn_at = None


def clock(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour."""
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02d}:{second:02d}" if hours else f"{minute}:{second:02d}"
