"""MCP: L. Chen, S. Hu, K. Chen, H. Wu, D. H. K. Tsang, "Towards Minimal-Delay
Deadline-Driven Data Center TCP", HotNets 2013 (seed 003). §5, Figs. 3–4 (:mod:`.figures`,
one figure ``fig3-4``; the flows in :mod:`.workload`).

What the paper did, what we run, and why
----------------------------------------

The paper's §5 is a paragraph: a 30 s numerical (Matlab) simulation, "our immediately next
step is packet-level simulations". Ours is that next step, so every number below comes from
a different kind of model, and three of the set-up's sentences must be read into rules.

* **Network.** "128-node three level fattree ... 10G for ToR to aggregation link, and 40G for
  aggregation to core link": ``fattree`` k = 8, hosts and edge–aggregation at 10 Gb/s,
  aggregation–core at 40 Gb/s. Not given, and ours: 1 µs per link (the core's default; the
  longest path's base RTT is 17.5 µs), 250-packet buffers at every port, ECMP.
* **ECN.** "we set their ECN marking threshold as 64 packets": K = 64 at every port
  (``topology.ecn_k_pkts``), which DCTCP and D2TCP mark by and MCP-Approx reads as K.
* **Sizes.** "three types of traffic, i.e., query (2KB to 20KB), short (100KB to 1MB), and long
  flows (1MB to 100MB). The flow sizes are drawn from an exponential distribution with mean
  equals to 1MB, and capped at 100MB." Read as one distribution: Exp(1 MB), capped at 100 MB,
  a draw kept when it falls in one of the three ranges (7.7 % of draws fall between or below
  them and are drawn again). That gives 1.8 % query, 58.6 % short and 39.6 % long flows (0.02 %,
  26 % and 74 % of the bytes), mean 1.08 MB, largest 14.5 MB; no other assumption (a mix of
  the types is not given). Queries are few: 295 per run in the measured window.
* **Deadlines.** "The deadlines are calculated based on the flow types and the corresponding
  share of the bandwidth." Our rule: the three types share a host link's bandwidth equally, so
  a flow's deadline is the time its size takes at a third of 10 Gb/s, plus two base RTTs for
  what a packet-level flow pays and a fluid one does not (the handshake, the first packet's
  trip): **D = 2·RTT + 8·S / (C/3)**, RTT = 17.544 µs. Queries get 40–83 µs, short flows
  0.28–2.4 ms, long flows 2.4–35 ms. Every flow needs 3.3 Gb/s from start to deadline, so
  the flows' needs add up to the offered load. Shares by the types' bytes would give queries
  9–90 ms (never missed), shares by their counts short flows 5.9 Gb/s and queries 0.18 Gb/s;
  neither follows the sentence more closely than equal shares. **Its effect:** every flow
  needs the same rate, which removes the unequal needs that §2's argument rests on (Fig. 1: a
  flow that needs more than its fair share). Up to three flows on a host link, DCTCP's fair
  share gives each at least its need, as MCP does; MCP's edge can only show where more than
  three meet, and there no scheme meets them all. D2TCP has no urgency to tell apart either
  (d = time needed over time left starts at 1 for every flow).
* **Load.** "The load of the network is adjusted by varying the arrival rate of the flows at
  the nodes." One Poisson process for the network, each flow from a random host to another;
  the host-link load is the share of a host link the offered traffic takes on the wire
  (payload, a 40-byte header per segment, and the ACKs the other way). **"Maximum load" is the
  host-link load at which an ideal deadline scheduler still serves these flows: 30 %**, where
  PDQ at flow level (preemptive earliest deadline first, terminating flows that cannot make
  it, with no packets) misses 3.7 % of them (0.7 % at 20 %, 8 % at 40 %, 33 % with every host
  link full). The paper's MCP claims ("< 4 %" of long flows missed at the maximum) chose it:
  these deadlines allow that only up to about this load. Its baseline claims place the maximum
  much heavier (DCTCP and D2TCP missing 70 % and 50 % of long flows at 80 %: our DCTCP misses
  about 72 % only with host links 70 % full); no one load fits both. Loads
  10 %, 20 %, …, 100 % of it. **Beyond it** we keep the first reproduction's axis, whose
  maximum filled every host link in the mean (the bound of the paper's constraint (3)):
  host-link loads 50 %, 70 % and 100 %, drawn at 167 %, 233 % and 333 % on a shaded band, where
  PDQ misses 13–33 %. The fabric (full bisection at the edge, 4× to the core) carries every
  load. One flow list per seed; a load only rescales its gaps, so every load and protocol sees
  the same flows.
* **Aborts.** "Each node will abort its flows as soon as the flows fail to meet deadlines":
  ``workload.abort_at_deadline`` for every protocol. MCP also ends a flow itself (§4.2) when its
  deficit Z outgrows what the fastest link on its path (40 Gb/s through the core, 10 Gb/s
  within a pod) carries before the deadline, and at the handshake when its host link cannot
  finish it in time.
  MCP-Approx is also drawn with the per-window reading of §4.2 (``mcp_abort = "per_rtt"``,
  dashed): Z against one window's worth of the fastest link, which also ends flows that could
  still make it (module doc of ``protocols::mcp``).
* **Length.** 20 000 flows per point (21.6 GB), arriving over 4.7 s at 10 % of the maximum,
  0.47 s at the maximum and 0.14 s with every host link full; one seed. The first and last 10 % of the flows (by arrival) are left out of
  every measure: the network filling and draining.
* **Schemes.** MCP-Opt (``mcp_variant = "opt"``), MCP-Approx (``"approx"``), DCTCP, D2TCP
  with the core's defaults (initial window 10, min RTO 1 ms). Every flow ends at its deadline
  (above), so what D2TCP does with a flow past its deadline (``transport.d2tcp_late``, issue
  32) never comes into play here: these numbers do not depend on it. Not in the paper, drawn
  dashed: MCP-Approx with the per-window abort, and PDQ at flow level (``engine = "flow"``) on
  the same flows, an ideal earliest-deadline-first scheduler that terminates flows which
  cannot make it — how many of these deadlines can be met at all. (Packet-level PDQ, the
  reference of the first reproduction, falls short of its own flow-level model; issue 35.)
* **Measures.** Miss rate of a type: its flows that did not meet their deadline. Goodput: the
  bytes of the flows that met their deadline ("the amount of data transmitted successfully
  within the deadlines") over the measured flows' arrival span, Gb/s for the whole network;
  the traffic threshold: all their bytes over the same span.
* **Claims.** A bound ("lower than 2 %") is the middle of its range with a tolerance reaching
  both ends (0.01 ± 0.01); "close to zero" and "similarly" are within 2 points; "close to the
  traffic threshold" and "almost all" within 5 %; "most of the traffic" within 10 %; the short
  flows' "around 40 %" and "20 %" are read at the maximum load. "MCP outperforms DCTCP and
  D2TCP for all flows" is the share of (type, load) points up to the maximum where an MCP's
  miss rate is at most the better baseline's (ties within half a point), paper 1. Not a claim:
  ``overall_below_baselines``, the share of loads up to the maximum where an MCP's overall miss
  rate is at most both baselines' (issue 34's goal).
* ``--quick``: 600 flows, loads 20 % and 100 % of the maximum; for tests, not for verdicts.

Our numbers beside the paper's, a reading of each difference, and how issue 34 changed MCP
since the first reproduction: ``docs/papers/mcp.md``.
"""

from ..figure import Paper
from .figures import FIG3_4

PAPER = Paper(
    name="mcp",
    citation="L. Chen, S. Hu, K. Chen, H. Wu, D. H. K. Tsang, Towards Minimal-Delay "
             "Deadline-Driven Data Center TCP, ACM HotNets 2013.",
    figures=(FIG3_4,),
    note="The paper's numbers come from a 30 s numerical (Matlab) model; ours from packet-level "
         "runs of 20 000 flows per point. Sizes, deadlines and the load are each read from one "
         "sentence; the module doc of dcnsim.experiments.mcp gives the readings, "
         "docs/papers/mcp.md the outcome.",
)
