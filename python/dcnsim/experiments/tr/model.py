"""TR's model of a flow's completion time under RPS and under TR (§"Model analysis", eqs. 2–8,
Table 2).

N TCP flows of S packets each start together; n parallel paths, n_g good and n_b bad, every
packet on a good path arriving before any on a bad one. With an average window of w packets
and an end-to-end delay r (a round trip), a flow's FCT is

    F = S / (3w²/8) · (w·r/2) = 4·S·r / (3·w)                                     (2)

(each sawtooth round raises the window from w/2 to w in w/2 round trips and sends 3w²/8
packets). Without reordering the window reaches the flows' share of the n buffers of B packets,
nB/N; a fast retransmit halves it:

    w = nB/N · (1 − P_fr) + nB/(2N) · P_fr                                        (3)

where P_fr, the probability that reordering triggers a fast retransmit (threshold H), counts
the path assignments in which some packet i ≤ S − H goes on a bad path after i − 1 on good
ones and at least H of the S − i after it go on good paths:

    P_fr = Σ_{i=1}^{S−H} Σ_{k=H}^{S−i} C(S−i, k) · n_g^{i−1+k} · n_b^{S−i−k+1} / n^S  (4)

The delay (6) is the propagation delay — d_b if any of the w packets of a round takes a bad
path, else d_g — plus the queueing of N flows' windows in n buffers at t per packet:

    r = (1 − (n_g/n)^w) · d_b + (n_g/n)^w · d_g + N·w·t/n                         (6)

and (7) is (2) with (5) = (3)+(4) and (6). Under TR there is no reordering: the window averages
ŵ = 3nB/(4N), and in the worst case every packet takes a bad path, r̂ = d_b + N·ŵ·t/n:

    F_TR = S·N·(16·d_b + 12·B·t) / (9·n·B)                                         (8)

Units: S, H, B in packets; d_g, d_b (round-trip propagation delays, which is what r adds
them to) and t (one packet's transmission time) in seconds; FCTs in seconds.

P_fr is computed exactly (integers, then one division): the terms are ~n^S. Its inner sum over
k is the binomial tail Σ_{k≥H} C(m, k) g^k b^(m−k) = (g + b)^m − Σ_{k<H} C(m, k) g^k b^(m−k),
which is the same number in O(S·H) instead of O(S²) terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Params:
    """Table 2's parameters (``S``, ``N`` vary along Fig. 6's axes)."""

    n_g: int
    n_b: int
    d_g: float  # s, round-trip propagation delay of a good path
    d_b: float  # s, of a bad path
    B: int  # packets of buffer per output queue
    t: float  # s, transmission time of one packet
    H: int = 3  # TCP's fast-retransmit threshold (duplicate ACKs)

    @property
    def n(self) -> int:
        return self.n_g + self.n_b


def p_fr(S: int, H: int, n_g: int, n_b: int) -> Fraction:
    """Eq. (4), exactly: the probability that reordering triggers a fast retransmit."""
    if S <= H or n_b == 0:
        return Fraction(0)
    n = n_g + n_b
    total = 0
    for i in range(1, S - H + 1):
        m = S - i
        head = sum(math.comb(m, k) * n_g**k * n_b ** (m - k) for k in range(H))
        tail = n**m - head  # Σ_{k=H}^{m} C(m, k) n_g^k n_b^(m−k)
        total += n_g ** (i - 1) * n_b * tail
    return Fraction(total, n**S)


def p_fr_direct(S: int, H: int, n_g: int, n_b: int) -> Fraction:
    """Eq. (4) term by term as printed (for checking :func:`p_fr`; O(S²) big terms)."""
    n = n_g + n_b
    total = sum(math.comb(S - i, k) * n_g ** (i - 1 + k) * n_b ** (S - i - k + 1)
                for i in range(1, S - H + 1) for k in range(H, S - i + 1))
    return Fraction(total, n**S)


def window_rps(S: int, N: int, p: Params) -> float:
    """Eqs. (3)–(5): RPS's average window (packets)."""
    pf = float(p_fr(S, p.H, p.n_g, p.n_b))
    full = p.n * p.B / N
    return full * (1 - pf) + full / 2 * pf


def delay_rps(w: float, N: int, p: Params) -> float:
    """Eq. (6): RPS's end-to-end delay (s) with window ``w``."""
    all_good = (p.n_g / p.n) ** w
    return (1 - all_good) * p.d_b + all_good * p.d_g + N * w * p.t / p.n


def fct(S: float, w: float, r: float) -> float:
    """Eq. (2): FCT of S packets with average window w and delay r."""
    return 4 * S * r / (3 * w)


def fct_rps(S: int, N: int, p: Params) -> float:
    """Eq. (7): a flow's FCT under RPS (s)."""
    w = window_rps(S, N, p)
    return fct(S, w, delay_rps(w, N, p))


def fct_tr(S: int, N: int, p: Params) -> float:
    """Eq. (8): a flow's FCT under TR, worst case (every packet on a bad path) (s)."""
    return S * N * (16 * p.d_b + 12 * p.B * p.t) / (9 * p.n * p.B)


def fct_tr_from_eq2(S: int, N: int, p: Params) -> float:
    """Eq. (8) through eq. (2) with ŵ = 3nB/(4N) and r̂ = d_b + N·ŵ·t/n (the paper's own
    derivation; equal to :func:`fct_tr`)."""
    w = 3 * p.n * p.B / (4 * N)
    return fct(S, w, p.d_b + N * w * p.t / p.n)


def packets(size_bytes: int, mss: int = 1460) -> int:
    """A flow of ``size_bytes`` of payload in packets (S), full segments of ``mss``."""
    return -(-size_bytes // mss)
