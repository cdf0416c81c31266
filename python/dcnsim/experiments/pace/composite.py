"""Scenario 2 (Fig. 5b): the composite traffic pattern, and PACE's controllability.

- ``fig7``: four phases — at 0 four flows S1→R1 (group a to the receivers: F3–F4 and F4–F5),
  at 2 ms one flow S2→R2 (group d to the receivers: F4–F5), at 4 ms six flows S3→R3 (group c
  to the cross receivers: F3–F4), at 20 ms six more S2→R2 — for PACE, D3, DCTCP and TCP:
  the throughput of one flow of each group over time, the queue at F4 (towards F5), and each
  phase's rates against the max-min allocation computed by hand.
- ``fig8``: one S1→R1 flow of weight 2 at 0, one S2→R2 of weight 1 at 1.5 ms, one S3→R3 of
  weight 4 at 3 ms, 500 KB each, PACE: weighted shares over time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from ..figure import Figure, Runs, SweepDef, rows
from . import common
from .common import COLOURS, CROSS, GROUP_FIRST, NAMES, PAYLOAD_FRACTION, RECEIVERS, TRANSPORTS

#: Links the groups cross (the path's other links are never their bottleneck).
PATHS = {"S1": ("F3F4", "F4F5"), "S2": ("F4F5",), "S2b": ("F4F5",), "S3": ("F3F4",)}

# --- fig7 -----------------------------------------------------------------------------------------

BIG = 10**9  # bytes: no flow of scenario 2 finishes within the run
STOP_S, QUICK_STOP_S = 0.040, 0.026
#: (name, start, end, measured from): each phase's rates are averaged once it has settled.
PHASES = [("1", 0.0, 0.002, 0.001), ("2", 0.002, 0.004, 0.003), ("3", 0.004, 0.020, 0.006),
          ("4", 0.020, STOP_S, 0.025)]


def composite_flows() -> pd.DataFrame:
    """Scenario 2's flows, group by group (the "group" column is for the measures)."""
    a, c, d = GROUP_FIRST["a"], GROUP_FIRST["c"], GROUP_FIRST["d"]
    spec = ([("S1", a + i, RECEIVERS + i, 0.0) for i in range(4)]
            + [("S2", d, RECEIVERS + 4, 0.002)]
            + [("S3", c + i, CROSS + i, 0.004) for i in range(6)]
            + [("S2b", d + 1 + i, RECEIVERS + 5 + i, 0.020) for i in range(6)])
    return pd.DataFrame({"group": [g for g, *_ in spec], "src": [s for _, s, _, _ in spec],
                         "dst": [t for *_, t, _ in spec], "size_bytes": BIG,
                         "start_s": [s for *_, s in spec]})


FLOWS7 = composite_flows()
FILE7 = common.FlowFile("composite", FLOWS7.drop(columns="group"))


def phases(stop_s: float) -> list[tuple[str, float, float]]:
    """(name, from, to) of each phase's measured window, within a run ending at ``stop_s``."""
    out = []
    for name, t0, t1, settle in PHASES:
        t1 = min(t1, stop_s)
        if name == "4":
            settle = min(settle, t0 + (t1 - t0) / 2)
        if t1 > settle:
            out.append((name, settle, t1))
    return out


def expected(phase: str, fraction: float) -> dict[str, float]:
    """The max-min rate (bit/s of goodput) of each group active in ``phase``."""
    started = {"1": 0.0, "2": 0.002, "3": 0.004, "4": 0.020}[phase]
    live = FLOWS7[FLOWS7["start_s"] <= started]
    cap = common.LINK_BPS * fraction
    rates = common.max_min([PATHS[g] for g in live["group"]], {"F3F4": cap, "F4F5": cap})
    return pd.Series(rates, index=live["group"].to_numpy()).groupby(level=0).mean().to_dict()


def measure_fig7(runs: Runs | None) -> pd.DataFrame:
    out = []
    for p in runs.ok().to_dict("records"):
        lab = common.label(p["transport"])
        r = runs.results(p["point"])
        port = common.bottleneck_port(runs.ports(p["point"]))
        q = common.queue_bytes(r.series, port)
        out += rows("queue_max_kb", lab, {"": q.max() / 1e3})
        out += rows("drops", lab, {"": common.drops(runs, p["point"])})
        every = []
        for name, t0, t1 in phases(float(q.index.max())):
            errors = []
            for g, fair in expected(name, PAYLOAD_FRACTION[lab]).items():
                got = [common.window_rate(r.series, i, t0, t1)
                       for i in FLOWS7.index[FLOWS7["group"] == g]]
                out += rows(f"rate_mbps_{g}", lab, {name: np.mean(got) / 1e6})
                out += rows(f"over_fair_{g}", lab, {name: np.mean(got) / fair})
                errors += [abs(x / fair - 1) for x in got]
            window = q[(q.index > t0) & (q.index <= t1)]
            out += rows("queue_mean_kb", lab, {name: window.mean() / 1e3})
            out += rows("maxmin_error", lab, {name: float(np.mean(errors))})
            every += errors
        out += rows("maxmin_error_all", lab, {"": float(np.mean(every))})
    return pd.DataFrame(out)


def plot_fig7(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    fig = new_figure(12, 10)
    axes = fig.subplots(3, 2)
    pts = {common.label(p["transport"]): p["point"] for p in runs.ok().to_dict("records")}
    shown = {"S1": 0, "S2": 4, "S3": 5, "S2b": 11}  # one flow of each group, as the paper
    names = {"S1": "S1–R1", "S2": "first S2–R2", "S3": "S3–R3", "S2b": "last group S2–R2"}
    for ax, lab, letter in zip(axes.flat[:4], ["pace", "d3", "dctcp", "tcp"], "abcd"):
        if lab not in pts:
            continue
        r = runs.results(pts[lab])
        wide = common.goodput_wide(r.series) / 1e6
        for g, f in shown.items():
            if f in wide.columns:
                ax.plot(wide.index * 1e3, wide[f], lw=1, label=names[g])
        for name, t0, t1 in phases(wide.index.max()):
            for g, fair in expected(name, PAYLOAD_FRACTION[lab]).items():
                ax.hlines(fair / 1e6, t0 * 1e3, t1 * 1e3, colors="k", lw=0.6, linestyles=":")
        ax.set_title(f"({letter}) {NAMES[lab]}: one flow per group (dotted: max-min)",
                     fontsize=9)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("throughput (Mb/s)")
        ax.set_ylim(0, 1050)
        ax.grid(True, alpha=0.4)
        ax.legend(fontsize=7, loc="upper right")
    ax = axes[2, 0]
    for lab, point in pts.items():
        r = runs.results(point)
        q = common.queue_bytes(r.series, common.bottleneck_port(runs.ports(point)))
        ax.plot(q.index * 1e3, q / 1e3, lw=1, color=COLOURS[lab], label=NAMES[lab])
    ax.set_title("(e) queue at F4 (towards F5)", fontsize=9)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue (KB)")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7)
    ax = axes[2, 1]
    err = ours[ours["metric"] == "maxmin_error"]
    labs = [lab for lab in ["pace", "d3", "dctcp", "tcp"] if lab in pts]
    for j, lab in enumerate(labs):
        e = err[err["protocol"] == lab]
        xs = np.arange(len(e)) * (len(labs) + 1) + j
        ax.bar(xs, e["value"], color=COLOURS[lab], label=NAMES[lab])
    ax.set_xticks(np.arange(4) * (len(labs) + 1) + 1.5, [f"phase {i}" for i in range(1, 5)])
    ax.set_ylabel("mean |rate / max-min − 1|")
    ax.set_title("(f) distance from the max-min allocation, per phase", fontsize=9)
    ax.grid(True, axis="y", alpha=0.4)
    ax.legend(fontsize=7)
    save(fig, path)


FIG7 = Figure(
    id="fig7",
    title="Scenario 2: composite traffic, throughput per group and the queue at F4",
    shows="Four phases on the parking lot (4 flows S1→R1, then 1 S2→R2, 6 S3→R3, 6 more "
          "S2→R2): one flow of each group over time against the max-min allocation, and the "
          "queue at F4, for PACE, D3, DCTCP and TCP.",
    sweep=SweepDef(
        base={"name": "pace-fig7", "seed": 1, "topology": common.TOPOLOGY, "stop_s": STOP_S,
              "workload": {"kind": "flows", "file": FILE7.path},
              "output": {"series_interval_us": 500}},
        grid={"transport": [TRANSPORTS[t] for t in ["pace", "d3", "dctcp", "tcp"]]},
        quick_base={"stop_s": QUICK_STOP_S},
        inputs=common.writer([FILE7], [FILE7])),
    measure=measure_fig7, plot=plot_fig7,
)


# --- fig8 -----------------------------------------------------------------------------------------

SIZE8 = 500_000
FLOWS8 = pd.DataFrame({
    "src": [GROUP_FIRST["a"], GROUP_FIRST["d"], GROUP_FIRST["c"]],
    "dst": [RECEIVERS, RECEIVERS + 1, CROSS],
    "size_bytes": SIZE8, "start_s": [0.0, 0.0015, 0.003], "weight": [2, 1, 4]})
FILE8 = common.FlowFile("controllability", FLOWS8)


def measure_fig8(runs: Runs | None) -> pd.DataFrame:
    p = runs.ok().to_dict("records")[0]
    r = runs.results(p["point"])
    finish = r.flows.set_index("flow_id")["finish_s"]
    cap = common.LINK_BPS * PAYLOAD_FRACTION["pace"]
    rate = lambda f, a, b: common.window_rate(r.series, f, a, b)  # noqa: E731
    settle = 0.0003  # a few periods after each start
    p2 = (0.0015 + settle, 0.003)
    p3 = (0.003 + settle, finish[0])
    p4 = (finish[0] + settle, min(finish[1], finish[2]))
    out = rows("s2_over_s1", "pace", {"phase2": rate(1, *p2) / rate(0, *p2)})
    out += rows("s3_over_s1", "pace", {"phase3": rate(2, *p3) / rate(0, *p3)})
    out += rows("s2_phase3_over_phase2", "pace", {"": rate(1, *p3) / rate(1, *p2)})
    for f, g in [(0, "S1"), (1, "S2"), (2, "S3")]:
        for name, (a, b) in [("phase2", p2), ("phase3", p3), ("after_s1", p4)]:
            if f == 0 and name == "after_s1":
                continue
            if f == 2 and name == "phase2":
                continue
            out += rows(f"share_{g}", "pace", {name: rate(f, a, b) / cap})
        out += rows("finish_ms", "pace", {g: finish[f] * 1e3})
    # "increase their throughput to 100 %": the level S2 and S3 reach once S1 has ended, as
    # their best one-period (200 µs, two samples) mean before they end
    periods = common.goodput_wide(r.series).rolling(2).mean()
    for f, g in [(1, "S2"), (2, "S3")]:
        after = periods[(periods.index > finish[0] + 1e-12) & (periods.index <= finish[f])]
        out += rows(f"peak_share_{g}", "pace", {"after_s1": after[f].max() / cap})
    out += rows("drops", "pace", {"": common.drops(runs, p["point"])})
    return pd.DataFrame(out)


def hand_timeline() -> dict[str, float]:
    """Finish times (ms) of the three 500 KB flows under exact weighted max-min at the payload
    rate of PACE's full packets: S1 alone until 1.5 ms, then 2:1 with S2 on F4–F5, from 3 ms
    S3 takes 4/6 of F3–F4 (S1 1/3, so S2 gets 2/3 of F4–F5), then each alone on its link."""
    c = common.LINK_BPS * PAYLOAD_FRACTION["pace"] / 8 / 1e3  # bytes per ms
    s1 = 1.5 * c + 1.5 * c * 2 / 3
    t1 = 3 + (SIZE8 - s1) / (c / 3)
    s2 = 1.5 * c / 3 + (t1 - 3) * c * 2 / 3
    s3 = (t1 - 3) * c * 2 / 3
    return {"S1": t1, "S2": t1 + (SIZE8 - s2) / c, "S3": t1 + (SIZE8 - s3) / c}


def plot_fig8(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    fig = new_figure(8, 4.5)
    ax = fig.subplots()
    r = runs.results(runs.ok()["point"].iloc[0])
    # 100 µs samples hold 8 or 9 packets at 1 Gb/s: the mean of two (one 200 µs period, the
    # period of every flow here) hides the aliasing
    wide = common.goodput_wide(r.series).rolling(2, min_periods=1).mean() / 1e6
    hand = hand_timeline()
    for f, (g, w) in enumerate([("S1–R1", 2), ("S2–R2", 1), ("S3–R3", 4)]):
        if f in wide.columns:
            ax.plot(wide.index * 1e3, wide[f], lw=1.2, label=f"{g}, weight {w}")
    for g, t in hand.items():
        ax.axvline(t, color="grey", lw=0.6, ls=":")
        ax.annotate(f"{g} ends (hand)", (t, 1010), rotation=90, fontsize=7, va="top")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_ylim(0, 1050)
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=8, loc="center right")
    ax.set_title("PACE's controllability: weights 2, 1, 4, 500 KB each (means over 200 µs)",
                 fontsize=10)
    save(fig, path)


FIG8 = Figure(
    id="fig8",
    title="Controllability: weights 2, 1, 4",
    shows="Scenario 2 with one S1→R1 flow of weight 2 at 0, one S2→R2 of weight 1 at 1.5 ms "
          "and one S3→R3 of weight 4 at 3 ms, 500 KB each, under PACE.",
    sweep=SweepDef(
        base={"name": "pace-fig8", "seed": 1, "topology": common.TOPOLOGY,
              "workload": {"kind": "flows", "file": FILE8.path},
              "output": {"series_interval_us": 100}},
        grid={"transport": [TRANSPORTS["pace"]]}, inputs=common.writer([FILE8], [FILE8])),
    measure=measure_fig8, plot=plot_fig8,
)
