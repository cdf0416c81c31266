"""Plots of one run's time series (``Results.series``: time_s, kind, id, value).

Each function draws one kind over time: per-flow goodput, queue occupancy per switch port,
link utilisation per port, and Jain's fairness index of the active flows' goodput. Runs with
many flows or ports show the busiest few (``top``) so the figure stays readable; the title
says how many were left out. Given the scenario's ``failures`` (scenario.json), each draws a
link's failure and recovery as dashed vertical lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from .common import new_figure, save

#: Lines drawn at most per plot; the rest are named in the title as left out.
TOP = 8


def port_names(ports: pd.DataFrame | None) -> dict[int, str]:
    """``{port id: "node→peer"}`` from ports.csv, for legends."""
    if ports is None or not {"port", "node", "peer"} <= set(ports.columns):
        return {}
    return {int(r.port): f"{r.node}→{r.peer}" for r in ports.itertuples()}


def _kind(series: pd.DataFrame, kind: str) -> pd.DataFrame:
    return series[series["kind"] == kind]


def _lines(ax, data: pd.DataFrame, scale: float, label_of, rank: str, top: int) -> int:
    """Draws the ``top`` ids of ``data`` ranked by ``rank`` ("max" or "mean") of their value;
    returns how many ids were left out."""
    order = data.groupby("id")["value"].agg(rank).sort_values(ascending=False)
    shown = list(order.index[:top])
    for i in shown:
        d = data[data["id"] == i].sort_values("time_s")
        ax.plot(d["time_s"] * 1e3, d["value"] * scale, lw=1.2, label=label_of(int(i)))
    return len(order) - len(shown)


def failure_events(failures) -> list[tuple[float, str]]:
    """``[(time_s, "a–b down" | "a–b up")]`` from scenario.json's ``failures`` list."""
    events = []
    for f in failures or ():
        link = "–".join(f.get("link", ()))
        events.append((float(f["down_s"]), f"{link} down"))
        if f.get("up_s") is not None:
            events.append((float(f["up_s"]), f"{link} up"))
    return sorted(events)


def mark_failures(ax, failures) -> None:
    """Dashed vertical lines at each failure and recovery, labelled at the top of the axes."""
    for t, label in failure_events(failures):
        ax.axvline(t * 1e3, color="0.3", ls="--", lw=1)
        ax.annotate(label, (t * 1e3, 1.0), xycoords=("data", "axes fraction"), rotation=90,
                    ha="right", va="top", fontsize=7, color="0.3", xytext=(-2, -2),
                    textcoords="offset points")


def _finish(ax, fig, xlabel: str, ylabel: str, title: str, hidden: int, what: str, path,
            failures=None) -> Path:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.4)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best", ncol=2 if len(ax.get_lines()) > 4 else 1)
    ax.set_title(title + (f" (busiest {len(ax.get_lines())} shown, {hidden} more {what})"
                          if hidden else ""), fontsize=10)
    mark_failures(ax, failures)  # after the count of lines above
    return save(fig, path)


def goodput_over_time(series: pd.DataFrame, path: str | Path, top: int = TOP,
                      title: str | None = None, failures=None) -> Path:
    """Per-flow goodput (Gb/s) against time (ms), the ``top`` flows by mean goodput."""
    fig = new_figure(7.5, 4.2)
    ax = fig.subplots()
    hidden = _lines(ax, _kind(series, "flow_goodput_bps"), 1e-9, lambda i: f"flow {i}", "mean", top)
    return _finish(ax, fig, "time (ms)", "goodput (Gb/s)", title or "Per-flow goodput", hidden,
                   "flows", path, failures)


def queue_over_time(series: pd.DataFrame, path: str | Path, ports: pd.DataFrame | None = None,
                    top: int = TOP, title: str | None = None, failures=None) -> Path:
    """Queue occupancy (KB) of switch ports against time (ms), the ``top`` ports by peak
    (ports whose queue stayed empty are left out); ``ports`` (ports.csv) names them
    node→peer."""
    names = port_names(ports)
    fig = new_figure(7.5, 4.2)
    ax = fig.subplots()
    queues = _kind(series, "queue_bytes")
    busy = queues.groupby("id")["value"].transform("max") > 0  # ports that never queued: left out
    hidden = _lines(ax, queues[busy], 1e-3, lambda i: names.get(i, f"port {i}"), "max", top)
    idle = queues.loc[~busy, "id"].nunique()
    return _finish(ax, fig, "time (ms)", "queue occupancy (KB)",
                   (title or "Queue occupancy") + (f", {idle} ports never queued" if idle else ""),
                   hidden, "ports", path, failures)


def link_util_over_time(series: pd.DataFrame, path: str | Path, ports: pd.DataFrame | None = None,
                        top: int = TOP, title: str | None = None, failures=None) -> Path:
    """Link utilisation (% of the link's rate) against time (ms), the ``top`` ports by mean."""
    names = port_names(ports)
    fig = new_figure(7.5, 4.2)
    ax = fig.subplots()
    hidden = _lines(ax, _kind(series, "link_util"), 100.0, lambda i: names.get(i, f"port {i}"),
                    "mean", top)
    ax.set_ylim(0, 105)
    return _finish(ax, fig, "time (ms)", "link utilisation (%)", title or "Link utilisation",
                   hidden, "ports", path, failures)


def jain_index(goodput: pd.DataFrame) -> pd.DataFrame:
    """Jain's fairness index of the flows active at each sample: (Σx)² / (n·Σx²) over the
    ``flow_goodput_bps`` rows of that time. Returns ``time_s, jain, flows``; 1 means equal
    shares, 1/n one flow taking everything. Samples where every flow got 0 are left out."""
    g = goodput[goodput["kind"] == "flow_goodput_bps"] if "kind" in goodput else goodput
    grouped = g.groupby("time_s")["value"]
    total, squares, n = grouped.sum(), grouped.apply(lambda v: float((v * v).sum())), grouped.size()
    keep = squares > 0
    jain = total[keep] ** 2 / (n[keep] * squares[keep])
    return pd.DataFrame({"time_s": jain.index.to_numpy(), "jain": jain.to_numpy(),
                         "flows": n[keep].to_numpy()})


def jain_over_time(frames: Mapping[str, pd.DataFrame] | pd.DataFrame, path: str | Path,
                   title: str | None = None, failures=None) -> Path:
    """Jain's index of the active flows' goodput against time (ms); one line per label when
    given ``{label: series}``, with the number of active flows on a second axis for one run."""
    if isinstance(frames, pd.DataFrame):
        frames = {"": frames}
    fig = new_figure(7.5, 4.2)
    ax = fig.subplots()
    for label, series in frames.items():
        j = jain_index(series)
        ax.plot(j["time_s"] * 1e3, j["jain"], lw=1.4, label=label or "Jain index")
    if len(frames) == 1:
        j = jain_index(next(iter(frames.values())))
        twin = ax.twinx()
        twin.step(j["time_s"] * 1e3, j["flows"], where="post", color="0.6", lw=1, ls="--",
                  label="active flows")
        twin.set_ylabel("active flows")
        twin.set_ylim(0, max(1, float(j["flows"].max()) if len(j) else 1.0) * 1.1)
        lines = ax.get_legend_handles_labels()
        extra = twin.get_legend_handles_labels()
        ax.legend(lines[0] + extra[0], lines[1] + extra[1], fontsize=8, loc="lower right")
    elif frames:
        ax.legend(fontsize=8, loc="lower right")
    ax.set_ylim(0, 1.05)
    mark_failures(ax, failures)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("Jain's fairness index")
    ax.grid(True, alpha=0.4)
    ax.set_title(title or "Fairness of per-flow goodput (Jain's index)")
    return save(fig, path)
