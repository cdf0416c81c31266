"""Flow switching and incast on one switch (§6.3): Figs. 13 and 14.

- ``fig13``: three senders start 2000 packets each (2 920 000 payload bytes, 3 000 000 on
  the wire) at 0 towards one receiver through one switch. The paper: done at 72.25 ms against
  3 × 2000 × 1500 B at 1 Gb/s = 72 ms; per-flow throughput (DATA) and link utilisation over
  time.
- ``fig14``: a long background flow from 0 and, at 10 ms, 30 flows of 20 packets from eight
  senders into one receiver. The paper: 91.8 % average utilisation of the receiver's link
  during 10–18 ms.

Both run MERP and, drawn grey as a reference the paper does not show, pFabric. The flow lists
are written into the figure's folder before the sweep (``inputs``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from ..figure import Figure, Runs, SweepDef, rows
from . import common

PROTOCOLS = ["merp", "pfabric"]
SERIES_US = 100
#: The plots average 6 samples: 600 µs is 50 full packets at 1 Gb/s, so the curves do not
#: alias between 8 and 9 packets per 100 µs.
SMOOTH = 6
SWITCHING_FILE = "_flows/switching.csv"
INCAST_FILE = "_flows/incast.csv"
#: Fig. 13: three flows of 2000 full packets each into host 3.
SWITCHING = [(src, 3, 2000 * common.MSS, 0.0) for src in range(3)]
#: Fig. 14: the background flow's size is not given; 5 MB (40 ms alone) outlasts the burst.
BACKGROUND_BYTES = 5_000_000
SHORT_BYTES = 20 * common.MSS
BURST_S, WINDOW_S = 0.010, (0.010, 0.018)
INCAST = [(0, 8, BACKGROUND_BYTES, 0.0)] + [(i % 8, 8, SHORT_BYTES, BURST_S) for i in range(30)]


def _writer(path: str, flows: list[tuple]):
    def write(folder: Path, quick: bool) -> None:
        target = Path(folder) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(flows, columns=["src", "dst", "size_bytes", "start_s"]).to_csv(
            target, index=False)
    return write


def _sweep(name: str, hosts: int, path: str, flows: list[tuple]) -> SweepDef:
    return SweepDef(
        base={"name": name, "seed": 1,
              "topology": {"kind": "star", "hosts": hosts, **common.LINK, "buffer_pkts": 100},
              "transport": {"protocol": "merp"},
              "workload": {"kind": "flows", "file": path},
              "output": {"series_interval_us": SERIES_US}},
        grid={"transport.protocol": PROTOCOLS},
        inputs=_writer(path, flows),
    )


def _run(runs: Runs, protocol: str):
    ok = runs.ok()
    point = ok[ok["transport.protocol"] == protocol]["point"]
    return (runs.results(point.iloc[0]), runs.ports(point.iloc[0])) if len(point) else (None, None)


def receiver_util(series: pd.DataFrame, ports: pd.DataFrame, receiver: int) -> pd.DataFrame:
    """The switch→receiver link's utilisation samples: ``time_s`` (end of each interval),
    ``value`` (fraction of the interval spent sending, all bytes)."""
    port = ports[(ports["node"] == "sw") & (ports["peer"] == f"h{receiver}")]["port"].iloc[0]
    u = series[(series["kind"] == "link_util") & (series["id"] == port)]
    return u[["time_s", "value"]].sort_values("time_s")


def mean_util(util: pd.DataFrame, start: float, end: float) -> float:
    """Mean utilisation over the sampling intervals that lie in (start, end]."""
    eps = 1e-9
    inside = util[(util["time_s"] > start + eps) & (util["time_s"] <= end + eps)]
    return float(inside["value"].mean())


# --- Fig. 13 -----------------------------------------------------------------------------------


def measure_fig13(runs: Runs | None) -> pd.DataFrame:
    out = []
    ideal_ms = sum(common.wire_bytes(size) for _, _, size, _ in SWITCHING) * 8 / 1e9 * 1e3
    for protocol in PROTOCOLS:
        r, ports = _run(runs, protocol)
        if r is None:
            continue
        done_ms = r.flows["finish_s"].max() * 1e3
        out += rows("done_ms", protocol, {"": done_ms})
        out += rows("ideal_ms", protocol, {"": ideal_ms})
        out += rows("overhead_ms", protocol, {"": done_ms - ideal_ms})
        util = receiver_util(r.series, ports, 3)
        out += rows("utilization", protocol, {"": mean_util(util, 0, done_ms / 1e3)})
        order = r.flows.sort_values("finish_s")["finish_s"].to_numpy() * 1e3
        out += rows("finish_ms", protocol, {f"flow {i + 1}": t for i, t in enumerate(order)})
    return pd.DataFrame(out)


def plot_fig13(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    fig = new_figure(13, 4.6)
    axes = fig.subplots(1, 2)
    r, ports = _run(runs, "merp")
    g = r.series[r.series["kind"] == "flow_goodput_bps"]
    for i, (fid, s) in enumerate(g.groupby("id")):
        axes[0].plot(s["time_s"] * 1e3, common.smooth(s["value"], SMOOTH) / 1e9, lw=1,
                     color=f"C{i}",
                     label=f"flow {fid + 1} (h{fid} → h3)")
    for protocol, colour in (("merp", "tab:red"), ("pfabric", "grey")):
        rr, pp = _run(runs, protocol)
        if rr is None:
            continue
        u = receiver_util(rr.series, pp, 3)
        axes[1].plot(u["time_s"] * 1e3, common.smooth(u["value"], SMOOTH), lw=1, color=colour,
                     label=f"{common.NAMES[protocol]}" + ("" if protocol == "merp"
                                                          else " (not in the paper)"))
    o = ours[ours["protocol"] == "merp"].set_index("metric")["value"]
    for ax in axes:
        for ms, style in ((72.0, ":"), (72.25, "--")):
            ax.axvline(ms, color="black", ls=style, lw=1)
        ax.set_xlabel("time (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    axes[0].set_ylabel("throughput, DATA delivered (Gb/s)")
    axes[0].set_title(f"per-flow throughput; done at {o['done_ms']:.2f} ms "
                      "(paper 72.25, dashed; ideal 72, dotted)", fontsize=9)
    axes[1].set_ylabel("utilisation of the receiver's link")
    axes[1].set_ylim(0, 1.05)
    axes[1].set_title(f"link utilisation (mean over {SERIES_US * SMOOTH} µs); MERP's mean "
                      f"until done {o['utilization']:.1%}", fontsize=9)
    fig.suptitle("MERP Fig. 13: seamless flow switching, 3 × 2000 packets into one receiver, "
                 "1 Gb/s, 10 µs per hop", fontsize=10)
    save(fig, path)


FIG13 = Figure(
    id="fig13",
    title="Flow switching: three flows of 2000 packets, one after the other",
    shows="Fig. 13 (§6.3.1): three senders, 2000 packets each at 0, one receiver, one switch, "
          "1 Gb/s, 10 µs per hop: per-flow throughput and link utilisation over time; the "
          "paper finishes in 72.25 ms against an ideal 72 ms.",
    sweep=_sweep("merp-switching", 4, SWITCHING_FILE, SWITCHING),
    measure=measure_fig13,
    plot=plot_fig13,
)


# --- Fig. 14 -----------------------------------------------------------------------------------


def measure_fig14(runs: Runs | None) -> pd.DataFrame:
    out = []
    for protocol in PROTOCOLS:
        r, ports = _run(runs, protocol)
        if r is None:
            continue
        util = receiver_util(r.series, ports, 8)
        out += rows("util_10_18ms", protocol, {"": mean_util(util, *WINDOW_S)})
        f = r.flows
        short = f[f["size_bytes"] == SHORT_BYTES]
        background = f[f["size_bytes"] == BACKGROUND_BYTES]
        last_short = short["finish_s"].max()
        out += rows("last_short_done_ms", protocol, {"": last_short * 1e3})
        out += rows("short_fct_mean_ms", protocol, {"": short["fct_s"].mean() * 1e3})
        out += rows("background_resumes_after_burst", protocol,
                    {"": float(background["finish_s"].iloc[0] > last_short)})
    return pd.DataFrame(out)


def plot_fig14(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    fig = new_figure(13, 4.6)
    axes = fig.subplots(1, 2)
    r, _ = _run(runs, "merp")
    g = r.series[r.series["kind"] == "flow_goodput_bps"]
    big = r.flows[r.flows["size_bytes"] == BACKGROUND_BYTES]["flow_id"].iloc[0]
    t = np.sort(g["time_s"].unique())
    short = g[g["id"] != big].groupby("time_s")["value"].sum().reindex(t, fill_value=0)
    long = g[g["id"] == big].set_index("time_s")["value"].reindex(t, fill_value=0)
    axes[0].plot(t * 1e3, common.smooth(long, SMOOTH) / 1e9, color="tab:blue", lw=1,
                 label="background flow")
    axes[0].plot(t * 1e3, common.smooth(short, SMOOTH) / 1e9, color="tab:orange", lw=1,
                 label="30 short flows (sum)")
    axes[0].set_ylabel("throughput, DATA delivered (Gb/s)")
    o = ours.set_index(["metric", "protocol"])["value"]
    for protocol, colour in (("merp", "tab:red"), ("pfabric", "grey")):
        rr, pp = _run(runs, protocol)
        if rr is None:
            continue
        u = receiver_util(rr.series, pp, 8)
        axes[1].plot(u["time_s"] * 1e3, common.smooth(u["value"], SMOOTH), lw=1, color=colour,
                     label=f"{common.NAMES[protocol]}: {o[('util_10_18ms', protocol)]:.1%} "
                           "over 10–18 ms"
                           + ("" if protocol == "merp" else " (not in the paper)"))
    for c in paper[paper["metric"] == "util_10_18ms"].itertuples():
        axes[1].hlines(c.value, *(x * 1e3 for x in WINDOW_S), color="black", ls="--",
                       label=f"paper: {c.value:.1%}")
    axes[1].set_ylabel("utilisation of the receiver's link")
    axes[1].set_ylim(0, 1.05)
    for ax in axes:
        ax.axvspan(*(x * 1e3 for x in WINDOW_S), color="grey", alpha=0.12)
        ax.set_xlim(0, 50)
        ax.set_xlabel("time (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    fig.suptitle("MERP Fig. 14: incast, a 5 MB background flow from 0 and 30 flows of 20 "
                 "packets from 8 senders at 10 ms, one receiver", fontsize=10)
    save(fig, path)


FIG14 = Figure(
    id="fig14",
    title="Incast robustness: 30 short flows preempt a background flow",
    shows="Fig. 14 (§6.3.2): a background flow from 0 ms and 30 flows of 20 packets from 8 "
          "senders at 10 ms into one receiver; the receiver's link utilisation, which the "
          "paper measures at 91.8 % during 10–18 ms.",
    sweep=_sweep("merp-incast", 9, INCAST_FILE, INCAST),
    measure=measure_fig14,
    plot=plot_fig14,
)
