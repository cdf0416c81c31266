"""Route control on the k = 4 fat-tree (§6.2): Figs. 10–11 and 12.

- ``fig10-11``: MERP (its rate control and MEMR) against ECMP carrying MERP's rate control
  and CONGA carrying TCP NewReno, Pareto sizes of mean 1500 KB, random pairs: the FCT CDF at
  load 0.6 (Fig. 11) and mean FCT and mean expansion ratio against load (Fig. 10).
- ``fig12``: the same three with the aggregation→ToR link ``agg0_0``–``edge0_0`` removed from
  the start, traffic from the other pods into pod 0: mean FCT and mean expansion ratio
  against load.

The schemes are three sweeps (parts) of the figure, as they differ in transport and routing
at once. Load is per host link for Figs. 10–11 (every fabric link of a fat-tree is loaded
no more than a host link under even spreading) and that of the most loaded link, the
surviving ``agg0_1``→``edge0_0``, for Fig. 12 (package doc).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from .. import measure
from ..figure import Figure, Runs, SweepDef, rows
from . import common
from .common import NAMES, STYLE

FATTREE = {"kind": "fattree", "k": 4, **common.LINK, "buffer_kb": 150}
HOSTS = 16
#: Scheme → (transport, routing). §6.2: "ECMP also uses MERP rate control component as the
#: transport layer protocol"; CONGA "cannot take advantage of upper layer flow scheduling
#: policies": TCP NewReno, the paper's §6.1 baseline transport (package doc).
SCHEMES: dict[str, tuple[dict, dict]] = {
    "merp": ({"protocol": "merp"}, {"lb": "memr"}),
    "ecmp": ({"protocol": "merp"}, {"lb": "ecmp"}),
    "conga": ({"protocol": "tcp"}, {"lb": "conga"}),
}
LOADS, QUICK_LOADS = [0.2, 0.4, 0.6, 0.8], [0.2, 0.6]
SEEDS, QUICK_SEEDS = [1, 2], [1]
FLOWS, QUICK_FLOWS = 1000, 40
MEAN_KB = 1500
CDF_LOAD = 0.6

#: Fig. 12: the removed link, the pod it feeds (hosts 0-3) and the senders (the other pods).
FAILED = ["agg0_0", "edge0_0"]
POD0 = [0, 1, 2, 3]
OTHERS = list(range(4, HOSTS))
#: Load on agg0_1→edge0_0 per unit of host-link load: the 12 senders' traffic, half of it to
#: the two hosts under edge0_0, all through that one link.
FAILURE_FACTOR = len(OTHERS) * 2 / len(POD0)


def _sweeps(base: dict[str, Any], loads: list[float], quick_loads: list[float],
            factor: float) -> tuple[SweepDef, ...]:
    out = []
    for scheme, (transport, routing) in SCHEMES.items():
        out.append(SweepDef(
            base={**base, "transport": transport, "routing": routing},
            grid={"workload.load": [x / factor for x in loads], "seed": SEEDS},
            quick_base={"workload.flows": QUICK_FLOWS},
            quick_grid={"workload.load": [x / factor for x in quick_loads],
                        "seed": QUICK_SEEDS},
            part=scheme,
        ))
    return tuple(out)


def _workload(**extra) -> dict[str, Any]:
    return {"kind": "poisson", "sizes": common.pareto(MEAN_KB), "load": 0.5, "flows": FLOWS,
            **extra}


BASE_10_11 = {"name": "merp-fattree", "seed": 1, "topology": FATTREE, "workload": _workload()}
BASE_12 = {"name": "merp-fattree-failure", "seed": 1, "topology": FATTREE,
           "workload": _workload(pattern="group", src_group=OTHERS, dst_group=POD0),
           "failures": [{"link": FAILED, "down_s": 0.0}]}
SWEEPS_10_11 = _sweeps(BASE_10_11, LOADS, QUICK_LOADS, 1.0)
SWEEPS_12 = _sweeps(BASE_12, LOADS, QUICK_LOADS, FAILURE_FACTOR)


def _means(runs: Runs, factor: float) -> pd.DataFrame:
    return common.seed_means(common.per_run(runs, factor, by="part"))


def _against(w: pd.DataFrame, how: str) -> list[dict]:
    """MERP's mean-FCT and mean-ER reductions against ECMP and CONGA at every load, and
    summarised over the loads by ``how`` (min, max or mean)."""
    out = []
    for other in ("ecmp", "conga"):
        if not {"merp", other} <= set(w["fct_mean_ms"].columns):
            continue
        for metric in ("fct_mean_ms", "er_mean"):
            red = common.reduction(w[metric]["merp"], w[metric][other])
            out += rows(f"{metric}_reduction_vs_{other}", "merp", red.to_dict())
            out += rows(f"{metric}_reduction_{how}_vs_{other}", "merp",
                        {"": getattr(red, how)()})
    return out


def _curves(means: pd.DataFrame) -> tuple[list[dict], dict[str, pd.DataFrame]]:
    out = []
    for metric in ("fct_mean_ms", "er_mean", "fct_p999_ms"):
        for lab, g in means.groupby("label"):
            out += rows(metric, lab, dict(zip(g["x"], g[metric])))
    return out, {m: common.wide(means, m) for m in ("fct_mean_ms", "er_mean")}


def cdf_flows(runs: Runs, load: float = CDF_LOAD) -> dict[str, pd.DataFrame]:
    """Each scheme's flows at ``load``, seeds pooled."""
    ok = runs.ok()
    at = ok[np.isclose(ok["workload.load"], load)]
    return {s: common.pooled_flows(runs, list(g["point"])) for s, g in at.groupby("part")}


def measure_fig10_11(runs: Runs | None) -> pd.DataFrame:
    out, w = _curves(_means(runs, 1.0))
    out += _against(w, "min")
    out += [r for r in _against(w, "mean") if r["x"] == "" and "er_mean" in r["metric"]]
    f = w["fct_mean_ms"]
    if set(SCHEMES) <= set(f.columns):
        out += rows("conga_worst", "conga",
                    {"": measure.share(f["conga"] > f[["merp", "ecmp"]].max(axis=1))})
    for scheme, flows in cdf_flows(runs).items():
        fct = flows["fct_s"]
        # unfinished flows count as slower than any bound
        within, beyond = (fct <= 0.1).mean(), (fct.isna() | (fct > 0.2)).mean()
        out += rows("frac_fct_within_100ms", scheme, {CDF_LOAD: within})
        out += rows("frac_fct_over_200ms", scheme, {CDF_LOAD: beyond})
        if scheme == "merp":
            out += rows("p99_within_100ms", scheme, {CDF_LOAD: float(within > 0.99)})
        else:
            out += rows("over_200ms_above_1pct", scheme, {CDF_LOAD: float(beyond > 0.01)})
    return pd.DataFrame(out)


def measure_fig12(runs: Runs | None) -> pd.DataFrame:
    out, w = _curves(_means(runs, FAILURE_FACTOR))
    out += [r for r in _against(w, "max") if r["metric"].startswith("fct")]
    f = w["fct_mean_ms"]
    if set(SCHEMES) <= set(f.columns):
        out += rows("merp_lowest", "merp",
                    {"": measure.share(f["merp"] < f[["ecmp", "conga"]].min(axis=1))})
    return pd.DataFrame(out)


def _vs_load(ax, means: pd.DataFrame, metric: str, ylabel: str, xlabel: str) -> None:
    for scheme in SCHEMES:
        g = means[means["label"] == scheme].sort_values("x")
        colour, marker = STYLE[scheme]
        ax.plot(g["x"], g[metric], color=colour, marker=marker, label=NAMES[scheme])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    common.log_y(ax)
    ax.grid(True, which="both", alpha=0.3)


def _claim_line(ours: pd.DataFrame, paper: pd.DataFrame, metrics: list[str]) -> str:
    """One line per reduction claim: 'MERP vs ECMP (smallest over loads): paper −20 %, ours
    +0 %'."""
    o = ours[ours["x"] == ""].set_index(["metric", "protocol"])["value"]
    how = {"min": "smallest", "max": "largest", "mean": "mean"}
    parts = []
    for c in paper[paper["metric"].isin(metrics)].itertuples():
        if (c.metric, c.protocol) in o.index:
            summary, other = c.metric.split("_reduction_")[1].split("_vs_")
            parts.append(f"MERP vs {NAMES[other].split()[0]} ({how[summary]} over loads): "
                         f"paper {common.versus(c.value)}, "
                         f"ours {common.versus(o[(c.metric, c.protocol)])}")
    return "\n".join(parts)


def plot_fig10_11(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None,
                  path: Path) -> None:
    means = _means(runs, 1.0)
    fig = new_figure(17, 5.4)
    axes = fig.subplots(1, 3)
    ax = axes[0]
    for scheme, flows in cdf_flows(runs).items():
        fct = np.sort(flows["fct_s"].dropna().to_numpy()) * 1e3
        colour, _ = STYLE[scheme]
        ax.plot(fct, np.arange(1, len(fct) + 1) / len(flows), color=colour,
                label=f"{NAMES[scheme]} ({len(flows)} flows)")
    for ms, text in ((100, "paper: MERP > 99 % within 100 ms"),
                     (200, "paper: ECMP, CONGA > 1 % beyond 200 ms")):
        ax.axvline(ms, color="black", ls="--", lw=1)
        ax.text(ms, 0.05 if ms == 100 else 0.15, " " + text, fontsize=7)
    ax.axhline(0.99, color="grey", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("FCT (ms)")
    ax.set_ylabel("fraction of flows")
    ax.set_title(f"Fig. 11: FCT CDF at load {CDF_LOAD}", fontsize=9)
    ax.legend(fontsize=7, loc="center right")
    ax.grid(True, which="both", alpha=0.3)
    xlabel = "load (per host link)"
    _vs_load(axes[1], means, "fct_mean_ms", "mean FCT (ms)", xlabel)
    axes[1].set_title("Fig. 10: mean FCT\n" + _claim_line(
        ours, paper, ["fct_mean_ms_reduction_min_vs_ecmp", "fct_mean_ms_reduction_min_vs_conga"]),
        fontsize=8)
    _vs_load(axes[2], means, "er_mean", "mean expansion ratio", xlabel)
    axes[2].set_title("Fig. 10: mean expansion ratio\n" + _claim_line(
        ours, paper, ["er_mean_reduction_mean_vs_ecmp", "er_mean_reduction_mean_vs_conga"]),
        fontsize=8)
    axes[1].legend(fontsize=8)
    fig.suptitle(f"MERP Figs. 10–11: k = 4 fat-tree, 1 Gb/s, 150 KB buffers, Pareto mean "
                 f"{MEAN_KB} KB, {FLOWS} flows per run (full)", fontsize=10)
    save(fig, path)


def plot_fig12(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    means = _means(runs, FAILURE_FACTOR)
    fig = new_figure(12, 5.0)
    axes = fig.subplots(1, 2)
    xlabel = "load of the most loaded link (agg0_1→edge0_0)"
    _vs_load(axes[0], means, "fct_mean_ms", "mean FCT (ms)", xlabel)
    axes[0].set_title("mean FCT\n" + _claim_line(
        ours, paper, ["fct_mean_ms_reduction_max_vs_ecmp", "fct_mean_ms_reduction_max_vs_conga"]),
        fontsize=8)
    _vs_load(axes[1], means, "er_mean", "mean expansion ratio", xlabel)
    axes[1].set_title("mean expansion ratio", fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"MERP Fig. 12: link {FAILED[0]}–{FAILED[1]} removed, traffic from the other "
                 f"pods into pod 0, Pareto mean {MEAN_KB} KB", fontsize=10)
    save(fig, path)


FIG10_11 = Figure(
    id="fig10-11",
    title="Route control on the fat-tree: MERP vs ECMP vs CONGA",
    shows="Figs. 10–11 (§6.2.1): k = 4 fat-tree (16 servers), 1 Gb/s, 150 KB buffers, 10 µs "
          "per hop, Pareto mean 1500 KB, random pairs; MERP (MEMR) vs ECMP with MERP's rate "
          "control vs CONGA with TCP NewReno: FCT CDF at load 0.6, mean FCT and mean "
          "expansion ratio against load.",
    sweep=SWEEPS_10_11[0],
    more_sweeps=SWEEPS_10_11[1:],
    measure=measure_fig10_11,
    plot=plot_fig10_11,
)

FIG12 = Figure(
    id="fig12",
    title="Route control with a failed aggregation→ToR link",
    shows="Fig. 12 (§6.2.2): the fat-tree of Figs. 10–11 without the link agg0_0–edge0_0, "
          "flows from the other pods into pod 0, Pareto mean 1500 KB: mean FCT and mean "
          "expansion ratio of MERP, ECMP and CONGA against load.",
    sweep=SWEEPS_12[0],
    more_sweeps=SWEEPS_12[1:],
    measure=measure_fig12,
    plot=plot_fig12,
)
