"""Figures 9–12 (TR §4.2, "Large-scale evaluation"): a 10 × 10 leaf-spine at 40 Gb/s with half
the paths 1.5× longer, four workloads, 10 000–50 000 flows, everything normalised to ECMP.

- ``fig9`` Data Mining, ``fig10`` Web Search, ``fig11`` Cache Follower, ``fig12`` Web Server:
  (a) AFCT of short flows (< 100 KB), (b) tail (99th percentile) FCT of short flows, (c)
  throughput of long flows (≥ 100 KB), each scheme's over ECMP's at the same point.
- ``fig9-12``: the abstract's headline numbers, over the four workloads together (it reads the
  four figures' runs).

The set-up and every choice (link delay, K, load per flow count, flows simulated per point)
are in the package doc (:mod:`dcnsim.experiments.tr`). Per run: AFCT and 99th-percentile FCT
of the finished short flows; throughput of long flows = the mean over long flows of bytes
delivered / (finish − start), an unfinished flow counting up to the end of the run (the same
set of flows for every scheme, so its ratio to ECMP is that of the sum);
retransmission ratios from reordering (spurious retransmissions per data packet) of short and
of long flows; packets dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from .. import measure
from ..figure import Figure, Runs, SweepDef, rows
from . import motivation as mot

LEAVES, SPINES, HOSTS_PER_LEAF = 10, 10, 20
LINK_GBPS = 40
#: The paper gives no link delay at this scale; its only one is §2's 25 µs (package doc).
LINK_DELAY_US = 25
#: "the round-trip propagation delay of bad path is 1.5x" that of a good path
RATIO = 1.5
BUFFER_KB = 375
#: DCTCP's marking threshold: K = C·RTT/7 with C = 40 Gb/s and the good path's base RTT
#: (200 µs of propagation + serialisation) = 95.9 packets, rounded up (package doc).
ECN_K_PKTS = 96
#: "100 hosts is randomly selected to send DCTCP flows to the remained hosts"
SENDERS = sorted(int(h) for h in np.random.default_rng(2).permutation(200)[:100])
RECEIVERS = sorted(set(range(200)) - set(SENDERS))
#: The paper's x axis: flows in a test.
FLOW_COUNTS = [10_000, 20_000, 30_000, 40_000, 50_000]
#: The load the largest count makes; load grows with the count (package doc).
TOP_LOAD = 0.8
#: The share of each test's flows we simulate: the first arrivals of the test, at its load
#: (package doc: what the full counts would need).
RUN_SHARE = {"datamining": 0.2, "websearch": 0.2, "cachefollower": 0.5, "webserver": 1.0}
QUICK_FLOWS, QUICK_COUNTS = 300, [10_000, 50_000]
WORKLOADS = {"fig9": "datamining", "fig10": "websearch", "fig11": "cachefollower",
             "fig12": "webserver"}
WORKLOAD_NAMES = {"datamining": "Data Mining", "websearch": "Web Search",
                  "cachefollower": "Cache Follower", "webserver": "Web Server"}
SCHEMES: dict[str, dict[str, Any]] = {
    **{k: v for k, v in mot.SCHEMES.items()},
    # TR with reverse packets sprayed over the uplinks (routing.tr_ack_path): the paper does not
    # say how ACKs are routed, and at this scale it matters (package doc)
    "tr-spray": {"lb": "tr", "tr_ack_path": "spray"},
}
NAMES = {**mot.NAMES, "tr-spray": "TR, ACKs sprayed"}
#: The schemes the paper compares TR with.
OTHERS = ("letflow", "rps", "drb", "presto", "ecmp")


def load_of(flows: int) -> float:
    """The load of a test of ``flows`` flows: proportional to the count, TOP_LOAD at 50 000."""
    return round(TOP_LOAD * flows / FLOW_COUNTS[-1], 6)


def count_of(load: float) -> int:
    return int(round(load / TOP_LOAD * FLOW_COUNTS[-1]))


def bad_paths() -> list[dict[str, Any]]:
    d = LINK_DELAY_US * (2 * RATIO - 1)
    return [{"between": [f"leaf{leaf}", f"spine{s}"], "delay_us": d}
            for s in mot.BAD_SPINES for leaf in range(LEAVES)]


def workload_table(workload: str, count: int, quick: bool = False) -> dict[str, Any]:
    """The ``[workload]`` of the test of ``count`` flows: its load, and the flows we run."""
    flows = QUICK_FLOWS if quick else int(round(count * RUN_SHARE[workload]))
    return {"kind": "poisson", "sizes": workload, "load": load_of(count), "flows": flows,
            "pattern": "group", "src_group": SENDERS, "dst_group": RECEIVERS}


def base(workload: str) -> dict[str, Any]:
    return {
        "name": f"tr-large-{workload}",
        "seed": 1,
        "topology": {"kind": "leafspine", "leaves": LEAVES, "spines": SPINES,
                     "hosts_per_leaf": HOSTS_PER_LEAF, "link_gbps": LINK_GBPS,
                     "link_delay_us": LINK_DELAY_US, "buffer_kb": BUFFER_KB,
                     "ecn_k_pkts": ECN_K_PKTS, "link_overrides": bad_paths()},
        "transport": {"protocol": "dctcp"},
        "workload": workload_table(workload, FLOW_COUNTS[0]),
    }


def sweep(workload: str) -> SweepDef:
    return SweepDef(
        base=base(workload),
        grid={"routing": list(SCHEMES.values()),
              "workload": [workload_table(workload, n) for n in FLOW_COUNTS]},
        quick_grid={"workload": [workload_table(workload, n, quick=True) for n in QUICK_COUNTS]},
        shared=f"large-{workload}",
    )


def label(routing: dict[str, Any]) -> str:
    """The scheme of a routing table: a key of :data:`SCHEMES`."""
    return measure.label(routing, SCHEMES, "routing")


def run_metrics(flows: pd.DataFrame, end_s: float) -> dict[str, float]:
    short = flows[flows["size_bytes"] < mot.SHORT_BYTES]
    long = flows[flows["size_bytes"] >= mot.SHORT_BYTES]
    fct = short["fct_s"].dropna()
    until = long["finish_s"].fillna(end_s)
    active = until - long["start_s"]
    ok = active > 0
    tput = long["bytes_delivered"][ok] * 8 / active[ok] / 1e9
    return {
        "short_afct_us": fct.mean() * 1e6,
        "short_p99_us": fct.quantile(0.99) * 1e6 if len(fct) else np.nan,
        "long_tput_gbps": tput.mean() if len(tput) else np.nan,
        "short_retx_ratio": mot._ratio(short["spurious_retransmits"].sum(),
                                       short["data_packets"].sum()),
        "long_retx_ratio": mot._ratio(long["spurious_retransmits"].sum(),
                                      long["data_packets"].sum()),
        "unfinished": float(flows["finish_s"].isna().sum()),
    }


METRICS = ["short_afct_us", "short_p99_us", "long_tput_gbps"]
RAW = METRICS + ["short_retx_ratio", "long_retx_ratio", "unfinished", "drops"]


def per_run(runs: Runs) -> pd.DataFrame:
    """One row per finished point: workload, scheme, flows (the paper's count), load, drops
    and :func:`run_metrics`."""
    def row(p: dict[str, Any]) -> dict[str, Any]:
        load = p["workload"]["load"]
        return {"workload": p["workload"]["sizes"], "scheme": label(p["routing"]),
                "flows": count_of(load), "load": load, "drops": p["packets.dropped"],
                **run_metrics(runs.results(p["point"]).flows, p["run.sim_time_s"])}
    return measure.per_point(runs, row, ["workload", "scheme", "flows", "load", *RAW])


def normalised(frame: pd.DataFrame) -> pd.DataFrame:
    """:data:`METRICS` of each run over ECMP's at the same workload and count."""
    ecmp = frame[frame["scheme"] == "ecmp"].set_index(["workload", "flows"])[METRICS]
    out = frame.set_index(["workload", "flows"])
    norm = out[METRICS] / ecmp.reindex(out.index).to_numpy()
    return pd.concat([out[["scheme"]], norm], axis=1).reset_index()


def _best(w: pd.DataFrame, scheme: str, others: tuple[str, ...], higher: bool) -> float:
    o = w[[s for s in others if s in w.columns]]
    return measure.share(w[scheme] > o.max(axis=1) if higher else w[scheme] < o.min(axis=1))


def measure_workload(runs: Runs | None) -> pd.DataFrame:
    frame = per_run(runs)
    norm = normalised(frame)
    out: list[dict[str, Any]] = []
    for scheme, g in frame.groupby("scheme"):
        for m in RAW:
            out += rows(m, scheme, dict(zip(g["flows"], g[m])))
    for scheme, g in norm.groupby("scheme"):
        for m in METRICS:
            out += rows(f"{m}_over_ecmp", scheme, dict(zip(g["flows"], g[m])))
    for m in METRICS:
        w = frame.pivot(index="flows", columns="scheme", values=m).sort_index()
        higher = m == "long_tput_gbps"
        if "tr" in w.columns:
            out += rows(f"{m}_tr_best", "tr", {"": _best(w, "tr", OTHERS, higher)})
        fine = [s for s in ("rps", "drb") if s in w.columns]
        rest = [s for s in ("ecmp", "letflow", "presto", "tr") if s in w.columns]
        if fine and rest:
            worst = (w[fine].min(axis=1) > w[rest].max(axis=1)) if not higher else \
                (w[fine].max(axis=1) < w[rest].min(axis=1))
            out += rows(f"{m}_rps_drb_worst", "rps", {"": measure.share(worst)})
    return pd.DataFrame(out)


#: The headline's metrics, measured and drawn under these names.
HEADLINE_METRICS = ("short_afct_max_reduction", "short_p99_max_reduction", "long_tput_max_gain")


def measure_headline(runs: Runs | None) -> pd.DataFrame:
    """The abstract's "up to": the largest gain of TR over any other scheme at any point of
    the four workloads — AFCT and tail FCT reductions, throughput ratio."""
    frame = per_run(runs)
    out: list[dict[str, Any]] = []
    for tr in ("tr", "tr-spray"):
        mine = frame[frame["scheme"] == tr]
        if mine.empty:
            continue
        others = frame[frame["scheme"].isin(OTHERS)]
        joined = others.merge(mine[["workload", "flows", *METRICS]], on=["workload", "flows"],
                              suffixes=("", "_tr"))
        afct, p99, tput = HEADLINE_METRICS
        out += rows(afct, tr,
                    {"": (1 - joined["short_afct_us_tr"] / joined["short_afct_us"]).max()})
        out += rows(p99, tr,
                    {"": (1 - joined["short_p99_us_tr"] / joined["short_p99_us"]).max()})
        out += rows(tput, tr,
                    {"": (joined["long_tput_gbps_tr"] / joined["long_tput_gbps"]).max()})
    return pd.DataFrame(out)


STYLE = {**mot.STYLE, "tr-spray": ("grey", "*", "--")}


def _plot_workload(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None,
                   path: Path) -> None:
    frame = per_run(runs)
    norm = normalised(frame)
    fig = new_figure(16, 4.8)
    axes = fig.subplots(1, 3)
    labels = [("short_afct_us", "(a) AFCT of short flows"),
              ("short_p99_us", "(b) tail FCT of short flows"),
              ("long_tput_gbps", "(c) throughput of long flows")]
    for ax, (m, title) in zip(axes, labels):
        for scheme in SCHEMES:
            g = norm[norm["scheme"] == scheme].sort_values("flows")
            if g.empty:
                continue
            colour, marker, ls = STYLE.get(scheme, ("grey", "x", ":"))
            ax.plot(g["flows"] / 1000, g[m], color=colour, marker=marker, ls=ls,
                    label=NAMES.get(scheme, scheme))
        ax.axhline(1, color="tab:blue", lw=0.8)
        ax.set_xlabel("flows in the test (thousands; sets the load)")
        ax.set_ylabel("normalised to ECMP")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.4)
        ax.set_title(title, fontsize=9)
    axes[0].legend(fontsize=7)
    workload = frame["workload"].iloc[0] if len(frame) else "?"
    fig.suptitle(f"TR large scale, {WORKLOAD_NAMES.get(workload, workload)}: 10 × 10 "
                 f"leaf-spine, 40 Gb/s, bad paths 1.5× RTT; paper: TR best everywhere, RPS "
                 f"and DRB worst", fontsize=9)
    save(fig, path)


def _plot_headline(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None,
                   path: Path) -> None:
    fig = new_figure(8, 4.2)
    ax = fig.subplots()
    metrics = HEADLINE_METRICS
    o = ours.set_index(["metric", "protocol"])["value"]
    p = paper.set_index(["metric", "protocol"])["value"]
    xs = np.arange(len(metrics))
    for i, (who, values) in enumerate([("paper", [p.get((m, "tr"), np.nan) for m in metrics]),
                                       ("TR", [o.get((m, "tr"), np.nan) for m in metrics]),
                                       ("TR, ACKs sprayed",
                                        [o.get((m, "tr-spray"), np.nan) for m in metrics])]):
        ax.bar(xs + (i - 1) * 0.27, values, width=0.27, label=who)
    ax.set_xticks(xs, ["AFCT reduction", "tail FCT reduction", "throughput gain (×)"])
    ax.grid(True, axis="y", alpha=0.4)
    ax.legend(fontsize=8)
    ax.set_title("TR's largest gain over any other scheme, any workload and load "
                 "(the abstract's \"up to\")", fontsize=9)
    save(fig, path)


def _figure(fig_id: str, workload: str) -> Figure:
    return Figure(
        id=fig_id,
        title=f"Large scale, {WORKLOAD_NAMES[workload]}: short-flow AFCT and tail, long-flow "
              "throughput, normalised to ECMP",
        shows=f"Fig. {fig_id[3:]}: 10 × 10 leaf-spine, 200 hosts at 40 Gb/s, 375 KB buffers, "
              f"5 of 10 spines with 1.5× RTT, DCTCP flows of {WORKLOAD_NAMES[workload]} sizes "
              "from 100 random hosts to the other 100; 10 000–50 000 flows (the load); "
              "LetFlow, RPS, DRB, Presto and TR over ECMP. The paper: TR best on every "
              "measure, RPS and DRB worst.",
        sweep=sweep(workload),
        measure=measure_workload,
        plot=_plot_workload,
    )


FIGURES = tuple(_figure(f, w) for f, w in WORKLOADS.items())

HEADLINE = Figure(
    id="fig9-12",
    title="Large scale, the abstract's headline: TR's largest gains over the other schemes",
    shows="Over Figs. 9–12 together: TR's largest reduction of short flows' mean and tail FCT "
          "and largest gain in long flows' throughput against any other scheme (the abstract: "
          "up to 60 %, 80 % and 3.02×).",
    sweep=sweep("datamining"),
    more_sweeps=tuple(sweep(w) for w in list(WORKLOADS.values())[1:]),
    measure=measure_headline,
    plot=_plot_headline,
)
