"""MERP: flow scheduling by minimum expansion ratio (seed 000; the seed's text starts at the
abstract, so the title and authors are not quoted here).

Runnable now:

- ``table1``: the motivating example (§2.1, Table 1, Fig. 1): flows A (arrives at 0, size 3),
  B (3, 3) and C (0, 4) share one link of capacity 1. The SRPT and PS schedules are computed
  exactly as flow-level arithmetic (:mod:`.fluid`) and compared with the FCTs and expansion
  ratios the paper states. MERP's own row (max expansion ratio 7/3, mean FCT 17/3) is in the
  data table and shows as "not measured" until MERP is implemented.

  One claim differs on purpose: the paper writes ER(PS, A) = 7/3, but under PS flow A
  finishes at 7.5 (it shares the link with C, then with B and C), so ER(PS, A) = 7.5/3 = 2.5;
  7/3 is flow B's ratio (B finishes at 10, 7 after its arrival). The paper's own mean,
  (7.5 + 9.5 + 7)/3 = 8, contains A's 7.5. We keep the claim as the paper states it.

The evaluation figures (§6) need MERP itself (and MEMR for Figs. 10–12); their baselines
(pFabric, TCP NewReno, ECMP, CONGA) exist. They are listed as pending.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..plots import new_figure, save
from . import fluid
from .figure import Figure, Paper, Pending, Runs, rows

#: Table 1: (flow, arrival time, size), on a link of capacity 1.
TABLE1 = (("A", 0, 3), ("B", 3, 3), ("C", 0, 4))
POLICIES = {"srpt": "SRPT", "ps": "PS"}


def measure_table1(_: Runs | None) -> pd.DataFrame:
    out = []
    for policy in POLICIES:
        s = fluid.schedule(TABLE1, policy)
        names = [n for n, _, _ in TABLE1]
        out += rows("fct", policy, {n: s.fct(n) for n in names})
        out += rows("expansion_ratio", policy, {n: s.expansion_ratio(n) for n in names})
        out += rows("mean_fct", policy, {"": s.mean_fct()})
        out += rows("max_expansion_ratio", policy, {"": s.max_expansion_ratio()})
    return pd.DataFrame(out)


def plot_table1(ours: pd.DataFrame, paper: pd.DataFrame, _: Runs | None, path: Path) -> None:
    """Like the paper's Fig. 1 (a) SRPT and (b) PS: the link's capacity shared among the flows
    over time; plus the expansion ratio of each flow and of the set, with the paper's values
    as black markers."""
    colours = {"A": "tab:blue", "B": "tab:orange", "C": "tab:green"}
    arrival = {n: a for n, a, _ in TABLE1}
    fig = new_figure(13, 4.0)
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1.1]})
    for ax, (policy, label) in zip(axes, POLICIES.items()):
        s = fluid.schedule(TABLE1, policy)
        for t0, t1, rates in s.segments:
            bottom = 0.0
            for name in sorted(rates):
                r = float(rates[name])
                if r > 0:
                    ax.bar(float(t0), r, width=float(t1 - t0), bottom=bottom, align="edge",
                           color=colours[name], edgecolor="white", linewidth=0.5)
                    ax.text(float(t0 + t1) / 2, bottom + r / 2, name, ha="center", va="center",
                            fontsize=9, color="white", weight="bold")
                    bottom += r
        claims = paper[(paper["metric"] == "fct") & (paper["protocol"] == policy)]
        for c in claims.itertuples():
            ax.plot(arrival[c.x] + c.value, 1.06, marker="v", color="black", ms=7, ls="none")
            ax.annotate(f"{c.x}", (arrival[c.x] + c.value, 1.1), ha="center", fontsize=8)
        ax.set_xlim(0, 10.5)
        ax.set_ylim(0, 1.42)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.set_xlabel("time (units: flow size / link capacity)")
        ax.set_ylabel("share of link capacity")
        ax.set_title(f"({'ab'[list(POLICIES).index(policy)]}) {label}: mean FCT "
                     f"{float(s.mean_fct()):.3g}")
        ax.plot([], [], marker="v", color="black", ls="none", label="paper: finish time")
        ax.legend(loc="upper left", fontsize=8)
    ax = axes[2]
    cats = ["A", "B", "C", "max"]
    x = np.arange(len(cats))
    for i, (policy, label) in enumerate(POLICIES.items()):
        o = ours[ours["protocol"] == policy]
        vals = [o[(o["metric"] == "expansion_ratio") & (o["x"] == c)]["value"].iloc[0]
                for c in cats[:3]]
        vals.append(o[o["metric"] == "max_expansion_ratio"]["value"].iloc[0])
        pos = x + (i - 0.5) * 0.38
        ax.bar(pos, vals, 0.36, label=f"{label} (ours)")
        p = paper[paper["protocol"] == policy]
        for j, c in enumerate(cats):
            metric = "max_expansion_ratio" if c == "max" else "expansion_ratio"
            hit = p[(p["metric"] == metric) & (p["x"] == ("" if c == "max" else c))]
            if len(hit):
                ax.plot(pos[j], hit["value"].iloc[0], marker="D", color="black", ms=6, ls="none")
    merp = paper[(paper["protocol"] == "merp") & (paper["metric"] == "max_expansion_ratio")]
    if len(merp):
        ax.axhline(merp["value"].iloc[0], color="tab:red", ls="--", lw=1,
                   label=f"paper: MERP max ({merp['value'].iloc[0]:.3g}, not run yet)")
    ax.plot([], [], marker="D", color="black", ls="none", label="paper")
    ax.set_xticks(x, ["flow A", "flow B", "flow C", "max (set)"])
    ax.set_ylabel("expansion ratio (FCT / FCT alone)")
    ax.set_title("(c) expansion ratio per flow")
    ax.set_ylim(0, 3.9)
    ax.grid(True, axis="y", alpha=0.4)
    ax.legend(fontsize=8, loc="upper center", ncol=2)
    fig.suptitle("MERP Table 1 / Fig. 1: three flows on one link, SRPT vs PS")
    save(fig, path)


TABLE1_FIGURE = Figure(
    id="table1",
    title="Motivating example: SRPT and PS on three flows",
    shows="Table 1 and Fig. 1 (a, b): flows A, B, C on one link under SRPT and PS; FCT of "
          "each flow, mean FCT, expansion ratios. Exact flow-level arithmetic, no simulation.",
    measure=measure_table1,
    plot=plot_table1,
)

PAPER = Paper(
    name="merp",
    citation="MERP: flow scheduling that minimizes the maximum expansion ratio (FCT over the "
             "FCT alone) of competing flows; seed 000_57a1f87c1f24689a.",
    figures=(TABLE1_FIGURE,),
    pending=(
        Pending("fig5-7", "9-server tree, Pareto sizes: mean and max expansion ratio, 99.9th "
                "and mean FCT vs load, MERP vs pFabric vs TCP", "MERP"),
        Pending("fig8-9", "sensitivity to α and Q", "MERP"),
        Pending("fig10-12", "k=4 fat-tree: FCT CDF, mean FCT and expansion ratio vs load, a "
                "failed link; MERP vs ECMP vs CONGA", "MERP and MEMR"),
        Pending("fig13", "flow switching: 3 senders × 2000 packets, 72.25 ms vs ideal 72 ms",
                "MERP"),
        Pending("fig14", "incast with a background flow: link utilisation 91.8 %", "MERP"),
    ),
)
