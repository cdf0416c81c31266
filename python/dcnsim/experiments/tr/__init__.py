"""TR: T. Zhang, Y. Lei, Q. Zhang, S. Zou, J. Huang, F. Li, "Fine-grained Load Balancing with
Traffic-aware Rerouting in DataCenter Networks", J. Cloud Computing 2021 (seed 002).

Figures that run (:mod:`.motivation`): ``fig2`` and ``fig3``, the motivation study of §2 —
ECMP, LetFlow and RPS on a leaf-spine with asymmetric paths, short flows' queueing delay,
reordering and FCT (Fig. 2) and long flows' path balance, reordering and throughput (Fig. 3).
Figs. 6–12 need TR itself (``routing.lb = "tr"``), which the core does not have yet.

What the paper did, what we run, and why
----------------------------------------

* **Topology** (§2, Fig. 1): two leaves, ten spines, ten hosts per leaf, 1 Gb/s links of
  25 µs, 250-packet buffers — a good path's round trip is 200 µs. As given.
* **Bad paths.** "We randomly choose 5 parallel paths as the bad paths ... For the bad paths,
  we gradually increase the propagation delay of their links ... the ratio of bad path's RTT
  to good path's RTT varies from 1.5 to 3.5." A path is a spine; its own links are
  leaf0–spine and spine–leaf1 (the host links are shared by every path), so both get
  d = 25 µs · (2·ratio − 1): 50, 75, 100, 125, 150 µs for ratios 1.5, 2, 2.5, 3, 3.5. The
  x axis (the figures are images in the seed) is taken as those five ratios. The five bad
  spines are drawn once at random: 0, 1, 2, 7, 8 (by symmetry any five are alike, except for
  the round-robin order of DRB and Presto).
* **Traffic.** "The hosts in Group 1 send 100 DCTCP flows generated based on Data Mining
  workload ... to the hosts in Group 2 by following a Poisson process": ``pattern =
  "group"`` from leaf0's hosts to leaf1's, ``sizes = "datamining"``. **The load is not
  given**: we take 0.5 of each sender's link. It matters little: pilot runs at 0.3, 0.5 and
  0.7 (3 seeds) gave the same orderings and short-flow numbers within ~10 %. The Data Mining
  tail (1 % of flows are 0.1–1 GB) puts about one giant flow in most runs, which then lasts
  seconds after the other 99 are done.
* **DCTCP's marking threshold.** The paper does not give K (it cites the DCTCP paper for
  the 250-packet buffer, whose K at 1 Gb/s is 20 packets). We leave ``transport.ecn_k_pkts``
  unset: the core's default at 1 Gb/s is K = 20 packets, so nothing needs setting once the
  key moves to the topology.
* **Schemes.** Figs. 2–3 show ECMP, LetFlow (flowlet gap 500 µs) and RPS; the claims compare
  these three. We also run DRB and Presto (64 KB flowcells), which the paper adds on the same
  set-up in Figs. 7–8, and draw them dashed. DRB's and Presto's receiver buffers hold a
  packet at most ``reorder_timeout_us`` = 100 µs (the core's default; the paper gives none).
* **Short/long.** Short < 100 KB, long ≥ 100 KB (KB = 1000 B), by flow size.
* **Measures** (:mod:`.motivation`): queueing delay per data packet at switches (host NICs
  not included); retransmission ratio = spurious retransmissions / data packets sent (the
  core knows which packets it dropped, so "caused by reordering" is exact); AFCT of finished
  short flows; per-path throughput = bytes leaf0 sent on each spine uplink over the run; total
  throughput of long flows = Σ bytes delivered / (finish − start) over long flows (the
  paper's "total throughput of long flows" read literally); path utilisation = that / 10 Gb/s,
  as the paper's sentence relates the two. The other reading — long flows' bytes over the
  time from the first long start to the last long finish — is ``long_goodput_gbps`` in
  data.csv: with one NIC-bound giant flow setting the span it is ~1 Gb/s for every scheme that
  does not slow that flow down.
* **Seeds.** The paper shows one number per point and does not say how many runs; 100 flows
  make a noisy sample (one giant flow more or less), so we average 10 seeds.
* **Claims.** The paper's statements are orderings; each is measured as the share of the
  five ratios (or of the four steps between them) at which it holds, against the paper's 1
  ("across all the test cases"), tolerance 0. "No packet dropping happens" is packets dropped
  in all runs of a scheme, paper 0. The one number, RPS's path utilisation of "about 0.12"
  at the largest asymmetry, has the default tolerance.
* ``--quick``: two ratios (1.5, 3.5), one seed, and runs stopped at 1 s of simulated time;
  for tests, not for verdicts.

What we get
-----------

(Filled in from the full run below.)
"""

from ..figure import Paper, Pending
from .motivation import FIG2, FIG3

PAPER = Paper(
    name="tr",
    citation="T. Zhang, Y. Lei, Q. Zhang, S. Zou, J. Huang, F. Li, Fine-grained Load Balancing "
             "with Traffic-aware Rerouting in DataCenter Networks (seed 002_4f7d47fbf35aaaf3).",
    figures=(FIG2, FIG3),
    pending=(
        Pending("fig6", "the RPS vs TR FCT model against simulation", "TR"),
        Pending("fig7-8", "small leaf-spine, Data Mining sizes: FCT, throughput, reordering",
                "TR"),
        Pending("fig9-12", "10 × 10 leaf-spine at 40 Gb/s, four workloads", "TR"),
    ),
    note="Figs. 2–3 run the paper's motivation set-up; the load, the x-axis points and the "
         "measures the paper leaves open are chosen in the module doc of "
         "dcnsim.experiments.tr.",
)
