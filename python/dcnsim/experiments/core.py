"""``core``: sanity figures of the simulator itself, not of one of the five papers.

- ``dctcp-queue``: four long flows into one receiver across a 10 Gb/s dumbbell, TCP NewReno
  against DCTCP, the bottleneck queue over time (drawn like Fig. 1 of the DCTCP paper, queue
  length against time for both). The expectations come from the scenario and from how the two
  protocols work (baselines.md §1–2), not from a paper's table: DCTCP marks packets once K = 65
  packets wait and cuts its window in proportion to the marks, so its queue stays near K and
  nothing is dropped; NewReno grows its window until the buffer (250 packets) overflows, so
  its queue reaches the buffer. The data table (data/core.csv) says so claim by claim.

Measures, at the bottleneck port (the switch port with the largest mean queue), after a 1 ms
warm-up: mean queue (packets of 1500 B), largest sampled queue, drops over the run, and
link utilisation. The queue is sampled every 20 µs at an instant (``queue_bytes``), so the
largest sample can miss a peak by a packet or two; the tolerance allows for it.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..plots import new_figure, save
from .figure import Figure, Paper, Runs, SweepDef, rows

PACKET = 1500
WARMUP_S = 0.001

DUMBBELL = {
    "name": "dctcp-queue",
    "seed": 1,
    "stop_s": 0.05,
    "topology": {"kind": "dumbbell", "senders": 4, "receivers": 1, "link_gbps": 10,
                 "link_delay_us": 1, "buffer_pkts": 250},
    "transport": {"protocol": "dctcp"},  # K: the default 65 packets at 10 Gb/s
    "workload": {"kind": "incast", "senders": [0, 1, 2, 3], "receiver": 4,
                 "sizes": {"dist": "fixed", "kb": 1_000_000}, "start_s": 0},
    "output": {"series_interval_us": 20},
}


def _bottleneck(series: pd.DataFrame) -> tuple[int, pd.DataFrame]:
    q = series[series["kind"] == "queue_bytes"]
    port = int(q.groupby("id")["value"].mean().idxmax())
    return port, q[q["id"] == port]


def measure_dctcp_queue(runs: Runs | None) -> pd.DataFrame:
    out = []
    for point in runs.ok().to_dict("records"):
        proto, name = point["transport.protocol"], point["point"]
        r = runs.results(name)
        port, q = _bottleneck(r.series)
        steady = q[q["time_s"] >= WARMUP_S]
        util = r.series[(r.series["kind"] == "link_util") & (r.series["id"] == port)
                        & (r.series["time_s"] >= WARMUP_S)]
        drops = runs.ports(name).set_index("port").loc[port, "drops"]
        out += rows("queue_mean_pkts", proto, {"": steady["value"].mean() / PACKET})
        out += rows("queue_max_pkts", proto, {"": q["value"].max() / PACKET})
        out += rows("drops", proto, {"": drops})
        out += rows("utilization", proto, {"": util["value"].mean()})
    return pd.DataFrame(out)


def plot_dctcp_queue(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None,
                     path: Path) -> None:
    fig = new_figure(8, 4.2)
    ax = fig.subplots()
    colours = {"tcp": "tab:red", "dctcp": "tab:blue"}
    for point in runs.ok().to_dict("records"):
        proto = point["transport.protocol"]
        _, q = _bottleneck(runs.results(point["point"]).series)
        drops = ours[(ours["protocol"] == proto) & (ours["metric"] == "drops")]["value"].iloc[0]
        ax.plot(q["time_s"] * 1e3, q["value"] / PACKET, lw=1, color=colours.get(proto),
                label=f"{'TCP NewReno' if proto == 'tcp' else 'DCTCP'} ({drops:.0f} drops)")
    for c in paper[paper["metric"].isin(["queue_mean_pkts", "queue_max_pkts"])].itertuples():
        what = "mean" if c.metric == "queue_mean_pkts" else "max"
        ax.axhline(c.value, ls="--", lw=1, color=colours.get(c.protocol, "black"),
                   label=f"expected {c.protocol} {what}: {c.value:g} pkts")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("bottleneck queue (packets)")
    ax.set_ylim(0, 330)
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=8, loc="upper center", ncol=2)
    ax.set_title("4 long flows, 10 Gb/s dumbbell, buffer 250 pkts, K = 65 pkts")
    save(fig, path)


DCTCP_QUEUE = Figure(
    id="dctcp-queue",
    title="TCP NewReno vs DCTCP: the bottleneck queue",
    shows="Four long flows share a 10 Gb/s bottleneck: DCTCP holds the queue near K = 65 "
          "packets with no loss, NewReno fills the 250-packet buffer and drops.",
    sweep=SweepDef(base=DUMBBELL, grid={"transport.protocol": ["tcp", "dctcp"]},
                   quick_base={"stop_s": 0.01}),
    measure=measure_dctcp_queue,
    plot=plot_dctcp_queue,
)

PAPER = Paper(
    name="core",
    citation="Sanity figures of dcnsim's core (not a paper): expectations that follow from the "
             "scenario's parameters and the protocols' definitions.",
    figures=(DCTCP_QUEUE,),
    note="The reference values of this pseudo-paper are expectations derived from the scenario "
         "(K, buffer, link rate), not numbers from a publication.",
)
