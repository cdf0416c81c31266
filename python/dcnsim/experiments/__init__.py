"""Paper reproductions: one module per paper, each declaring its :class:`~.figure.Paper`.

``dcnsim reproduce PAPER`` runs them (:mod:`.runner`); ``dcnsim reproduce --list`` lists them.
A paper module declares its runnable figures (:class:`~.figure.Figure`: the sweep, how to
measure and plot it) and the ones still pending; the numbers the paper reports live in
``data/<paper>.csv`` (:mod:`.claims`). ``core`` is a pseudo-paper of sanity figures.
"""

from __future__ import annotations

from . import core, mcp, merp, pace, pdq, tr
from .figure import Figure, Paper, Pending, Runs, SweepDef

#: Every paper ``reproduce`` knows, by the name it takes.
PAPERS: dict[str, Paper] = {m.PAPER.name: m.PAPER for m in (merp, pace, tr, mcp, pdq, core)}

__all__ = ["PAPERS", "Figure", "Paper", "Pending", "Runs", "SweepDef", "get"]


def get(name: str) -> Paper:
    """The paper called ``name``; ``KeyError`` names the valid ones."""
    try:
        return PAPERS[name.lower()]
    except KeyError:
        raise KeyError(f"unknown paper {name!r}; valid: {', '.join(PAPERS)}") from None
