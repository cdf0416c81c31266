"""PDQ and M-PDQ: C.-Y. Hong, M. Caesar, P. B. Godfrey, "Finishing Flows Quickly with
Preemptive Scheduling", SIGCOMM 2012. The seed (004) holds §6 (M-PDQ) to §9 and the text
layer of Figs. 8–12; §5 (the evaluation set-up) is not in it.

Figures (one module each):

- ``fig11a``, ``fig11b-c`` (:mod:`.mpdq`): M-PDQ vs PDQ on BCube(2,3).
- ``fig12`` (:mod:`.aging`): flow aging on a 128-server fat-tree.
- ``fig8`` (:mod:`.scale`): PDQ vs D3, RCP, TCP on fat-tree, BCube and Jellyfish, packet
  level, 16–128 servers.
- ``fig8-flow`` (:mod:`.scale_flow`): the same at flow level, 16–4096 servers.

What the paper did, what we run, and why
----------------------------------------

* **Links.** Not in the seed. 1 Gb/s everywhere (the paper's FCT axes, in ms for flows of
  ~100 KB, fit 1 Gb/s), 1 µs per hop, 100-packet buffers (the core's defaults).
* **Flow sizes.** Not in the seed: uniform on 2–198 KB (mean 100 KB), the default workload
  of PDQ's evaluation as we remember §5 (unverified here), for every figure.
* **Deadlines.** Not in the seed: 3 ms plus an exponential, mean 20 ms in all (D3's and, as we
  remember it, PDQ's deadline distribution); the 3 ms floor keeps every flow feasible alone (a
  198 KB flow needs 1.6 ms at 1 Gb/s) — without it a few per cent of flows could never meet
  their deadline and no protocol would reach 99 %.
* **Permutation traffic and "load".** Fig. 11a's x axis is "load [% of sending hosts]": a
  random derangement pairs the hosts, that fraction of them (chosen at random) sends, each one
  flow to its partner, all at time 0 (:mod:`..flowlists`). The paper does not say how many
  flows a sender has; one per sender is the plain reading. (With 10 concurrent flows per
  sender, which we also tried, M-PDQ is *slower* than PDQ at every load, 0.82–0.97×: its
  subflows each carry a third of a flow, so they interleave with other flows' subflows under
  SJF.) Loads 1/8, 1/4, 1/2, 3/4, 1 (2–16 senders), 10 seeds.
* **Figs. 11b–c** at 100 % load: (b) one flow per server, 10 seeds; (c) N deadline flows from
  the 16 servers (flow i from server i mod 16 to its partner, all at 0), N = 16…160, 6 seeds.
  "4 subflows reach 97 % of the full potential" is measured as FCT(best of 2–8 subflows) /
  FCT(4) for (b) and flows(4) / flows(best) for (c).
* **Deadline flows at 99 % application throughput** (Figs. 8a, 11c): for each protocol, runs
  with N deadline flows started together, N on a grid; application throughput (met /
  with deadline, as summary.json) averaged over seeds; the answer is the largest N of the grid
  for which it and every smaller N reach 0.99 (:func:`.common.supported_flows`). The grid
  bounds the resolution: Fig. 8 tries 0.5, 1, 1.5, 2, 3, 4, 6 flows per host (one seed: a
  packet-level run per count at each size already costs most of the reproduction's time).
* **Fig. 8 sizes.** The paper runs 16–4096 servers (packet level up to a few hundred, flow
  level beyond). We run fat-trees k = 4, 6, 8 (16, 54, 128 servers), BCube(2,3) and BCube(4,2)
  (16, 64), Jellyfish with 16, 64, 128 servers (8 switches × 2 hosts, 6 ports; 16 and 32
  switches × 4 hosts, 8 ports); every host sends 10 flows to its partner at once for the FCT
  panels (the paper's FCTs of tens of ms imply many flows per host), 2 seeds. RCP's
  published law is left out of the deadline search (it misses deadlines at every count we
  tried, and is the slowest to simulate). The relative
  claims (~30 % lower mean FCT; 3× D3's deadline flows; 85–95 % of flows faster than RCP,
  the worst 2.57× slower) are compared at the largest size of each topology at which both
  protocols of the claim finished (all of them, unless a run was cut short).
* **Fig. 12.** The paper: flow level ("Flow-level simulation", the caption), 128-server
  fat-tree (the caption; the text says 256), random permutation traffic. Ours: k = 8 fat-tree
  (128 servers), Poisson arrivals at 60 % of each sender's link, each flow from a host to its
  partner in one random derangement, 10 000 flows, 2 seeds; α = 0, 1, 2, 4, 6, 8, 10 (the
  paper's axis runs 0–10). One-shot permutations finish whatever the order (aging needs flows
  that wait while others keep arriving), hence arrivals over time. Run at flow level
  (``engine = "flow"``), as the paper did, which the claims are read from, and at packet
  level as a second panel (labels ``*-packet``). The claims (worst FCT −48 %, mean +1.7 %)
  are read at the α with the lowest worst FCT.
* **RCP.** The paper describes RCP as emulating fair sharing (§8) and draws "RCP/D3" as one
  curve for deadline-unconstrained flows. ``rcp`` here is the published rate law (``rcp_variant
  = "published"``), which at data-center BDPs keeps links well below capacity (the core's module
  doc); ``rcp_beta = 0, rcp_init_rate = 0.05`` is its processor-sharing variant (the core's
  default ``ps`` variant is within a per cent of it: β ≈ 0 at these BDPs). Fig. 8 runs both
  (``rcp`` and ``rcp-ps``) and draws both, but states the RCP claims for ``rcp-ps`` only: the
  paper compares PDQ with fair sharing. Fig. 12's reference and the deadline search use
  ``rcp-ps``.
* **BCube routing.** The paper routes M-PDQ's subflows over BCube's k+1 parallel paths
  (address-based routing). Fig. 11 does the same, for PDQ and M-PDQ alike:
  ``routing.lb = "bcube_paths"`` (BuildPathSet, each (sub)flow hashed onto one of the k+1
  paths; for a pair h address digits apart, h paths are shortest and k+1−h two hops longer).
  Fig. 8's BCube runs single-path protocols and keeps the shortest-path ECMP of the core.
* ``--quick``: the smallest network of each topology, 1–4 seeds, fewer loads, subflow counts
  and flow counts; for tests, not for verdicts.

Our numbers beside the paper's (fig8-flow's too) and a reading of each difference:
``docs/papers/pdq.md``.
"""

from ..figure import Paper
from .aging import FIG12
from .mpdq import FIG11A, FIG11BC
from .scale import FIG8
from .scale_flow import FIG8_FLOW

PAPER = Paper(
    name="pdq",
    citation="C.-Y. Hong, M. Caesar, P. B. Godfrey, Finishing Flows Quickly with Preemptive "
             "Scheduling, ACM SIGCOMM 2012 (doi:10.1145/2342356.2342388; we had its §6 M-PDQ "
             "to §9).",
    figures=(FIG11A, FIG11BC, FIG12, FIG8, FIG8_FLOW),
    note="The paper's §5 set-up (link rates, sizes, deadlines) is not in the text we have; the "
         "module doc of dcnsim.experiments.pdq lists what we chose and why, docs/papers/pdq.md "
         "what the last full run gives. Fig. 8 runs at "
         "packet level up to 128 servers (fig8) and at flow level from 16 to 4096 servers "
         "(fig8-flow), as the paper does.",
)
