"""Results of one run: per-flow records and time series as DataFrames, the summary as a dict.

:func:`dcnsim.run` builds a :class:`Results` from the core's columns; :meth:`Results.load`
reads back a result directory (flows.csv, summary.json, scenario.json, series.csv) that a run
with ``out=`` wrote, so analysis can happen long after the simulation;
:meth:`Results.sweep_flows` reads every point's flows of a sweep into one frame.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .sweep_folder import collect, grid_keys

#: The per-flow columns, in order, with their dtypes. Times are seconds; NaN marks "not
#: finished" (finish_s, fct_s, slowdown), "no deadline" (deadline_s, met_deadline), "not
#: terminated by its protocol" (terminated_s) or "no data packet sent" (queue_delay_mean_s,
#: host_delay_mean_s).
FLOW_COLUMNS: dict[str, str] = {
    "flow_id": "uint64",
    "src": "uint32",
    "dst": "uint32",
    "size_bytes": "uint64",
    "start_s": "float64",
    "finish_s": "float64",
    "fct_s": "float64",
    "ideal_fct_s": "float64",
    "slowdown": "float64",
    "deadline_s": "float64",
    "met_deadline": "boolean",
    "retransmits": "uint64",
    "timeouts": "uint64",
    "bytes_delivered": "uint64",
    "terminated_s": "float64",
    "data_packets": "uint64",
    "spurious_retransmits": "uint64",
    "ooo_arrivals": "uint64",
    "dupacks_reorder": "uint64",
    "dupacks_loss": "uint64",
    "queue_delay_mean_s": "float64",
    "host_delay_mean_s": "float64",
}

#: The time-series columns: ``kind`` is "flow_goodput_bps", "queue_bytes" or "link_util", and
#: ``id`` is a flow id or a port/link index accordingly.
SERIES_COLUMNS: dict[str, str] = {
    "time_s": "float64",
    "kind": "object",
    "id": "uint64",
    "value": "float64",
}

_TRUE = {"1", "1.0", "true", "t", "yes"}
_FALSE = {"0", "0.0", "false", "f", "no"}


def deadline_flags(values: Any) -> pd.arrays.BooleanArray:
    """``met_deadline`` as a nullable boolean array: True, False, or <NA> for no deadline.

    Accepts the core's float encoding (1.0 / 0.0 / NaN) and what a CSV may hold
    (1/0, true/false, empty).
    """
    s = pd.Series(values)
    if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        missing = s.isna().to_numpy(dtype=bool)
        flags = s.fillna(0).astype("float64").to_numpy() != 0.0
    else:
        text = s.map(lambda v: "" if pd.isna(v) else str(v).strip().lower())
        bad = ~(text.isin(_TRUE) | text.isin(_FALSE) | (text == "") | (text == "nan"))
        if bad.any():
            raise ValueError(f"met_deadline: unexpected value {s[bad].iloc[0]!r}")
        missing = (~(text.isin(_TRUE) | text.isin(_FALSE))).to_numpy(dtype=bool)
        flags = text.isin(_TRUE).to_numpy(dtype=bool)
    return pd.arrays.BooleanArray(flags, missing)


def flows_frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    """The flows DataFrame from a mapping of column name to array (the core's ``flows``).

    Known columns come first in :data:`FLOW_COLUMNS` order with their dtypes; columns the core
    may add later follow unchanged.
    """
    data: dict[str, Any] = {}
    for name, dtype in FLOW_COLUMNS.items():
        if name not in columns:
            continue
        if name == "met_deadline":
            data[name] = deadline_flags(columns[name])
        else:
            data[name] = np.asarray(columns[name]).astype(dtype, copy=False)
    for name, values in columns.items():
        if name not in data:
            data[name] = values
    return pd.DataFrame(data)


def series_frame(columns: Mapping[str, Any] | None) -> pd.DataFrame | None:
    """The time-series DataFrame from the core's ``series`` columns, or None when off."""
    if columns is None:
        return None
    return pd.DataFrame({name: np.asarray(values) for name, values in columns.items()})


PATH_COLUMNS = {
    "flow_id": "uint32",
    "hop": "uint32",
    "port": "uint32",
    "node": "object",
    "peer": "object",
    "packets": "Int64",
}


def paths_frame(raw: pd.DataFrame) -> pd.DataFrame:
    """paths.csv's frame with one set of dtypes whether read from the file or the core
    (``packets`` nullable: empty under the flow-level engine)."""
    return raw.astype({c: t for c, t in PATH_COLUMNS.items() if c in raw.columns})


def read_flows(path: Path) -> pd.DataFrame:
    """A flows.csv file as the flows DataFrame (:data:`FLOW_COLUMNS`' dtypes)."""
    dtypes = {k: v for k, v in FLOW_COLUMNS.items() if v not in ("boolean", "float64")}
    raw = pd.read_csv(path, dtype={**dtypes, "met_deadline": "string"})
    return flows_frame({c: raw[c].to_numpy() for c in raw.columns})


def _with_grid(flows: pd.DataFrame, point: str, values: Mapping[str, Any]) -> pd.DataFrame:
    """``flows`` behind a ``point`` column and one column per grid value (a table or list
    value, such as a failure schedule, is kept as it is in every row)."""
    grid = {"point": point, **values}
    front = pd.DataFrame({k: pd.Series([v] * len(flows), dtype=object if
                                       isinstance(v, (Mapping, list)) else None)
                          for k, v in grid.items()})
    return pd.concat([front, flows.reset_index(drop=True)], axis=1)


class Results:
    """What one run produced.

    Attributes:
        flows: one row per flow, unfinished flows included (NaN finish, FCT and slowdown).
        summary: the core's summary (counts, FCT and slowdown percentiles, by size class,
            deadline miss rate, packets, the run's own cost).
        series: time series in long form (time_s, kind, id, value), or None when the scenario
            did not ask for them (``output.series_interval_us = 0``).
        trace: the traced flows' senders, packet by packet (time_s, flow_id, event, seq, ack,
            payload, retransmit, cwnd_bytes; one flow's rows are ``trace[trace.flow_id == f]``),
            or None without ``output.trace_flow`` (or with an empty list).
        paths: the ports each flow's data crossed (flow_id, hop, port, node, peer, packets),
            one row per port; ``packets`` is <NA> under ``engine = "flow"``. Select the flows
            that crossed a link with ``paths[(paths.node == "a") & (paths.peer == "b")]``.
            None without ``output.paths = true``.
        scenario: the resolved scenario, defaults filled in (None if the directory lacked it).
        path: the result directory, when there is one.
    """

    def __init__(
        self,
        flows: pd.DataFrame,
        summary: dict[str, Any],
        series: pd.DataFrame | None = None,
        scenario: dict[str, Any] | None = None,
        path: str | Path | None = None,
        trace: pd.DataFrame | None = None,
        paths: pd.DataFrame | None = None,
    ) -> None:
        self.flows = flows
        self.summary = summary
        self.series = series
        self.trace = trace
        self.paths = paths
        self.scenario = scenario
        self.path = Path(path) if path is not None else None

    @classmethod
    def from_core(
        cls,
        raw: Mapping[str, Any],
        scenario: dict[str, Any] | None = None,
        path: str | Path | None = None,
    ) -> Results:
        """Wraps what ``_core.run`` returned; :func:`dcnsim.run` calls this for you."""
        return cls(
            flows=flows_frame(raw["flows"]),
            summary=json.loads(raw["summary"]),
            series=series_frame(raw.get("series")),
            scenario=scenario,
            path=path,
            trace=pd.DataFrame(dict(raw["trace"])) if raw.get("trace") is not None else None,
            paths=paths_frame(pd.DataFrame(dict(raw["paths"])))
            if raw.get("paths") is not None
            else None,
        )

    @classmethod
    def load(cls, directory: str | Path) -> Results:
        """Reads a result directory written by a run with ``out=`` / ``--out``.

        Needs flows.csv and summary.json; scenario.json, series.csv, trace.csv and paths.csv are
        read when present.
        """
        d = Path(directory)
        if not (d / "flows.csv").is_file():
            raise FileNotFoundError(f"{d}: no flows.csv, not a result directory")
        flows = read_flows(d / "flows.csv")
        summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
        scenario = None
        if (d / "scenario.json").is_file():
            scenario = json.loads((d / "scenario.json").read_text(encoding="utf-8"))
        series = None
        if (d / "series.csv").is_file():
            series = pd.read_csv(
                d / "series.csv", dtype={"kind": "object", "id": "uint64"}
            )
        trace = pd.read_csv(d / "trace.csv") if (d / "trace.csv").is_file() else None
        paths = None
        if (d / "paths.csv").is_file():
            paths = paths_frame(pd.read_csv(d / "paths.csv", dtype={"node": "object", "peer": "object"}))
        return cls(flows, summary, series, scenario, path=d, trace=trace, paths=paths)

    @staticmethod
    def sweep_flows(directory: str | Path) -> pd.DataFrame:
        """Every finished point's flows of the sweep in ``directory`` (what ``dcnsim.sweep``
        or ``dcnsim sweep --out`` wrote) in one frame: ``point`` (the point's folder name), one
        column per grid key holding the point's value, then flows.csv's columns.

        Points that failed or have not run are left out (``summaries.csv`` lists them).
        Raises ``FileNotFoundError`` when ``directory`` has no sweep.json.
        """
        d = Path(directory)
        keys = grid_keys(d)
        points = collect(d)
        parts = [_with_grid(read_flows(d / row["point"] / "flows.csv"), row["point"],
                            {k: row[k] for k in keys})
                 for _, row in points[points["status"] == "ok"].iterrows()]
        if not parts:
            return pd.DataFrame(columns=["point", *keys, *FLOW_COLUMNS])
        return pd.concat(parts, ignore_index=True)

    @property
    def finished(self) -> pd.DataFrame:
        """The flows that completed (finite FCT)."""
        return self.flows[self.flows["fct_s"].notna()]

    def __repr__(self) -> str:
        f = self.summary.get("flows", {})
        return (
            f"<Results {self.summary.get('name') or ''} {self.summary.get('protocol', '?')}: "
            f"{f.get('finished', '?')}/{f.get('total', '?')} flows finished>"
        )
