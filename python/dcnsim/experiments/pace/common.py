"""What PACE's figures share: the parking lot, the transports compared, the flow schedules and
their flow files, and the measures on a run's series (Jain's index over time, link
utilisation, rates per window, the max-min allocation computed by hand)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import measure
from ..figure import Runs

#: The parking lot of the core (module doc of ``topo/parkinglot.rs``) at the paper's 1 Gb/s:
#: forwarders F1..F5, bottleneck F4–F5, 6.25 µs per link (RTT ≈ 150 µs from group a),
#: 100-packet buffers.
TOPOLOGY = {"kind": "parkinglot", "link_gbps": 1}
LINK_BPS = 1e9
#: Payload rate of a full 1500 B TCP/IP packet on the link: the flows' sizes are sized with it.
PAYLOAD_BPS = LINK_BPS * 1460 / 1500
#: Payload share of a full data packet of each transport (its own header included).
PAYLOAD_FRACTION = {"pace": 1460 / 1514, "d3": 1460 / 1522, "dctcp": 1460 / 1500,
                    "tcp": 1460 / 1500}

#: Host ids of the parking lot (16 per group): senders a, b, c, d, receivers, cross receivers.
GROUP_FIRST = {"a": 0, "b": 16, "c": 32, "d": 48}
RECEIVERS, CROSS, PER_GROUP = 64, 80, 16

#: The transports compared, by the label the figures use (the core's defaults for each, but
#: D3's rate unit: PACE's 1 byte/µs, 8 Mb/s, where the core's default is 1 Mb/s — the unit
#: PACE's §IV describes of its D3, whose 125-flow limit on a 1 Gb/s link Table 1 reads).
TRANSPORTS: dict[str, dict[str, Any]] = {
    "pace": {"protocol": "pace"},
    "d3": {"protocol": "d3", "d3_rate_unit_mbps": 8},
    "dctcp": {"protocol": "dctcp"},
    "tcp": {"protocol": "tcp"},
}
NAMES = {"pace": "PACE", "d3": "D³", "dctcp": "DCTCP", "tcp": "TCP"}
COLOURS = {"pace": "tab:blue", "d3": "tab:green", "dctcp": "tab:orange", "tcp": "tab:red"}

#: Folder, inside a figure's sweep folder, of its flow files.
FOLDER = "_flows"


def label(transport: Mapping[str, Any]) -> str:
    """The label of a transport table: a key of :data:`TRANSPORTS`."""
    return measure.label(transport, TRANSPORTS)


@dataclass(frozen=True)
class FlowFile:
    """A flow list (src, dst, size_bytes, start_s[, weight]) under a name; written by a
    sweep's ``inputs`` hook into ``_flows/<name>.csv`` of the figure's folder."""

    name: str
    frame: pd.DataFrame

    @property
    def path(self) -> str:
        return f"{FOLDER}/{self.name}.csv"

    def write(self, folder: Path) -> None:
        path = Path(folder) / self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.frame.to_csv(path, index=False, float_format="%.9g")


def writer(files: Sequence[FlowFile], quick_files: Sequence[FlowFile]):
    """``inputs`` hook of a sweep: writes the full or the quick files."""
    def write(folder: Path, quick: bool) -> None:
        for f in quick_files if quick else files:
            f.write(folder)
    return write


# --- scenario 1: flows started one after the other, stopped in reverse ---------------------------


def sequential_schedule(n: int, spacing_s: float) -> list[tuple[float, float]]:
    """(start, end) of flow i: started every ``spacing_s``, ended in the reverse order with the
    same spacing (§IV.A): flow i runs from i·Δ to (2n − 1 − i)·Δ."""
    return [(i * spacing_s, (2 * n - 1 - i) * spacing_s) for i in range(n)]


def fair_sizes(schedule: Sequence[tuple[float, float]], rate_bps: float = PAYLOAD_BPS) -> list[int]:
    """Bytes each flow carries if it gets exactly an equal share of the bottleneck while it is
    active: the flows of the paper stop at given times, ours stop when their bytes are done,
    so a protocol that shares fairly ends them in the paper's order at the paper's times."""
    edges = sorted({t for s in schedule for t in s})
    sizes = np.zeros(len(schedule))
    for a, b in zip(edges[:-1], edges[1:]):
        active = [i for i, (s, e) in enumerate(schedule) if s <= a and e >= b]
        for i in active:
            sizes[i] += rate_bps / 8 * (b - a) / len(active)
    return [int(round(x)) for x in sizes]


def scenario1_flows(n: int, spacing_s: float, groups: str) -> pd.DataFrame:
    """Scenario 1's flow list: ``groups`` "abcd" picks senders from groups a, b, c, d round
    robin (the different-RTT runs), "a" every sender from group a (same RTT); within a group,
    successive flows take successive hosts (round robin over its 16); flow i goes to receiver
    i mod 16."""
    sched = sequential_schedule(n, spacing_s)
    k = len(groups)
    src = [GROUP_FIRST[groups[i % k]] + (i // k) % PER_GROUP for i in range(n)]
    dst = [RECEIVERS + i % PER_GROUP for i in range(n)]
    return pd.DataFrame({"src": src, "dst": dst, "size_bytes": fair_sizes(sched),
                         "start_s": [s for s, _ in sched]})


# --- measures on one run --------------------------------------------------------------------------


def bottleneck_port(ports: pd.DataFrame, node: str = "F4", peer: str = "F5") -> int:
    row = ports[(ports["node"] == node) & (ports["peer"] == peer)]
    return int(row["port"].iloc[0])


def goodput_wide(series: pd.DataFrame) -> pd.DataFrame:
    """Per-flow goodput (bit/s): one row per sample time, one column per flow (NaN where the
    flow had no sample)."""
    g = series[series["kind"] == "flow_goodput_bps"]
    return g.pivot_table(index="time_s", columns="id", values="value")


def active_mask(times: np.ndarray, flows: pd.DataFrame, interval_s: float) -> pd.DataFrame:
    """Per sample (rows: the sample's end time) and flow: whether the flow was active during
    the whole sampling interval (started before it began, not finished before it ended)."""
    start = flows.set_index("flow_id")["start_s"]
    finish = flows.set_index("flow_id")["finish_s"].fillna(np.inf)
    t = times[:, None]
    mask = (start.to_numpy()[None, :] <= t - interval_s + 1e-12) & (finish.to_numpy()[None, :] >= t)
    return pd.DataFrame(mask, index=times, columns=start.index)


def jain(x: np.ndarray) -> float:
    s = x.sum()
    return float(s * s / (len(x) * (x * x).sum())) if len(x) and (x * x).sum() > 0 else np.nan


def jain_over_time(series: pd.DataFrame, flows: pd.DataFrame, interval_s: float,
                   min_flows: int = 2) -> pd.Series:
    """Jain's index of the goodputs of the flows active through each sampling interval (at
    least ``min_flows`` of them; samples where every one of them got nothing are skipped)."""
    wide = goodput_wide(series).reindex(columns=flows["flow_id"]).fillna(0.0)
    mask = active_mask(wide.index.to_numpy(), flows, interval_s)
    out = {}
    for t, row in wide.iterrows():
        x = row.to_numpy()[mask.loc[t].to_numpy()]
        if len(x) >= min_flows and x.sum() > 0:
            out[t] = jain(x)
    return pd.Series(out, dtype=float)


def efficiency_over_time(series: pd.DataFrame, flows: pd.DataFrame, interval_s: float,
                         label: str) -> pd.Series:
    """Per sample: the flows' total goodput over what the link carries as payload in full
    packets of the transport — its utilisation by data, control overhead excluded."""
    wide = goodput_wide(series).reindex(columns=flows["flow_id"]).fillna(0.0)
    return wide.sum(axis=1) / (LINK_BPS * PAYLOAD_FRACTION[label])


def link_util(series: pd.DataFrame, port: int) -> pd.Series:
    u = series[(series["kind"] == "link_util") & (series["id"] == port)]
    return u.set_index("time_s")["value"]


def queue_bytes(series: pd.DataFrame, port: int) -> pd.Series:
    q = series[(series["kind"] == "queue_bytes") & (series["id"] == port)]
    return q.set_index("time_s")["value"]


def window_rate(series: pd.DataFrame, flow: int, t0: float, t1: float) -> float:
    """A flow's mean goodput (bit/s) over the samples ending in (t0, t1]."""
    g = series[(series["kind"] == "flow_goodput_bps") & (series["id"] == flow)]
    g = g[(g["time_s"] > t0 + 1e-12) & (g["time_s"] <= t1 + 1e-12)]
    return float(g["value"].mean()) if len(g) else np.nan


def max_min(flows: Sequence[Sequence[str]], capacity: Mapping[str, float],
            weights: Sequence[float] | None = None) -> list[float]:
    """Weighted max-min rates of flows given as the links they cross, by progressive
    filling: the hand computation the figures compare against."""
    w = list(weights or [1.0] * len(flows))
    rate = [0.0] * len(flows)
    frozen = [False] * len(flows)
    left = dict(capacity)
    while not all(frozen):
        # the link that fills first at equal growth per weight
        share = {l: left[l] / sum(w[i] for i, f in enumerate(flows) if l in f and not frozen[i])
                 for l in left if any(l in f and not frozen[i] for i, f in enumerate(flows))}
        link, s = min(share.items(), key=lambda kv: kv[1])
        for i, f in enumerate(flows):
            if not frozen[i]:
                rate[i] += s * w[i]
                for l in f:
                    left[l] -= s * w[i]
        for i, f in enumerate(flows):
            if not frozen[i] and link in f:
                frozen[i] = True
    return rate


def drops(runs: Runs, point: str) -> int:
    return int(runs.ports(point)["drops"].sum())
