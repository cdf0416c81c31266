"""Progress on stderr: of a run (simulated time, flows done / total) and of a sweep (points).

:func:`dcnsim.run` wraps the core's call in :func:`progress_bar`; the core calls the callback
about every 0.2 s of wall time. On a terminal a tqdm bar shows up once a run has lasted two
seconds (tqdm is imported only then). Elsewhere (a log file, CI) a bar's carriage-return
redraws would pile up in the log, so :class:`LineProgress` prints a plain line every five
seconds instead. Short runs print nothing either way, and quiet ones never do.

A sweep's points are counted by :func:`counter`, with the same choice between bar and lines.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

#: Seconds of wall time before the bar appears on a terminal.
DELAY_S = 2.0
#: Seconds of wall time between two lines off a terminal (read when a LineProgress is made).
LOG_INTERVAL_S = 5.0

#: What the core calls: ``(sim_time_s, flows_done, flows_total)``.
ProgressCallback = Callable[[float, int, int], None]


def is_terminal(file: IO[str]) -> bool:
    """True when ``file`` is an open terminal, where a redrawn bar makes sense."""
    try:
        return file.isatty()
    except (AttributeError, ValueError):  # not a real stream, or closed
        return False


class LineProgress:
    """Progress as plain lines, for logs: ``simulating: 3/8 flows, sim 4.877 s, 0:05 elapsed``.

    A line is printed on an update once ``interval`` seconds (default
    :data:`LOG_INTERVAL_S`) have passed since the last one, so work shorter than that prints
    nothing; :meth:`close` adds the final count if a line was printed before. It has the few
    members of tqdm that dcnsim uses, so it stands in for a tqdm bar. ``clock`` is a seam for
    tests.
    """

    def __init__(
        self,
        desc: str,
        unit: str,
        total: int | None = None,
        initial: int = 0,
        file: IO[str] | None = None,
        interval: float | None = None,
        disable: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.desc, self.unit, self.total, self.n = desc, unit, total, initial
        self.postfix = ""
        self.disable = disable
        self._file = file if file is not None else sys.stderr
        self._interval = LOG_INTERVAL_S if interval is None else interval
        self._clock = clock
        self._start = self._last = clock()
        self._printed: tuple[Any, ...] | None = None  # what the last line showed

    def update(self, n: int = 1) -> None:
        self.n += n
        now = self._clock()
        if now - self._last >= self._interval:
            self._print(now)

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def close(self) -> None:
        if self._printed is not None and self._printed != self._state():
            self._print(self._clock())

    @staticmethod
    @contextmanager
    def external_write_mode(file: IO[str] | None = None, nolock: bool = False) -> Iterator[None]:
        """Other output may be written meanwhile; lines need no clearing, unlike a bar."""
        yield

    def _state(self) -> tuple[Any, ...]:
        return (self.n, self.total, self.postfix)

    def _print(self, now: float) -> None:
        self._last = now
        if self.disable:
            return
        count = f"{self.n}/{self.total}" if self.total is not None else f"{self.n}"
        parts = [f"{count} {self.unit}s", self.postfix, f"{_clock_time(now - self._start)} elapsed"]
        print(f"{self.desc}: " + ", ".join(p for p in parts if p), file=self._file, flush=True)
        self._printed = self._state()


class ProgressBar:
    """The progress of one run, fed by the core's callback: a tqdm bar on a terminal, a
    :class:`LineProgress` elsewhere. Use it through :func:`progress_bar`."""

    def __init__(
        self,
        file: IO[str] | None = None,
        delay: float = DELAY_S,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._file = file if file is not None else sys.stderr
        self._delay = delay
        self._start = time.time()  # tqdm's clock
        self._bar: Any = None
        if not is_terminal(self._file):  # lines come every `interval`: no delay needed
            self._bar = LineProgress("simulating", "flow", file=self._file, interval=interval,
                                     clock=clock)

    def __call__(self, sim_time_s: float, flows_done: int, flows_total: int) -> None:
        if self._bar is None:
            if time.time() - self._start < self._delay:
                return
            self._bar = self._open_tqdm()
        bar = self._bar
        if bar.total != flows_total:
            bar.total = flows_total
        bar.set_postfix_str(_sim_time(sim_time_s), refresh=False)
        bar.update(flows_done - bar.n)

    def _open_tqdm(self) -> Any:
        # tqdm is imported only once the bar is due: it costs ~40 ms, which a short run (or
        # `dcnsim run` on one) would otherwise pay at start.
        from tqdm import tqdm

        # miniters=0 turns off tqdm's adaptive skipping, so update(0) still redraws the
        # simulated time (throttled by mininterval) while no flow finishes.
        bar = tqdm(
            total=None,
            desc="simulating",
            unit="flow",
            delay=self._delay,  # > 0: no drawing in here, before the clock is set below
            miniters=0,
            mininterval=0.2,
            file=self._file,
            dynamic_ncols=True,
            leave=True,
        )
        bar.start_t = bar.last_print_t = self._start  # elapsed counts from the run's start
        return bar

    def close(self) -> None:
        """Ends the progress; it leaves a final line only if it was ever shown."""
        if self._bar is not None:
            self._bar.close()


def counter(desc: str, unit: str, total: int, initial: int = 0, disable: bool = False) -> Any:
    """A counter of work items on stderr (a sweep's points): a tqdm bar on a terminal, a
    :class:`LineProgress` elsewhere. Both have ``update``, ``close`` and
    ``external_write_mode``."""
    if not is_terminal(sys.stderr):
        return LineProgress(desc, unit, total=total, initial=initial, disable=disable)
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit=unit, desc=desc, disable=disable,
                file=sys.stderr, dynamic_ncols=True)


def _sim_time(t: float) -> str:
    if t < 1e-3:
        return f"sim {t * 1e6:.1f} µs"
    if t < 1.0:
        return f"sim {t * 1e3:.2f} ms"
    return f"sim {t:.3f} s"


def _clock_time(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour on."""
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@contextmanager
def progress_bar(
    quiet: bool,
    file: IO[str] | None = None,
    delay: float = DELAY_S,
    interval: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[ProgressCallback | None]:
    """Yields the callback to hand to ``_core.run``: None when ``quiet``, else a
    :class:`ProgressBar`'s. ``delay`` applies to the terminal's bar, ``interval`` and
    ``clock`` to the lines printed elsewhere."""
    if quiet:
        yield None
        return
    bar = ProgressBar(file=file, delay=delay, interval=interval, clock=clock)
    try:
        yield bar
    finally:
        bar.close()
