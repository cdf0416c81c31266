"""What a paper module declares: its :class:`Paper`, and for each figure a :class:`Figure`.

A figure says what it shows, the sweep behind it (:class:`SweepDef`, with a ``--quick``
variant), how to measure our numbers from the runs (``measure``) and how to draw them like the
paper does (``plot``). The paper's own numbers are not in the code: they are rows of
``data/<paper>.csv`` (see :mod:`.claims`).

Adding a figure is one declaration in the paper's module::

    FIG5 = Figure(
        id="fig5", title="Mean FCT against load", shows="...",
        sweep=SweepDef(base=TREE, grid={"transport.protocol": ["tcp", "merp"],
                                        "workload.load": [0.1, 0.2, ..., 0.8]},
                       quick_base={"workload.flows": 200}),
        measure=measure_fct_vs_load, plot=plot_fct_vs_load,
    )

its rows in ``data/<paper>.csv``, and the names of the metrics it measures in
``data/metrics/<paper>.csv`` (a claim or a measure naming another fails, see :mod:`.claims`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..results import Results

#: Columns of the tables ``measure`` returns: one number per row.
MEASURE_COLUMNS = ["metric", "x", "protocol", "value"]


@dataclass(frozen=True)
class SweepDef:
    """The runs behind a figure: a base scenario (a dict, as in a scenario file) and a grid of
    key path → values. ``quick_base`` / ``quick_grid`` replace keys (and whole grid lists) for
    ``--quick``: fewer flows, fewer loads, fewer seeds."""

    base: Mapping[str, Any]
    grid: Mapping[str, list[Any]]
    quick_base: Mapping[str, Any] = field(default_factory=dict)
    quick_grid: Mapping[str, list[Any]] = field(default_factory=dict)
    #: Writes the input files (flow lists) the scenarios name, relative to the figure's folder,
    #: which then is the sweep's base folder: ``inputs(folder, quick)``. None: no input files.
    inputs: Callable[[Path, bool], None] | None = None
    #: Sub-folder of the figure's folder this sweep runs in, when a figure needs several
    #: sweeps (grids that are not one Cartesian product, e.g. flow lists sized per topology).
    part: str = ""
    #: Left out of ``--quick`` (a network size only the full reproduction runs).
    full_only: bool = False
    #: Runs in ``OUT/<shared>/[<part>/]`` instead of the figure's folder, so that figures whose
    #: sweeps name the same folder (and are the same sweep) share its runs: the first figure
    #: runs them, the next finds them done. Their points are ``../<shared>/…`` in :class:`Runs`.
    shared: str = ""

    def spec(self, quick: bool) -> dict[str, Any]:
        """The sweep as :func:`dcnsim.sweep` takes it."""
        grid = {**self.grid, **(self.quick_grid if quick else {})}
        return {"scenario": dict(self.base), "base": dict(self.quick_base) if quick else {},
                "grid": grid}


class Runs:
    """The finished sweep of a figure: its summaries and each point's full results."""

    def __init__(self, directory: Path, summaries: pd.DataFrame) -> None:
        self.dir = Path(directory)
        self.summaries = summaries

    def ok(self) -> pd.DataFrame:
        """The summaries of the points that finished."""
        return self.summaries[self.summaries["status"] == "ok"]

    def results(self, point: str) -> Results:
        """A point's :class:`Results` (flows, series, scenario) read from its folder."""
        return Results.load(self.dir / point)

    def ports(self, point: str) -> pd.DataFrame:
        """A point's ports.csv."""
        return pd.read_csv(self.dir / point / "ports.csv")


#: ``measure(runs)`` → DataFrame with :data:`MEASURE_COLUMNS`; ``runs`` is None for a figure
#: computed without simulation.
Measure = Callable[[Runs | None], pd.DataFrame]
#: ``plot(ours, paper, runs, path)``: draws the figure with the paper's values as markers.
Plot = Callable[[pd.DataFrame, pd.DataFrame, Runs | None, Path], None]


@dataclass(frozen=True)
class Figure:
    """One figure or table of a paper that ``dcnsim reproduce`` can run."""

    id: str
    title: str
    shows: str
    measure: Measure
    plot: Plot
    sweep: SweepDef | None = None  # None: computed without simulation (worked examples)
    #: Further sweeps of the same figure, each with its own ``part`` folder; their points are
    #: named ``part/point`` in :class:`Runs`.
    more_sweeps: tuple[SweepDef, ...] = ()
    #: A run of an hour or more on a workstation: a full ``reproduce`` runs it only when it is named
    #: (``--figure``) or asked for with the others (``--all``); ``--quick`` runs it small.
    long: bool = False

    def sweeps(self) -> tuple[SweepDef, ...]:
        return ((self.sweep,) if self.sweep is not None else ()) + self.more_sweeps


@dataclass(frozen=True)
class Pending:
    """A figure of the paper that the simulator cannot run yet (its protocol is missing)."""

    id: str
    shows: str
    needs: str


@dataclass(frozen=True)
class Paper:
    """A paper: the name ``reproduce`` takes, its citation, runnable and pending figures."""

    name: str
    citation: str
    figures: tuple[Figure, ...] = ()
    pending: tuple[Pending, ...] = ()
    note: str = ""

    def figure(self, fig_id: str) -> Figure:
        for f in self.figures:
            if f.id == fig_id:
                return f
        raise KeyError(fig_id)


def rows(metric: str, protocol: str, values: Mapping[Any, float]) -> list[dict[str, Any]]:
    """Measure rows for one metric and protocol: ``{x: value}`` → rows (x ``""`` for none)."""
    return [{"metric": metric, "x": x, "protocol": protocol, "value": float(v)}
            for x, v in values.items()]
