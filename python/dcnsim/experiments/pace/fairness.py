"""Scenario 1 (Fig. 5a): flows started one after the other and stopped in reverse.

- ``fig6``: 10 flows, 5 ms apart (also 20 and 50 ms), senders from groups a, b, c, d round
  robin (different RTTs) or all from group a (same RTT), PACE against D3, DCTCP and TCP:
  (a–d) each flow's rate over time in the 5 ms, different-RTT run, with the utilisation of
  the bottleneck F4–F5; (e, f) the average Jain index against the spacing.
- ``table1``: the same scenario with 64 and 250 flows from group a: average Jain index and
  efficiency (utilisation of F4–F5) for PACE, D3 and DCTCP.

The choices (flow sizes, sampling windows, what "efficiency" is) are in the package doc.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from ..figure import Figure, Runs, SweepDef, rows
from . import common
from .common import COLOURS, NAMES, TRANSPORTS

FLOWS = 10
SPACINGS_MS = [5, 20, 50]
QUICK_SPACINGS_MS = [5]
#: Runs end this long after the schedule (a guard for flows a protocol cannot finish).
GUARD = 1.3


def _file(groups: str, n: int, spacing_ms: float) -> common.FlowFile:
    name = f"s1_{groups}_n{n}_{spacing_ms:g}ms"
    return common.FlowFile(name, common.scenario1_flows(n, spacing_ms / 1e3, groups))


def _window_us(n: int) -> float:
    """Sampling window: at least 1 ms, and long enough for ~20 full packets per flow at the
    equal share of n flows (n × 250 µs at 1 Gb/s), so that packet granularity does not show
    up as unfairness."""
    return max(1000.0, 250.0 * n)


def _sweep(n: int, spacing_ms: float, groups: list[str], transports: list[str], part: str,
           quick_spacing_ms: float | None = None, full_only: bool = False,
           topology: dict | None = None) -> SweepDef:
    files = [_file(g, n, spacing_ms) for g in groups]
    qs = quick_spacing_ms if quick_spacing_ms is not None else spacing_ms
    quick_files = [_file(g, n, qs) for g in groups]
    base = {"name": f"pace-{part}", "seed": 1, "topology": topology or common.TOPOLOGY,
            "stop_s": GUARD * (2 * n - 1) * spacing_ms / 1e3,
            "workload": {"kind": "flows", "file": files[0].path},
            "output": {"series_interval_us": _window_us(n)}}
    return SweepDef(
        base=base,
        grid={"transport": [TRANSPORTS[t] for t in transports],
              "workload.file": [f.path for f in files]},
        quick_base={"stop_s": GUARD * (2 * n - 1) * qs / 1e3},
        quick_grid={"workload.file": [f.path for f in quick_files]},
        inputs=common.writer(files, quick_files), part=part, full_only=full_only)


def _points(runs: Runs) -> pd.DataFrame:
    pts = runs.ok().copy()
    pts["label"] = [common.label(t) for t in pts["transport"]]
    if "part" in pts.columns:  # Table 1's DCTCP with small buffers, a label of its own
        small = pts["part"].astype(str).str.endswith(SMALL_BUFFERS)
        pts.loc[small, "label"] = pts.loc[small, "label"] + SMALL_BUFFERS
    names = pts["workload.file"].str.extract(r"s1_(?P<groups>[a-d]+)_n(?P<n>\d+)_(?P<ms>[\d.]+)ms")
    pts["groups"], pts["n"], pts["spacing_ms"] = names["groups"], names["n"].astype(int), \
        names["ms"].astype(float)
    return pts


def run_measures(runs: Runs, point: str, n: int, label: str) -> dict[str, float]:
    """Average Jain index (samples with ≥ 2 flows active throughout), efficiency (goodput
    over the bottleneck's payload capacity, over the samples with a flow active throughout;
    also over those with more than 125), drops, unfinished flows."""
    r = runs.results(point)
    iv = _window_us(n) / 1e6
    jain = common.jain_over_time(r.series, r.flows, iv)
    eff = common.efficiency_over_time(r.series, r.flows, iv, label.removesuffix(SMALL_BUFFERS))
    active = common.active_mask(eff.index.to_numpy(), r.flows, iv).sum(axis=1).to_numpy()
    return {"jain": float(jain.mean()) if len(jain) else np.nan,
            "efficiency": float(eff[active > 0].mean()),
            "efficiency_over_125": float(eff[active > 125].mean()) if (active > 125).any()
            else np.nan,
            "drops": common.drops(runs, point),
            "unfinished": int(r.flows["finish_s"].isna().sum())}


# --- fig6 -----------------------------------------------------------------------------------------


def measure_fig6(runs: Runs | None) -> pd.DataFrame:
    out = []
    for p in _points(runs).to_dict("records"):
        m = run_measures(runs, p["point"], p["n"], p["label"])
        rtt = "diff_rtt" if p["groups"] == "abcd" else "same_rtt"
        out += rows(f"jain_{rtt}", p["label"], {p["spacing_ms"]: m["jain"]})
        out += rows(f"efficiency_{rtt}", p["label"], {p["spacing_ms"]: m["efficiency"]})
        out += rows(f"drops_{rtt}", p["label"], {p["spacing_ms"]: m["drops"]})
    frame = pd.DataFrame(out)
    # D3's "~5 % drop in fairness for shorter flows": 1 − J(5 ms) / J(longest spacing)
    for rtt in ("diff_rtt", "same_rtt"):
        j = frame[(frame["metric"] == f"jain_{rtt}") & (frame["protocol"] == "d3")]
        if len(j) > 1:
            by = dict(zip(j["x"], j["value"]))
            out += rows(f"jain_drop_short_{rtt}", "d3", {"": 1 - by[min(by)] / by[max(by)]})
    return pd.DataFrame(out)


def plot_fig6(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    fig = new_figure(12, 10)
    axes = fig.subplots(3, 2)
    pts = _points(runs)
    shown = pts[(pts["groups"] == "abcd") & (pts["spacing_ms"] == pts["spacing_ms"].min())]
    for ax, lab, letter in zip(axes.flat[:4], ["pace", "d3", "dctcp", "tcp"], "abcd"):
        p = shown[shown["label"] == lab]
        if p.empty:
            continue
        r = runs.results(p["point"].iloc[0])
        wide = common.goodput_wide(r.series) / 1e6
        for f in wide.columns:
            ax.plot(wide.index * 1e3, wide[f], lw=0.9)
        port = common.bottleneck_port(runs.ports(p["point"].iloc[0]))
        ax.plot(common.link_util(r.series, port).index * 1e3,
                common.link_util(r.series, port) * 1e3, "k--", lw=1, label="F4–F5 (all bytes)")
        ax.set_title(f"({letter}) {NAMES[lab]}, {FLOWS} flows {p['spacing_ms'].iloc[0]:g} ms "
                     "apart, groups a,b,c,d", fontsize=9)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("rate (Mb/s)")
        ax.set_ylim(0, 1100)
        ax.grid(True, alpha=0.4)
        ax.legend(fontsize=7, loc="upper right")
    for ax, rtt, letter, what in [(axes[2, 0], "diff_rtt", "e", "different RTTs"),
                                  (axes[2, 1], "same_rtt", "f", "same RTT")]:
        for lab in ["pace", "d3", "dctcp", "tcp"]:
            o = ours[(ours["metric"] == f"jain_{rtt}") & (ours["protocol"] == lab)]
            if len(o):
                ax.plot(o["x"].astype(float), o["value"], marker="o", color=COLOURS[lab],
                        label=NAMES[lab])
        for k, c in enumerate(paper[paper["metric"] == f"jain_{rtt}"].itertuples()):
            ax.plot(float(c.x), c.value, marker="D", ls="none", color=COLOURS.get(c.protocol),
                    mfc="none", ms=9,
                    label=(f"paper: {NAMES.get(c.protocol, c.protocol)} \"fair\" (stand-in "
                           f"0.99: the text gives no value)") if k == 0 else None)
        ax.set_title(f"({letter}) average Jain index, {what}", fontsize=9)
        ax.set_xlabel("spacing of starts and ends (ms)")
        ax.set_ylabel("Jain's fairness index")
        ax.set_ylim(0.5, 1.02)
        ax.grid(True, alpha=0.4)
        ax.legend(fontsize=7, loc="lower right")
    save(fig, path)


def _fig6_sweeps() -> list[SweepDef]:
    return [_sweep(FLOWS, ms, ["abcd", "a"], list(TRANSPORTS), part=f"{ms}ms",
                   full_only=ms not in QUICK_SPACINGS_MS) for ms in SPACINGS_MS]


_S = _fig6_sweeps()
FIG6 = Figure(
    id="fig6",
    title="Scenario 1: per-flow rates and average Jain index (10 sequential flows)",
    shows="Ten flows started 5, 20 or 50 ms apart and stopped in reverse on the parking lot, "
          "from groups a–d (different RTTs) or all from a: each flow's rate over time, and the "
          "average Jain index, PACE against D3, DCTCP and TCP.",
    sweep=_S[0], more_sweeps=tuple(_S[1:]),
    measure=measure_fig6, plot=plot_fig6,
)


# --- table1 ---------------------------------------------------------------------------------------

TABLE1_FLOWS = [64, 250]
TABLE1_SPACING_MS = 5
QUICK_TABLE1_SPACING_MS = 1
#: Suffix of the runs (and labels) of DCTCP with the 100-packet buffers of scenarios 1 and 2.
SMALL_BUFFERS = "-100pkt"


def table1_buffer_kb(n: int) -> float:
    """Table 1's buffers: 2·p·R, with p the period PACE's forwarders reach with n flows of
    weight 1 (§III.E.3: the smallest multiple of 20 µs, at least 200 µs and at most 5.1 ms,
    in which 1/n of the link carries two full 1514 B packets). Eq. (7) keeps credits and
    queue of a port within 2·p·R, so PACE is lossless with buffers of that size (package
    doc); every protocol gets the same buffers."""
    units = min(255, max(10, int(np.ceil(2 * 1514 * 8 * n / common.LINK_BPS / 20e-6 - 1e-9))))
    return round(2 * units * 20e-6 * common.LINK_BPS / 8 / 1e3, 3)


def measure_table1(runs: Runs | None) -> pd.DataFrame:
    out = []
    for p in _points(runs).to_dict("records"):
        m = run_measures(runs, p["point"], p["n"], p["label"])
        for key in ("jain", "efficiency", "drops", "unfinished"):
            out += rows(key, p["label"], {p["n"]: m[key]})
        if p["n"] > 125:
            out += rows("efficiency_over_125", p["label"], {p["n"]: m["efficiency_over_125"]})
    return pd.DataFrame(out)


def plot_table1(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    fig = new_figure(11, 4.8)
    axes = fig.subplots(1, 2)
    labs = ["pace", "d3", "dctcp", "dctcp" + SMALL_BUFFERS]
    for ax, metric, title in [(axes[0], "jain", "Fairness (average Jain index)"),
                              (axes[1], "efficiency", "Efficiency (goodput / payload capacity "
                                                      "of F4–F5)")]:
        for k, n in enumerate(TABLE1_FLOWS):
            for j, lab in enumerate(labs):
                x = k * (len(labs) + 1) + j
                o = ours[(ours["metric"] == metric) & (ours["protocol"] == lab)
                         & (ours["x"].astype(str) == str(n))]
                v = float(o["value"].iloc[0]) if len(o) else np.nan
                small = lab.endswith(SMALL_BUFFERS)
                base = lab.removesuffix(SMALL_BUFFERS)
                ax.bar(x, 0 if np.isnan(v) else v, color=COLOURS[base], hatch="//" if small
                       else None, alpha=0.6 if small else 1,
                       label=(NAMES[base] + (", 100-packet buffers" if small else ""))
                       if k == 0 else None)
                ax.annotate("n/a" if np.isnan(v) else f"{v:.3f}", (x, (0 if np.isnan(v) else v)
                            + 0.01), ha="center", fontsize=7)
                c = paper[(paper["metric"] == metric) & (paper["protocol"] == lab)
                          & (paper["x"] == str(n))]
                if len(c):
                    ax.plot(x, c["value"].iloc[0], marker="D", color="black", ms=6,
                            label="paper" if (k, j) == (0, 0) else None)
        ax.set_xticks([k * (len(labs) + 1) + 1 for k in range(len(TABLE1_FLOWS))],
                      [f"{n} flows" for n in TABLE1_FLOWS])
        d3 = ours[(ours["metric"] == "efficiency_over_125") & (ours["protocol"] == "d3")]
        if len(d3):
            x = (len(labs) + 1) + labs.index("d3")
            note = f"D³ stalls beyond 125 flows\n(efficiency there {d3['value'].iloc[0]:.3f})"
            ax.annotate(note, (x, 0.35), ha="center", fontsize=7, rotation=90)
        ax.set_ylim(0, 1.1)
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.4)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncol=5, fontsize=8)
    save(fig, path)


_T = [_sweep(n, TABLE1_SPACING_MS, ["a"], ["pace", "d3", "dctcp"], part=f"n{n}",
             quick_spacing_ms=QUICK_TABLE1_SPACING_MS,
             topology={**common.TOPOLOGY, "buffer_kb": table1_buffer_kb(n)})
      for n in TABLE1_FLOWS]
_T += [_sweep(n, TABLE1_SPACING_MS, ["a"], ["dctcp"], part=f"n{n}{SMALL_BUFFERS}",
              quick_spacing_ms=QUICK_TABLE1_SPACING_MS) for n in TABLE1_FLOWS]
TABLE1 = Figure(
    id="table1",
    title="Table 1: fairness and efficiency with 64 and 250 flows",
    shows="Scenario 1 from group a with 64 and 250 flows (5 ms apart): average Jain index and "
          "efficiency at the bottleneck, PACE against D3 and DCTCP, buffers of 2·p·R (and "
          "DCTCP with 100-packet buffers). D3 cannot share 1 Gb/s among more than 125 flows "
          "(PACE's 1 B/µs units, d3_rate_unit_mbps = 8).",
    sweep=_T[0], more_sweeps=tuple(_T[1:]),
    measure=measure_table1, plot=plot_table1,
)
