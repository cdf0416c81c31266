"""Flow lists written by a figure before its sweep runs, for workloads the core's generators do
not offer: a chosen number of sending hosts, each sending to its partner in a random
permutation, several flows per sender, all starting together (PDQ's "load = % of sending
hosts" and its concurrent deadline flows).

A :class:`FlowList` is a value (topology size, senders, flows, seed, sizes, deadlines) with a
file name that says all of it; :meth:`FlowList.write` draws it from its own seed with numpy,
so the same value always gives the same file. Sizes are KB of 1000 bytes, as in the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

#: Folder, inside a figure's sweep folder, that holds its flow lists.
FOLDER = "_flows"


def derangement(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random permutation of 0..n-1 with no fixed point (rejection; n ≥ 2)."""
    while True:
        p = rng.permutation(n)
        if not (p == np.arange(n)).any():
            return p


@dataclass(frozen=True)
class FlowList:
    """``flows`` flows from ``senders`` random hosts (of ``hosts``) to their partners in a
    random derangement, flow i from sender i mod senders, all at time 0. Sizes uniform on
    [min_kb, max_kb]; deadlines, when ``deadline_mean_ms`` is set, min_ms + Exp(mean − min)."""

    hosts: int
    senders: int
    flows: int
    seed: int
    min_kb: float = 2
    max_kb: float = 198
    deadline_mean_ms: float | None = None
    deadline_min_ms: float = 0.0

    def __post_init__(self) -> None:
        if not 1 <= self.senders <= self.hosts or self.hosts < 2 or self.flows < 1:
            raise ValueError(f"bad flow list {self}")

    @property
    def path(self) -> str:
        """The file, relative to the figure's folder (the sweep's base folder)."""
        dl = "" if self.deadline_mean_ms is None else \
            f"_dl-{self.deadline_mean_ms:g}-{self.deadline_min_ms:g}"
        return (f"{FOLDER}/h{self.hosts}_s{self.senders}_n{self.flows}_seed{self.seed}"
                f"_kb{self.min_kb:g}-{self.max_kb:g}{dl}.csv")

    def frame(self) -> pd.DataFrame:
        rng = np.random.default_rng([self.seed, self.hosts, self.senders, self.flows])
        partner = derangement(self.hosts, rng)
        senders = rng.choice(self.hosts, self.senders, replace=False)
        src = senders[np.arange(self.flows) % self.senders]
        sizes = np.rint(rng.uniform(self.min_kb, self.max_kb, self.flows) * 1000).astype(int)
        frame = pd.DataFrame({"src": src, "dst": partner[src], "size_bytes": sizes,
                              "start_s": 0.0})
        if self.deadline_mean_ms is not None:
            extra = rng.exponential(self.deadline_mean_ms - self.deadline_min_ms, self.flows)
            frame["deadline_s"] = (self.deadline_min_ms + extra) / 1e3
        return frame

    def write(self, folder: Path) -> None:
        """Writes the list under ``folder`` (the figure's folder) unless it is there already."""
        path = Path(folder) / self.path
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            self.frame().to_csv(path, index=False, float_format="%.9g")
