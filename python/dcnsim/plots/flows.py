"""Plots of per-flow records: FCT by size, FCT CDF, slowdown by size bin.

Call these after runs, on the ``flows`` DataFrames of :class:`~dcnsim.results.Results`; each
takes ``{label: flows}`` (one line or bar group per label, e.g. per protocol) and a PNG path.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from .common import new_figure, save

#: The flow-size classes of ``summary.json``'s ``by_size`` (the core's ``SIZE_CLASSES``):
#: (label, lo, hi] in bytes, ``hi`` None for the open last class. The slowdown plot uses them
#: too, so that a bar and the summary's number are over the same flows.
SIZE_CLASSES = (
    ("≤10 KB", 0, 10_000),
    ("10–100 KB", 10_000, 100_000),
    ("100 KB–1 MB", 100_000, 1_000_000),
    (">1 MB", 1_000_000, None),
)


def size_class(sizes) -> np.ndarray:
    """The index in :data:`SIZE_CLASSES` of each size (bytes): class i holds lo < size ≤ hi."""
    inner = np.array([hi for _, _, hi in SIZE_CLASSES[:-1]], dtype="float64")
    return np.searchsorted(inner, np.asarray(sizes, dtype="float64"), side="left")


def size_bins(sizes: np.ndarray, per_decade: int = 4) -> np.ndarray:
    """Log-spaced bin edges covering ``sizes`` (bytes), ``per_decade`` bins per factor of 10.

    Edges sit on round powers of ten so that plots of different runs line up.
    """
    sizes = np.asarray(sizes, dtype="float64")
    sizes = sizes[sizes > 0]
    if sizes.size == 0:
        return np.array([1.0, 10.0])
    lo = np.floor(np.log10(sizes.min()) * per_decade) / per_decade
    hi = np.ceil(np.log10(sizes.max()) * per_decade) / per_decade
    if hi <= lo:
        hi = lo + 1.0 / per_decade
    count = int(round((hi - lo) * per_decade))
    return np.logspace(lo, hi, count + 1)


def binned_stats(flows: pd.DataFrame, column: str, edges: np.ndarray) -> pd.DataFrame:
    """Mean and 99th percentile of ``column`` per size bin, finished flows only.

    Returns one row per non-empty bin: ``center`` (geometric, bytes), ``count``, ``mean``,
    ``p99``.
    """
    done = flows[flows[column].notna()]
    sizes = done["size_bytes"].to_numpy(dtype="float64")
    idx = np.digitize(sizes, edges[1:-1])  # 0 .. len(edges) - 2
    rows = []
    for b, group in done.groupby(idx):
        values = group[column].to_numpy(dtype="float64")
        rows.append(
            {
                "center": float(np.sqrt(edges[b] * edges[b + 1])),
                "count": len(values),
                "mean": float(values.mean()),
                "p99": float(np.percentile(values, 99)),
            }
        )
    return pd.DataFrame(rows, columns=["center", "count", "mean", "p99"])


def fct_by_size(
    frames: Mapping[str, pd.DataFrame],
    path: str | Path,
    metric: str = "fct",
    title: str | None = None,
) -> Path:
    """Plots mean and 99th-percentile FCT (or slowdown) against flow size; saves a PNG.

    ``frames`` maps a label (the protocol) to its flows DataFrame; each gets one line in both
    panels. ``metric`` is ``"fct"`` (milliseconds) or ``"slowdown"``. Both axes are
    logarithmic; flow sizes are grouped in log-spaced bins shared by all frames, and unfinished
    flows are left out (their count is in the legend when there are any). Returns the path.
    """
    if metric not in ("fct", "slowdown"):
        raise ValueError(f"metric must be 'fct' or 'slowdown', not {metric!r}")
    column, scale, ylabel = (
        ("fct_s", 1e3, "FCT (ms)") if metric == "fct" else ("slowdown", 1.0, "slowdown (FCT / ideal FCT)")
    )
    all_sizes = np.concatenate([f["size_bytes"].to_numpy() for f in frames.values()] or [[]])
    edges = size_bins(all_sizes)

    fig = new_figure(10, 4.2)
    ax_mean, ax_p99 = fig.subplots(1, 2, sharex=True)
    for label, flows in frames.items():
        stats = binned_stats(flows, column, edges)
        unfinished = int(flows[column].isna().sum())
        name = label if unfinished == 0 else f"{label} ({unfinished} unfinished)"
        for ax, stat in ((ax_mean, "mean"), (ax_p99, "p99")):
            ax.plot(stats["center"], stats[stat] * scale, marker="o", ms=4, label=name)

    for ax, what in ((ax_mean, "mean"), (ax_p99, "99th percentile")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("flow size (bytes)")
        ax.set_ylabel(f"{what} {ylabel}")
        ax.set_title(what)
        ax.grid(True, which="major", alpha=0.4)
        ax.grid(True, which="minor", alpha=0.15)
        ax.legend()
    total = sum(len(f) for f in frames.values())
    fig.suptitle(
        title
        or f"{'Flow completion time' if metric == 'fct' else 'Slowdown'} by flow size "
        f"({total} flows, {len(edges) - 1} log-spaced size bins)"
    )
    return save(fig, path)


def _unfinished_note(label: str, flows: pd.DataFrame) -> str:
    n = int(flows["fct_s"].isna().sum())
    return label if n == 0 else f"{label} ({n} unfinished)"


def fct_cdf(frames: Mapping[str, pd.DataFrame], path: str | Path, title: str | None = None) -> Path:
    """The CDF of flow completion times (ms, log axis), one line per label; finished flows
    only (the unfinished count is in the legend). Returns the path."""
    fig = new_figure(6.4, 4.4)
    ax = fig.subplots()
    for label, flows in frames.items():
        fct = np.sort(flows["fct_s"].dropna().to_numpy(dtype="float64")) * 1e3
        if fct.size == 0:
            continue
        cdf = np.arange(1, fct.size + 1) / fct.size
        ax.step(fct, cdf, where="post", label=_unfinished_note(label, flows))
    ax.set_xscale("log")
    ax.set_xlabel("flow completion time (ms)")
    ax.set_ylabel("fraction of flows (CDF)")
    ax.set_ylim(0, 1.01)
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)
    ax.legend(loc="lower right")
    ax.set_title(title or "CDF of flow completion time", fontsize=11)
    return save(fig, path)


def slowdown_by_size(
    frames: Mapping[str, pd.DataFrame], path: str | Path, title: str | None = None
) -> Path:
    """Mean (bar) and 99th-percentile (marker) slowdown per flow-size class, one bar group per
    label. The classes are ``summary.json``'s (:data:`SIZE_CLASSES`); a bar's count of
    finished flows is printed above it. Returns the path."""
    fig = new_figure(max(6.4, 1.1 * len(SIZE_CLASSES) + 2), 4.4)
    ax = fig.subplots()
    n = max(len(frames), 1)
    width = 0.8 / n
    x = np.arange(len(SIZE_CLASSES))
    for i, (label, flows) in enumerate(frames.items()):
        done = flows[flows["slowdown"].notna()]
        by_class = done.groupby(size_class(done["size_bytes"]))["slowdown"]
        stats = pd.DataFrame({"mean": by_class.mean(), "p99": by_class.quantile(0.99),
                              "count": by_class.size()})
        pos = stats.index.to_numpy() + (i - (n - 1) / 2) * width
        bars = ax.bar(pos, stats["mean"], width, label=f"{_unfinished_note(label, flows)} mean")
        ax.plot(pos, stats["p99"], ls="none", marker="_", ms=14, mew=2,
                color=bars.patches[0].get_facecolor() if bars.patches else None,
                label=f"{label} 99th pct")
        for xp, y, c in zip(pos, stats["mean"], stats["count"]):
            ax.annotate(f"{c}", (xp, y), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 1), textcoords="offset points")
    ax.set_xticks(x, [name for name, _, _ in SIZE_CLASSES])
    ax.set_yscale("log")
    ax.set_xlabel("flow size class (as in summary.json); numbers above bars: finished flows")
    ax.set_ylabel("slowdown (FCT / ideal FCT)")
    ax.grid(True, axis="y", which="major", alpha=0.4)
    ax.legend(fontsize=8, ncol=2)
    ax.set_title(title or "Slowdown by flow size")
    return save(fig, path)


def _bytes(b: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"
