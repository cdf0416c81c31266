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
  give 15/39/16/30; ``/work/shared/workloads/README.md``): we use the DCTCP one.
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

What we get: Figs. 2–3 (full run 2026-11-25, 10 seeds)
------------------------------------------------------

Re-run 2026-11-27 (issue 32: hosts push back instead of dropping at their own NIC, and the
window of NewReno and DCTCP grows only while in use): Figs. 2–3, 6 and 7–8 give the numbers
below again to every digit shown, with the same verdicts. At 1 Gb/s with one flow per sender
at a time, a sender's NIC never overflowed here.

10 of the 11 claims reproduced (12 of 13 rows: "no drops" is a row per scheme); the numbers
are those of the first run of these figures (2026-11-24, before TR existed) to the last digit:
adding TR changed nothing for the other schemes. The shared sweep (300 runs, TR's included)
took 433 s of CPU, each run 0.05–5.7 s (the long ones are RPS and DRB crawling through a
giant flow).

* **fig2 (a)** queueing delay of short flows, ratio 1.5 → 3.5: RPS 4.9 → 1.7 µs, ECMP
  18–19 µs, LetFlow 18–30 µs: RPS lowest at every ratio (reproduced). All are small: 18 µs
  is 1.5 packets of queue summed over a packet's hops, far below K = 20.
* **fig2 (b)** retransmission ratio of short flows: RPS 2.6–5.2 %, ECMP and LetFlow 0 at
  every ratio (reproduced). No packet is dropped in any run of any scheme (reproduced), so
  every retransmission is one of reordering, as the paper says of its runs.
* **fig2 (c)** AFCT of short flows: RPS 0.47, 0.55, 0.65, 0.74, 0.82 ms against the better
  of ECMP and LetFlow 0.53, 0.60, 0.67, 0.74, 0.80 ms. RPS is below both at 1.5–2.5 and
  between them at 3.0–3.5 (at 3.5 2 % above LetFlow, 2 % below ECMP): "RPS significantly
  higher" differs (share 0 of 5, paper 1); the gap to the better one does widen at every
  step (−0.06 → +0.016 ms, reproduced). Our reading: 97 % of the short flows are ≤ 10 KB
  (Data Mining), sent in the first window of 10 packets; a reordered packet costs such a flow
  only its own later arrival (the spurious retransmission does not delay the original),
  while RPS spares it the queues behind long flows that ECMP's hashing puts it in. The
  paper's direction does show in the few 10–100 KB flows (2.3 per run): from 2.5 up RPS is
  the slowest (at 3.5 RPS 3.0 ms, ECMP 2.7, LetFlow 2.0), though at 1.5 it is still the
  fastest (1.2 vs 1.8 ms). A smaller initial window (2 packets, 5 seeds) does not change the
  order. What makes tiny flows pay for reordering in the paper's ns-2 runs we do not know.
* **fig3 (a)** s.d. of per-path throughput over the run: RPS 0.13–0.30 Mb/s, LetFlow
  208–213, ECMP 220 Mb/s: RPS lowest, LetFlow between (both reproduced), but LetFlow only
  ~5 % below ECMP: a giant flow sends back to back at line rate, leaves no 500 µs gap and
  keeps its first path as under ECMP.
* **fig3 (b)** retransmission ratio of long flows: RPS 5.6–6.6 %, ECMP and LetFlow 0
  (reproduced).
* **fig3 (c)** total throughput of long flows: LetFlow 14.0 → 12.6, ECMP 12.9 → 11.4, RPS
  8.0 → 2.9 Gb/s (−64 %), falling at every step: LetFlow highest and RPS falling
  (reproduced). RPS's path utilisation at 3.5 is 0.14 against the paper's "about 0.12"
  (+18 %, reproduced; the choice of reading above decides this one).
* **DRB and Presto** (not in the paper's Figs. 2–3): DRB's buffer hides the 50 µs skew of
  ratio 1.5 (no retransmissions) but not the larger ones (from 2.5 up: short 1.2–2.7 %,
  long 0.5–4.9 %); its total throughput collapses at 3.0–3.5 (5 Gb/s), and in 5 of the 10
  seeds at 3.5 its giant flow (~100 Mb/s) is still unfinished at the core's guard, 60 s
  after the last start. Presto retransmits more than RPS on long flows at 4 of the 5 ratios
  (5–19 %; 16–19 % at 3.0–3.5): cell boundaries that skew by more than the 100 µs hold reach
  TCP, and NewReno's partial-ACK retransmissions then resend much of a window that was only
  late (Fig. 8 below).

What we get: Figs. 7–8 (the same 50 runs per scheme)
----------------------------------------------------

12 of 18 claims reproduced (4 of 8 for Fig. 7, 8 of 10 for Fig. 8; this said 13 before the
re-run of 2026-11-27, which gave the same numbers and verdicts: a miscount). TR, numbers for
ratios 1.5 → 3.5:

* **fig7 (a)** short flows' queueing delay: TR 10.0 → 7.3 µs, RPS 4.9 → 1.7, DRB 13.4 → 2.3,
  against ECMP 18–19, LetFlow 18–30, Presto 25–27 → 9.5: RPS, DRB and TR below ECMP, LetFlow and
  Presto at every ratio (reproduced). TR sits between the sprayers and the rest: a short flow
  goes to the earliest uplink, which other short flows choose too.
* **fig7 (b)** short flows' retransmission ratio: TR 0 at every ratio (reproduced) — and no
  packet of TR's was dropped in any of its 50 runs. On two leaves each spine's queue towards
  leaf1 is fed by one uplink at its own rate and stays empty, so eq. (1) is exact; 70 of
  28.5 M data packets arrived out of order, every one a pair of packets whose TNLs were
  exactly equal (they swap at the far leaf; one duplicate ACK each; lb/tr.rs). RPS 2.6, 3.6,
  5.2, 5.1, 4.5 %, DRB 0, 0.1, 1.2, 2.5, 2.7 %, Presto ≤ 0.75 %. "RPS and DRB highest" holds
  at 4 ratios of 5 (**differs**, 0.8): at 1.5 DRB's 100 µs hold hides the 50 µs skew (0 %,
  below Presto's 0.75 %). "Increasingly serious" holds for DRB at every step, for RPS at 2
  of 4 (**differs**, 0.5): its ratio peaks at 2.5 — 97 % of the short flows are ≤ 10 KB, one
  window, and once the skew outlasts the window more skew reorders nothing more.
* **fig7 (c)** AFCT of short flows: TR 0.45, 0.46, 0.47, 0.48, 0.48 ms, the lowest at every
  ratio (reproduced) and flat, against the best other 0.47 (RPS) at 1.5 and 0.79 (Presto) at
  3.5: 3 % to 40 % lower. "RPS much worse than the others" holds at no ratio (**differs**, 0),
  as in Fig. 2 (c) and for the reason given there.
* **fig7 (d)** 99th-percentile FCT of short flows: TR 1.17–1.30 ms, the lowest at 4 ratios
  of 5 (**differs**, 0.8): at 1.5 RPS's is 1.07 ms. At 3.5 the others take 1.83–2.41 ms.
* **fig8 (a)** s.d. of per-path throughput: DRB 0.004–0.019 Mb/s, RPS 0.13–0.30, Presto
  0.15–0.28, TR 74–103, LetFlow 209–213, ECMP 220. RPS and DRB the most balanced at 4 of 5
  (**differs**, 0.8): at 1.5 Presto's round-robin flowcells (0.28) beat RPS (0.30). TR
  spreads long flows less than the sprayers: a long flow takes the uplink with the fewest
  short flows, so stretches of a giant flow stay on one path.
* **fig8 (b)** long flows' retransmission ratio: ECMP, LetFlow and TR 0 (reproduced); RPS
  5.6–6.6 %, DRB 0–4.9 %. Presto 8.5, 5.0, 8.2, 16.1, 18.7 % (**differs**: the paper counts it
  among the schemes that avoid reordering). Why, from the reproducer (flow 46 of the Fig. 2
  set-up with spines 5–9 at 50 µs, seed 1, an 834 MB flow): 5 371 segments arrived late —
  cell boundaries whose skew, queues included, outlasted the receiver's 100 µs hold — and
  each triggered a fast retransmit; the cumulative ACKs that follow are partial ACKs (the
  "lost" segments were only late), and NewReno (RFC 6582, no SACK) resends one segment per
  partial ACK, i.e. the rest of the window: 64 retransmissions per window cut, 526 172 spurious
  retransmissions of 1 097 738 packets. Both are as specified (Presto's hold time is not
  given; NewReno's partial-ACK rule is the RFC's); a longer hold or a SACK/DSACK sender would
  hide them. Left as is.
* **fig8 (c)** total throughput of long flows: TR 14.8, 14.7, 14.7, 14.6, 14.6 Gb/s, the
  highest at every ratio, above Presto (12.8 → 8.6) and flat (3.5 over 1.5: 0.99) — all
  reproduced; RPS (8.0 → 2.9) and DRB (13.5 → 4.7) fall at every step (reproduced).

What we get: Fig. 6 (110 runs, 2 s of CPU)
------------------------------------------

6 of 10 claims reproduced (this said 5 before the re-run of 2026-11-27, which gave the same
numbers and verdicts: a miscount). Mean FCT (ms), simulation / model:

* (a) 20 flows, 100 → 350 KB: RPS 4.75 / 2.94 … 16.3 / 10.2; TR 1.92 / 2.70 … 6.61 / 9.39.
* (b) 300 KB, 10 → 50 flows: RPS 12.9 / 4.39, 13.7 / 8.79, 14.4 / 13.2, 15.8 / 17.6,
  17.0 / 22.0; TR 6.17 / 4.03, 5.76 / 8.06, 9.86 / 12.1, 11.1 / 16.1, 14.2 / 20.1.

TR is below RPS at every point of both panels in simulation, as in the model (reproduced);
every FCT grows with the size (reproduced) and RPS's with the number of flows (reproduced).
TR's does not from 10 to 20 flows (**differs**, 3 steps of 4): at 10 flows two seeds of
five take 11.5 and 9.7 ms (the other three 3.1). What happens there is TR's own rules at work:
when the flows pass 100 KB they become long and all move to the uplink with the fewest short
flows — one uplink takes 8 of the 10; its queue soon delays their packets more than any other
path would, so no other uplink passes the TNL filter and they stay (the fallback keeps the
previous uplink), until its 250-packet buffer overflows and retransmission timeouts free
them.

"Basically close" (geometric mean of simulation / model, default tolerance 25 %): TR 0.72
(a, **differs**) and 0.85 (b, reproduced); RPS 1.59 (a) and 1.28 (b), both **differ**. Our
reading: eq. (8) is a worst case by construction (every packet on a bad path) and charges
the sawtooth's 4/3 although the bottleneck — each sender's 1 Gb/s link — stays busy: 20 flows
of 100 KB take 1.92 ms here, 1.6 ms at line rate, 2.70 ms in the model. Eq. (7) lets
reordering halve RPS's window once (w = nB/2N); a NewReno sender halves it at every spurious
fast retransmit and resends the window on partial ACKs, so at few flows RPS is 1.5–3× slower
than the model, and from 40 flows on the model's queueing term N·w·t/n, which grows with N,
overtakes the simulation. The directions agree; the magnitudes do not, by 15–60 %.

What we get: Figs. 9–12 (245 runs)
----------------------------------

Re-run in full 2026-11-27 with hosts that push back instead of dropping at their own NIC
(issue 32): the same verdicts as before, and TR's ratios to ECMP within 0.04 of the earlier
run's. Hosts held 35 000 (Web Server) to 1.6 million (Data Mining) packets per point and
dropped none of their own.

12 of 27 claims reproduced. Over ECMP at the same point, loads 0.16 → 0.8:

* **Short flows gain, everywhere.** TR's short-flow AFCT is the lowest of all schemes at
  every point of every workload (reproduced ×4): 0.86–0.87 of ECMP's for Data Mining, 0.81–0.92
  Web Search, 0.78–0.82 Cache Follower, 0.80–0.86 Web Server. Its tail is the lowest at every
  point for Data Mining (0.87–0.88) and Cache Follower (0.68–0.81, both reproduced), at 4 of
  5 for Web Server (0.66–0.72, but 1.08 at the highest load; **differs**) and at 1 of 5 for
  Web Search (0.72–1.48; **differs**).
* **Long flows lose, everywhere.** TR's long-flow throughput is 0.59–0.95 of ECMP's (Data
  Mining), 0.69–0.81 (Web Search), 0.70–0.81 (Cache Follower), 0.59–1.01 (Web Server): the
  highest at no point but one (**differs** ×4; the paper: "always better"). Two causes, both
  measured. (1) Reordering: TR's long flows retransmit 29–34 % (Data Mining), 15–27 % (Web
  Search), 13–26 % (Cache Follower) and 8–11 % (Web Server) of their packets spuriously,
  short flows up to 9 %, while ECMP, LetFlow and DRB retransmit none. Ten leaves feed each
  spine port, so the queue a packet meets there is not the one reported (lb/tr.rs, "When the
  prediction holds"); TR's prediction holds on two leaves only. Each spurious fast
  retransmit makes NewReno resend a window (see Presto above). In Data Mining that costs
  2 100–51 000 drops, all at switches, against ECMP's 180–1 800. (Before issue 32 the
  senders' own NICs dropped most of those resent windows: 25 000–236 000 drops, and 5–17 %
  of long flows' packets counted as spurious; the throughput ratios moved by at most 0.02.)
  (2) The long-flow rule: a long flow goes to the uplink with the fewest short
  flows whatever its queue, and the TNL filter then keeps it there; with reverse packets
  sprayed (``tr_ack_path = "spray"``, drawn grey) reordering falls to 0.1–4 % but long
  flows still get 0.56–1.02 of ECMP's, and in Web Server both TR variants drop 10³–10⁵
  packets at the leaves' uplinks (ECMP 0–1 600).
* **"RPS and DRB are always worse than the others"** holds for RPS on every measure, not
  for DRB on long flows: its receiver buffer (100 µs) hides the 50 µs skew of the 1.5×
  paths, so DRB has no spurious retransmission at all here, and the best long-flow throughput
  at 13 of the 15 points of Data Mining, Web Search and Cache Follower (0.92–1.34 of ECMP;
  Presto at the two lightest Cache Follower points). The claim holds on short-flow AFCT
  for Data Mining and Web Search, on the tail for Data Mining and Cache Follower; it fails
  (0–0.4) on every other pair (**differs** ×8).
* **The headline** ("up to 60 % and 80 % lower mean and tail FCT, up to 3.02× the
  throughput"): TR's largest AFCT reduction over any scheme at any point is 41 % (**differs**
  by 0.19), its largest tail reduction 69 % (reproduced, −0.11) and its largest throughput
  gain 3.55× (reproduced, +17 %) — all three against RPS, whose reordering is worst. Against
  ECMP, LetFlow and Presto TR gains 8–22 % in mean short-flow FCT and loses long-flow
  throughput.

Our reading of the large-scale differences: the paper's TR is exact on the §2 layout, where
we reproduce it, and its §4.2 gains for long flows need a delay prediction that a leaf cannot
make when other leaves share the spine ports — unless the paper's simulator fed TR something
fresher than reverse ACKs, or used a TCP that tolerates reordering (SACK with DSACK undo);
neither is said. The link delay (not given; 25 µs here) and the load per flow count (our
reading) move the numbers, not the mechanism. Unchanged by the sampling: each point runs the
first fifth (Data Mining, Web Search) or half (Cache Follower) of the test's flows.

Runtimes
--------

The whole reproduction: 2.5 h of CPU, about 80 min with ``-j 2`` on two cores shared with
other work (the two-leaf sweep 433 s of CPU, Fig. 6 2 s, the large scale 2.4 h).
``--quick`` runs every figure in about 80 s.
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
         "doc of dcnsim.experiments.tr, with our numbers beside the paper's and a reading of "
         "each difference.",
)
