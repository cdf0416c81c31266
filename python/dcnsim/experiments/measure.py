"""Measures the papers' figures share: naming a point's transport or routing, one row per
finished point, means over seeds, and the share of points at which a statement holds.

What differs from paper to paper stays in the paper's module and is passed in: its table of
named transports (or routing schemes), the columns its runs are keyed by, what it reads from
one run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from .figure import Runs


def label(table: Mapping[str, Any], named: Mapping[str, Mapping[str, Any]],
          what: str = "transport") -> str:
    """The name under which ``named`` lists ``table`` (a point's transport or routing table,
    compared whole); ``KeyError`` when none does."""
    for name, known in named.items():
        if dict(known) == dict(table):
            return name
    raise KeyError(f"no label for {what} {dict(table)}")


def per_point(runs: Runs, row: Callable[[dict[str, Any]], dict[str, Any] | None],
              columns: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per finished point: ``row(point)`` of its summary row (a dict: ``point``, the
    grid columns, the flattened summary); a point whose ``row`` is None is left out."""
    out = [r for p in runs.ok().to_dict("records") if (r := row(p)) is not None]
    return pd.DataFrame(out, columns=None if columns is None else list(columns))


def seed_means(frame: pd.DataFrame, keys: Sequence[str],
               drop: Sequence[str] = ("seed",)) -> pd.DataFrame:
    """Every other column of ``frame`` averaged over the rows of each ``keys`` group (the
    seeds); the columns of ``drop`` that are not keys are left out first."""
    gone = [c for c in drop if c in frame.columns and c not in keys]
    return frame.drop(columns=gone).groupby(list(keys), as_index=False).mean()


def wide(means: pd.DataFrame, metric: str, x: str, by: str) -> pd.DataFrame:
    """``metric`` with one row per value of ``x`` (sorted) and one column per value of
    ``by``."""
    return means.pivot(index=x, columns=by, values=metric).sort_index()


def share(holds: pd.Series) -> float:
    """Share of the points (loads, ratios, steps, pairs) at which a statement holds; NaN
    when there is none."""
    return float(holds.mean()) if len(holds) else float("nan")


def rises(series: pd.Series) -> float:
    """Share of the steps from one x (the index, sorted) to the next at which ``series``
    grows."""
    return share(series.sort_index().diff().dropna() > 0)


def falls(series: pd.Series) -> float:
    """Share of the steps from one x (the index, sorted) to the next at which ``series``
    shrinks."""
    return share(series.sort_index().diff().dropna() < 0)
