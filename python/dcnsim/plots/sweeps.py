"""Plots of a sweep's summaries (the DataFrame of :func:`dcnsim.sweep`, or summaries.csv)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .common import new_figure, save

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
