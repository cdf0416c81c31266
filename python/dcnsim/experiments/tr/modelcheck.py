"""Figure 6 (TR §3.4, "Model verification"): the FCT model of RPS and TR (:mod:`.model`, eqs.
2–8) against simulation of the §2 scenario.

"In Figure 6(a), the number of flows is set as 20, and the data size of flow f is gradually
increased from 100KB to 350KB ... In Figure 6(b), the data size of flow f is fixed to 300KB,
and we introduce more flows." The model's N flows of S packets start together; we run exactly
that on the §2 leaf-spine (:mod:`.motivation`'s topology): N flows of S KB, all at time 0,
flow i from leaf0's host i mod 10 to leaf1's host i mod 10, under RPS and TR, and compare the
mean FCT of the N flows (the model's flows are all alike) with eqs. (7) and (8).

Choices (the paper's Fig. 6 is an image; its set-up beyond the two sentences above is not
given): the bad paths' RTT ratio is 2.5, the middle of §2's 1.5–3.5, so d_g = 200 µs and d_b =
500 µs; panel (b)'s flow counts are 10–50; DCTCP, the transport of §2 (NewReno gives the same
RPS numbers to 1 % and TR's within 12 %: windows under RPS never reach the marking threshold);
Table 2's other parameters follow from the set-up: n = 10 (n_g = n_b = 5), B = 250 packets,
t = 12 µs (1500 B at 1 Gb/s), H = 3, S = ⌈size / 1460 B⌉. Five seeds (RPS's random choices;
TR is nearly deterministic here).

Measures: per point and scheme, our mean FCT, the model's, and their ratio; per panel and
scheme the geometric mean of the ratios (the paper: "the results of simulation are basically
close to the corresponding theoretical values"); the paper's orderings as shares of points (or
steps) at which they hold.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from .. import measure
from ..figure import Figure, Runs, SweepDef, rows
from . import model
from . import motivation as mot

RATIO = 2.5
SIZES_KB = [100, 150, 200, 250, 300, 350]
FLOWS_A = 20
FLOW_COUNTS = [10, 20, 30, 40, 50]
SIZE_B_KB = 300
SEEDS = [1, 2, 3, 4, 5]
QUICK_SIZES_KB, QUICK_FLOW_COUNTS, QUICK_SEEDS = [100, 350], [10, 50], [1]
SCHEMES = {"rps": {"lb": "rps"}, "tr": {"lb": "tr"}}
NAMES = {"rps": "RPS", "tr": "TR"}
PARAMS = model.Params(n_g=5, n_b=5, d_g=2 * 4 * mot.LINK_DELAY_US * 1e-6,
                      d_b=RATIO * 2 * 4 * mot.LINK_DELAY_US * 1e-6, B=250,
                      t=1500 * 8 / (mot.LINK_GBPS * 1e9), H=3)
FOLDER = "_flows"


def flow_file(flows: int, kb: int) -> str:
    return f"{FOLDER}/n{flows}_kb{kb}.csv"


def parse_file(name: str) -> tuple[int, int]:
    """(flows, KB) of a :func:`flow_file` name."""
    stem = Path(name).stem  # n20_kb100
    n, kb = stem.split("_")
    return int(n[1:]), int(kb[2:])


def write_flows(folder: Path, flows: int, kb: int) -> None:
    path = Path(folder) / flow_file(flows, kb)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["src,dst,size_bytes,start_s"]
    lines += [f"{i % 10},{10 + i % 10},{kb * 1000},0" for i in range(flows)]
    path.write_text("\n".join(lines) + "\n")


def _points(quick: bool) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    sizes, counts = (QUICK_SIZES_KB, QUICK_FLOW_COUNTS) if quick else (SIZES_KB, FLOW_COUNTS)
    return [(FLOWS_A, kb) for kb in sizes], [(n, SIZE_B_KB) for n in counts]


def _inputs(panel: int):
    def write(folder: Path, quick: bool) -> None:
        for n, kb in _points(quick)[panel]:
            write_flows(folder, n, kb)
    return write


BASE = {
    **{k: v for k, v in mot.BASE.items() if k != "workload"},
    "name": "tr-model",
    "topology": {**mot.BASE["topology"], "link_overrides": mot.bad_paths(RATIO)},
    "workload": {"kind": "flows", "file": flow_file(FLOWS_A, SIZES_KB[0])},
}


def _sweep(panel: int, part: str) -> SweepDef:
    full, quick = (_points(q)[panel] for q in (False, True))
    return SweepDef(
        base=BASE,
        grid={"routing": list(SCHEMES.values()),
              "workload.file": [flow_file(n, kb) for n, kb in full], "seed": SEEDS},
        quick_grid={"workload.file": [flow_file(n, kb) for n, kb in quick],
                    "seed": QUICK_SEEDS},
        inputs=_inputs(panel), part=part)


SIZE_SWEEP, FLOWS_SWEEP = _sweep(0, "size"), _sweep(1, "flows")


def per_run(runs: Runs) -> pd.DataFrame:
    """One row per finished point: panel, scheme, flows, KB, seed, mean FCT (ms), spurious
    retransmissions per data packet, drops."""
    def row(p: dict[str, Any]) -> dict[str, Any]:
        flows = runs.results(p["point"]).flows
        n, kb = parse_file(p["workload.file"])
        return {"panel": p["part"], "scheme": measure.label(p["routing"], SCHEMES, "routing"),
                "flows": n, "kb": kb, "seed": p["seed"], "fct_ms": flows["fct_s"].mean() * 1e3,
                "unfinished": int(flows["fct_s"].isna().sum()),
                "retx": flows["spurious_retransmits"].sum() / flows["data_packets"].sum(),
                "drops": p["packets.dropped"]}
    return measure.per_point(runs, row, ["panel", "scheme", "flows", "kb", "seed", "fct_ms",
                                         "unfinished", "retx", "drops"])


def model_ms(scheme: str, flows: int, kb: int) -> float:
    s = model.packets(kb * 1000)
    f = model.fct_rps if scheme == "rps" else model.fct_tr
    return f(s, flows, PARAMS) * 1e3


def table(runs: Runs) -> pd.DataFrame:
    """Seed means with the model beside them: panel, scheme, flows, kb, x, fct_ms, model_ms,
    ratio."""
    frame = per_run(runs)
    means = measure.seed_means(frame, ["panel", "scheme", "flows", "kb"])
    means["x"] = np.where(means["panel"] == "size", means["kb"], means["flows"])
    means["model_ms"] = [model_ms(s, n, kb) for s, n, kb in
                         zip(means["scheme"], means["flows"], means["kb"])]
    means["ratio"] = means["fct_ms"] / means["model_ms"]
    return means.sort_values(["panel", "scheme", "x"])


def measure_fig6(runs: Runs | None) -> pd.DataFrame:
    t = table(runs)
    out: list[dict[str, Any]] = []
    for (panel, scheme), g in t.groupby(["panel", "scheme"]):
        x = g["x"].astype(int)
        out += rows(f"fct_ms_{panel}", scheme, dict(zip(x, g["fct_ms"])))
        out += rows(f"model_ms_{panel}", scheme, dict(zip(x, g["model_ms"])))
        out += rows(f"sim_over_model_{panel}", scheme, {"": math.exp(np.log(g["ratio"]).mean())})
        out += rows(f"fct_rises_{panel}", scheme, {"": measure.rises(g.set_index("x")["fct_ms"])})
    for panel, g in t.groupby("panel"):
        w = g.pivot(index="x", columns="scheme", values="fct_ms")
        if {"rps", "tr"} <= set(w.columns):
            out += rows(f"tr_below_rps_{panel}", "tr", {"": measure.share(w["tr"] < w["rps"])})
    return pd.DataFrame(out)


STYLE = {"rps": "tab:red", "tr": "black"}


def plot_fig6(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    t = table(runs)
    fig = new_figure(12, 4.8)
    axes = fig.subplots(1, 2)
    for ax, panel, xlabel, title in [
            (axes[0], "size", "size of each flow (KB)", f"(a) {FLOWS_A} flows"),
            (axes[1], "flows", "number of flows", f"(b) flows of {SIZE_B_KB} KB")]:
        for scheme in SCHEMES:
            g = t[(t["panel"] == panel) & (t["scheme"] == scheme)]
            if g.empty:
                continue
            gm = math.exp(np.log(g["ratio"]).mean())
            ax.plot(g["x"], g["fct_ms"], marker="o", color=STYLE[scheme],
                    label=f"{NAMES[scheme]} simulation (×{gm:.2f} of the model)")
            ax.plot(g["x"], g["model_ms"], ls="--", marker="x", color=STYLE[scheme],
                    label=f"{NAMES[scheme]} model, eq. ({7 if scheme == 'rps' else 8})")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("flow completion time (ms)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.4)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    seeds = per_run(runs)["seed"].nunique()
    fig.suptitle(f"TR Fig. 6: model vs simulation, RTT ratio {RATIO}, DCTCP, {seeds} seeds; "
                 "paper: simulation \"basically close\" to the model, TR always below RPS",
                 fontsize=9)
    save(fig, path)


FIG6 = Figure(
    id="fig6",
    title="Model verification: RPS's and TR's FCT, model (eqs. 7–8) against simulation",
    shows="Fig. 6: N flows of S KB start together on the §2 leaf-spine (bad/good RTT 2.5); "
          "mean FCT under RPS and TR against the model's eqs. (7) and (8): (a) 20 flows of "
          "100–350 KB, (b) 10–50 flows of 300 KB. The paper: simulation close to the model, "
          "TR always below RPS, FCT rising with size and with the number of flows.",
    sweep=SIZE_SWEEP,
    more_sweeps=(FLOWS_SWEEP,),
    measure=measure_fig6,
    plot=plot_fig6,
)
