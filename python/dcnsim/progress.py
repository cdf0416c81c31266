"""The progress bar of a run: simulated time and flows done / total, on stderr.

:func:`dcnsim.run` wraps the core's call in :func:`progress_bar`; the core calls the callback
about every 0.2 s of wall time. The bar shows up only once a run has lasted two seconds, so
short runs (tests, small scenarios) print nothing, and never when quiet.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

from tqdm import tqdm

#: Seconds of wall time before the bar appears.
DELAY_S = 2.0

#: What the core calls: ``(sim_time_s, flows_done, flows_total)``.
ProgressCallback = Callable[[float, int, int], None]


class ProgressBar:
    """A tqdm bar fed by the core's progress callback. Use it through :func:`progress_bar`."""

    def __init__(self, file: IO[str] | None = None, delay: float = DELAY_S) -> None:
        # miniters=0 turns off tqdm's adaptive skipping, so update(0) still redraws the
        # simulated time (throttled by mininterval) while no flow finishes.
        self._bar = tqdm(
            total=None,
            desc="simulating",
            unit="flow",
            delay=delay,
            miniters=0,
            mininterval=0.2,
            file=file if file is not None else sys.stderr,
            dynamic_ncols=True,
            leave=True,
        )

    def __call__(self, sim_time_s: float, flows_done: int, flows_total: int) -> None:
        bar = self._bar
        if bar.total != flows_total:
            bar.total = flows_total
        bar.set_postfix_str(_sim_time(sim_time_s), refresh=False)
        bar.update(flows_done - bar.n)

    def close(self) -> None:
        """Ends the bar; it leaves a final line only if it was ever shown."""
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
