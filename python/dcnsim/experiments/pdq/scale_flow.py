"""Figure 8 at flow level: PDQ against RCP/D3 on fat-tree, BCube and Jellyfish from 16 to 4096
servers, where the paper too switches from packets to its flow-level simulator.

Same flow lists, same measures and same panels as the packet-level :mod:`.scale`, run with
``engine = "flow"`` (the core's fluid model: rates recomputed at every arrival and completion).
There PDQ is preemptive priority by its comparator (earliest deadline, then smallest remaining
size), RCP is ideal max-min fair sharing (the fair sharing the paper says RCP emulates, §8:
one model for ``rcp`` and ``rcp-ps``, labelled ``rcp-ps`` as in the packet-level claims), and
D3 is what its routers hand out — each deadline flow its desired rate, first come first served,
plus an equal share of the spare to every flow, with quenching (the core's ``flowsim::d3``).
TCP has no flow-level line, as in the paper.

Networks: fat-trees k = 4, 8, 12, 16, 24 (16, 128, 432, 1024, 3456 servers: the k of a
fat-tree with 4096 servers is not an integer), BCube(4, k) for k = 1…5 (16…4096 servers),
Jellyfish with 4 servers and 4 switch-to-switch ports per 8-port switch, 16…1024 switches
(64…4096 servers), and the packet level's 16-server one (8 switches × 2 servers, 6 ports).
``--quick``: the 16-server network of each family. When ``fig8`` (packet level) has been run
into the same output folder, its curves are drawn beside these, dotted, as the paper draws
both levels on one plot.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..figure import Figure, Runs
from . import scale
from .scale import Level, Net, measure_fig8, plot_fig8


def _jellyfish(switches: int) -> dict:
    return {"kind": "jellyfish", "switches": switches, "ports_per_switch": 8,
            "hosts_per_switch": 4}


NETS = (
    Net("fattree", {"kind": "fattree", "k": 4}, 16, quick=True),
    Net("fattree", {"kind": "fattree", "k": 8}, 128),
    Net("fattree", {"kind": "fattree", "k": 12}, 432),
    Net("fattree", {"kind": "fattree", "k": 16}, 1024),
    Net("fattree", {"kind": "fattree", "k": 24}, 3456),
    *(Net("bcube", {"kind": "bcube", "n": 4, "k": k}, 4 ** (k + 1), quick=k == 1)
      for k in range(1, 6)),
    Net("jellyfish", {"kind": "jellyfish", "switches": 8, "ports_per_switch": 6,
                      "hosts_per_switch": 2}, 16, quick=True),
    *(Net("jellyfish", _jellyfish(s), 4 * s) for s in (16, 64, 256, 1024)),
)

#: The packet level's grid stops at 6 deadline flows per host, which PDQ meets on every
#: fluid network: the flow level also tries 8 and 12, so that PDQ's count
#: (and its ratio to D3's) is found rather than capped.
DL_PER_HOST = (*scale.DL_PER_HOST, 8, 12)

FLOW = Level("flow", NETS, transports=("pdq", "d3", "rcp-ps"),
             quick_transports=("pdq", "d3", "rcp-ps"), dl_transports=("pdq", "d3", "rcp-ps"),
             rcps=("rcp-ps",), dl_per_host=DL_PER_HOST)
SWEEPS = FLOW.sweeps()


def measure(runs: Runs | None) -> pd.DataFrame:
    return measure_fig8(runs, FLOW)


def packet_level(runs: Runs | None) -> pd.DataFrame | None:
    """The packet-level ``fig8``'s numbers when it was run into the same output folder, to
    draw beside the flow level's (None otherwise)."""
    from ..runner import finished_runs

    packet = None if runs is None else finished_runs(scale.FIG8, runs.dir.parent)
    return None if packet is None else measure_fig8(packet, scale.PACKET)


def plot(ours: pd.DataFrame, paper: pd.DataFrame, runs: Runs | None, path: Path) -> None:
    plot_fig8(ours, paper, runs, path, FLOW, packet=packet_level(runs))


FIG8_FLOW = Figure(
    id="fig8-flow",
    title="PDQ vs D3 and RCP on fat-tree, BCube and Jellyfish, 16–4096 servers (flow level)",
    shows="Fig. 8's flow-level curves: deadline flows supported at 99 % application "
          "throughput and mean FCT of deadline-unconstrained flows against network size up to "
          "4096 servers, and the per-flow ratio RCP FCT / PDQ FCT at the largest network (the "
          "paper: ~30 % lower mean FCT than RCP and D3; 3× the deadline flows of D3; 85–95 % "
          "of flows faster than under RCP, the worst 2.57× slower).",
    sweep=SWEEPS[0],
    more_sweeps=SWEEPS[1:],
    measure=measure,
    plot=plot,
    long=True,
)
