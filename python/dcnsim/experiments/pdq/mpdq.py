"""Figure 11: Multipath PDQ against PDQ on BCube(2,3) with random permutation traffic.

- ``fig11a``: mean FCT against load, the fraction of hosts that send (each sender one flow to
  its partner in a random derangement, all at once), PDQ against M-PDQ with 3 subflows. Also
  measured, as a diagnostic: the speed-up by how many address digits a flow's endpoints
  differ in (h of BuildPathSet's k+1 parallel paths are shortest, the others two hops longer).

Routing is BCube's address-based BuildPathSet (``routing.lb = "bcube_paths"``), for PDQ and
M-PDQ alike, as the paper's §6 says ("We implement BCube address-based routing to derive
multiple parallel paths"); flow-level ECMP places each (sub)flow on one of the k+1 paths.
- ``fig11b-c``: at 100 % load, (b) mean FCT and (c) the number of deadline flows supported at
  99 % application throughput, against the number of subflows (1 = PDQ).

The choices behind the workloads are in the package doc (:mod:`dcnsim.experiments.pdq`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...plots import new_figure, save
from ..figure import Figure, Runs, SweepDef, rows
from . import common

HOSTS = 16
BCUBE = {"kind": "bcube", "n": 2, "k": 3, **common.LINK}

SENDERS = [2, 4, 8, 12, 16]            # loads 0.125 … 1
SEEDS = list(range(1, 11))
QUICK_SENDERS, QUICK_SEEDS = [2, 16], [1, 2, 3, 4]
SUBFLOWS = [1, 2, 3, 4, 5, 6, 7, 8]    # 1 = PDQ
QUICK_SUBFLOWS = [1, 4]
#: fig11c: deadline flows started together by the 16 senders (1 to 10 per sender).
DEADLINE_FLOWS = [16, 32, 48, 64, 96, 128, 160]
DEADLINE_SEEDS = [1, 2, 3, 4, 5, 6]
QUICK_DEADLINE_FLOWS, QUICK_DEADLINE_SEEDS = [16, 48], [1]


def _transport(subflows: int) -> dict:
    return common.TRANSPORTS["pdq"] if subflows == 1 else common.mpdq(subflows)


def _base() -> dict:
    return {"name": "pdq-fig11", "seed": 1, "topology": BCUBE,
            "routing": {"lb": "bcube_paths"},
            "workload": {"kind": "flows", "file": "set-by-the-grid"}}


def _lists(senders, seeds, flows_per_sender=1, deadlines=False):
    return {fl.path: fl for fl in (common.flow_list(HOSTS, s, s * flows_per_sender, seed,
                                                    deadlines)
                                   for s in senders for seed in seeds)}


# --- fig11a: FCT against load ------------------------------------------------------------------

LOAD_LISTS = _lists(SENDERS, SEEDS)
QUICK_LOAD_LISTS = _lists(QUICK_SENDERS, QUICK_SEEDS)


def measure_fig11a(runs: Runs | None) -> pd.DataFrame:
    pts = common.points(runs, {**LOAD_LISTS, **QUICK_LOAD_LISTS})
    pts["load"] = pts["senders"] / HOSTS
    pts["fct_ms"] = pts["fct_s.mean"] * 1e3
    mean = common.seed_mean(pts, ["label", "load"], "fct_ms")
    out = []
    for lab, g in mean.groupby("label"):
        out += rows("fct_mean_ms", lab, dict(zip(g["load"], g["fct_ms"])))
    wide = mean.pivot(index="load", columns="label", values="fct_ms")
    speedup = wide["pdq"] / wide["mpdq-3"]
    out += rows("speedup", "mpdq-3", speedup.to_dict())
    # the paper's "under light loads": our lightest load
    out += rows("speedup_light_load", "mpdq-3", {"": speedup.iloc[0]})
    out += rows("speedup_by_digits", "mpdq-3", _speedup_by_digits(runs, pts))
    return pd.DataFrame(out)


def _digits_apart(a: int, b: int) -> int:
    """Address digits in which two BCube(2, k) servers differ: how many of their k+1
    parallel paths are shortest."""
    return bin(a ^ b).count("1")


def _speedup_by_digits(runs: Runs, pts: pd.DataFrame) -> dict[int, float]:
    """PDQ's mean FCT / M-PDQ's over the flows whose endpoints differ in h digits (every load
    and seed pooled): a diagnostic of how the paths on offer limit M-PDQ, not a claim."""
    flows = common.paired_fcts(runs, pts, "pdq", "mpdq-3", ["workload.file"])
    if flows.empty:
        return {}
    flows["h"] = [_digits_apart(a, b) for a, b in zip(flows["src"], flows["dst"])]
    means = flows.groupby("h")[["fct_s", "fct_s_other"]].mean()
    return (means["fct_s"] / means["fct_s_other"]).to_dict()


def plot_fig11a(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    fig = new_figure(10, 4.2)
    left, right = fig.subplots(1, 2)
    styles = {"pdq": ("PDQ", "tab:blue", "o"), "mpdq-3": ("M-PDQ, 3 subflows", "tab:red", "s")}
    for lab, (name, colour, marker) in styles.items():
        o = ours[(ours["metric"] == "fct_mean_ms") & (ours["protocol"] == lab)]
        left.plot(o["x"].astype(float), o["value"], marker=marker, color=colour, label=name)
    left.set_xlabel("load (fraction of sending hosts)")
    left.set_ylabel("mean flow completion time (ms)")
    left.set_xlim(0, 1.05)
    left.set_ylim(bottom=0)
    left.grid(True, alpha=0.4)
    left.legend(fontsize=8)
    left.set_title("(a) BCube(2,3), random permutation, 1 Gb/s")
    s = ours[ours["metric"] == "speedup"]
    right.plot(s["x"].astype(float), s["value"], marker="s", color="tab:red",
               label="ours: PDQ FCT / M-PDQ FCT")
    for c in paper[paper["metric"] == "speedup_light_load"].itertuples():
        right.plot(float(s["x"].astype(float).min()), c.value, marker="D", color="black", ms=8,
                   ls="none", label=f"paper: ×{c.value:g} under light load")
    by_h = ours[ours["metric"] == "speedup_by_digits"]
    for r in by_h.itertuples():
        right.annotate(f"h={r.x}: ×{r.value:.2f}", (0.3, 0.15 + 0.12 * (int(r.x) - 1)),
                       fontsize=8, color="tab:red")
    if len(by_h):
        right.annotate("ours, all loads, by address digits apart h:",
                       (0.3, 0.15 + 0.12 * len(by_h)), fontsize=8, color="tab:red")
    right.axhline(1, color="grey", lw=0.8)
    right.set_xlabel("load (fraction of sending hosts)")
    right.set_ylabel("M-PDQ speed-up over PDQ")
    right.set_xlim(0, 1.05)
    right.set_ylim(0, 2.5)
    right.grid(True, alpha=0.4)
    right.legend(fontsize=8)
    right.set_title("speed-up of M-PDQ (3 subflows)")
    save(fig, path)


FIG11A = Figure(
    id="fig11a",
    title="M-PDQ vs PDQ on BCube(2,3): FCT against load",
    shows="Fig. 11a: random permutation traffic on BCube(2,3), load = fraction of hosts "
          "sending; mean FCT of PDQ and of M-PDQ with 3 subflows (the paper: M-PDQ halves FCT "
          "under light load, less as load grows).",
    sweep=SweepDef(base=_base(),
                   grid={"workload.file": list(LOAD_LISTS),
                         "transport": [_transport(1), _transport(3)]},
                   quick_grid={"workload.file": list(QUICK_LOAD_LISTS)},
                   inputs=common.writer(LOAD_LISTS, QUICK_LOAD_LISTS)),
    measure=measure_fig11a,
    plot=plot_fig11a,
)


# --- fig11b-c: subflow count at 100 % load -----------------------------------------------------

FCT_LISTS = _lists([HOSTS], SEEDS)
QUICK_FCT_LISTS = _lists([HOSTS], QUICK_SEEDS[:2])
DL_LISTS = {fl.path: fl for fl in (common.flow_list(HOSTS, HOSTS, n, seed, True)
                                   for n in DEADLINE_FLOWS for seed in DEADLINE_SEEDS)}
QUICK_DL_LISTS = {fl.path: fl for fl in (common.flow_list(HOSTS, HOSTS, n, seed, True)
                                         for n in QUICK_DEADLINE_FLOWS
                                         for seed in QUICK_DEADLINE_SEEDS)}
ALL_11BC = {**FCT_LISTS, **QUICK_FCT_LISTS, **DL_LISTS, **QUICK_DL_LISTS}


def _subflows(lab: str) -> int:
    return 1 if lab == "pdq" else int(lab.split("-")[1])


def measure_fig11bc(runs: Runs | None) -> pd.DataFrame:
    pts = common.points(runs, ALL_11BC)
    pts["subflows"] = pts["label"].map(_subflows)
    fct = pts[~pts["deadlines"]].assign(fct_ms=lambda d: d["fct_s.mean"] * 1e3)
    fct = common.seed_mean(fct, ["subflows"], "fct_ms").set_index("subflows")["fct_ms"]
    dl = pts[pts["deadlines"]].assign(throughput=lambda d: d["deadlines.application_throughput"])
    flows = common.supported_flows(dl, ["subflows"]).set_index("subflows")["supported"]
    out = rows("fct_mean_ms", "mpdq", fct.to_dict())
    out += rows("deadline_flows", "mpdq", flows.to_dict())
    # "full potential": the best the subflow counts we ran reach (the paper sweeps up to 8)
    multi = [n for n in fct.index if n > 1]
    if 4 in multi:
        out += rows("fct_potential", "mpdq", {4: fct[multi].min() / fct[4]})
        best = flows[multi].max()
        out += rows("deadline_flows_potential", "mpdq",
                    {4: flows[4] / best if best > 0 else float("nan")})
    return pd.DataFrame(out)


POTENTIAL = {"fct_mean_ms": "fct_potential", "deadline_flows": "deadline_flows_potential"}


def plot_fig11bc(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None,
                 path: Path) -> None:
    fig = new_figure(10, 4.2)
    axes = fig.subplots(1, 2)
    panels = [("fct_mean_ms", "flow completion time (ms)", "(b) deadline-unconstrained"),
              ("deadline_flows", "number of flows at 99 % application throughput",
               "(c) deadline-constrained")]
    for ax, (metric, ylabel, title) in zip(axes, panels):
        o = ours[ours["metric"] == metric].copy()
        o["n"] = o["x"].astype(int)
        o = o.sort_values("n")
        names = ["PDQ" if n == 1 else str(n) for n in o["n"]]
        ax.bar(range(len(o)), o["value"], color=["tab:blue"] + ["tab:red"] * (len(o) - 1))
        ax.set_xticks(range(len(o)), names)
        for c in paper[paper["metric"] == metric].itertuples():
            if int(float(c.x)) in list(o["n"]):
                i = list(o["n"]).index(int(float(c.x)))
                ax.plot(i, c.value, marker="D", color="black", ms=8, ls="none",
                        label=f"paper: {c.value:g} (figure label)")
        pot = ours[ours["metric"] == POTENTIAL[metric]]
        note = "; ".join(f"4 subflows reach {v:.0%} of the best (paper: ~97 %)"
                         for v in pot["value"])
        ax.set_xlabel("number of subflows")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title}\n{note}", fontsize=9)
        ax.grid(True, axis="y", alpha=0.4)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle("M-PDQ on BCube(2,3) at 100 % load (all 16 servers send)")
    save(fig, path)


FIG11BC = Figure(
    id="fig11b-c",
    title="M-PDQ on BCube(2,3) at 100 % load: the number of subflows",
    shows="Figs. 11b–c: all 16 servers send (random permutation); mean FCT and the number of "
          "deadline flows supported at 99 % application throughput against the number of "
          "subflows (the paper: about 4 subflows reach 97 % of M-PDQ's full potential).",
    sweep=SweepDef(base=_base(),
                   grid={"workload.file": list(FCT_LISTS) + list(DL_LISTS),
                         "transport": [_transport(n) for n in SUBFLOWS]},
                   quick_grid={"workload.file": list(QUICK_FCT_LISTS) + list(QUICK_DL_LISTS),
                               "transport": [_transport(n) for n in QUICK_SUBFLOWS]},
                   inputs=common.writer({**FCT_LISTS, **DL_LISTS},
                                        {**QUICK_FCT_LISTS, **QUICK_DL_LISTS})),
    measure=measure_fig11bc,
    plot=plot_fig11bc,
)
