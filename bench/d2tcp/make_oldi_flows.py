#!/usr/bin/env python3
"""Makes an OLDI fan-in flow list (CSV src,dst,size_bytes,start_s,deadline_s) for D2TCP vs DCTCP.

After the shape of D2TCP's workload (Vamanan et al., SIGCOMM 2012, abstract: OLDI
applications' tree-based algorithms "result in bursts of children-to-parent traffic with tight
deadlines"), beside deadline-agnostic background traffic. Queries arrive as a Poisson process;
each picks a parent (among `--parents` aggregators spread over the host ids, or any host) and
`--fanin` distinct other hosts as children, and at the query's arrival every child starts one
response of `--resp-kb` to the parent. Deadlines, relative to the start, are uniform in
[--deadline-min-ms, --deadline-max-ms], or with --slack-min/--slack-max uniform in that range
times the burst's time alone on the parent's link (fanin x resp at the host rate); one per query
(every response of a burst alike) or, with --per-flow-deadline, one per response. Background
flows without a deadline (sizes uniform in [--bg-min-kb, --bg-max-kb], random pairs) arrive as
a Poisson process of their own until the last query. The paper's set-up could not be read, so
every value here is ours; see bench/d2tcp/README.md.

Rates: queries arrive at

    lambda_q = oldi_load * parents * host_rate / (8 * fanin * resp_bytes)       queries/s

so `--oldi-load` is the share of the parents' links the responses offer on average (every
response byte ends on its parent's link); background flows at
bg_load * hosts * host_rate / (8 * mean size).

    python3 bench/d2tcp/make_oldi_flows.py --hosts 48 --host-gbps 10 --parents 4 --fanin 20 \
        --resp-kb 200 --oldi-load 0.3 --bg-load 0.1 --slack-min 1.2 --slack-max 4 \
        --queries 100 --out bench/out/d2tcp/oldi_fanin.csv
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hosts", type=int, default=40)
    ap.add_argument("--host-gbps", type=float, default=1.0)
    ap.add_argument("--fanin", type=int, default=20)
    ap.add_argument("--resp-kb", type=float, default=20.0, help="response size, KB = 1000 B")
    ap.add_argument("--parents", type=int, default=0,
                    help="parents (aggregators) spread evenly over the host ids; 0: every host")
    ap.add_argument("--oldi-load", type=float, default=0.3)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--deadline-min-ms", type=float, default=5.0)
    ap.add_argument("--deadline-max-ms", type=float, default=25.0)
    ap.add_argument("--slack-min", type=float, default=None,
                    help="instead of --deadline-*-ms: deadline = U[slack-min, slack-max] x the "
                         "burst's time alone on the parent's link (fanin x resp at host rate)")
    ap.add_argument("--slack-max", type=float, default=None)
    ap.add_argument("--per-flow-deadline", action="store_true",
                    help="draw each response's deadline on its own (default: one per query)")
    ap.add_argument("--bg-load", type=float, default=0.3)
    ap.add_argument("--bg-min-kb", type=float, default=1000.0)
    ap.add_argument("--bg-max-kb", type=float, default=10000.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not 1 <= a.fanin < a.hosts:
        ap.error("--fanin must be at least 1 and below --hosts")
    rng = random.Random(a.seed)
    rate = a.host_gbps * 1e9
    resp = round(a.resp_kb * 1000)
    parents = ([i * a.hosts // a.parents for i in range(a.parents)] if a.parents
               else list(range(a.hosts)))
    lam_q = a.oldi_load * len(parents) * rate / (8 * a.fanin * resp)
    rows = []
    t = 0.0
    for _ in range(a.queries):
        t += rng.expovariate(lam_q)
        parent = rng.choice(parents)
        children = rng.sample([h for h in range(a.hosts) if h != parent], a.fanin)
        def draw():
            if a.slack_min is not None:
                burst_s = a.fanin * resp * 8 / rate
                return rng.uniform(a.slack_min, a.slack_max) * burst_s
            return rng.uniform(a.deadline_min_ms, a.deadline_max_ms) / 1e3
        deadline = draw()
        for c in children:
            rows.append((t, c, parent, resp, draw() if a.per_flow_deadline else deadline))
    end = t
    if a.bg_load > 0:
        mean = (a.bg_min_kb + a.bg_max_kb) / 2 * 1000
        lam_b = a.bg_load * a.hosts * rate / (8 * mean)
        t = 0.0
        while True:
            t += rng.expovariate(lam_b)
            if t > end:
                break
            src = rng.randrange(a.hosts)
            dst = rng.choice([h for h in range(a.hosts) if h != src])
            size = round(rng.uniform(a.bg_min_kb, a.bg_max_kb) * 1000)
            rows.append((t, src, dst, size, None))
    rows.sort(key=lambda r: r[0])
    with open(a.out, "w") as f:
        f.write("src,dst,size_bytes,start_s,deadline_s\n")
        for t, s, d, size, dl in rows:
            f.write(f"{s},{d},{size},{t:.9f},{'' if dl is None else f'{dl:.9f}'}\n")


if __name__ == "__main__":
    main()
