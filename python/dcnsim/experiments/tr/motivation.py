"""Figures 2 and 3 (TR §2, "Design Motivation"): the baselines on a leaf-spine whose five bad
paths have 1.5–3.5× the good paths' round trip.

- ``fig2``: short flows (< 100 KB): (a) average queueing delay, (b) ratio of packets
  retransmitted because of reordering, (c) average FCT.
- ``fig3``: long flows (≥ 100 KB): (a) standard deviation of the per-path throughput,
  (b) retransmission ratio, (c) total throughput.

Both figures read one sweep, shared with Figs. 7–8 (:mod:`.microbench`; it runs once, in the
output's ``small/`` folder): ECMP, LetFlow, RPS (the paper's three), DRB, Presto and TR (the
paper's Figs. 7–8 add them on the same set-up) × five RTT ratios × seeds. Figs. 2–3 draw the
first five. The set-up and every choice are in the package doc
(:mod:`dcnsim.experiments.tr`); the measures, per run:

- short-flow queueing delay: switch queueing per data packet over all short flows' packets
  (``queue_delay_mean_s`` weighted by ``data_packets``); retransmission ratio: Σ
  ``spurious_retransmits`` / Σ ``data_packets`` (``docs/outputs.md``: the paper's
  "retransmission ratio caused by reordering"); AFCT: mean ``fct_s`` of the finished short flows.
- per-path throughput: ``tx_bytes`` of leaf0's ten uplinks (every sender is under leaf0, so
  these carry all the data) over the run; its standard deviation across the ten paths.
- total throughput of long flows: the sum of their throughputs, bytes delivered / (finish −
  start), an unfinished flow up to the end of the run; path utilisation (the paper's "path
  utilization is even only about 0.12"): their mean throughput / the 1 Gb/s of a host link,
  i.e. the total against what the long flows would get at line rate (package doc: why).

Every number is the mean over seeds of the per-run values. The paper's claims are
qualitative orderings (RPS lowest, LetFlow highest, ...): each is measured as the share of
the five RTT ratios at which it holds (the paper: 1, "across all the test cases").
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from .. import measure
from ..figure import Figure, Runs, SweepDef, rows

#: Bad/good round-trip ratios: the paper's 1.5 to 3.5 (its axis; we take steps of 0.5).
RATIOS = [1.5, 2.0, 2.5, 3.0, 3.5]
SEEDS = list(range(1, 11))
QUICK_RATIOS, QUICK_SEEDS = [1.5, 3.5], [1]

SPINES = 10
LINK_GBPS = 1
LINK_DELAY_US = 25
#: The five bad paths: spines drawn once at random (``random.Random(2).sample(range(10), 5)``),
#: as the paper "randomly choose[s] 5 parallel paths".
BAD_SPINES = (0, 1, 2, 7, 8)
#: Short flows are below this many bytes, long flows at or above (the paper's 100 KB).
SHORT_BYTES = 100_000
#: Poisson load on each sender's link; the paper does not give one (package doc).
LOAD = 0.5

#: The path choices by label, with the paper's parameters written out (they are the core's
#: defaults too): LetFlow's 500 µs flowlet gap, Presto's 64 KB flowcells.
SCHEMES: dict[str, dict[str, Any]] = {
    "ecmp": {"lb": "ecmp"},
    "letflow": {"lb": "letflow", "flowlet_gap_us": 500},
    "rps": {"lb": "rps"},
    "drb": {"lb": "drb"},
    "presto": {"lb": "presto", "flowcell_bytes": 65536},
    # TR with the core's defaults: T_l = 100 KB, 5 TTL bits, ACKs routed by TR like any packet
    "tr": {"lb": "tr"},
}
#: The schemes of the paper's Figs. 2–3; its claims compare these three.
PAPER_SCHEMES = ("ecmp", "letflow", "rps")
#: What Figs. 2–3 draw: the paper's three, and DRB and Presto dashed (TR comes in Figs. 7–8).
FIG23_SCHEMES = ("ecmp", "letflow", "rps", "drb", "presto")
NAMES = {"ecmp": "ECMP", "letflow": "LetFlow", "rps": "RPS", "drb": "DRB", "presto": "Presto",
         "tr": "TR"}


def bad_link_delay_us(ratio: float) -> float:
    """Delay of a bad path's two leaf–spine links. A round trip crosses four links each way,
    two of them host links every path shares: 2·(2·25 + 2·d) = ratio · 200 µs."""
    return LINK_DELAY_US * (2 * ratio - 1)


def ratio_of(overrides: list[Mapping[str, Any]]) -> float:
    """The RTT ratio a point's ``topology.link_overrides`` make (inverse of the above)."""
    return round((overrides[0]["delay_us"] / LINK_DELAY_US + 1) / 2, 6)


def bad_paths(ratio: float) -> list[dict[str, Any]]:
    d = bad_link_delay_us(ratio)
    return [{"between": [leaf, f"spine{s}"], "delay_us": d}
            for s in BAD_SPINES for leaf in ("leaf0", "leaf1")]


def label(routing: Mapping[str, Any]) -> str:
    """The scheme of a routing table: a key of :data:`SCHEMES`."""
    return measure.label(routing, SCHEMES, "routing")


BASE = {
    "name": "tr-motivation",
    "seed": 1,
    "topology": {"kind": "leafspine", "leaves": 2, "spines": SPINES, "hosts_per_leaf": 10,
                 "link_gbps": LINK_GBPS, "link_delay_us": LINK_DELAY_US, "buffer_pkts": 250},
    # DCTCP with the core's marking threshold at 1 Gb/s (K = 20); the paper gives none
    "transport": {"protocol": "dctcp"},
    # group 0 = the 10 hosts of leaf0 ("Group 1"), group 1 = those of leaf1
    "workload": {"kind": "poisson", "sizes": "datamining", "load": LOAD, "flows": 100,
                 "pattern": "group", "src_group": 0, "dst_group": 1},
}

SWEEP = SweepDef(
    base=BASE,
    grid={"routing": list(SCHEMES.values()),
          "topology.link_overrides": [bad_paths(r) for r in RATIOS],
          "seed": SEEDS},
    # --quick: two ratios, one seed, and a stop at 1 s so that no run waits for a crawling
    # giant flow (bytes delivered by then count; the unfinished flows' FCTs do not)
    quick_base={"stop_s": 1.0},
    quick_grid={"topology.link_overrides": [bad_paths(r) for r in QUICK_RATIOS],
                "seed": QUICK_SEEDS},
    shared="small",
)


# --- per run -----------------------------------------------------------------------------------


def run_metrics(flows: pd.DataFrame, ports: pd.DataFrame, end_s: float) -> dict[str, float]:
    """The figures' numbers for one run: its flows.csv, ports.csv and the time it ended."""
    short = flows[flows["size_bytes"] < SHORT_BYTES]
    long = flows[flows["size_bytes"] >= SHORT_BYTES]
    out: dict[str, float] = {}
    pkts = short["data_packets"]
    out["short_qdelay_us"] = _ratio((short["queue_delay_mean_s"].fillna(0) * pkts).sum() * 1e6,
                                    pkts.sum())
    out["short_retx_ratio"] = _ratio(short["spurious_retransmits"].sum(), pkts.sum())
    out["short_afct_ms"] = short["fct_s"].dropna().mean() * 1e3
    out["short_p99_ms"] = short["fct_s"].dropna().quantile(0.99) * 1e3 \
        if short["fct_s"].notna().any() else np.nan
    out["long_retx_ratio"] = _ratio(long["spurious_retransmits"].sum(),
                                    long["data_packets"].sum())
    # an unfinished flow (stop_s, or the core's 60 s guard) counts what it delivered so far
    until = long["finish_s"].fillna(end_s)
    active = until - long["start_s"]
    ok = active > 0
    bits = long["bytes_delivered"] * 8
    rates = bits[ok] / active[ok] / 1e9
    out["long_tput_gbps"] = rates.sum()
    # each long flow's throughput against the 1 Gb/s of its host link, which bounds it
    out["long_utilization"] = rates.mean() / LINK_GBPS if len(rates) else np.nan
    span = until.max() - long["start_s"].min() if len(long) else np.nan
    out["long_goodput_gbps"] = _ratio(bits.sum() / 1e9, span)
    up = ports[(ports["node"] == "leaf0") & ports["peer"].str.startswith("spine")]
    out["path_tput_sd_mbps"] = float(np.std(up["tx_bytes"] * 8 / end_s / 1e6)) \
        if len(up) and end_s > 0 else np.nan
    return out


def _ratio(a: float, b: float) -> float:
    return float(a) / float(b) if b and np.isfinite(b) else float("nan")


PER_RUN_COLUMNS = ["scheme", "ratio", "seed", "drops", "short_qdelay_us", "short_retx_ratio",
                   "short_afct_ms", "short_p99_ms", "long_retx_ratio", "long_tput_gbps", "long_utilization",
                   "long_goodput_gbps", "path_tput_sd_mbps"]


def per_run(runs: Runs, schemes: tuple[str, ...] | None = None) -> pd.DataFrame:
    """One row per finished point (of ``schemes``, or all): ``scheme``, ``ratio``, ``seed``,
    ``drops`` and :func:`run_metrics`."""
    def row(p: dict[str, Any]) -> dict[str, Any] | None:
        scheme = label(p["routing"])
        if schemes is not None and scheme not in schemes:
            return None
        r = runs.results(p["point"])
        m = run_metrics(r.flows, runs.ports(p["point"]), p["run.sim_time_s"])
        return {"scheme": scheme, "ratio": ratio_of(p["topology.link_overrides"]),
                "seed": p["seed"], "drops": p["packets.dropped"], **m}
    return measure.per_point(runs, row, PER_RUN_COLUMNS)


def seed_means(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`per_run` averaged over seeds: one row per (scheme, ratio)."""
    return measure.seed_means(frame, ["scheme", "ratio"])


# --- the paper's orderings ---------------------------------------------------------------------


def wide(means: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``metric`` with one row per ratio and one column per scheme."""
    return measure.wide(means, metric, x="ratio", by="scheme")


def has(w: pd.DataFrame, *schemes: str) -> bool:
    return all(s in w.columns for s in schemes)


def lowest(w: pd.DataFrame, scheme: str, others: tuple[str, ...]) -> float:
    return measure.share(w[scheme] < w[list(others)].min(axis=1))


def highest(w: pd.DataFrame, scheme: str, others: tuple[str, ...]) -> float:
    return measure.share(w[scheme] > w[list(others)].max(axis=1))


def _curves(means: pd.DataFrame, metrics: list[str]) -> list[dict[str, Any]]:
    out = []
    for metric in metrics:
        for scheme, g in means.groupby("scheme"):
            out += rows(metric, scheme, dict(zip(g["ratio"], g[metric])))
    return out


def _drops(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Packets dropped, summed over every run of each scheme ("no packet dropping happens
    throughout the whole test")."""
    out = []
    for scheme, d in frame.groupby("scheme")["drops"].sum().items():
        out += rows("packets_dropped", scheme, {"": d})
    return out


FIG2_METRICS = ["short_qdelay_us", "short_retx_ratio", "short_afct_ms"]
FIG3_METRICS = ["path_tput_sd_mbps", "long_retx_ratio", "long_tput_gbps", "path_utilization",
                "long_goodput_gbps"]
OTHERS = ("ecmp", "letflow")


def measure_fig2(runs: Runs | None) -> pd.DataFrame:
    frame = per_run(runs, FIG23_SCHEMES)
    means = seed_means(frame)
    out = _curves(means, FIG2_METRICS)
    qd, retx, afct = (wide(means, m) for m in FIG2_METRICS)
    if has(qd, "rps", *OTHERS):
        out += rows("short_qdelay_rps_lowest", "rps", {"": lowest(qd, "rps", OTHERS)})
        out += rows("short_retx_rps_highest", "rps", {"": highest(retx, "rps", OTHERS)})
        out += rows("short_afct_rps_highest", "rps", {"": highest(afct, "rps", OTHERS)})
        gap = afct["rps"] - afct[list(OTHERS)].min(axis=1)
        out += rows("short_afct_gap_ms", "rps", gap.to_dict())
        out += rows("short_afct_gap_widens", "rps", {"": measure.rises(gap)})
    out += _drops(frame)
    return pd.DataFrame(out)


def measure_fig3(runs: Runs | None) -> pd.DataFrame:
    means = seed_means(per_run(runs, FIG23_SCHEMES)).rename(
        columns={"long_utilization": "path_utilization"})
    out = _curves(means, FIG3_METRICS)
    sd, retx, tput = (wide(means, m) for m in FIG3_METRICS[:3])
    if has(sd, *PAPER_SCHEMES):
        out += rows("path_sd_rps_lowest", "rps", {"": lowest(sd, "rps", OTHERS)})
        lo = sd[["rps", "ecmp"]].min(axis=1)
        hi = sd[["rps", "ecmp"]].max(axis=1)
        out += rows("path_sd_letflow_between", "letflow",
                    {"": measure.share((sd["letflow"] > lo) & (sd["letflow"] < hi))})
        out += rows("long_retx_rps_highest", "rps", {"": highest(retx, "rps", OTHERS)})
        out += rows("long_tput_letflow_highest", "letflow",
                    {"": highest(tput, "letflow", ("ecmp", "rps"))})
        out += rows("long_tput_rps_falls", "rps", {"": measure.falls(tput["rps"])})
    return pd.DataFrame(out)


# --- plots -------------------------------------------------------------------------------------

STYLE = {"ecmp": ("tab:blue", "o", "-"), "letflow": ("tab:green", "s", "-"),
         "rps": ("tab:red", "^", "-"), "drb": ("tab:purple", "v", "--"),
         "presto": ("tab:orange", "D", "--"), "tr": ("black", "*", "-")}


def _panel(ax, frame: pd.DataFrame, metric: str, scale: float, ylabel: str, title: str,
           note: str, log: bool = False, in_paper: tuple[str, ...] = PAPER_SCHEMES) -> None:
    """One panel: mean over seeds against the ratio, bars of ± one standard error; schemes
    not in ``in_paper`` (the paper's figure) dashed and faint."""
    for scheme in [s for s in SCHEMES if s in set(frame["scheme"])]:
        g = frame[frame["scheme"] == scheme]
        stats = g.groupby("ratio")[metric].agg(["mean", "sem"]).sort_index()
        colour, marker, ls = STYLE.get(scheme, ("grey", "x", ":"))
        name = NAMES.get(scheme, scheme)
        if scheme not in in_paper:
            name += " (not in the paper's figure)"
        else:
            ls = "-"
        ax.errorbar(stats.index, stats["mean"] * scale, yerr=stats["sem"].fillna(0) * scale,
                    color=colour, marker=marker, ls=ls, ms=5, capsize=3, label=name,
                    alpha=1.0 if scheme in in_paper else 0.6)
    ax.set_xlabel("RTT ratio of bad to good paths")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.4)
    ax.set_title(f"{title}\npaper: {note}", fontsize=9)


def _verdict_line(ours: pd.DataFrame, paper: pd.DataFrame) -> str:
    """The orderings the paper states, with the share of ratios where ours hold."""
    o = ours.set_index(["metric", "protocol"])["value"]
    parts = []
    for c in paper.itertuples():
        key = (c.metric, c.protocol)
        if c.x == "" and key in o.index and c.metric != "packets_dropped":
            parts.append(f"{c.metric}: {o[key]:.2f} (paper {c.value:g})")
    return "; ".join(parts)


def plot_fig2(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    frame = per_run(runs, FIG23_SCHEMES)
    fig = new_figure(14, 4.8)
    axes = fig.subplots(1, 3)
    _panel(axes[0], frame, "short_qdelay_us", 1, "average queueing delay (µs)",
           "(a) average queueing delay", "RPS lowest")
    _panel(axes[1], frame, "short_retx_ratio", 100, "retransmitted packets (%)",
           "(b) ratio of retransmission packets", "RPS always much higher")
    _panel(axes[2], frame, "short_afct_ms", 1, "AFCT (ms)",
           "(c) average flow completion time", "RPS significantly higher, gap widening")
    axes[0].legend(fontsize=8)
    drops = ours[ours["metric"] == "packets_dropped"]["value"].sum()
    fig.suptitle(f"TR Fig. 2: short flows (< 100 KB), {len(frame['seed'].unique())} seeds, "
                 f"{drops:.0f} packets dropped in all runs (paper: none)\n"
                 + _verdict_line(ours, paper), fontsize=9)
    save(fig, path)


def plot_fig3(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    frame = per_run(runs, FIG23_SCHEMES)
    fig = new_figure(18, 4.8)
    axes = fig.subplots(1, 4)
    _panel(axes[0], frame, "path_tput_sd_mbps", 1, "s.d. of per-path throughput (Mb/s)",
           "(a) s.d. of path throughput (log scale)", "RPS lowest, LetFlow between RPS and ECMP",
           log=True)
    _panel(axes[1], frame, "long_retx_ratio", 100, "retransmitted packets (%)",
           "(b) ratio of retransmission packets", "RPS pronouncedly higher")
    _panel(axes[2], frame, "long_tput_gbps", 1, "total throughput of long flows (Gb/s)",
           "(c) total throughput", "LetFlow highest; RPS falls precipitously")
    _panel(axes[3], frame, "long_utilization", 1, "long-flow throughput / 1 Gb/s",
           "path utilisation (text of Fig. 3(c))", "RPS only about 0.12")
    for c in paper[paper["metric"] == "path_utilization"].itertuples():
        axes[3].plot(float(c.x), c.value, marker="D", color="black", ms=8, ls="none",
                     label=f"paper: {NAMES.get(c.protocol, c.protocol)} {c.value:g}")
    axes[0].legend(fontsize=8)
    axes[3].legend(fontsize=8)
    fig.suptitle(f"TR Fig. 3: long flows (≥ 100 KB), {len(frame['seed'].unique())} seeds\n"
                 + _verdict_line(ours, paper), fontsize=9)
    save(fig, path)


FIG2 = Figure(
    id="fig2",
    title="Short flows on an asymmetric leaf-spine: queueing delay, reordering, AFCT",
    shows="Fig. 2: 2 leaves × 10 spines × 10 hosts, 1 Gb/s, 5 bad paths with 1.5–3.5× the "
          "good RTT, 100 DCTCP flows of Data Mining sizes; short flows' (< 100 KB) average "
          "queueing delay, retransmission ratio from reordering and AFCT under ECMP, LetFlow "
          "and RPS (DRB and Presto drawn too). The paper: RPS has the lowest queueing delay "
          "but the most retransmissions and the highest AFCT.",
    sweep=SWEEP,
    measure=measure_fig2,
    plot=plot_fig2,
)

FIG3 = Figure(
    id="fig3",
    title="Long flows on an asymmetric leaf-spine: path balance, reordering, throughput",
    shows="Fig. 3: the set-up of Fig. 2; long flows' (≥ 100 KB) standard deviation of "
          "per-path throughput, retransmission ratio and total throughput. The paper: RPS "
          "balances paths best but retransmits most; LetFlow has the highest total "
          "throughput; RPS's falls with asymmetry to a path utilisation of about 0.12.",
    sweep=SWEEP,
    measure=measure_fig3,
    plot=plot_fig3,
)
