"""Figures, drawn with matplotlib's Agg backend (no display needed) and saved as PNG.

- :mod:`.flows`: per-flow records — FCT by size, FCT CDF, slowdown by size class;
- :mod:`.series`: one run's time series — goodput, queue occupancy, link utilisation and
  Jain's index over time;
- :mod:`.sweeps`: a sweep's summaries — mean / 99th / 99.9th FCT against load per protocol —
  and slowdown by size class per protocol at one grid point;
- :mod:`.selection`: what ``dcnsim plot``'s options choose (a grid point, a time window,
  ports), checked against the folder;
- :mod:`.standard`: :func:`plot_dir`, what ``dcnsim plot DIR`` draws.
"""

from .common import DPI, new_figure, save
from .flows import (SIZE_CLASSES, binned_stats, fct_by_size, fct_cdf, size_bins, size_class,
                    slowdown_by_size)
from .series import (failure_events, goodput_over_time, jain_index, jain_over_time,
                     link_util_over_time, queue_over_time)
from .standard import plot_dir
from .selection import PlotOptionError
from .sweeps import fct_vs_load, slowdown_at_point

__all__ = [
    "DPI", "new_figure", "save", "SIZE_CLASSES", "binned_stats", "fct_by_size", "fct_cdf",
    "size_bins", "size_class", "slowdown_by_size", "failure_events", "goodput_over_time",
    "jain_index", "jain_over_time",
    "link_util_over_time", "queue_over_time", "plot_dir", "fct_vs_load", "slowdown_at_point",
    "PlotOptionError",
]
