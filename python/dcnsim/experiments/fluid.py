"""Flow-level schedules on one link, computed exactly (rational arithmetic).

For worked examples such as MERP's Table 1: flows arrive at given times with given sizes on a
link of capacity 1 (size units per time unit), and a policy shares the link among the flows
present. :func:`schedule` returns every interval with the rate of each flow and every flow's
finish time, as fractions, so a paper's ``16/3`` can be checked exactly.

Policies:
- ``ps``: processor sharing, the capacity split equally among the flows present;
- ``srpt``: shortest remaining processing time first, preemptive; ties go to the earlier
  arrival, then the name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

Number = Union[int, Fraction]


@dataclass(frozen=True)
class Flow:
    name: str
    arrival: Fraction
    size: Fraction


@dataclass(frozen=True)
class Schedule:
    """``segments``: ``(start, end, {flow: rate})`` with rates summing to at most 1;
    ``finish``: each flow's finish time."""

    flows: tuple[Flow, ...]
    segments: tuple[tuple[Fraction, Fraction, dict[str, Fraction]], ...]
    finish: dict[str, Fraction]

    def fct(self, name: str) -> Fraction:
        f = next(f for f in self.flows if f.name == name)
        return self.finish[name] - f.arrival

    def expansion_ratio(self, name: str) -> Fraction:
        """FCT over the FCT alone on the link (size / capacity), MERP's Eq. (1)."""
        f = next(f for f in self.flows if f.name == name)
        return self.fct(name) / f.size

    def mean_fct(self) -> Fraction:
        return sum((self.fct(f.name) for f in self.flows), Fraction(0)) / len(self.flows)

    def max_expansion_ratio(self) -> Fraction:
        """MERP's Eq. (3): the expansion ratio of a set of flows is its largest."""
        return max(self.expansion_ratio(f.name) for f in self.flows)


def _rates(policy: str, active: list[Flow], remaining: dict[str, Fraction]) -> dict[str, Fraction]:
    if policy == "ps":
        return {f.name: Fraction(1, len(active)) for f in active}
    if policy == "srpt":
        first = min(active, key=lambda f: (remaining[f.name], f.arrival, f.name))
        return {f.name: Fraction(int(f is first)) for f in active}
    raise ValueError(f"policy must be 'ps' or 'srpt', not {policy!r}")


def schedule(flows: Sequence[tuple[str, Number, Number]], policy: str) -> Schedule:
    """The schedule of ``flows`` (``(name, arrival, size)``) on a unit-capacity link."""
    fl = tuple(Flow(n, Fraction(a), Fraction(s)) for n, a, s in flows)
    remaining = {f.name: f.size for f in fl}
    finish: dict[str, Fraction] = {}
    segments = []
    t = Fraction(0)
    while len(finish) < len(fl):
        active = [f for f in fl if f.arrival <= t and f.name not in finish]
        arrivals = [f.arrival for f in fl if f.arrival > t]
        if not active:
            t = min(arrivals)
            continue
        rates = _rates(policy, active, remaining)
        ends = [remaining[n] / r for n, r in rates.items() if r > 0]
        step = min(ends + [a - t for a in arrivals])
        for n, r in rates.items():
            remaining[n] -= r * step
            if remaining[n] == 0:
                finish[n] = t + step
        segments.append((t, t + step, rates))
        t += step
    return Schedule(fl, tuple(segments), finish)
