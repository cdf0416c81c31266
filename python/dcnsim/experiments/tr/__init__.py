"""TR: T. Zhang, Y. Lei, Q. Zhang, S. Zou, J. Huang, F. Li, "Fine-grained Load Balancing with
Traffic-aware Rerouting in DataCenter Networks", J. Cloud Computing 2021 (seed 002).

Every figure of the paper's evaluation runs:

* ``fig2``, ``fig3`` (:mod:`.motivation`): the motivation study of §2 — ECMP, LetFlow and RPS
  on a leaf-spine with asymmetric paths; short flows' queueing delay, reordering and FCT, long
  flows' path balance, reordering and throughput.
* ``fig6`` (:mod:`.modelcheck`, :mod:`.model`): the FCT model of §3.4 (eqs. 2–8) for RPS and
  TR against simulation.
* ``fig7``, ``fig8`` (:mod:`.microbench`): §4.1's micro-benchmark, the §2 set-up with DRB,
  Presto and TR (``routing.lb = "tr"``, ``crates/dcnsim/src/lb/tr.rs``) added. Figs. 2, 3, 7
  and 8 read one sweep (``small/``), run once.
* ``fig9``–``fig12`` (:mod:`.largescale`): §4.2 at 40 Gb/s, one figure per workload, and
  ``fig9-12``, the abstract's headline numbers over the four.

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
  given**: we take 0.5 of each sender's link. Pilot runs at 0.3, 0.5 and 0.7 (3 seeds,
  ratios 1.5 and 3.5) gave the same orderings (RPS lowest in queueing delay, highest in
  retransmissions and lowest in throughput, LetFlow highest in throughput, RPS's AFCT lowest
  at 1.5 and within 2 % of the others' at 3.5); AFCTs moved by < 4 %, queueing delays by up
  to 60 %. The Data Mining tail (1 % of flows are 0.1–1 GB) puts a giant flow in about two
  runs of three; it then runs for seconds after the other 99 flows are done.
* **DCTCP's marking threshold.** The paper does not give K (it cites the DCTCP paper for
  the 250-packet buffer, whose K at 1 Gb/s is 20 packets). We leave ``transport.ecn_k_pkts``
  unset: the core's default at 1 Gb/s is K = 20 packets, so nothing needs setting once the
  key moves to the topology.
* **Schemes.** Figs. 2–3 show ECMP, LetFlow (flowlet gap 500 µs) and RPS; the claims compare
  these three. We also run DRB and Presto (64 KB flowcells), which the paper adds on the same
  set-up in Figs. 7–8, and draw them dashed. Figs. 7–8 add TR with the core's defaults (T_l =
  100 KB, 5 TTL bits, the one-RTT inactivity rule at 200 µs, ACKs routed by TR like any
  packet; ``lb/tr.rs`` says what was chosen where the paper is silent). DRB's and Presto's receiver buffers hold a
  packet at most ``reorder_timeout_us`` = 100 µs (the core's default; the paper gives none).
* **Short/long.** Short < 100 KB, long ≥ 100 KB (KB = 1000 B), by flow size.
* **Measures** (:mod:`.motivation`): queueing delay per data packet at switches (host NICs
  not included); retransmission ratio = spurious retransmissions / data packets sent (the
  core knows which packets it dropped, so "caused by reordering" is exact); AFCT of finished
  short flows; per-path throughput = bytes leaf0 sent on each spine uplink over the run; total
  throughput of long flows = Σ bytes delivered / (finish − start) over long flows (the
  paper's "total throughput of long flows" read literally; a flow still unfinished when the
  run ends counts what it delivered by then).
* **Path utilisation** ("the total throughput of long flows under RPS falls precipitously,
  and the path utilization is even only about 0.12") is not defined in the paper. Three
  readings, for RPS at ratio 3.5: (i) each long flow's throughput over the 1 Gb/s of its
  host link, averaged over the long flows — the total throughput against what the long flows
  would have at line rate: 0.14; (ii) the total throughput over the ten paths' 10 Gb/s:
  0.29; (iii) the long flows' bytes over the span from the first long start to the last
  long finish, over 10 Gb/s (``long_goodput_gbps`` / 10 in data.csv): 0.02. We use (i). We
  had started with (ii) and dropped it on seeing that it exceeds 1 for ECMP and LetFlow
  (the long flows do not all overlap in time, so it is no utilisation); (iii) is ~0.1 for
  every scheme that does not slow the giant flow down, which alone sets the span at 1 Gb/s,
  so it cannot single RPS out as the paper's sentence does.
* **Seeds.** The paper shows one number per point and does not say how many runs; 100 flows
  make a noisy sample (one giant flow more or less), so we average 10 seeds.
* **Claims.** The paper's statements are orderings; each is measured as the share of the
  five ratios (or of the four steps between them) at which it holds, against the paper's 1
  ("across all the test cases"), tolerance 0. "No packet dropping happens" is packets dropped
  in all runs of a scheme, paper 0. The one number, RPS's path utilisation of "about 0.12"
  at the largest asymmetry, has the default tolerance.
* ``--quick``: two ratios (1.5, 3.5), one seed, and runs stopped at 1 s of simulated time;
  for tests, not for verdicts.

Fig. 6, the model (§3.4)
------------------------

* **The model** (:mod:`.model`) is eqs. (2)–(8) as printed, in Table 2's units; eq. (4)'s
  double sum is computed exactly in integers. r, d_g and d_b are round trips (eq. 2 counts
  rounds of r).
* **The simulation** (:mod:`.modelcheck`): what the model assumes — N flows of S packets that
  start together — on the §2 leaf-spine: flow i from leaf0's host i mod 10 to leaf1's host
  i mod 10, under RPS and TR, mean FCT of the N flows. Not given, chosen: the RTT ratio 2.5
  (the middle of §2's range: d_g = 200, d_b = 500 µs); panel (b)'s counts 10–50; DCTCP (§2's
  transport); n = 10, n_g = n_b = 5, B = 250, t = 12 µs, H = 3 follow from the set-up; five
  seeds.
* **Claims.** The paper's orderings (TR below RPS; FCT rising with size and with flows) as
  shares of points or steps; "basically close" as the geometric mean of simulated / model
  FCT per panel and scheme, against 1 with the default 25 % tolerance (the paper gives no
  number for its own agreement).

Figs. 9–12, large scale (§4.2)
------------------------------

* **Topology.** "200 hosts are connected via 10 leaf switches, 10 spine switches, and many
  40Gbps links. The switch buffer size is set to 375KB": a leaf-spine of 10 × 10 with 20
  hosts per leaf, every link 40 Gb/s, every port 375 KB (``buffer_kb``).
* **Link delay: not given.** We keep §2's 25 µs, the only delay the paper states: a good
  round trip is 200 µs, a bandwidth-delay product of 1 MB — more than a port's buffer.
* **Bad paths.** "we randomly choose half of the parallel paths ... the round-trip
  propagation delay of bad path is 1.5x": the five spines of §2 (0, 1, 2, 7, 8), every link of
  theirs at 25 · (2 · 1.5 − 1) = 50 µs.
* **DCTCP's K: not given.** 65 packets per 10 Gb/s would make 260, above the 250-packet
  buffer; DCTCP's rule K ≥ C·RTT/7 with the good base RTT (200 µs of propagation plus 1.2 µs
  of serialisation) gives 95.9, so ``topology.ecn_k_pkts = 96``.
* **Traffic.** "100 hosts is randomly selected to send DCTCP flows to the remained hosts":
  hosts drawn once (``numpy.random.default_rng(2).permutation(200)[:100]``), ``pattern =
  "group"``, Poisson arrivals. Workloads: the built-in Data Mining, Web Search, Cache Follower
  and Web Server CDFs. The paper's Table 3 agrees with ours within 2–5 points per bin except
  for Web Search, whose column (59/3/18/20 %) matches no public copy of that workload (all
  give 15/39/16/30; ``crates/dcnsim/src/workload/cdf/README.md``): we use the DCTCP one.
* **"We also vary the load intensity by changing the total number of existing flows from
  10000 to 50000"**: read as N flows arriving in a fixed window, so the load grows with N.
  The window is not given; we put 50 000 flows at load 0.8 of each sender's link, so 10 000,
  20 000, …, 50 000 flows are loads 0.16, 0.32, 0.48, 0.64, 0.8.
* **Flows simulated.** A point measured first: ECMP, 10 000 Data Mining flows at load 0.16,
  122 s and 360 M events on this shared 2-core machine; TR 145 s, RPS 162 s — the full counts
  would be hours per workload. We run the first share of each test's arrivals at that test's
  load: a fifth for Data Mining and Web Search (2 000–10 000 flows), half for Cache Follower,
  all of Web Server's. The share is fixed per workload, so every count runs the same window of
  arrivals. That took 2.5 h of CPU (Data Mining 87 min, Web Search 31, Cache Follower 20, Web
  Server 2), 72 min with ``-j 2``; the full counts would need about 10.5 h of CPU (Data Mining
  7.2 h alone, its heaviest run ~30 min), 5–6 hours on two cores. Set
  ``largescale.RUN_SHARE`` to 1 for them.
* **Schemes**: ECMP, LetFlow, RPS, DRB, Presto and TR as in §4.1, and a second TR whose
  reverse packets are sprayed over the uplinks (``routing.tr_ack_path = "spray"``): how ACKs
  leave their leaf is not said, and at this scale it decides how fresh the spine queues TR
  reads are. The claims are checked on the first TR (the literal reading).
* **Measures** (:mod:`.largescale`), one seed per point: AFCT and 99th-percentile FCT of
  finished short flows, mean throughput of long flows, each over ECMP's at the same point;
  the claims as shares of the five counts; the abstract's "up to" as TR's largest gain over
  any other scheme at any point of the four workloads.

Our numbers beside the paper's, a reading of each difference, what we know of the
large-scale figures and the reproduction's runtimes: ``docs/papers/tr.md``.
"""

from ..figure import Paper
from .largescale import FIGURES as LARGE_FIGURES
from .largescale import HEADLINE
from .microbench import FIG7, FIG8
from .modelcheck import FIG6
from .motivation import FIG2, FIG3

PAPER = Paper(
    name="tr",
    citation="T. Zhang, Y. Lei, Q. Zhang, S. Zou, J. Huang, F. Li, Fine-grained Load Balancing "
             "with Traffic-aware Rerouting in Datacenter Networks, Journal of Cloud Computing 10, "
             "2021 (doi:10.1186/s13677-021-00252-8).",
    figures=(FIG2, FIG3, FIG6, FIG7, FIG8, *LARGE_FIGURES, HEADLINE),
    note="The set-ups, the measures the paper leaves open and every choice are in the module "
         "doc of dcnsim.experiments.tr; our numbers beside the paper's and a reading of each "
         "difference in docs/papers/tr.md.",
)
