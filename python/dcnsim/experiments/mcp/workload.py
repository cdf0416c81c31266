"""The flows of MCP's evaluation (§5), written as flow lists before the sweep: sizes, types,
deadlines and Poisson arrivals at a load. The reasons for each choice are in the package doc
(:mod:`dcnsim.experiments.mcp`); the numbers are here.

- **Sizes**: Exp(mean 1 MB) capped at 100 MB; a draw is kept when it falls in one of the
  paper's three types (query 2–20 KB, short 100 KB–1 MB, long 1–100 MB) and drawn again
  otherwise. KB and MB are 1000 and 10⁶ bytes (the core's units).
- **Deadlines**: each type's share of a host link's bandwidth is a third of it; a flow's
  deadline is the time its size takes at that share plus two base RTTs of the longest path:
  D = 2·RTT + 8·S / (C/3).
- **Arrivals**: one Poisson process for the whole network, every flow from a random host to
  a random other host. The load ρ is the fraction of a host link's capacity the offered
  traffic takes on the wire (data with its headers, and the ACKs coming the other way);
  ρ = 1, the maximum, fills every host link in the mean. The list is drawn once per seed;
  a load only rescales the gaps, so every load and protocol sees the very same flows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

#: k = 8 fat-tree: 128 hosts; 10 Gb/s host and edge–aggregation links, 40 Gb/s to the core.
K = 8
HOSTS = K ** 3 // 4
LINK_GBPS, AGG_GBPS, CORE_GBPS = 10.0, 10.0, 40.0
#: Per-link propagation delay (the core's default; the paper gives none).
LINK_DELAY_US = 1.0
#: TCP segment payload and header bytes (the core's defaults); ACKs are header-only.
MSS, HEADER = 1460, 40

#: The paper's three types: name → [min, max) bytes (long includes its 100 MB cap).
TYPES: dict[str, tuple[int, int]] = {
    "query": (2_000, 20_001),
    "short": (100_000, 1_000_000),
    "long": (1_000_000, 100_000_001),
}
MEAN_BYTES = 1_000_000
CAP_BYTES = 100_000_000
#: Each type's share of a host link's bandwidth (the deadline rule; package doc).
SHARE: dict[str, float] = {"query": 1 / 3, "short": 1 / 3, "long": 1 / 3}
#: RTTs added to every deadline for what a packet-level flow pays and a fluid one does not.
DEADLINE_RTTS = 2.0

#: Folder, inside the figure's folder, of the flow lists.
FOLDER = "_flows"


def flow_type(size_bytes) -> np.ndarray:
    """The type of each size (``""`` outside the three ranges)."""
    size = np.asarray(size_bytes)
    out = np.full(size.shape, "", dtype=object)
    for name, (lo, hi) in TYPES.items():
        out[(size >= lo) & (size < hi)] = name
    return out


def base_rtt_s(link_delay_us: float = LINK_DELAY_US) -> float:
    """Base RTT of the fat-tree's longest path (host, edge, agg, core, agg, edge, host): a
    full data packet out and its ACK back, serialisation and propagation at every hop, no
    queueing (as the core's ``net::scale``)."""
    rates = [LINK_GBPS, AGG_GBPS, CORE_GBPS, CORE_GBPS, AGG_GBPS, LINK_GBPS]
    data = sum((MSS + HEADER) * 8 / (r * 1e9) for r in rates)
    ack = sum(HEADER * 8 / (r * 1e9) for r in rates)
    return data + ack + 2 * len(rates) * link_delay_us * 1e-6


def deadline_s(size_bytes, types, rtt_s: float | None = None) -> np.ndarray:
    """D = 2·RTT + 8·S / (share·C) for each flow (``types`` as :func:`flow_type` gives)."""
    rtt = base_rtt_s() if rtt_s is None else rtt_s
    share = np.array([SHARE[t] for t in types])
    return DEADLINE_RTTS * rtt + np.asarray(size_bytes) * 8 / (share * LINK_GBPS * 1e9)


def wire_bytes(size_bytes) -> np.ndarray:
    """What a flow puts on the host links: its payload, a header per segment, and a
    header-only ACK per segment coming back (the receiver ACKs every packet)."""
    size = np.asarray(size_bytes, dtype=float)
    return size + 2 * HEADER * np.ceil(size / MSS)


def draw_sizes(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` sizes from Exp(1 MB) capped at 100 MB, keeping only draws in one of the types."""
    out: list[np.ndarray] = []
    have = 0
    while have < n:
        s = np.minimum(np.rint(rng.exponential(MEAN_BYTES, 2 * n)), CAP_BYTES).astype(np.int64)
        s = s[flow_type(s) != ""]
        out.append(s)
        have += len(s)
    return np.concatenate(out)[:n]


@dataclass(frozen=True)
class McpFlows:
    """``flows`` flows of the evaluation at load ``load`` from seed ``seed``."""

    flows: int
    load: float
    seed: int

    def __post_init__(self) -> None:
        if self.flows < 1 or not self.load > 0:
            raise ValueError(f"bad flow list {self}")

    @property
    def path(self) -> str:
        """The file, relative to the figure's folder (the sweep's base folder)."""
        return f"{FOLDER}/mcp_n{self.flows}_seed{self.seed}_load{self.load:g}.csv"

    def frame(self) -> pd.DataFrame:
        # One stream per quantity, none depending on the load: the load only scales the gaps.
        rng = np.random.default_rng([self.seed, self.flows])
        gaps, ends, sizes = (np.random.default_rng(s) for s in rng.spawn(3))
        size = draw_sizes(self.flows, sizes)
        src = ends.integers(0, HOSTS, self.flows)
        dst = ends.integers(0, HOSTS - 1, self.flows)
        dst = np.where(dst >= src, dst + 1, dst)
        # flows per second over the network, from this list's own mean wire size
        rate = self.load * HOSTS * LINK_GBPS * 1e9 / (8 * wire_bytes(size).mean())
        start = np.cumsum(gaps.exponential(1.0, self.flows)) / rate
        return pd.DataFrame({"src": src, "dst": dst, "size_bytes": size, "start_s": start,
                             "deadline_s": deadline_s(size, flow_type(size))})

    def write(self, folder: Path) -> None:
        """Writes the list under ``folder`` unless it is there already."""
        path = Path(folder) / self.path
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            self.frame().to_csv(path, index=False, float_format="%.12g")
