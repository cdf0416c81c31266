"""``dcnsim plot DIR``: the standard plots that apply to a run folder or a sweep folder.

A run folder (flows.csv) gets the FCT CDF, FCT and slowdown by flow size (when some flow
finished), and, when it has
series.csv, goodput, queue, utilisation and Jain index over time. A sweep folder (sweep.json)
gets FCT against load per protocol when its grid varies a load, and the FCT CDF per protocol
(its points pooled, at the highest load). Plots go to ``DIR/plots/``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..results import Results
from . import flows as flow_plots, series as series_plots, sweeps as sweep_plots

#: Folder inside DIR where the plots go.
PLOTS = "plots"
#: Most points drawn in one CDF before the plot would be unreadable.
MAX_CDF_LINES = 12


def plot_dir(directory: str | Path) -> list[Path]:
    """Draws the standard plots of ``directory`` into ``directory/plots``; returns the files.

    Raises ``FileNotFoundError`` when the folder is neither a run nor a sweep folder.
    """
    d = Path(directory)
    if (d / "sweep.json").is_file():
        return plot_sweep(d)
    if (d / "flows.csv").is_file():
        return plot_run(d)
    raise FileNotFoundError(f"{d}: not a run folder (flows.csv) or a sweep folder (sweep.json)")


def _label(r: Results) -> str:
    return str(r.summary.get("protocol") or r.summary.get("name") or "run")


def plot_run(d: Path) -> list[Path]:
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
    if r.series is not None and len(r.series):
        ports = pd.read_csv(d / "ports.csv") if (d / "ports.csv").is_file() else None
        failures = r.scenario.get("failures") if isinstance(r.scenario, dict) else None
        kinds = set(r.series["kind"].unique())
        if "flow_goodput_bps" in kinds:
            files.append(series_plots.goodput_over_time(r.series, out / "goodput.png",
                                                        failures=failures))
            files.append(series_plots.jain_over_time(r.series, out / "jain.png",
                                                     failures=failures))
        if "queue_bytes" in kinds:
            files.append(series_plots.queue_over_time(r.series, out / "queue.png", ports,
                                                      failures=failures))
        if "link_util" in kinds:
            files.append(series_plots.link_util_over_time(r.series, out / "link_util.png", ports,
                                                          failures=failures))
    return files


def plot_sweep(d: Path) -> list[Path]:
    from ..sweep import collect  # here: dcnsim.sweep is the function at package level

    frame = collect(d)
    ok = frame[frame["status"] == "ok"]
    out = d / PLOTS
    files = []
    grid = list(json.loads((d / "sweep.json").read_text(encoding="utf-8"))["grid"])
    loads = [k for k in grid if k.endswith("load")]
    if loads and len(ok):
        files.append(sweep_plots.fct_vs_load(ok, out / "fct_vs_load.png", x=loads[0]))
    frames, title = _cdf_frames(d, ok, loads[0] if loads else None)
    if frames:
        files.append(flow_plots.fct_cdf(frames, out / "fct_cdf.png", title=title))
    return files


def _cdf_frames(d: Path, ok: pd.DataFrame, load: str | None):
    """The flows for the sweep's FCT CDF: one line per protocol, the flows of its points
    pooled (at the highest load, when the grid varies one); without a protocol column, one
    line per point if there are few."""
    group = sweep_plots.group_column(ok)
    if not len(ok):
        return {}, ""
    if group is None or ok[group].nunique() == len(ok):
        if len(ok) > MAX_CDF_LINES:
            return {}, ""
        return ({name: Results.load(d / name).flows for name in ok["point"]},
                "CDF of flow completion time, per point")
    where = ok
    title = "CDF of flow completion time"
    if load is not None:
        top = ok[load].max()
        where = ok[ok[load] == top]
        title += f" at {load.rsplit('.', 1)[-1]} {top:g}"
    frames = {}
    for label, points in where.groupby(group):
        frames[str(label)] = pd.concat([Results.load(d / n).flows for n in points["point"]],
                                       ignore_index=True)
    runs = where.groupby(group).size().max()
    return frames, title + (f"\n({runs} runs pooled per line)" if runs > 1 else "")
