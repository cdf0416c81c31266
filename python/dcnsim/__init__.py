"""dcnsim: a packet-level data center network simulator.

The simulator itself is Rust (the compiled module ``dcnsim._core``); this package is its face:

- :func:`run` simulates a scenario (a TOML file or a dict) and returns :class:`Results`, with
  per-flow records and time series as pandas DataFrames and the summary as a dict;
- :func:`validate` checks a scenario without running it and returns it with defaults filled in;
- :func:`catalog` lists the protocols, path choices, topologies, workloads and size
  distributions the core knows;
- :func:`sweep` runs a grid of scenarios (local processes or a Dask cluster) and returns one
  DataFrame of their summaries;
- :class:`Results.load <dcnsim.results.Results.load>` reads back a result directory that a run
  with ``out=`` (or ``dcnsim run --out``) wrote, and
  :meth:`Results.sweep_flows <dcnsim.results.Results.sweep_flows>` every point's flows of a
  sweep's directory in one frame, with the grid values as columns.

Bad input raises :class:`ScenarioError` (a ``ValueError``) whose text names the key path;
results that cannot be written raise :class:`OutputError` (an ``OSError``) with the OS's reason.
The compiled module, pandas and numpy are imported on first use, so ``import dcnsim`` itself
is cheap (and so is the start of the ``dcnsim`` command).
"""

from __future__ import annotations

from typing import Any

from .api import OutputError, catalog, run, validate
from .sweep import SweepError, SweepInterrupted, sweep

__all__ = ["run", "validate", "catalog", "sweep", "Results", "ScenarioError", "SweepError",
           "SweepInterrupted", "OutputError", "__version__"]


def __getattr__(name: str) -> Any:
    # ScenarioError and __version__ live in the extension, Results needs pandas: fetch them
    # only when asked for.
    if name in ("ScenarioError", "__version__"):
        from .api import core

        return getattr(core(), name)
    if name == "Results":
        from .results import Results

        return Results
    raise AttributeError(f"module 'dcnsim' has no attribute {name!r}")
