"""Figure 8 (packet level): PDQ against D3, RCP and TCP on fat-tree, BCube and Jellyfish as
the network grows, at the sizes a packet-level run on a small machine reaches (the paper goes
to 4096 servers with its flow-level simulator, a later issue here).

- (a) the number of deadline flows supported at 99 % application throughput (the paper draws
  it for the fat-tree; we also run BCube and Jellyfish);
- (b–d) mean FCT of deadline-unconstrained flows on each topology;
- (e) the distribution over flows of RCP's FCT / PDQ's FCT (same flows, same seed).

Each network size has two sweeps (flow lists are sized to its hosts): ``<net>-fct``, every host
sends 10 flows to its partner in a random derangement, all at once, 2 seeds; ``<net>-dl``, N
deadline flows from min(N, hosts) senders, N = 0.5, 1, 1.5, 2, 3, 4, 6 per host, 1 seed.
The choices are in the package doc.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...plots import new_figure, save
from ..figure import Figure, Runs, SweepDef, rows
from . import common


@dataclass(frozen=True)
class Net:
    family: str       # fattree | bcube | jellyfish
    topology: dict
    hosts: int
    quick: bool = False  # also in --quick

    @property
    def name(self) -> str:
        return f"{self.family}-{self.hosts}"


NETS = (
    Net("fattree", {"kind": "fattree", "k": 4}, 16, quick=True),
    Net("fattree", {"kind": "fattree", "k": 6}, 54),
    Net("fattree", {"kind": "fattree", "k": 8}, 128),
    Net("bcube", {"kind": "bcube", "n": 2, "k": 3}, 16, quick=True),
    Net("bcube", {"kind": "bcube", "n": 4, "k": 2}, 64),
    Net("jellyfish", {"kind": "jellyfish", "switches": 8, "ports_per_switch": 6,
                      "hosts_per_switch": 2}, 16, quick=True),
    Net("jellyfish", {"kind": "jellyfish", "switches": 16, "ports_per_switch": 8,
                      "hosts_per_switch": 4}, 64),
    Net("jellyfish", {"kind": "jellyfish", "switches": 32, "ports_per_switch": 8,
                      "hosts_per_switch": 4}, 128),
)
FAMILIES = ("fattree", "bcube", "jellyfish")
TRANSPORTS = ["pdq", "pdq-literal", "d3", "rcp", "rcp-ps", "tcp"]
QUICK_TRANSPORTS = ["pdq", "d3", "rcp-ps"]
FLOWS_PER_SENDER = 10
SEEDS, QUICK_SEEDS = [1, 2], [1]
#: one seed per deadline run: the search already runs every count of the grid
DL_SEEDS = [1]
#: deadline flows per host tried by the search
DL_PER_HOST = [0.5, 1, 1.5, 2, 3, 4, 6]
QUICK_DL_PER_HOST = [0.5, 2, 4]


def _fct_lists(net: Net, seeds) -> dict:
    return {fl.path: fl for fl in (common.flow_list(net.hosts, net.hosts,
                                                    net.hosts * FLOWS_PER_SENDER, s, False)
                                   for s in seeds)}


def _dl_lists(net: Net, per_host, seeds) -> dict:
    lists = {}
    for m in per_host:
        n = max(1, round(m * net.hosts))
        for s in seeds:
            fl = common.flow_list(net.hosts, min(n, net.hosts), n, s, True)
            lists[fl.path] = fl
    return lists


@dataclass(frozen=True)
class Level:
    """One level of Fig. 8's runs: its engine, networks and transports (labels). The packet
    level (:data:`PACKET`) is this module's; the flow level is :mod:`.scale_flow`'s."""

    engine: str
    nets: tuple[Net, ...]
    transports: tuple[str, ...]
    quick_transports: tuple[str, ...]
    #: the transports of the deadline search
    dl_transports: tuple[str, ...]
    #: the RCP labels the per-flow ratio (panel e) is drawn and claimed for
    rcps: tuple[str, ...]
    #: deadline flows per host tried by the search
    dl_per_host: tuple[float, ...] = tuple(DL_PER_HOST)

    def sweep(self, net: Net, kind: str) -> SweepDef:
        """The FCT sweep (``kind = "fct"``) or the deadline sweep of a network."""
        if kind == "fct":
            full, quick = _fct_lists(net, SEEDS), _fct_lists(net, QUICK_SEEDS)
            transports = self.transports
        else:
            full = _dl_lists(net, self.dl_per_host, DL_SEEDS)
            quick = _dl_lists(net, QUICK_DL_PER_HOST, QUICK_SEEDS)
            transports = self.dl_transports
        quick_transports = [t for t in self.quick_transports if t in transports]
        level = "" if self.engine == "packet" else f"{self.engine}-"
        base = {"name": f"pdq-fig8-{level}{net.name}", "seed": 1,
                "topology": {**net.topology, **common.LINK},
                "workload": {"kind": "flows", "file": "set-by-the-grid"}}
        if self.engine != "packet":
            base["engine"] = self.engine
        return SweepDef(
            base=base,
            grid={"workload.file": list(full),
                  "transport": [common.TRANSPORTS[t] for t in transports]},
            quick_grid={"workload.file": list(quick),
                        "transport": [common.TRANSPORTS[t] for t in quick_transports]},
            inputs=common.writer(full, quick),
            part=f"{net.name}-{kind}",
            full_only=not net.quick,
        )

    def sweeps(self) -> tuple[SweepDef, ...]:
        return tuple(self.sweep(n, kind) for n in self.nets for kind in ("fct", "dl"))

    def lists(self) -> dict:
        out = {}
        for n in self.nets:
            out.update(_fct_lists(n, SEEDS + QUICK_SEEDS))
            out.update(_dl_lists(n, [*self.dl_per_host, *QUICK_DL_PER_HOST], SEEDS))
        return out

    def net_of_part(self, part: str) -> Net:
        """A part's network (``<net>-fct``, ``<net>-dl``, or the bare ``<net>``)."""
        return {f"{n.name}{suffix}": n for n in self.nets
                for suffix in ("", "-fct", "-dl")}[part]


#: RCP's published law is left out of the packet-level deadline search: it misses deadlines
#: at every count we tried and is the slowest to simulate. PDQ's literal accounting is drawn
#: for the FCTs only.
PACKET = Level("packet", NETS, tuple(TRANSPORTS), tuple(QUICK_TRANSPORTS),
               dl_transports=tuple(t for t in TRANSPORTS if t not in ("rcp", "pdq-literal")),
               rcps=("rcp", "rcp-ps"))


def _ratios(runs: Runs, pts: pd.DataFrame, rcp: str) -> pd.Series:
    """Per flow, RCP's FCT / PDQ's FCT (flows that finished under both), every seed pooled."""
    both = common.paired_fcts(runs, pts, "pdq", rcp, ["part", "workload.file"])
    both = both[["fct_s", "fct_s_other"]].dropna()
    return both["fct_s_other"] / both["fct_s"]


def _points(runs: Runs, level: Level) -> pd.DataFrame:
    """The finished points with their network's ``net``, ``family`` and ``hosts``."""
    pts = common.points(runs, level.lists())
    nets = [level.net_of_part(p) for p in pts["part"]]
    pts["net"] = [n.name for n in nets]
    pts["family"] = [n.family for n in nets]
    pts["hosts"] = [n.hosts for n in nets]
    return pts


def _largest(pts: pd.DataFrame, family: str, labels: tuple[str, ...]) -> pd.DataFrame:
    """The rows of ``labels`` on the largest network of ``family`` where every one of them
    has a row (a long run may leave one protocol unfinished on the largest network)."""
    if pts.empty:  # e.g. no deadline sweep has finished yet
        return pts
    fam = pts[(pts["family"] == family) & pts["label"].isin(labels)]
    present = fam.groupby("hosts")["label"].nunique()
    sizes = present[present == len(labels)].index
    return fam[fam["hosts"] == sizes.max()] if len(sizes) else fam.iloc[:0]


def measure_fig8(runs: Runs | None, level: Level = PACKET) -> pd.DataFrame:
    pts = _points(runs, level)
    fct_pts = pts[~pts["deadlines"]].assign(fct_ms=lambda d: d["fct_s.mean"] * 1e3)
    dl_pts = pts[pts["deadlines"]].assign(
        throughput=lambda d: d["deadlines.application_throughput"])
    fct = common.seed_mean(fct_pts, ["family", "hosts", "net", "label"], "fct_ms")
    flows = common.supported_flows(dl_pts, ["family", "hosts", "net", "label"])
    out = []
    for r in fct.itertuples():
        out += rows("fct_mean_ms", r.label, {r.net: r.fct_ms})
    for r in flows.itertuples():
        out += rows("deadline_flows", r.label, {r.net: r.supported})
    # the paper's relative claims, at the largest network of each family where both ran
    for family in FAMILIES:
        for base in sorted(set(fct["label"]) - {"pdq"}):
            at = _largest(fct, family, ("pdq", base))
            if len(at):
                big = at.set_index("label")["fct_ms"]
                out += _read_at(level, family, at, rows(
                    "fct_reduction", base, {family: 1 - big["pdq"] / big[base]}))
        at = _largest(flows, family, ("pdq", "d3"))
        if len(at):
            big = at.set_index("label")["supported"]
            out += _read_at(level, family, at, rows(
                "deadline_flows_ratio", "d3",
                {family: big["pdq"] / big["d3"] if big["d3"] > 0 else float("inf")}))
        for rcp in level.rcps:
            at = _largest(fct_pts, family, ("pdq", rcp))
            ratio = _ratios(runs, at, rcp)
            if len(ratio):
                out += _read_at(level, family, at, [
                    *rows("frac_faster_than_rcp", rcp, {family: (ratio > 1).mean()}),
                    *rows("worst_inflation_vs_rcp", rcp, {family: 1 / ratio.min()})])
    return pd.DataFrame(out)


def _read_at(level: Level, family: str, at: pd.DataFrame, out: list[dict]) -> list[dict]:
    """``out`` with a note naming the network its numbers were read at (the rows of ``at``)
    when that is not the family's largest: a run cut short, or still running."""
    hosts = int(at["hosts"].iloc[0])
    largest = max(n.hosts for n in level.nets if n.family == family)
    if hosts == largest:
        return out
    note = (f"Ours read at {family}-{hosts}, the largest network where both protocols ran "
            f"(the full figure goes to {family}-{largest}).")
    return [{**r, "note": note} for r in out]


COLOURS = {"pdq": "tab:blue", "pdq-literal": "tab:cyan", "d3": "tab:green", "rcp": "tab:orange", "rcp-ps": "tab:brown",
           "tcp": "tab:red"}
NAMES = {"pdq": "PDQ", "pdq-literal": "PDQ (literal accounting)", "d3": "D3", "rcp": "RCP (published law)", "rcp-ps": "RCP (PS variant)",
         "tcp": "TCP"}


def _by_size(ax, ours: pd.DataFrame, metric: str, family: str, ls: str = "-",
             prefix: str = "", marker: str = "o") -> None:
    """One line per protocol: ``metric`` against the size of ``family``'s networks."""
    o = ours[(ours["metric"] == metric) & ours["x"].astype(str).str.startswith(family + "-")]
    for lab, g in o.groupby("protocol"):
        hosts = g["x"].str.rsplit("-", n=1).str[1].astype(int)
        order = np.argsort(hosts.to_numpy())
        ax.plot(hosts.to_numpy()[order], g["value"].to_numpy()[order], marker=marker, ls=ls,
                fillstyle="full" if marker == "o" else "none", color=COLOURS.get(lab),
                label=prefix + NAMES.get(lab, lab))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("network size (servers)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.4)


def _claim_text(ours: pd.DataFrame, paper: pd.DataFrame, metric: str, family: str) -> str:
    lines = []
    for c in paper[(paper["metric"] == metric) & (paper["x"] == family)].itertuples():
        o = ours[(ours["metric"] == metric) & (ours["x"] == family)
                 & (ours["protocol"] == c.protocol)]
        if len(o):
            lines.append(f"vs {c.protocol}: ours {o['value'].iloc[0]:.2f}, paper {c.value:.2f}")
    return "\n".join(lines)


def plot_fig8(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path,
              level: Level = PACKET, packet: pd.DataFrame | None = None) -> None:
    """Fig. 8's panels from ``ours``; ``packet``: the packet level's numbers drawn beside
    them, dotted with open squares (as the paper draws "Pkt Level" beside "Flow Level")."""
    fig = new_figure(15, 8.5)
    axes = fig.subplots(2, 3).ravel()
    if packet is not None:
        _by_size(axes[0], packet, "deadline_flows", "fattree", ls=":", prefix="pkt ",
                 marker="s")
        for ax, family in zip(axes[1:4], FAMILIES):
            _by_size(ax, packet, "fct_mean_ms", family, ls=":", prefix="pkt ", marker="s")
    _by_size(axes[0], ours, "deadline_flows", "fattree")
    axes[0].set_ylabel("flows at 99 % application throughput")
    axes[0].set_title("(a) fat-tree, deadline-constrained\n"
                      + _claim_text(ours, paper, "deadline_flows_ratio", "fattree")
                      .replace("vs d3", "PDQ/D3"), fontsize=9)
    for ax, family, tag in zip(axes[1:4], FAMILIES, "bcd"):
        _by_size(ax, ours, "fct_mean_ms", family)
        ax.set_ylabel("mean FCT (ms)")
        ax.set_title(f"({tag}) {family}, deadline-unconstrained: PDQ's FCT reduction\n"
                     + _claim_text(ours, paper, "fct_reduction", family), fontsize=8)
    axes[0].legend(fontsize=7)
    axes[1].legend(fontsize=7)
    ax = axes[4]
    if runs is not None:
        pts = _points(runs, level)
        pts = pts[~pts["deadlines"]]
        for family, ls in zip(FAMILIES, ["-", "--", ":"]):
            fam = _largest(pts, family, ("pdq", level.rcps[-1]))
            if fam.empty:
                continue
            big = fam["hosts"].iloc[0]
            ratio = np.sort(_ratios(runs, fam, level.rcps[-1]).to_numpy())
            if len(ratio):
                ax.plot(ratio, np.arange(1, len(ratio) + 1) / len(ratio), ls=ls,
                        label=f"{family} ({big} servers)")
    ax.axvline(1, color="grey", lw=0.8)
    if len(paper[paper["metric"] == "frac_faster_than_rcp"]):
        # 85–95 % of flows faster under PDQ: the CDF crosses ratio 1 between 0.05 and 0.15
        ax.errorbar(1, 0.10, yerr=0.05, marker="D", color="black", capsize=4, ls="none",
                    label="paper: 85–95 % of flows faster under PDQ")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"{NAMES[level.rcps[-1]]} FCT / PDQ FCT, per flow")
    ax.set_ylabel("cumulative fraction of flows")
    ax.set_title("(e) per-flow FCT ratio, largest network of each topology", fontsize=9)
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7)
    ax = axes[5]
    for family, ls in zip(("bcube", "jellyfish"), ["--", ":"]):
        _by_size(ax, ours, "deadline_flows", family, ls=ls, prefix=f"{family} ")
    ax.set_ylabel("flows at 99 % application throughput")
    ax.set_title("BCube and Jellyfish, deadline-constrained (not in the paper)", fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    fig.suptitle(f"PDQ vs {', '.join(NAMES[t] for t in level.transports if t != 'pdq')} "
                 f"across topologies and sizes ({level.engine} level, 1 Gb/s)")
    save(fig, path)


FIG8 = Figure(
    id="fig8",
    title="PDQ vs D3, RCP and TCP on fat-tree, BCube and Jellyfish (packet level)",
    shows="Fig. 8 at packet-level sizes (16–128 servers): deadline flows supported at 99 % "
          "application throughput, mean FCT of deadline-unconstrained flows, and the per-flow "
          "ratio RCP FCT / PDQ FCT (the paper: ~30 % lower mean FCT than TCP, RCP and D3; 3× "
          "the deadline flows of D3; 85–95 % of flows faster than under RCP, the worst 2.57× "
          "slower).",
    sweep=PACKET.sweeps()[0],
    more_sweeps=PACKET.sweeps()[1:],
    measure=measure_fig8,
    plot=plot_fig8,
)
