"""What ``dcnsim plot`` options select: a sweep's grid point, a time window, ports.

Each function checks its option against the folder and raises :class:`PlotOptionError`,
naming the option and listing what is valid, when the choice matches nothing.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd


class PlotOptionError(ValueError):
    """A ``dcnsim plot`` option (``--load``, ``--point``, ``--from``, ``--to``, ``--ports``)
    that does not fit the folder; the message names the option."""


# --- a sweep's grid point ----------------------------------------------------------------------


def grid_key(key: str, grid: list[str], option: str) -> str:
    """The grid key ``key`` names: a key in full (``workload.load``) or its last part
    (``load``) when that is unique."""
    if key in grid:
        return key
    matches = [k for k in grid if k.rsplit(".", 1)[-1] == key]
    if len(matches) == 1:
        return matches[0]
    what = "is ambiguous" if matches else "is not a grid key"
    raise PlotOptionError(f"{option}: {key!r} {what}; the sweep's grid keys are "
                          f"{', '.join(grid) or '(none)'}")


def value_text(v: Any) -> str:
    """A grid value as the options write it: ``0.5``, ``dctcp``, JSON for a table or list."""
    if isinstance(v, (Mapping, list, tuple)):
        return json.dumps(v, sort_keys=True)
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)  # a float's shortest text that reads back as it: 0.5, 0.123456789


def same_value(v: Any, text: str) -> bool:
    """Whether grid value ``v`` is the one ``text`` names (numbers compare as numbers)."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        try:
            return math.isclose(float(v), float(text), rel_tol=1e-9, abs_tol=0.0)
        except ValueError:
            return False
    return value_text(v) == text.strip()


def parse_assignments(items: Iterable[str], option: str) -> dict[str, str]:
    """``["load=0.5", "seed=1"]`` as ``{"load": "0.5", "seed": "1"}``."""
    chosen = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip() or not text.strip():
            raise PlotOptionError(f"{option}: {item!r} must look like KEY=VALUE, e.g. load=0.5")
        chosen[key.strip()] = text.strip()
    return chosen


def select_point(points: pd.DataFrame, grid: list[str],
                 chosen: Mapping[str, tuple[str, str]]) -> pd.DataFrame:
    """The rows of ``points`` (a frame with a column per grid key) whose grid values are
    ``chosen``: ``{key: (option, value text)}``, the option being the one that gave it."""
    rows = points
    for key, (option, text) in chosen.items():
        column = grid_key(key, grid, option)
        hit = rows[rows[column].map(lambda v: same_value(v, text))]
        if hit.empty:
            values = sorted({value_text(v) for v in rows[column]}, key=_natural)
            raise PlotOptionError(
                f"{option}: no finished point has {column} = {text}; "
                f"valid values: {', '.join(values) or '(none: no point finished)'}")
        rows = hit
    return rows


def _natural(text: str) -> tuple[int, float, str]:
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


# --- a run's time series -----------------------------------------------------------------------


def check_window(start: float | None, end: float | None) -> tuple[float, float] | None:
    """``(from, to)`` in seconds, open ends filled with 0 and infinity; None when neither."""
    if start is None and end is None:
        return None
    lo, hi = start if start is not None else 0.0, end if end is not None else math.inf
    for option, v in (("--from", lo), ("--to", hi)):
        if math.isnan(v) or v < 0:
            raise PlotOptionError(f"{option}: must be a time ≥ 0 in seconds, got {v}")
    if hi <= lo:
        raise PlotOptionError(f"--to: must be later than --from ({lo:g} s), got {hi:g}")
    return lo, hi


def in_window(series: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """The samples with ``from ≤ time_s ≤ to``; refuses a window that holds none."""
    lo, hi = window
    kept = series[(series["time_s"] >= lo) & (series["time_s"] <= hi)]
    if kept.empty:
        span = f"after {lo:g} s" if math.isinf(hi) else f"between {lo:g} and {hi:g} s"
        raise PlotOptionError(
            f"--from/--to: no sample {span}; the series run from "
            f"{series['time_s'].min():g} to {series['time_s'].max():g} s")
    return kept


def port_ids(items: Iterable[str], ports: pd.DataFrame | None, series: pd.DataFrame) -> list[int]:
    """The port ids that ``--ports`` names: each item a port id (ports.csv's ``port``) or a
    node name (every port out of that node)."""
    known = (sorted(int(p) for p in ports["port"]) if ports is not None
             else sorted(int(i) for i in series.loc[series["kind"] != "flow_goodput_bps", "id"]
                         .unique()))
    chosen: list[int] = []
    for item in (i.strip() for i in items):
        if item.isdigit():
            ids = [int(item)] if int(item) in known else []
        elif ports is not None:
            ids = [int(p) for p in ports.loc[ports["node"].astype(str) == item, "port"]]
        else:
            ids = []
        if not ids:
            raise PlotOptionError(f"--ports: {item!r} is no port; {_valid_ports(known, ports)}")
        chosen += [i for i in ids if i not in chosen]
    if not chosen:
        raise PlotOptionError(f"--ports: names no port; {_valid_ports(known, ports)}")
    return chosen


def _valid_ports(known: list[int], ports: pd.DataFrame | None) -> str:
    ids = f"port ids are {known[0]}–{known[-1]}" if known else "the run has no ports"
    if ports is None:
        return ids + " (no ports.csv, so no node names)"
    nodes = list(dict.fromkeys(ports["node"].astype(str)))
    shown = ", ".join(nodes[:12]) + (f", … ({len(nodes)} nodes)" if len(nodes) > 12 else "")
    return f"{ids} (ports.csv's port) or a node name: {shown}"


def only_ports(series: pd.DataFrame, ids: list[int]) -> pd.DataFrame:
    """``series`` with the port kinds (queue, utilisation) kept for ``ids`` only."""
    per_port = series["kind"] != "flow_goodput_bps"
    return series[~per_port | series["id"].isin(ids)]
