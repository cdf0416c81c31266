"""MERP: flow scheduling by minimum expansion ratio, and MEMR route control (seed 000, IEEE
TPDS 28(11), 2017; the seed's text starts at the abstract, so title and authors are not
quoted here). The protocol is ``crates/dcnsim/src/protocols/merp/`` (its module doc lists
every reading of §3–5).

Figures (one module each):

- ``table1`` (:mod:`.example`): the motivating example, exact SRPT and PS, MERP packet-level.
- ``fig5-7``, ``fig8-9`` (:mod:`.tree`): rate control on the 9-server tree.
- ``fig10-11``, ``fig12`` (:mod:`.fattree`): route control on the k = 4 fat-tree.
- ``fig13``, ``fig14`` (:mod:`.switching`): flow switching and incast on one switch.

What the paper did, what we run, and why
----------------------------------------

* **Links** (§6): 1 Gb/s, "10ms" per hop read as 10 µs (SPEC.md: the paper's own 72.25 ms
  needs µs), 1500-byte packets with a 40-byte header. Buffers: 100 packets on the tree and the
  single switch, ``buffer_kb = 150`` on the fat-tree, for every protocol (the paper gives one
  buffer per set-up; pFabric's own default of 2·BDP is overridden by it).
* **Sizes.** Pareto with mean 1500 KB or 150 KB "including the packet header": the core's
  sizes are payload, so the payload mean is 1460/1500 of it (1460 KB, 146 KB; the wire mean
  is then the paper's to within 20 bytes). Shape 1.5, ns-2's default for its Pareto random
  variable (the paper used ns-2 and gives no shape); bounded at 100× the mean (the paper gives
  no bound; shape 1.5 has infinite variance, so one unbounded giant flow would decide a run's
  tail and its length). The smallest flow is then about a third of the mean (~34 packets at
  150 KB).
* **Load.** "When the load is 80 percent, i.e., the total size of all flows is about 80
  percent of the network capacity". The core's ``workload.load`` is per sending host link; on
  the tree with random pairs a ToR–root link carries 3 × 6/8 = 2.25 times a host link's load
  (:func:`.common.tree_factor`), so host loads above 0.44 overload the core for every
  protocol, and the paper's 80 % could not be stable. We read the paper's load as that of the
  most loaded link and run ``workload.load = L / 2.25`` for L = 10–80 %: the only reading under
  which the paper's finite, load-stable ratios (MERP "within 10 times" at every load) are
  possible. Fig. 12 likewise: 12 senders into pod 0, half of it behind the one surviving
  link ``agg0_1``→``edge0_0``, which carries 6× a host link's load, so host load = L / 6.
  Figs. 10–11 use random pairs on the fat-tree, whose fabric links carry at most a host
  link's load when spread evenly: host load = L.
* **Baselines.** pFabric with the core's network-derived defaults (window = BDP of the
  longest path, RTO = 3 RTT; ``docs/scenarios.md``). TCP NewReno with the core's defaults
  (minimum RTO 1 ms, initial window 10); the paper's "TCP-DropTail" gives no parameters.
* **Fat-tree schemes** (§6.2): MERP = MERP's rate control + MEMR (``routing.lb = "memr"``);
  ECMP = MERP's rate control + ECMP ("ECMP also uses MERP rate control component as the
  transport layer protocol"); CONGA with TCP NewReno: the paper says "also" of ECMP only, and
  that CONGA "cannot take advantage of upper layer flow scheduling policies", so CONGA runs
  the plain transport the paper compares against in §6.1, with the core's CONGA parameters
  (flowlets of 500 µs, DRE τ = 160 µs). Figs. 10–11's mean size is not given: 1500 KB, §6.1's
  default, the one Fig. 11's "within 100 ms" fits (at 150 KB every flow would).
* **Fig. 12** (§6.2.2): "remove a link from an aggregate switch to a ToR switch ... send data
  to the pod with the link failure": ``agg0_0``–``edge0_0`` fails at time 0 (routing is
  recomputed at once), flows from the 12 hosts of the other pods to the 4 of pod 0.
* **Figs. 8–9.** The paper names neither its four α values (only "large, e.g., 0.9999") nor
  its Q values (only the default 0.8 C). α = 0.99, 0.995, 0.999, 0.9999: around the default,
  0.99 being where §4.4's bound α > n/(n + 1) stops allowing 100 flows on a link. Q caps
  a postponed flow's DET rate, (1 − α)·C = 1 Mb/s for most flows and (n − 1)(1 − α)·C for
  the second, so any Q above ~n Mb/s never binds. Hence Q = 0.001, 0.01, 0.1, 0.8 of C
  (1 to 800 Mb/s): each step down caps the second flow at a smaller n, and 0.001 makes it
  detect no faster than the others — the "small Q" the paper speaks of.
* **Runs.** Figs. 5–7: 3 seeds, 3000 flows per run at 1500 KB and 4000 at 150 KB, MERP with
  both hand-overs (the work-conserving default and Algorithm 3's letter, ``merp_handover =
  "paper"``, dashed); Figs. 8–9: 2 seeds, 2000 flows, loads 10, 20, 40, 60, 80 %; Figs. 10–12:
  2 seeds, 1000 flows. MERP is slow to simulate once its links back up (hundreds of postponed
  flows in the tables, each sending DETs): one run at 150 KB and 80 % takes about 11 s with
  4000 flows. The paper gives neither flow counts nor seeds. Every statistic is
  computed per run (summary.json) and averaged over seeds.
* **Claims.** Relative claims ("reduced by about 48 percent compared with pFabric") are
  measured as 1 − MERP/pFabric at the stated load. The paper's "expansion ratio" in §6.1.1 is
  read as the largest ratio ("the long-tailed expansion ratio ... in the worst case, a flow is
  completed within no more 10 times"); the introduction's "more than 15 ... percent" is read
  as the mean ratio at 80 %, the only other ratio the figures could show. Bounds ("within
  100 ms", "within 10 times") and orderings ("TCP much larger than either") are measured as 1
  or 0, or as the share of the loads at which they hold, against the paper's 1.
* ``--quick``: two loads, one seed and tens to hundreds of flows per run; for tests, not
  for verdicts.

Our numbers beside the paper's, and a reading of each difference: ``docs/papers/merp.md``.
"""

from ..figure import Paper
from .example import TABLE1_FIGURE
from .fattree import FIG10_11, FIG12
from .switching import FIG13, FIG14
from .tree import FIG5_7, FIG8_9

PAPER = Paper(
    name="merp",
    citation="S. Zhang, Z. Qian, H. Wu, S. Lu, Efficient Data Center Flow Scheduling Without "
             "Starvation Using Expansion Ratio (MERP and MEMR), IEEE Transactions on Parallel "
             "and Distributed Systems 28(11), 2017 (doi:10.1109/TPDS.2017.2706290).",
    figures=(TABLE1_FIGURE, FIG5_7, FIG8_9, FIG10_11, FIG12, FIG13, FIG14),
    note="The set-up the paper leaves open (Pareto shape and bound, the reading of its load, "
         "CONGA's transport, the α and Q values) is in the module doc of "
         "dcnsim.experiments.merp; what each figure gives, in docs/papers/merp.md.",
)
