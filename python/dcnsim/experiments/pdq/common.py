"""What PDQ's figures share: the link rate, flow sizes and deadlines, the transports compared
(by label), and the measures built on the summaries: mean over seeds, and the search for the
number of deadline flows a protocol supports at 99 % application throughput."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .. import measure
from ..figure import Runs
from ..flowlists import FlowList

#: 1 Gb/s links and 1 µs per hop (the core's default delay); see the package doc.
LINK = {"link_gbps": 1, "link_delay_us": 1}
#: Flow sizes, KB of 1000 B: uniform on [2, 198] (mean 100 KB).
SIZES_KB = (2, 198)
#: Deadlines: 3 ms + an exponential, mean 20 ms.
DEADLINE_MEAN_MS, DEADLINE_MIN_MS = 20.0, 3.0
#: Application throughput a protocol must reach to "support" a number of deadline flows.
TARGET = 0.99

#: The transports compared, by the label the figures use.
TRANSPORTS: dict[str, dict[str, Any]] = {
    "pdq": {"protocol": "pdq"},
    # the digest's Algorithms 1-3 as written: links let flows send that they no longer count
    # (issue 35; the core's module doc, "Accounting over the whole path")
    "pdq-literal": {"protocol": "pdq", "pdq_accounting": "literal"},
    "d3": {"protocol": "d3"},
    # RCP as published (α = 0.1, β = 1, R(0) = C: the core's `rcp_variant = "published"`; its
    # default is the `ps` variant since issue 32)
    "rcp": {"protocol": "rcp", "rcp_variant": "published"},
    # RCP's processor-sharing variant (β = 0, ns-2's start R(0) = 0.05·C): the fair sharing the
    # PDQ paper says RCP emulates (§8); see the package doc
    "rcp-ps": {"protocol": "rcp", "rcp_beta": 0, "rcp_init_rate": 0.05},
    "tcp": {"protocol": "tcp"},
}


def mpdq(subflows: int) -> dict[str, Any]:
    return {"protocol": "mpdq", "subflows": subflows}


def pdq_aged(alpha: float) -> dict[str, Any]:
    return {"protocol": "pdq", "pdq_aging_rate": alpha}


def label(transport: Mapping[str, Any]) -> str:
    """The figure label of a transport table: a key of :data:`TRANSPORTS`, ``mpdq-3``, or
    ``pdq-aging-2``."""
    t = dict(transport)
    if t.get("protocol") == "mpdq":
        return f"mpdq-{t.get('subflows', 3)}"
    if t.get("protocol") == "pdq" and "pdq_aging_rate" in t:
        return f"pdq-aging-{t['pdq_aging_rate']:g}"
    return measure.label(t, TRANSPORTS)


def flow_list(hosts: int, senders: int, flows: int, seed: int, deadlines: bool) -> FlowList:
    """The figures' flow lists: :data:`SIZES_KB`, and with ``deadlines`` the paper's."""
    extra = {"deadline_mean_ms": DEADLINE_MEAN_MS, "deadline_min_ms": DEADLINE_MIN_MS} \
        if deadlines else {}
    return FlowList(hosts, senders, flows, seed, *SIZES_KB, **extra)


def writer(full: Mapping[str, FlowList], quick: Mapping[str, FlowList]):
    """``inputs`` of a sweep (a :class:`~..figure.SweepDef` hook): writes the ``quick`` lists
    for ``--quick``, the ``full`` ones otherwise."""
    def write(folder: Path, is_quick: bool) -> None:
        for fl in (quick if is_quick else full).values():
            fl.write(folder)
    return write


def points(runs: Runs, lists: Mapping[str, FlowList]) -> pd.DataFrame:
    """The finished points with ``label`` (of the transport) and, when the point ran a flow
    list, its ``senders``, ``flows``, ``seed`` and ``deadlines`` (the list has deadlines)
    columns."""
    ok = runs.ok().copy()
    ok["label"] = [label(t) for t in ok["transport"]]
    if "workload.file" in ok.columns:
        fl = [lists[p] for p in ok["workload.file"]]
        ok["senders"] = [f.senders for f in fl]
        ok["flows"] = [f.flows for f in fl]
        ok["seed"] = [f.seed for f in fl]
        ok["deadlines"] = [f.deadline_mean_ms is not None for f in fl]
    return ok


def paired_fcts(runs: Runs, pts: pd.DataFrame, first: str, second: str,
                group: list[str]) -> pd.DataFrame:
    """The flows of every group of points (one flow list) that ran both transports
    ``first`` and ``second`` (labels): ``first``'s flows.csv with ``second``'s FCT beside it as
    ``fct_s_other``, the groups concatenated (empty without any such pair)."""
    frames = []
    for _, g in pts.groupby(group):
        point = g.set_index("label")["point"]
        if first not in point or second not in point:
            continue
        flows = runs.results(point[first]).flows.set_index("flow_id")
        other = runs.results(point[second]).flows.set_index("flow_id")["fct_s"]
        frames.append(flows.assign(fct_s_other=other))
    return pd.concat(frames) if frames else pd.DataFrame(columns=["fct_s", "fct_s_other"])


def supported_flows(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The number of deadline flows each group of ``by`` supports at :data:`TARGET`.

    ``frame`` has one row per run: the ``by`` columns, ``flows`` (flows started together) and
    ``throughput`` (met / with deadline). Runs are averaged over seeds per flow count; the
    answer is the largest count of the grid such that it and every smaller count reach the
    target (0 when the smallest does not). Requiring every smaller count too keeps one lucky
    point above a failing one from counting.
    """
    mean = frame.groupby(by + ["flows"], as_index=False)["throughput"].mean()
    out = []
    for key, g in mean.groupby(by):
        g = g.sort_values("flows")
        ok = (g["throughput"] >= TARGET - 1e-12).cumprod().astype(bool)
        best = g["flows"][ok].max() if ok.any() else 0
        key = key if isinstance(key, tuple) else (key,)
        out.append({**dict(zip(by, key)), "supported": float(best)})
    return pd.DataFrame(out)


def seed_mean(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    """``column`` averaged over seeds (the rows of each ``by`` group)."""
    return measure.seed_means(frame[[*by, column]], by)
