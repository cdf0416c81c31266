"""The progress bar of a run: simulated time and flows done / total, on stderr.

:func:`dcnsim.run` wraps the core's call in :func:`progress_bar`; the core calls the callback
about every 0.2 s of wall time. The bar shows up only once a run has lasted two seconds (and
never when quiet), so short runs (tests, small scenarios) print nothing; tqdm is imported
only when the bar appears.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

#: Seconds of wall time before the bar appears.
DELAY_S = 2.0

#: What the core calls: ``(sim_time_s, flows_done, flows_total)``.
ProgressCallback = Callable[[float, int, int], None]


class ProgressBar:
    """A tqdm bar fed by the core's progress callback. Use it through :func:`progress_bar`."""

    def __init__(self, file: IO[str] | None = None, delay: float = DELAY_S) -> None:
        self._file = file if file is not None else sys.stderr
        self._delay = delay
        self._start = time.time()  # tqdm's clock
        self._bar: Any = None

    def __call__(self, sim_time_s: float, flows_done: int, flows_total: int) -> None:
        if self._bar is None:
            if time.time() - self._start < self._delay:
                return
            self._bar = self._open()
        bar = self._bar
        if bar.total != flows_total:
            bar.total = flows_total
        bar.set_postfix_str(_sim_time(sim_time_s), refresh=False)
        bar.update(flows_done - bar.n)

    def _open(self) -> Any:
        # tqdm is imported only once the bar is due: it costs ~40 ms, which a short run (or
        # `dcnsim run` on one) would otherwise pay at start.
        from tqdm import tqdm

        # miniters=0 turns off tqdm's adaptive skipping, so update(0) still redraws the
        # simulated time (throttled by mininterval) while no flow finishes.
        bar = tqdm(
            total=None,
            desc="simulating",
            unit="flow",
            miniters=0,
            mininterval=0.2,
            file=self._file,
            dynamic_ncols=True,
            leave=True,
        )
        bar.start_t = self._start  # elapsed time counts from the run's start
        return bar

    def close(self) -> None:
        """Ends the bar; it leaves a final line only if it was ever shown."""
        if self._bar is not None:
            self._bar.close()


def _sim_time(t: float) -> str:
    if t < 1e-3:
        return f"sim {t * 1e6:.1f} µs"
    if t < 1.0:
        return f"sim {t * 1e3:.2f} ms"
    return f"sim {t:.3f} s"


@contextmanager
def progress_bar(
    quiet: bool, file: IO[str] | None = None, delay: float = DELAY_S
) -> Iterator[ProgressCallback | None]:
    """Yields the callback to hand to ``_core.run``: None when ``quiet``, else a bar's."""
    if quiet:
        yield None
        return
    bar = ProgressBar(file=file, delay=delay)
    try:
        yield bar
    finally:
        bar.close()
