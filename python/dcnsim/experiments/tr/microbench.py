"""Figures 7 and 8 (TR §4.1, "Micro-Benchmark"): the §2 set-up again, with TR beside ECMP,
LetFlow, RPS, DRB and Presto.

- ``fig7``: short flows (< 100 KB): (a) average queueing delay, (b) retransmission ratio,
  (c) average FCT, (d) tail (99th percentile) FCT.
- ``fig8``: long flows (≥ 100 KB): (a) standard deviation of per-path throughput,
  (b) retransmission ratio, (c) total throughput.

The runs are those of Figs. 2–3 (:mod:`.motivation`: one sweep, shared, with the six schemes)
and so are the measures (:func:`.motivation.run_metrics`); the tail FCT is each run's 99th
percentile of its finished short flows (about 97 of them, so nearly their maximum), averaged
over seeds like every other number. The paper's statements are orderings over the five RTT
ratios, measured as the share of ratios (or of the steps between them) at which each holds;
"always 0" is the largest value over the ratios.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ...plots import new_figure, save
from .. import measure
from ..figure import Figure, Runs, rows
from . import motivation as mot

SCHEMES = tuple(mot.SCHEMES)  # ecmp, letflow, rps, drb, presto, tr
FINE = ("rps", "drb", "tr")
COARSE = ("ecmp", "letflow", "presto")


def _others(scheme: str | tuple[str, ...]) -> tuple[str, ...]:
    out = (scheme,) if isinstance(scheme, str) else scheme
    return tuple(s for s in SCHEMES if s not in out)


def _means(runs: Runs) -> pd.DataFrame:
    return mot.seed_means(mot.per_run(runs, SCHEMES))


def _max(series: pd.Series) -> float:
    return float(series.max()) if len(series) else float("nan")


def _all_below(w: pd.DataFrame, low: tuple[str, ...], high: tuple[str, ...]) -> float:
    """Share of ratios where every scheme of ``low`` is below every scheme of ``high``."""
    return measure.share(w[list(low)].max(axis=1) < w[list(high)].min(axis=1))


FIG7_METRICS = ["short_qdelay_us", "short_retx_ratio", "short_afct_ms", "short_p99_ms"]
FIG8_METRICS = ["path_tput_sd_mbps", "long_retx_ratio", "long_tput_gbps"]


def measure_fig7(runs: Runs | None) -> pd.DataFrame:
    means = _means(runs)
    out = mot._curves(means, FIG7_METRICS)
    qd, retx, afct, p99 = (mot.wide(means, m) for m in FIG7_METRICS)
    if mot.has(qd, *SCHEMES):
        out += rows("short_qdelay_fine_lower", "tr", {"": _all_below(qd, FINE, COARSE)})
        out += rows("short_retx_rps_drb_highest", "rps",
                    {"": _all_below(retx, _others(("rps", "drb")), ("rps", "drb"))})
        for s in ("rps", "drb"):
            out += rows("short_retx_rises", s, {"": measure.rises(retx[s])})
        out += rows("short_retx_max", "tr", {"": _max(retx["tr"])})
        out += rows("short_afct_rps_highest", "rps",
                    {"": mot.highest(afct, "rps", _others("rps"))})
        out += rows("short_afct_tr_lowest", "tr", {"": mot.lowest(afct, "tr", _others("tr"))})
        out += rows("short_p99_tr_lowest", "tr", {"": mot.lowest(p99, "tr", _others("tr"))})
    return pd.DataFrame(out)


def measure_fig8(runs: Runs | None) -> pd.DataFrame:
    means = _means(runs)
    out = mot._curves(means, FIG8_METRICS)
    sd, retx, tput = (mot.wide(means, m) for m in FIG8_METRICS)
    if mot.has(sd, *SCHEMES):
        out += rows("path_sd_rps_drb_lowest", "rps",
                    {"": _all_below(sd, ("rps", "drb"), _others(("rps", "drb")))})
        for s in ("rps", "drb"):
            out += rows("long_tput_falls", s, {"": measure.falls(tput[s])})
        for s in ("ecmp", "letflow", "presto", "tr"):
            out += rows("long_retx_max", s, {"": _max(retx[s])})
        out += rows("long_tput_tr_above_presto", "tr",
                    {"": measure.share(tput["tr"] > tput["presto"])})
        out += rows("long_tput_tr_highest", "tr", {"": mot.highest(tput, "tr", _others("tr"))})
        ends = tput["tr"].sort_index()
        out += rows("long_tput_tr_last_over_first", "tr",
                    {"": float(ends.iloc[-1] / ends.iloc[0])})
    return pd.DataFrame(out)


def _verdicts(ours: pd.DataFrame, paper: pd.DataFrame) -> str:
    o = ours.set_index(["metric", "protocol"])["value"]
    parts = []
    for c in paper.itertuples():
        if c.x == "" and (c.metric, c.protocol) in o.index:
            parts.append(f"{c.metric}[{c.protocol}] {o[(c.metric, c.protocol)]:.3g} "
                         f"(paper {c.value:g})")
    return "; ".join(parts)


def _title(fig, text: str, ours: pd.DataFrame, paper: pd.DataFrame, seeds: int) -> None:
    line = _verdicts(ours, paper)
    # two lines of verdicts at most per row of text
    half = len(line) // 2
    cut = line.find("; ", half)
    if cut > 0:
        line = line[:cut] + "\n" + line[cut + 2:]
    fig.suptitle(f"{text}, {seeds} seeds\n{line}", fontsize=8)


def plot_fig7(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    frame = mot.per_run(runs, SCHEMES)
    fig = new_figure(18, 5.2)
    axes = fig.subplots(1, 4)
    kw: dict[str, Any] = {"in_paper": SCHEMES}
    mot._panel(axes[0], frame, "short_qdelay_us", 1, "average queueing delay (µs)",
               "(a) average queueing delay", "RPS, DRB, TR much lower", **kw)
    mot._panel(axes[1], frame, "short_retx_ratio", 100, "retransmitted packets (%)",
               "(b) retransmission ratio", "RPS, DRB rising; TR always 0", **kw)
    mot._panel(axes[2], frame, "short_afct_ms", 1, "AFCT (ms)",
               "(c) average FCT", "TR shortest; RPS much worse", **kw)
    mot._panel(axes[3], frame, "short_p99_ms", 1, "99th percentile FCT (ms)",
               "(d) tail FCT", "TR shortest", **kw)
    axes[0].legend(fontsize=8)
    _title(fig, "TR Fig. 7: short flows (< 100 KB) on the §2 leaf-spine", ours, paper,
           frame["seed"].nunique())
    save(fig, path)


def plot_fig8(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    frame = mot.per_run(runs, SCHEMES)
    fig = new_figure(15, 5.2)
    axes = fig.subplots(1, 3)
    kw: dict[str, Any] = {"in_paper": SCHEMES}
    mot._panel(axes[0], frame, "path_tput_sd_mbps", 1, "s.d. of per-path throughput (Mb/s)",
               "(a) s.d. of path throughput (log scale)", "RPS, DRB most balanced", log=True,
               **kw)
    mot._panel(axes[1], frame, "long_retx_ratio", 100, "retransmitted packets (%)",
               "(b) retransmission ratio", "RPS, DRB high; ECMP, LetFlow none", **kw)
    mot._panel(axes[2], frame, "long_tput_gbps", 1, "total throughput of long flows (Gb/s)",
               "(c) total throughput", "TR highest, flat; RPS, DRB fall", **kw)
    axes[0].legend(fontsize=8)
    _title(fig, "TR Fig. 8: long flows (≥ 100 KB) on the §2 leaf-spine", ours, paper,
           frame["seed"].nunique())
    save(fig, path)


FIG7 = Figure(
    id="fig7",
    title="Micro-benchmark, short flows: queueing delay, reordering, mean and tail FCT",
    shows="Fig. 7: the §2 leaf-spine (5 bad paths with 1.5–3.5× the good RTT, 100 DCTCP flows "
          "of Data Mining sizes) under ECMP, LetFlow, RPS, DRB, Presto and TR; short flows' "
          "queueing delay, retransmission ratio, AFCT and 99th-percentile FCT. The paper: RPS, "
          "DRB and TR queue least; RPS and DRB retransmit more and more, TR never; TR has the "
          "shortest mean and tail FCT.",
    sweep=mot.SWEEP,
    measure=measure_fig7,
    plot=plot_fig7,
)

FIG8 = Figure(
    id="fig8",
    title="Micro-benchmark, long flows: path balance, reordering, total throughput",
    shows="Fig. 8: the set-up of Fig. 7; long flows' per-path throughput spread, "
          "retransmission ratio and total throughput. The paper: RPS and DRB balance best but "
          "retransmit and lose throughput as asymmetry grows; ECMP and LetFlow never reorder; "
          "TR has the highest throughput, unaffected by the asymmetry.",
    sweep=mot.SWEEP,
    measure=measure_fig8,
    plot=plot_fig8,
)
