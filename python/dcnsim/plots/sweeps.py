"""Plots of a sweep: its summaries (the DataFrame of :func:`dcnsim.sweep`, or summaries.csv)
against load, and its flows at one grid point by size class."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .common import new_figure, save
from .flows import slowdown_by_size
from .selection import value_text

#: The FCT statistics drawn against load: (summary column, panel title).
FCT_STATS = (("fct_s.mean", "mean"), ("fct_s.p99", "99th percentile"),
             ("fct_s.p999", "99.9th percentile"))


def group_column(frame: pd.DataFrame) -> str | None:
    """The column that names the compared schemes: the grid's ``transport.protocol`` if the
    sweep varies it, else the summary's ``protocol``."""
    for col in ("transport.protocol", "protocol"):
        if col in frame.columns:
            return col
    return None


def mean_over_seeds(frame: pd.DataFrame, x: str, group: str | None, column: str) -> pd.DataFrame:
    """``column`` per (group, x): mean, min and max over the points that share them (seeds, or
    any grid key not plotted). Failed points are left out."""
    ok = frame[frame.get("status", "ok") == "ok"] if "status" in frame else frame
    keys = [group, x] if group else [x]
    stats = ok.groupby(keys, dropna=False)[column].agg(["mean", "min", "max", "count"])
    return stats.reset_index()


def fct_vs_load(frame: pd.DataFrame, path: str | Path, x: str = "workload.load",
                group: str | None = None, title: str | None = None) -> Path:
    """Mean, 99th and 99.9th percentile FCT (ms) against ``x`` (load, as a percentage when it
    is a fraction), one line per protocol; points that differ only in other grid keys (seeds)
    are averaged, the bars showing their min–max. Returns the path."""
    group = group or group_column(frame)
    fig = new_figure(12, 4.0)
    axes = fig.subplots(1, len(FCT_STATS), sharex=True)
    percent = x.endswith("load") and frame[x].max() <= 1.0
    for ax, (col, what) in zip(axes, FCT_STATS):
        stats = mean_over_seeds(frame, x, group, col)
        groups = list(stats.groupby(group)) if group else [("", stats)]
        span = (frame[x].max() - frame[x].min()) * (100 if percent else 1) or 1.0
        for i, (label, s) in enumerate(groups):
            s = s.sort_values(x)
            dodge = (i - (len(groups) - 1) / 2) * 0.012 * span  # keep error bars apart
            xs = s[x] * (100 if percent else 1) + dodge
            err = [(s["mean"] - s["min"]) * 1e3, (s["max"] - s["mean"]) * 1e3]
            ax.errorbar(xs, s["mean"] * 1e3, yerr=err, marker="o", ms=4, capsize=3,
                        label=str(label) or None)
        ax.set_xlabel(f"offered load, {x} (%)" if percent else x)
        ax.set_ylabel(f"{what} FCT (ms)")
        ax.set_title(what)
        ax.grid(True, alpha=0.4)
        if group:
            ax.legend(fontsize=8)
    seeds = int(mean_over_seeds(frame, x, group, "fct_s.mean")["count"].max())
    fig.suptitle(title or "Flow completion time against load"
                 + (f" (mean of {seeds} runs per point, bars: min–max)" if seeds > 1 else ""))
    return save(fig, path)


def compared_key(flows: pd.DataFrame, grid: list[str], fixed: Iterable[str]) -> str | None:
    """The grid key whose values the bars of :func:`slowdown_at_point` compare:
    ``transport.protocol`` when the sweep varies it, else the first other grid key that is
    not a seed and varies among ``flows``; None when none does."""
    free = [k for k in grid if k not in fixed and k != "seed"]
    free.sort(key=lambda k: k != "transport.protocol")
    return next((k for k in free if flows[k].map(value_text).nunique() > 1), None)


def slowdown_at_point(flows: pd.DataFrame, path: str | Path, grid: list[str],
                      fixed: Mapping[str, Any], label: str = "all points") -> Path:
    """Slowdown by flow-size class at one grid point of a sweep, one bar group per protocol
    (or per value of whichever grid key varies, :func:`compared_key`).

    ``flows`` are the point's rows of :meth:`~dcnsim.results.Results.sweep_flows`, ``fixed``
    the grid values that chose it (``{"workload.load": 0.5}``); points that differ only in
    other grid keys (seeds) are pooled. The classes are summary.json's, with the count of
    finished flows above each bar (:func:`~dcnsim.plots.flows.slowdown_by_size`). ``label``
    names the bars when no grid key varies. Returns the path.
    """
    group = compared_key(flows, grid, fixed)
    if group is None:
        frames = {label: flows}
    else:
        frames = {text: f for text, f in flows.groupby(flows[group].map(value_text), sort=False)}
    where = ", ".join(f"{_short(k)} {value_text(v)}" for k, v in fixed.items()) or "every point"
    runs = max(f["point"].nunique() for f in frames.values()) if len(flows) else 0
    pooled = f"\n({runs} runs pooled per bar group)" if runs > 1 else ""
    return slowdown_by_size(frames, path, title=f"Slowdown by flow size at {where}{pooled}")


def _short(key: str) -> str:
    return key.rsplit(".", 1)[-1]
