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
  longest path, RTO = 3 RTT; README). TCP NewReno with the core's defaults (minimum RTO 1 ms,
  initial window 10); the paper's "TCP-DropTail" gives no parameters.
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
* **Runs.** Figs. 5–7: 3 seeds, 3000 flows per run at 1500 KB and 4000 at 150 KB; Figs. 8–9:
  2 seeds, 2000 flows, loads 10, 20, 40, 60, 80 %; Figs. 10–12: 2 seeds, 1000 flows. MERP is
  slow to simulate once its links back up (thousands of postponed flows in the tables, each
  sending DETs): one run at 150 KB and 80 % takes 4 s with 2000 flows, 17 s with 4000, and
  minutes with 10 000. The paper gives neither flow counts nor seeds. Every statistic is
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

What we get (full run 2026-11-25, 18 min with ``-j 2`` on 2 cores shared with other work;
2128 s of simulation), and our reading
---------------------------------------------------------------------------------------

24 of the 49 claims reproduced: the worked example, flow switching, the failed-link figure's
direction, and the orderings that hold at light load. Almost every number the paper gives for
loaded networks differs, in MERP's disfavour, for three reasons found in the runs (the first
two are properties of Algorithms 1–3 as the paper writes them, not of our baselines):

1. **A link serves only its first flow, even when that flow is held elsewhere.** RateAdj
   gives α·C to the flow with the smallest vdl and detection rates to the rest; nothing tells
   a link that its first flow is postponed on another link of its path (PDQ has "paused by"
   for this). Reproducer, one switch at 1 Gb/s: A h0→h3 4 MB at 0, B h1→h3 8 MB at 1 ms, C
   h1→h2 20 MB at 2 ms. B waits behind A at sw→h3 but is first on h1's link, so h1's link is
   0.2 % used from 2 to 33 ms and C finishes at 263.6 ms (pFabric: 232.4 ms, the link busy
   throughout). With 40 flows of 1–5 MB started together on the tree, MERP needs 491 ms,
   pFabric 324, the busiest link 296; even MERP's own objective, the largest expansion ratio,
   is worse (11.9 against 8.4). Chains of such waits leave many links idle at once.
2. **DATA at α·C plus the reverse ACKs overload a link used both ways.** A host that sends
   at α·C = 999 Mb/s while it receives another flow also sends that flow's ACKs (40 B per
   1500 B, 27 Mb/s at line rate) on the same link; a switch port likewise carries one flow's
   DATA and the ACKs of a flow going the other way. MERP has no window, so the queue grows
   until it drops DETs, then DATA and ACKs; each lost DATA packet costs an RTO and go-back-N.
   At 10 % load (1500 KB) 90 of 3000 flows retransmit (267 RTOs); with α = 0.97, leaving room
   for the ACKs, 16 do, and at 40 % the largest ratio falls from 19.5 to 6.8 (pFabric 6.2),
   the mean FCT from 24.6 to 21.3 ms (pFabric 19.2). (A diagnosis, one seed: the figures keep
   the paper's α = 0.999.) The paper's "switch buffer overflows happen very frequently when α
   is large" may be this.
3. **Beyond ~50 % MERP is overloaded.** With (1) and (2), its effective capacity on the tree
   lies between 50 and 60 % of the ToR–root links (on the fat-tree between 20 and 40 % of a
   host link): the backlog grows through the run, and the numbers there depend on the run's
   length (150 KB at 80 %, seed 1: mean expansion ratio 66 with 2000 flows, 154 with 4000).
   pFabric and TCP stay stable to 80 %.

The fix the runs led to in the protocol is one arrival time per flow (module doc of
``protocols::merp``): with per-link SYN arrival times, two flows into h0 were each first on
one of root→tor0 and tor0→h0, and 814 of 4000 flows never finished.

* **table1** (14 of 15): SRPT and PS exact; MERP packet by packet serves A, C, B (as Fig. 1c),
  mean FCT 5.69 units (paper 17/3 = 5.67), largest expansion ratio 2.34 (7/3); pFabric gives
  SRPT's order, 5.35 and 2.51. ER(PS, A) differs on purpose (the paper's 7/3 is B's; above).
* **fig5-7**, mean 1500 KB (1 of 8): MERP is within 2–11 % of pFabric's mean FCT at 10–30 %
  (24 % at 40 %), but its largest expansion ratio is 2.1–3.5× pFabric's at 10–50 % (6.4–19
  against 2.9–8.9; reasons 1 and 2) and 8–12× above. At 80 % the paper has MERP −48 %
  (largest ratio), −15 % (mean ratio), −12 % (99.9th percentile FCT) and +8 % (mean FCT)
  against pFabric; ours are ×8.0, ×33, ×3.5 and ×17.6 (reason 3). "Within 10 times" holds at
  10 % only (share 0.125); MERP's tail is never the lowest at 50–80 %; TCP's mean FCT is
  above both at 5 of 8 loads (share 0.625, not 1: MERP's is higher from 60 %). The
  MERP–pFabric gap does widen with load at every step (reproduced).
* **fig5-7**, mean 150 KB (1 of 4): MERP's 99.9th percentile FCT is 2–6 % below pFabric's at
  10–20 % and within 8 % to 40 %, its largest ratio below pFabric's at 10 % (3.4 vs 3.7); from
  50 % it collapses: largest ratio 550 at 80 % (paper about 15; pFabric 107, TCP 283), ×5.1
  pFabric's (paper −50 %), tail ×2.0 (paper −30 %). "The gap is larger at 150 KB" is
  reproduced only in that MERP is less far behind pFabric there (×5.1 against ×8.0).
* **fig8-9** (3 of 7): at 10 % the α values give tails within 7 % (reproduced), the Q values
  identical. α = 0.9999 collapses from 20 %: its postponed flows detect at 0.1 Mb/s, one DET
  per 3.2 ms, so each hand-over costs milliseconds (the paper's §4.4 warns of too little
  detection bandwidth); 0.99–0.999 stay within 6 % of each other at every load; with 0.9999
  (largest − smallest)/smallest reaches 48 (paper "very small"). A larger α does not give a
  smaller tail at 80 % (share 1/3): α = 0.995 is lowest. α = 0.99 drops the most at 60–80 %
  (its DETs are 10× more), 0.9999 at 20–40 % (share 0.4). Q changes the tail by at most 4 %
  (reproduced "very small"); small Q is not worse at 80 % (share 1/3): Q only caps DET rates,
  which exceed 1 Mb/s only for the second flow.
* **fig10-11** (2 of 8): MEMR beats ECMP by 45 % in mean FCT at 0.4 and ties at 0.2, 0.6, 0.8
  (smallest cut −0.2 %, paper ≥ 20 %); mean ratio 13 % lower on average over the loads (paper
  75 %). CONGA with TCP is far better than either from 0.4 on (MERP ×4.4 its mean FCT at 0.6);
  at 0.2 MERP's mean FCT is 26 % below CONGA's, the only load where CONGA is worst (share
  0.25). At 0.6, 28 % of MERP's flows finish within 100 ms (paper > 99 %); 48 % of ECMP's and
  7.6 % of CONGA's take over 200 ms (paper > 1 %: reproduced for both).
* **fig12** (1 of 3): MERP has the lowest mean FCT at every load (reproduced), by up to 50 %
  against ECMP (at 80 %) and 45 % against CONGA (at 60 %); the paper's "up to 31 percent"
  differs by more than the tolerance, in MERP's favour. The loads here put at most 13 % on a
  host link, below MERP's collapse, and MEMR does what §6.2.2 says: it moves flows for
  edge0_1 off agg0_1, which carries all of edge0_0's traffic (agg0_1→edge0_1 carries 231 MB
  under MEMR, 359 MB under ECMP, at 80 %, seed 1), and ECMP with MERP's rate control falls
  behind at 80 % (mean expansion ratio 5.8 against MERP's 2.4).
* **fig13** (2 of 3): done at 72.46 ms (paper 72.25, within 0.3 %); the ideal of our flows is
  72.000 ms. The overhead is 0.46 ms against the paper's 0.25 (pFabric's here: 0.42 ms): the
  link idles 0.13 ms at the start (the SYN's round trip) and 0.07 and 0.35 ms at the two
  hand-overs: the next flow detects at 2 and then 1 Mb/s, a DET per 160–320 µs, and meets
  early start's last RTT only by chance.
* **fig14** (0 of 1): 78.7 % over 10–18 ms (paper 91.8 %; pFabric 100 %): each of the 30
  hand-overs costs a DET's, a BOOST's and a DATA packet's trip, ≈ 53 µs against 240 µs of
  data (module doc of ``protocols::merp``).
"""

from ..figure import Paper
from .example import TABLE1_FIGURE
from .fattree import FIG10_11, FIG12
from .switching import FIG13, FIG14
from .tree import FIG5_7, FIG8_9

PAPER = Paper(
    name="merp",
    citation="MERP: flow scheduling that minimizes the maximum expansion ratio (FCT over the "
             "FCT alone) of competing flows, and MEMR route control; IEEE TPDS 28(11), 2017 "
             "(seed 000_57a1f87c1f24689a).",
    figures=(TABLE1_FIGURE, FIG5_7, FIG8_9, FIG10_11, FIG12, FIG13, FIG14),
    note="The set-up the paper leaves open (Pareto shape and bound, the reading of its load, "
         "CONGA's transport, the α and Q values) and what each figure gives are in the module "
         "doc of dcnsim.experiments.merp.",
)
