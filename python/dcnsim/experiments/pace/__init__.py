"""PACE: T. Carvalho, H. S. Kim, N. Neves, "PACE Your Network: Fair and Controllable
Multi-Tenant Data Center Networks" (seed 001), §IV: PACE against D3, DCTCP and TCP on a
parking lot at 1 Gb/s, RTT ≈ 150 µs, initial period 200 µs.

Figures (one module each):

- ``fig6``, ``table1`` (:mod:`.fairness`): scenario 1, flows started one after the other and
  stopped in reverse (10 flows; 64 and 250 for Table 1).
- ``fig7``, ``fig8`` (:mod:`.composite`): scenario 2, the composite pattern, and
  controllability with weights 2, 1, 4.

What the paper did, what we run, and why
----------------------------------------

* **Topology.** The core's parking lot (``topo/parkinglot.rs``): F1…F5 in a chain, the
  bottleneck F4–F5, 16 senders per group a–d at F1–F4, receivers at F5, cross receivers at
  F4; 1 Gb/s, 6.25 µs per link (unloaded RTT 150/125/100/75 µs from groups a/b/c/d),
  100-packet buffers. The paper's Fig. 5 is not in the text; this layout fits every sentence
  of it (module doc of the builder). Scenario 2: S1 = group a → receivers (crosses F3–F4 and
  F4–F5), S2 = group d → receivers (F4–F5), S3 = group c → cross receivers (F3–F4).
* **Transports.** The core's ``pace``, ``d3`` (non-deadline: every flow asks 0 and gets its
  fair share of spare capacity), ``dctcp`` (K = 20 packets at 1 Gb/s) and ``tcp`` NewReno, each
  with its defaults (1 ms minimum RTO), but D3's rate unit: the paper's "units of 1bytes/µs"
  (``d3_rate_unit_mbps = 8``; the core's default is 1 Mb/s), which keeps its 125-flow limit
  on a 1 Gb/s link. The paper's D3 is "an optimized RCP" whose "convergence to full
  utilization is done by adjusting the total allocated capacity"; so does the core's D3 by
  default since issue 32 (D3's own §4 rule: every RTT the capacity moves by α·(C − u) −
  β·q/T, here never below the link rate; module doc of ``protocols::d3``). Its 125-flow
  limit stays (the adjustment never hands out less than the link, and 126 paused flows'
  requests keep it from rising far).
* **Hosts** push back on their transports (``topology.host_nic = "backpressure"``, the core's
  default since issue 32): a sender's own NIC does not drop its bursts.
* **Flows that stop at given times.** The paper's flows stop at set times (5, 20 or 50 ms
  apart, in reverse order); the core's flows end when their bytes are delivered. Each flow
  carries the bytes an exactly fair share of F4–F5 (1 Gb/s × 1460/1500) gives it while it is
  scheduled to run (:func:`.common.fair_sizes`), so a fair protocol ends them in the paper's
  order at the paper's times, and an unfair one ends them elsewhen. Senders: groups a, b, c,
  d round robin (different RTTs) or all a (same RTT), each flow to its own receiver.
* **Jain's index "throughout the experiment".** Goodput sampled in windows of max(1 ms,
  n × 250 µs) for n flows — about 20 full packets per flow at the equal share, so that packet
  granularity does not read as unfairness (2.5 ms for 10 flows, 16 ms for 64, 62.5 ms for
  250); per window, the index over the flows active through it (at least two), averaged.
* **Table 1.** "The same scenario (Fig. 5(a))" with 64 and 250 flows from group a (16 hosts,
  round robin), 5 ms apart. *Efficiency* is the flows' goodput over the payload capacity of
  F4–F5 in full packets of the transport (data use of the link; D3's header-only requests,
  ACKs and retransmissions excluded), averaged like the index. D3's "cannot run" is measured
  as its efficiency while more than 125 flows are active.
* **Table 1's buffers.** Not in the paper. Eq. (7) keeps a port's credits and queue within
  2·p·R, and PACE's period grows with the flows (1.56 ms for 64, the 5.1 ms cap for 250):
  lossless PACE needs buffers of 2·p·R at that period — 390 KB and 1275 KB
  (:func:`.fairness.table1_buffer_kb`), given to every protocol. With the 100-packet buffers of
  the other scenarios PACE does drop (20 and 490 packets; the queue collects at F1–F2, the
  first shared port, see the module doc of ``protocols::pace``), so the reproduction does not
  run PACE that way; DCTCP is also run with 100-packet buffers (``dctcp-100pkt``).
* **Scenario 2** runs 40 ms; each phase is measured once settled (1–2, 3–4, 6–20, 25–40 ms)
  against the max-min rates computed by hand (:func:`.common.max_min`): phase 3 S1 = S3 = 100,
  S2 = 600; phase 4 S1 = S2 = 90.9, S3 = 106.1 Mb/s of wire rate, as goodput × the
  transport's full-packet payload share.
* **Controllability**: S1 (weight 2) at 0, S2 (1) at 1.5 ms, S3 (4) at 3 ms, 500 KB each,
  100 µs samples. By hand (:func:`.composite.hand_timeline`) S1 ends at 7.9 ms, S2 at 8.3,
  S3 at 8.8.
* ``--quick``: scenario 1 at 5 ms only; Table 1 with flows 1 ms apart; scenario 2 to 26 ms;
  controllability as is. For tests, not for verdicts.

Our numbers beside the paper's, and a reading of each difference: ``docs/papers/pace.md``.
"""

from ..figure import Paper
from .composite import FIG7, FIG8
from .fairness import FIG6, TABLE1

PAPER = Paper(
    name="pace",
    citation="T. Carvalho, H. S. Kim, N. Neves, PACE Your Network: Fair and Controllable "
             "Multi-Tenant Data Center Networks (the text we have gives no venue or year).",
    figures=(FIG6, TABLE1, FIG7, FIG8),
    note="The paper's Fig. 5 (the parking lot) and its buffers are not in the text: the "
         "module doc of dcnsim.experiments.pace says what we chose and why, docs/papers/pace.md "
         "what the last full run gives. Table 1 runs with buffers of 2·p·R (PACE's lossless "
         "condition); DCTCP also with 100-packet buffers.",
)
