"""What MERP's figures share: the links, the flow sizes, the loads read as the load of the
most loaded link, the transports by label, and the measures built on the sweeps' summaries.
The reasons for each choice are in the package doc (:mod:`dcnsim.experiments.merp`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import measure
from ..figure import Runs

#: §6: 1 Gb/s links, "10ms" per hop (10 µs: SPEC.md), 1500-byte packets with 40 header bytes.
LINK = {"link_gbps": 1, "link_delay_us": 10}
MSS, PACKET = 1460, 1500
#: Pareto shape: the paper gives none; ns-2's default (``RandomVariable/Pareto set shape_
#: 1.5``), the simulator the paper used.
PARETO_SHAPE = 1.5
#: Largest flow as a multiple of the mean (the paper gives no bound; an unbounded shape-1.5
#: Pareto has infinite variance and one giant flow would decide a run's tail).
PARETO_CAP = 100

#: Transports by label (MERP's parameters at their defaults: α = 0.999, Q = 0.8 C, the
#: work-conserving hand-over; ``merp-paper`` keeps Algorithm 3's letter, drawn dashed).
TRANSPORTS: dict[str, dict[str, Any]] = {
    "merp": {"protocol": "merp"},
    "merp-paper": {"protocol": "merp", "merp_handover": "paper"},
    "pfabric": {"protocol": "pfabric"},
    "tcp": {"protocol": "tcp"},
}
NAMES = {"merp": "MERP", "merp-paper": "MERP, Algorithm 3's hand-over",
         "pfabric": "pFabric", "tcp": "TCP NewReno (drop-tail)",
         "ecmp": "ECMP + MERP rate control", "conga": "CONGA + TCP NewReno"}
STYLE = {"merp": ("tab:red", "o"), "merp-paper": ("tab:red", "x"), "pfabric": ("tab:blue", "s"),
         "tcp": ("tab:green", "^"), "ecmp": ("tab:blue", "s"), "conga": ("tab:green", "^")}
#: Curves drawn other than solid.
LINESTYLE = {"merp-paper": "--"}


def pareto(mean_wire_kb: float) -> dict[str, Any]:
    """Pareto sizes whose mean is ``mean_wire_kb`` *on the wire*: the paper's sizes include
    the 40-byte headers, the core's are payload, so the payload mean is 1460/1500 of it."""
    payload = mean_wire_kb * MSS / PACKET
    return {"dist": "pareto", "mean_kb": round(payload, 6), "shape": PARETO_SHAPE,
            "max_kb": round(PARETO_CAP * payload, 6)}


def tree_factor(tors: int = 3, hosts_per_tor: int = 3) -> float:
    """Load on a ToR–root link per unit of load on a host link, random pairs: a ToR's hosts
    send ``hosts_per_tor`` host links' worth, of which (n − h)/(n − 1) leaves the rack."""
    n = tors * hosts_per_tor
    return hosts_per_tor * (n - hosts_per_tor) / (n - 1)


def wire_bytes(payload: int) -> int:
    """Bytes a flow of ``payload`` bytes puts on a link: full segments of 1500 B, the last
    one shorter, 40 header bytes each."""
    segments = -(-payload // MSS)
    return payload + segments * (PACKET - MSS)


def label(transport: Mapping[str, Any]) -> str:
    """The label of a transport table: a key of :data:`TRANSPORTS`, ``merp-alpha-0.99`` or
    ``merp-q-0.01``."""
    t = dict(transport)
    if t.get("protocol") == "merp" and len(t) == 2:
        if "merp_alpha" in t:
            return f"merp-alpha-{t['merp_alpha']:g}"
        if "merp_q" in t:
            return f"merp-q-{t['merp_q']:g}"
    return measure.label(t, TRANSPORTS)


#: The summary columns every figure reads, by the short name the measures use.
STATS = {"er_mean": "slowdown.mean", "er_max": "slowdown.max", "fct_p999_ms": "fct_s.p999",
         "fct_mean_ms": "fct_s.mean", "drops": "packets.dropped",
         "unfinished": "flows.unfinished"}


def per_run(runs: Runs, factor: float = 1.0, by: str = "transport") -> pd.DataFrame:
    """One row per finished point: ``label`` (of the transport, or the sweep's part when
    ``by = "part"``), ``x`` (``workload.load`` × ``factor``: the load of the most loaded
    link), ``seed`` and the :data:`STATS`, FCTs in ms."""
    ok = runs.ok()
    frame = pd.DataFrame({
        "label": [label(t) for t in ok["transport"]] if by == "transport" else ok[by],
        "x": (ok["workload.load"] * factor).round(6),
        "seed": ok["seed"],
        **{k: ok[v].astype(float) for k, v in STATS.items()},
    })
    if "part" in ok.columns and by != "part":
        frame.insert(0, "part", ok["part"])
    for ms in ("fct_p999_ms", "fct_mean_ms"):
        frame[ms] *= 1e3
    return frame.reset_index(drop=True)


def seed_means(frame: pd.DataFrame, keys: Sequence[str] = ("label", "x")) -> pd.DataFrame:
    """:func:`per_run` averaged over seeds (the ``part`` column, if any, is dropped: group by
    it first)."""
    return measure.seed_means(frame, keys, drop=("seed", "part"))


def wide(means: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``metric`` with one column per label and one row per x."""
    return measure.wide(means, metric, x="x", by="label")


def reduction(ours: pd.Series, other: pd.Series) -> pd.Series:
    """How much lower ``ours`` is than ``other``: 1 − ours/other (negative when higher)."""
    return 1 - ours / other


def versus(cut: float) -> str:
    """A reduction 1 − ours/other as text: "−48 %" below, "+12 %" above, "×8.0" when more than
    twice as high."""
    ratio = 1 - cut
    if not np.isfinite(ratio):
        return "n/a"
    return f"×{ratio:.1f}" if ratio >= 2 else f"{ratio - 1:+.0%}".replace("-", "−")


def pooled_flows(runs: Runs, points: Sequence[str]) -> pd.DataFrame:
    """The flows.csv of ``points``, concatenated (seeds pooled)."""
    frames = [runs.results(p).flows for p in points]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def log_y(ax) -> None:
    """A log y axis labelled in plain numbers (2, 5, 10, 20 rather than 2×10⁰)."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_locator(LogLocator(subs=(2, 5)))
    ax.yaxis.set_minor_formatter(plain)


def smooth(values: pd.Series, samples: int) -> pd.Series:
    """Rolling mean over ``samples`` series samples (a window of whole packets keeps the
    per-interval packet count from aliasing)."""
    return values.rolling(samples, min_periods=1).mean()

