"""Rate control on the single-rooted tree (§6.1): Figs. 5–7 and 8–9.

- ``fig5-7``: MERP against pFabric and TCP NewReno on drop-tail queues, Pareto sizes of mean
  1500 KB (Figs. 5, 7) and 150 KB (Fig. 6): mean and largest expansion ratio, 99.9th
  percentile and mean FCT against load. MERP runs twice: with the work-conserving hand-over
  (the default, whose numbers the claims use) and with Algorithm 3's letter (dashed).
- ``fig8-9``: MERP alone with four values of α (Fig. 8) and of Q (Fig. 9), mean 150 KB:
  99.9th-percentile FCT against load, and packets dropped.

Load is that of the most loaded link, the ToR–root links (package doc): the scenarios' host
load is it divided by :func:`.common.tree_factor` (2.25). Every number is the mean over seeds
of the per-run summary (its mean, max, 99.9th percentile).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ...plots import new_figure, save
from .. import measure
from ..figure import Figure, Runs, SweepDef, rows
from . import common
from .common import NAMES, STYLE

TREE = {"kind": "tree", "tors": 3, "hosts_per_tor": 3, **common.LINK, "buffer_pkts": 100}
FACTOR = common.tree_factor(TREE["tors"], TREE["hosts_per_tor"])

#: Load of the most loaded link: the paper's 10–80 %.
LOADS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
QUICK_LOADS = [0.2, 0.8]
SEEDS, QUICK_SEEDS = [1, 2, 3], [1]
#: Flows per run, by mean size (KB on the wire), full and --quick. MERP's runs at 150 KB
#: and high load back up and slow down sharply with length (package doc): 4000 flows.
FLOWS = {1500: 3000, 150: 4000}
QUICK_FLOWS = {1500: 60, 150: 200}
#: The paper's "load 80 percent", where its headline numbers are.
HIGH = 0.8

#: Fig. 8's α values (the paper names only 0.9999) and Fig. 9's Q (fractions of C; the paper
#: names only the default 0.8): package doc.
ALPHAS = [0.99, 0.995, 0.999, 0.9999]
QS = [0.001, 0.01, 0.1, 0.8]
SWEEP_LOADS = [0.1, 0.2, 0.4, 0.6, 0.8]
SWEEP_SEEDS = [1, 2]
SWEEP_FLOWS, QUICK_SWEEP_FLOWS = 2000, 200
QUICK_ALPHAS, QUICK_QS = [0.99, 0.9999], [0.001, 0.8]


def host_load(load: float) -> float:
    """The ``workload.load`` (per host link) that loads the ToR–root links at ``load``."""
    return load / FACTOR


def _base(mean_kb: int, flows: int) -> dict[str, Any]:
    return {"name": f"merp-tree-{mean_kb}kb", "seed": 1, "topology": TREE,
            "transport": {"protocol": "merp"},
            "workload": {"kind": "poisson", "sizes": common.pareto(mean_kb),
                         "load": host_load(0.5), "flows": flows}}


def _tree_sweep(mean_kb: int, transports: list[dict], quick_transports: list[dict] | None,
                flows: int, quick_flows: int, seeds: list[int], part: str,
                loads: list[float] = LOADS) -> SweepDef:
    quick_grid = {"workload.load": [host_load(x) for x in QUICK_LOADS], "seed": QUICK_SEEDS}
    if quick_transports is not None:
        quick_grid["transport"] = quick_transports
    return SweepDef(
        base=_base(mean_kb, flows),
        grid={"transport": transports, "workload.load": [host_load(x) for x in loads],
              "seed": seeds},
        quick_base={"workload.flows": quick_flows},
        quick_grid=quick_grid,
        part=part,
    )


# --- Figs. 5-7 ---------------------------------------------------------------------------------

SIZES = {"1500kb": 1500, "150kb": 150}
_PAPER_TRANSPORTS = list(common.TRANSPORTS.values())
SWEEPS_5_7 = tuple(_tree_sweep(kb, _PAPER_TRANSPORTS, None, FLOWS[kb], QUICK_FLOWS[kb], SEEDS,
                               part) for part, kb in SIZES.items())
METRICS = ["er_mean", "er_max", "fct_p999_ms", "fct_mean_ms"]


def measure_fig5_7(runs: Runs | None) -> pd.DataFrame:
    frame = common.per_run(runs, FACTOR)
    out: list[dict] = []
    reductions = {}
    for part, g in frame.groupby("part"):
        means = common.seed_means(g)
        for metric in METRICS:
            for lab, m in means.groupby("label"):
                out += rows(f"{metric}_{part}", lab, dict(zip(m["x"], m[metric])))
        w = {m: common.wide(means, m) for m in METRICS}
        if not {"merp", "pfabric"} <= set(w["er_max"].columns):
            continue
        for metric in ("er_max", "er_mean", "fct_p999_ms"):
            red = common.reduction(w[metric]["merp"], w[metric]["pfabric"])
            out += rows(f"{metric}_reduction_{part}", "merp", red.to_dict())
            reductions[(metric, part)] = red
        gap = w["fct_mean_ms"]["merp"] / w["fct_mean_ms"]["pfabric"] - 1
        out += rows(f"fct_mean_gap_{part}", "merp", gap.to_dict())
        out += rows(f"fct_mean_gap_widens_{part}", "merp", {"": measure.rises(gap)})
        out += rows(f"er_max_within_10_{part}", "merp",
                    {"": measure.share(w["er_max"]["merp"] <= 10)})
        if "tcp" in w["fct_mean_ms"].columns:
            f = w["fct_mean_ms"]
            out += rows(f"fct_mean_tcp_highest_{part}", "tcp",
                        {"": measure.share(f["tcp"] > f[["merp", "pfabric"]].max(axis=1))})
            p = w["fct_p999_ms"][w["fct_p999_ms"].index >= 0.5]
            out += rows(f"fct_p999_merp_lowest_high_{part}", "merp",
                        {"": measure.share(p["merp"] < p[["pfabric", "tcp"]].min(axis=1))})
    small, large = reductions.get(("er_max", "150kb")), reductions.get(("er_max", "1500kb"))
    if small is not None and large is not None and HIGH in small.index and HIGH in large.index:
        out += rows("er_max_gap_larger_150kb", "merp",
                    {"": float(small[HIGH] > large[HIGH])})
    return pd.DataFrame(out)


def _curve(ax, means: pd.DataFrame, metric: str, labels, names=None, styles=None) -> None:
    for i, lab in enumerate(labels):
        g = means[means["label"] == lab].sort_values("x")
        if g.empty:
            continue
        colour, marker = (styles or STYLE).get(lab, (f"C{i}", "o"))
        ax.plot(g["x"], g[metric], color=colour, marker=marker, ms=4,
                ls=common.LINESTYLE.get(lab, "-"), label=(names or NAMES).get(lab, lab))


def _note(ours: pd.DataFrame, paper: pd.DataFrame, metric: str) -> str:
    """'MERP vs pFabric at 80 %: paper −48 %, ours ×8.0' for a reduction claim."""
    p = paper[(paper["metric"] == metric) & (paper["x"] == f"{HIGH:g}")]
    o = ours[(ours["metric"] == metric) & (ours["x"].map(lambda x: x == HIGH))]
    if p.empty or o.empty:
        return ""
    return (f"MERP vs pFabric at {HIGH:.0%}: paper {common.versus(p['value'].iloc[0])}, "
            f"ours {common.versus(o['value'].iloc[0])}")


def plot_fig5_7(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    frame = common.per_run(runs, FACTOR)
    fig = new_figure(19, 8.5)
    axes = fig.subplots(2, 4)
    titles = {"er_mean": "mean expansion ratio", "er_max": "largest expansion ratio",
              "fct_p999_ms": "99.9th percentile FCT (ms)", "fct_mean_ms": "mean FCT (ms)"}
    notes = {"er_max": "er_max_reduction", "fct_p999_ms": "fct_p999_ms_reduction",
             "er_mean": "er_mean_reduction"}
    for row, (part, kb) in enumerate(SIZES.items()):
        means = common.seed_means(frame[frame["part"] == part])
        figno = {1500: "Figs. 5, 7", 150: "Fig. 6"}[kb]
        for col, metric in enumerate(METRICS):
            ax = axes[row][col]
            _curve(ax, means, metric, common.TRANSPORTS)
            common.log_y(ax)
            ax.set_xlabel("load of the most loaded link (ToR–root)")
            ax.set_title(f"{figno}, mean {kb} KB: {titles[metric]}\n"
                         + (_note(ours, paper, f"{notes[metric]}_{part}")
                            if metric in notes else ""), fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
        for c in paper[(paper["metric"] == f"er_max_{part}")].itertuples():
            axes[row][1].plot(float(c.x), c.value, marker="D", color="black", ms=7, ls="none",
                              label=f"paper: MERP {c.value:g}")
        if kb == 1500:
            axes[row][1].axhline(10, color="black", ls="--", lw=1,
                                 label="paper: MERP within 10× at every load")
        gap = paper[paper["metric"] == f"fct_mean_gap_{part}"]
        if not gap.empty:
            o = ours[(ours["metric"] == f"fct_mean_gap_{part}")
                     & (ours["x"].map(lambda x: x == HIGH))]
            if not o.empty:
                axes[row][3].set_title(
                    f"{figno}, mean {kb} KB: mean FCT (ms)\nMERP vs pFabric at {HIGH:.0%}: "
                    f"paper {common.versus(-gap['value'].iloc[0])}, "
                    f"ours {common.versus(-o['value'].iloc[0])}", fontsize=9)
        axes[row][1].legend(fontsize=7)
    axes[0][0].legend(fontsize=8)
    seeds = frame["seed"].nunique()
    fig.suptitle(f"MERP Figs. 5–7: 9-server tree, 1 Gb/s, Pareto sizes (shape "
                 f"{common.PARETO_SHAPE:g}), Poisson arrivals; {seeds} seed(s) per point, "
                 "means of per-run statistics", fontsize=10)
    save(fig, path)


FIG5_7 = Figure(
    id="fig5-7",
    title="Rate control on the tree: expansion ratio and FCT against load",
    shows="Figs. 5–7 (§6.1.1–6.1.2): 9 servers under 3 ToRs and a root, 1 Gb/s, 100-packet "
          "buffers, 10 µs per hop; Pareto sizes of mean 1500 KB and 150 KB, Poisson arrivals, "
          "load 10–80 % of the most loaded link; MERP vs pFabric vs TCP NewReno on drop-tail: "
          "mean and largest expansion ratio, 99.9th percentile and mean FCT. MERP with "
          "Algorithm 3's literal hand-over is drawn dashed.",
    sweep=SWEEPS_5_7[0],
    more_sweeps=SWEEPS_5_7[1:],
    measure=measure_fig5_7,
    plot=plot_fig5_7,
)


# --- Figs. 8-9 ---------------------------------------------------------------------------------

def _alpha(a: float) -> dict:
    return {"protocol": "merp", "merp_alpha": a}


def _q(q: float) -> dict:
    return {"protocol": "merp", "merp_q": q}


SWEEPS_8_9 = (
    _tree_sweep(150, [_alpha(a) for a in ALPHAS], [_alpha(a) for a in QUICK_ALPHAS],
                SWEEP_FLOWS, QUICK_SWEEP_FLOWS, SWEEP_SEEDS, "alpha", SWEEP_LOADS),
    _tree_sweep(150, [_q(q) for q in QS], [_q(q) for q in QUICK_QS],
                SWEEP_FLOWS, QUICK_SWEEP_FLOWS, SWEEP_SEEDS, "q", SWEEP_LOADS),
)


def _value(lab: str) -> float:
    return float(lab.rsplit("-", 1)[1])


def spread(row: pd.Series) -> float:
    """(largest − smallest) / smallest across the parameter values at one load."""
    return float((row.max() - row.min()) / row.min())


def larger_is_faster(row: pd.Series) -> float:
    """Share of neighbouring parameter values (sorted) at which the larger has the smaller
    tail FCT."""
    return measure.falls(row)


def measure_fig8_9(runs: Runs | None) -> pd.DataFrame:
    frame = common.per_run(runs, FACTOR)
    out: list[dict] = []
    for part, g in frame.groupby("part"):
        means = common.seed_means(g)
        for metric in ("fct_p999_ms", "drops"):
            for lab, m in means.groupby("label"):
                out += rows(metric, lab, dict(zip(m["x"], m[metric])))
        tail = common.wide(means, "fct_p999_ms").rename(columns=_value)
        who = f"merp-{part}"
        out += rows("tail_spread_light", who, {"": spread(tail.iloc[0])})
        out += rows("tail_spread_max", who, {"": max(spread(r) for _, r in tail.iterrows())})
        out += rows("larger_smaller_tail_high", who, {"": larger_is_faster(tail.iloc[-1])})
        if part == "alpha":
            drops = common.wide(means, "drops").rename(columns=_value)
            top = drops.columns.max()
            out += rows("drops_largest_alpha_most", who,
                        {"": measure.share(drops[top] >= drops.max(axis=1))})
    return pd.DataFrame(out)


def plot_fig8_9(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    frame = common.per_run(runs, FACTOR)
    fig = new_figure(16, 4.8)
    axes = fig.subplots(1, 3)
    what = {"alpha": "α", "q": "Q (of C)"}
    for ax, part in zip(axes, ("alpha", "q")):
        means = common.seed_means(frame[frame["part"] == part])
        labels = sorted(means["label"].unique(), key=_value)
        names = {lab: f"{what[part]} = {_value(lab):g}" for lab in labels}
        styles = {lab: (f"C{i}", "os^D"[i % 4]) for i, lab in enumerate(labels)}
        _curve(ax, means, "fct_p999_ms", labels, names, styles)
        o = ours[ours["protocol"] == f"merp-{part}"].set_index("metric")["value"]
        # both spreads are measured for every part that ran
        light, most = (o["tail_spread_light"], o["tail_spread_max"]) if len(o) else (float("nan"),) * 2
        ax.set_title(f"Fig. {8 if part == 'alpha' else 9}: impact of {what[part]}, mean 150 KB\n"
                     f"(largest − smallest)/smallest across {what[part]}: "
                     f"{light:.2g} at the lightest load, {most:.2g} at most", fontsize=9)
        ax.set_ylabel("99.9th percentile FCT (ms)")
        if part == "alpha":
            _curve(axes[2], means, "drops", labels, names, styles)
    for ax in axes:
        ax.set_xlabel("load of the most loaded link (ToR–root)")
        common.log_y(ax)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    axes[2].set_yscale("symlog", linthresh=10)  # some runs drop nothing
    axes[2].set_ylabel("packets dropped per run (DETs are dropped first)")
    axes[2].set_title("Fig. 8's text: buffer overflows against α", fontsize=9)
    fig.suptitle("MERP Figs. 8–9: sensitivity to α and Q on the 9-server tree (the paper does "
                 "not list its values; package doc)", fontsize=10)
    save(fig, path)


FIG8_9 = Figure(
    id="fig8-9",
    title="Sensitivity of MERP to α and Q",
    shows="Figs. 8–9 (§6.1.3): the tree of Figs. 5–7, mean 150 KB; MERP with α = 0.99, "
          "0.995, 0.999, 0.9999 and with Q = 0.001, 0.01, 0.1, 0.8 of C: 99.9th percentile "
          "FCT against load, and packets dropped against α.",
    sweep=SWEEPS_8_9[0],
    more_sweeps=SWEEPS_8_9[1:],
    measure=measure_fig8_9,
    plot=plot_fig8_9,
)
