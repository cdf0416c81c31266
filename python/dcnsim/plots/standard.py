"""``dcnsim plot DIR``: the standard plots that apply to a run folder or a sweep folder.

A run folder (flows.csv) gets the FCT CDF, FCT and slowdown by flow size (when some flow
finished), and, when it has series.csv, goodput, queue, utilisation and Jain index over time,
within a time window (``start``, ``end``) and for chosen ports (``ports``) if asked. A sweep folder
(sweep.json) gets FCT against load per protocol when its grid varies a load, and, at one grid
point (``point`` / ``load``; by default the highest load), the FCT CDF and the slowdown by size
class per protocol, the points that differ in other grid keys (seeds) pooled. Plots go to
``DIR/plots/``. An option that does not fit the folder raises
:class:`~.selection.PlotOptionError` naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..results import Results
from ..sweep_folder import collect, grid_keys
from . import flows as flow_plots, series as series_plots, sweeps as sweep_plots
from .selection import (PlotOptionError, check_window, grid_key, in_window, only_ports,
                        parse_assignments, port_ids, select_point, value_text)

#: Folder inside DIR where the plots go.
PLOTS = "plots"
#: Most points drawn in one CDF before the plot would be unreadable.
MAX_CDF_LINES = 12


def plot_dir(directory: str | Path, *, load: str | None = None, point: Sequence[str] = (),
             start: float | None = None, end: float | None = None,
             ports: Sequence[str] | None = None) -> list[Path]:
    """Draws the standard plots of ``directory`` into ``directory/plots``; returns the files.

    Sweep folders: ``load`` (a value of the grid's load key) and ``point`` (``KEY=VALUE``
    texts, KEY a grid key or its last part) choose the grid point of the CDF and the slowdown
    plot. Run folders: ``start`` and ``end`` (seconds) bound the time-series plots, and
    ``ports`` (port ids or node names) chooses the ports of the queue and utilisation plots.
    Raises ``FileNotFoundError`` when the folder is neither a run nor a sweep folder, and
    :class:`~.selection.PlotOptionError` for an option that does not fit it.
    """
    d = Path(directory)
    window = check_window(start, end)
    if (d / "sweep.json").is_file():
        _refuse(d, "a sweep folder (plot one of its points: DIR/<point>)", "a run folder",
                {"--from/--to": window, "--ports": ports})
        return plot_sweep(d, load, point)
    if (d / "flows.csv").is_file():
        _refuse(d, "one run", "a sweep folder", {"--load": load, "--point": tuple(point)})
        return plot_run(d, window, ports)
    raise FileNotFoundError(f"{d}: not a run folder (flows.csv) or a sweep folder (sweep.json)")


def _refuse(d: Path, what: str, fits: str, options: dict[str, Any]) -> None:
    """Refuses the first of ``options`` given (not None or empty): they apply to ``fits``
    only, and ``d`` is ``what``."""
    given = [name for name, v in options.items() if v not in (None, (), [])]
    if given:
        raise PlotOptionError(f"{given[0]}: applies to {fits}; {d} is {what}")


def _label(r: Results) -> str:
    return str(r.summary.get("protocol") or r.summary.get("name") or "run")


def plot_run(d: Path, window: tuple[float, float] | None = None,
             ports: Sequence[str] | None = None) -> list[Path]:
    r = Results.load(d)
    out = d / PLOTS
    frames = {_label(r): r.flows}
    files = []
    if len(r.finished):  # a run stopped before any flow finished has no FCTs to draw
        files += [
            flow_plots.fct_cdf(frames, out / "fct_cdf.png"),
            flow_plots.fct_by_size(frames, out / "fct_by_size.png"),
            flow_plots.slowdown_by_size(frames, out / "slowdown_by_size.png"),
        ]
    if (window or ports) and (r.series is None or not len(r.series)):
        option = "--from/--to" if window else "--ports"
        raise PlotOptionError(f"{option}: applies to time series; {d} has none "
                              "(output.series_interval_us = 0)")
    if r.series is not None and len(r.series):
        files += _series_plots(d, r, window, ports)
    return files


def _series_plots(d: Path, r: Results, window: tuple[float, float] | None,
                  ports: Sequence[str] | None) -> list[Path]:
    out = d / PLOTS
    table = pd.read_csv(d / "ports.csv") if (d / "ports.csv").is_file() else None
    failures = r.scenario.get("failures") if isinstance(r.scenario, dict) else None
    series = in_window(r.series, window) if window else r.series
    top = series_plots.TOP
    if ports:
        chosen = port_ids(ports, table, r.series)
        series, top = only_ports(series, chosen), len(chosen)
    kinds = set(series["kind"].unique())
    files = []
    if "flow_goodput_bps" in kinds:
        files.append(series_plots.goodput_over_time(series, out / "goodput.png",
                                                    failures=failures))
        files.append(series_plots.jain_over_time(series, out / "jain.png", failures=failures))
    if "queue_bytes" in kinds:
        files.append(series_plots.queue_over_time(series, out / "queue.png", table, top=top,
                                                  failures=failures))
    if "link_util" in kinds:
        files.append(series_plots.link_util_over_time(series, out / "link_util.png", table,
                                                      top=top, failures=failures))
    return files


def plot_sweep(d: Path, load: str | None = None, point: Sequence[str] = ()) -> list[Path]:
    frame = collect(d)
    ok = frame[frame["status"] == "ok"]
    out = d / PLOTS
    files = []
    grid = grid_keys(d)
    loads = [k for k in grid if k.endswith("load")]
    if loads and len(ok):
        files.append(sweep_plots.fct_vs_load(ok, out / "fct_vs_load.png", x=loads[0]))
    at, fixed = _chosen_point(ok, grid, loads, load, point)
    frames, title = _cdf_frames(d, at, _where(fixed))
    if frames:
        files.append(flow_plots.fct_cdf(frames, out / "fct_cdf.png", title=title))
    flows = Results.sweep_flows(d)
    flows = flows[flows["point"].isin(at["point"])]
    if flows["slowdown"].notna().any():
        files.append(sweep_plots.slowdown_at_point(flows, out / "slowdown_by_size.png", grid,
                                                   fixed, _protocol_of(at)))
    return files


def _protocol_of(points: pd.DataFrame) -> str:
    """The protocol the points share (their summaries'), to name bars no grid key tells apart."""
    protocols = points["protocol"].unique() if "protocol" in points else []
    return str(protocols[0]) if len(protocols) == 1 else "all points"


def _chosen_point(ok: pd.DataFrame, grid: list[str], loads: list[str], load: str | None,
                  point: Sequence[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The finished points at the grid point that ``--load`` and ``--point`` choose (by
    default the highest load when the grid varies one, else every point), and the grid values
    that chose them."""
    chosen = {grid_key(k, grid, "--point"): ("--point", v)
              for k, v in parse_assignments(point, "--point").items()}
    if load is not None:
        if not loads:
            raise PlotOptionError(f"--load: the sweep's grid varies no load; its keys are "
                                  f"{', '.join(grid) or '(none)'} (choose with --point)")
        if loads[0] in chosen:
            raise PlotOptionError(f"--load: {loads[0]} is also given by --point; give it once")
        chosen[loads[0]] = ("--load", load)
    if not chosen and loads and len(ok):
        chosen[loads[0]] = ("the highest load", value_text(ok[loads[0]].max()))
    at = select_point(ok, grid, chosen)
    return at, ({k: at[k].iloc[0] for k in chosen} if len(at) else {})


def _where(fixed: dict[str, Any]) -> str:
    return "".join(f" at {k.rsplit('.', 1)[-1]} {value_text(v)}" for k, v in fixed.items())


def _cdf_frames(d: Path, at: pd.DataFrame, where: str):
    """The flows for the sweep's FCT CDF at the chosen point: one line per protocol, the
    flows of its points pooled; without a protocol column, one line per point if there are
    few."""
    group = sweep_plots.group_column(at)
    if not len(at):
        return {}, ""
    if group is None or at[group].nunique() == len(at):
        if len(at) > MAX_CDF_LINES:
            return {}, ""
        return ({name: Results.load(d / name).flows for name in at["point"]},
                f"CDF of flow completion time, per point{where}")
    frames = {}
    for label, points in at.groupby(group):
        frames[str(label)] = pd.concat([Results.load(d / n).flows for n in points["point"]],
                                       ignore_index=True)
    runs = at.groupby(group).size().max()
    title = f"CDF of flow completion time{where}"
    return frames, title + (f"\n({runs} runs pooled per line)" if runs > 1 else "")
