"""What every plot shares: figure size and resolution, saving, colours by label."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

#: Resolution of saved figures.
DPI = 150


def new_figure(width: float, height: float) -> Figure:
    """A figure on the Agg canvas (no display needed), laid out to fit its labels."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path: str | Path) -> Path:
    """Writes ``fig`` as a PNG at :data:`DPI`; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI)
    return path
