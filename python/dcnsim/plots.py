"""Figures, drawn with matplotlib's Agg backend (no display needed) and saved as PNG.

Call these after runs, on the ``flows`` DataFrames of :class:`~dcnsim.results.Results`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

#: Resolution of saved figures.
DPI = 150


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

    fig = Figure(figsize=(10, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
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
    path = Path(path)
    fig.savefig(path, dpi=DPI)
    return path
